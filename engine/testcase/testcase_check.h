// Running the test cases a test-case file holds (formats/testcase_file.h) the way
// load_and_run does: each case's values feed the model's inputs in the order of
// their sorted names, and every AssertEqual output passes when its err (the
// graph's own measure, max |expect − get| / max(min(|expect|, |get|), 1)) is
// within [0, maxerr].
#pragma once

#include <string>
#include <vector>

#include "engine/eval/evaluator.h"
#include "formats/testcase_file.h"

namespace mgedump::engine::testcase {

struct OutputCheck {
    std::string name;   // the output compared (AssertEqual's input 1)
    double err = 0;     // NaN when a value is NaN where the other is not
    double maxerr = 0;  // the AssertEqual's param
    bool passed() const { return err >= 0 && err <= maxerr; }
};

struct CaseCheck {
    std::vector<OutputCheck> outputs;
    std::string problem;  // why the case could not run ("" when it ran)
    bool ok() const;
};

struct TestcaseReport {
    std::vector<std::string> input_names;  // sorted: what each case holds
    size_t asserts = 0;  // AssertEqual outputs of the model; 0: written with no_assert (nothing to compare)
    std::vector<CaseCheck> cases;
    bool ok() const;
};

// The values a test-case graph holds, in its output order.
std::vector<eval::Tensor> case_values(const ir::Graph& testcase);

// Every case run; a case that cannot run (a value count, dtype or shape that does
// not fit, an operator the evaluator refuses) is reported, not thrown.
TestcaseReport check_testcases(const formats::TestcaseFile& f, const eval::EvalOptions& options = {});

}  // namespace mgedump::engine::testcase
