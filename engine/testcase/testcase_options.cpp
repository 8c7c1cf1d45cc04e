#include "engine/testcase/testcase_options.h"

#include <fmt/format.h>

#include <cmath>

#include "ir/error.h"

namespace mgedump::engine::testcase {

void check_testcase_options(const TestcaseOptions& o) {
    if (o.input_data.empty())
        throw OptionError(
            "test cases need input data (input_data: one SPEC per test case); repeat, maxerr, "
            "no_assert and silent only apply with it");
    if (o.repeat == 0) throw OptionError("test cases: repeat must be at least 1");
    if (!std::isfinite(o.maxerr) || o.maxerr < 0)
        throw OptionError(fmt::format("test cases: maxerr must be a finite number >= 0, not {}", o.maxerr));
}

}  // namespace mgedump::engine::testcase
