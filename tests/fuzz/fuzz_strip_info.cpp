// libFuzzer target: the strip-info merge of --append-json (the existing file's text).
// Anything but success or an mgedump::Error is a bug. The body is
// targets/strip_info.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_strip_info/.
#include <cstddef>
#include <cstdint>

#include "targets/strip_info.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_strip_info(data, size);
}
