// trace.dump's test-case parameters as flags (dump: --input-data; batch:
// --testcases, the default test cases of every job), engine/testcase/testcase_options.h.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/testcase/testcase_options.h"

namespace mgedump::cli {

struct TestcaseFlags {
    std::vector<std::string> input_data;
    double maxerr = 1e-4;
    bool no_assert = false;
    uint32_t repeat = 1;
    bool silent = false;
    uint64_t seed = 0;
};

// `input_flag` names the SPEC option ("--input-data", "--testcases").
void add_testcase_flags(CLI::App& cmd, TestcaseFlags& flags, std::string_view input_flag);
// nullopt without input data; throws OptionError for another test-case flag
// given without it.
std::optional<engine::testcase::TestcaseOptions> to_testcase_options(const TestcaseFlags& flags,
                                                                     std::string_view input_flag);

}  // namespace mgedump::cli
