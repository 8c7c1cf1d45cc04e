// trace.dump's test-case parameters (input_data, repeat, silent, no_assert,
// maxerr: imperative/python/megengine/jit/tracing.py), with its defaults. Given
// input data, an artifact is a test-case file (engine/testcase/testcase_dump.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mgedump::engine::testcase {

struct TestcaseOptions {
    // One SPEC per test case (engine/testcase/input_data.h); "@FILE" entries list SPECs.
    std::vector<std::string> input_data;
    uint32_t repeat = 1;   // file data repeated along axis 0
    double maxerr = 1e-4;  // AssertEqual's maxerr
    // No AssertEqual and no expected values: the test cases only feed the model
    // (MegEngine: useful for benchmarking).
    bool no_assert = false;
    // AssertEqual's verbose is `not silent`: load_and_run prints each err.
    bool silent = false;
    // mgedump's: the random streams' seed (MegEngine's numpy draws are unseeded).
    uint64_t seed = 0;
    // mgedump's: where relative .npy and @FILE paths are (empty: the current
    // directory). Not part of what an artifact is made of: the files' bytes are.
    std::filesystem::path data_dir;
};

// Throws OptionError for values that cannot make a test-case file: no input data,
// repeat 0, a negative or non-finite maxerr.
void check_testcase_options(const TestcaseOptions& o);

}  // namespace mgedump::engine::testcase
