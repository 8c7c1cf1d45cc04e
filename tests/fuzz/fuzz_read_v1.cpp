// libFuzzer target: the FBS v1 reader (MGBC/MGBS), then a re-dump.
// Anything but success or an mgedump::Error is a bug. The body is
// targets/read_v1.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_read_v1/.
#include <cstddef>
#include <cstdint>

#include "targets/read_v1.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_read_v1(data, size);
}
