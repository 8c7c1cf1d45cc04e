// libFuzzer target: the ONNX import from bytes (import_onnx_bytes), then a dump.
// Anything but success or an mgedump::Error is a bug. The body is
// targets/onnx.cpp, included rather than linked: each fuzz executable is built from
// its one entry file (CMakeLists.txt, MGEDUMP_FUZZ), while mgedump_tests compiles
// the body on its own to replay tests/fuzz/regressions/fuzz_onnx/.
#include <cstddef>
#include <cstdint>

#include "targets/onnx.cpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return mgedump::fuzz::fuzz_onnx(data, size);
}
