// libFuzzer target: the mgbtest0 test-case reader, then re-dumps of the model and its cases.
// Anything but success or an mgedump::Error is a bug. The body is
// targets/testcase.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_testcase/.
#include <cstddef>
#include <cstdint>

#include "targets/testcase.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_testcase(data, size);
}
