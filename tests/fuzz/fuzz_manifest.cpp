// libFuzzer target: the batch manifest parser (JSON and JSON Lines, option objects), then dumps with each variant's options.
// Anything but success or an mgedump::Error is a bug. The body is
// targets/manifest.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_manifest/.
#include <cstddef>
#include <cstdint>

#include "targets/manifest.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_manifest(data, size);
}
