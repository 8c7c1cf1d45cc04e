#include "tools/cli/testcase_flags.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::cli {

void add_testcase_flags(CLI::App& cmd, TestcaseFlags& f, std::string_view input_flag) {
    const bool batch = input_flag == "--testcases";
    cmd.add_option(
           std::string(input_flag), f.input_data,
           std::string(batch ? "make every artifact (of jobs without input_data of their own) " : "write ") +
               "a self-checking test-case file (MegEngine's mgbtest0, what trace.dump(input_data=...) "
               "writes and load_and_run checks): one SPEC per test case, as MegEngine takes it: "
               "'name:a.npy;name2:b.npy', 'a.npy' (one-input model), '#rand(min,max)' (every input), "
               "'name:#rand(min,max[,d0,...])', '@FILE' (a SPEC a line); repeat the flag for more test "
               "cases" +
               (batch ? "; #rand values are seeded per job (--testcase-seed and the job's input)" : ""))
        ->type_name("SPEC")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // one SPEC per flag, never the next argument
    cmd.add_option("--maxerr", f.maxerr, "AssertEqual's maxerr for the test cases (default 1e-4)");
    cmd.add_flag("--no-assert", f.no_assert,
                 "test cases without expected values: no AssertEqual, the inputs only (for benchmarking)");
    cmd.add_option("--repeat", f.repeat,
                   "repeat .npy test-case data N times along axis 0 (numpy.repeat; default 1)")
        ->check(CLI::Range(1u, 1u << 30));
    cmd.add_flag("--silent", f.silent, "AssertEqual verbose=false: load_and_run does not print each err");
    cmd.add_option("--testcase-seed", f.seed,
                   "seed of the #rand test-case values (default 0; MegEngine's are unseeded numpy draws)");
}

std::optional<engine::testcase::TestcaseOptions> to_testcase_options(const TestcaseFlags& f,
                                                                     std::string_view input_flag) {
    if (f.input_data.empty()) {
        const TestcaseFlags defaults;
        if (f.maxerr != defaults.maxerr || f.no_assert || f.repeat != 1 || f.silent || f.seed != 0)
            throw OptionError(
                fmt::format("--maxerr, --no-assert, --repeat, --silent and --testcase-seed are for test "
                            "cases: give {} SPEC too",
                            input_flag));
        return std::nullopt;
    }
    engine::testcase::TestcaseOptions o;
    o.input_data = f.input_data;
    o.maxerr = f.maxerr;
    o.no_assert = f.no_assert;
    o.repeat = f.repeat;
    o.silent = f.silent;
    o.seed = f.seed;
    engine::testcase::check_testcase_options(o);
    return o;
}

}  // namespace mgedump::cli
