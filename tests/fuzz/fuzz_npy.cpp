// libFuzzer target: the .npy reader (header and payload), then a dump of the array as a constant.
// Anything but success or an mgedump::Error is a bug. The body is
// targets/npy.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_npy/.
#include <cstddef>
#include <cstdint>

#include "targets/npy.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_npy(data, size);
}
