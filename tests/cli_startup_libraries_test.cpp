// What the `mgedump` executable loads when it starts. A start was most of the gap
// between `mgedump dump model.onnx` and `cp` of the file (#17), and most of a start
// was loading and relocating shared libraries and the allocations of their static
// initializers: full protobuf (registering every ONNX message's descriptor), Debian's
// libonnx_proto built for it and the zlib it brings. The ONNX classes are generated
// for protobuf-lite (cmake/onnx.cmake); this keeps the others from coming back.
#include <gtest/gtest.h>

#include <string>

#include "cli_run.h"

namespace mgedump::test {
namespace {

std::string loaded_libraries() {
    const CliRun r = run_shell("ldd " + cli_path() + " 2>&1");
    EXPECT_EQ(r.status, 0) << r.out;
    return r.out;
}

TEST(CliStartupLibraries, ListIsRead) {
    // ldd's output is what the other checks read: it names the C library and the
    // lite protobuf runtime the ONNX import does need.
    const std::string libs = loaded_libraries();
    EXPECT_NE(libs.find("libc.so.6"), std::string::npos) << libs;
    EXPECT_NE(libs.find("libprotobuf-lite.so"), std::string::npos) << libs;
}

TEST(CliStartupLibraries, NoFullProtobufNorDebianOnnxProto) {
    const std::string libs = loaded_libraries();
    EXPECT_EQ(libs.find("libprotobuf.so"), std::string::npos) << libs;
    EXPECT_EQ(libs.find("libonnx_proto"), std::string::npos) << libs;
    EXPECT_EQ(libs.find("libonnx.so"), std::string::npos) << libs;
    EXPECT_EQ(libs.find("libz.so"), std::string::npos) << libs;
}

TEST(CliStartupLibraries, NoOpenBlasAtStart) {
    // The evaluator loads OpenBLAS at its first matrix product (engine/eval/blas_library.h).
    const std::string libs = loaded_libraries();
    EXPECT_EQ(libs.find("openblas"), std::string::npos) << libs;
}

}  // namespace
}  // namespace mgedump::test
