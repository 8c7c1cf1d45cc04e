// What the `mgedump` executable loads and sets up when it starts. A start was most
// of the gap between `mgedump dump model.onnx` and `cp` of the file (#17), and most
// of a start was loading and relocating shared libraries, the allocations of their
// static initializers, and page faults: full protobuf (registering every ONNX
// message's descriptor), Debian's libonnx_proto built for it and the zlib it
// brings. The ONNX classes are generated for protobuf-lite (cmake/onnx.cmake) and
// the heap prefers 2 MiB pages (tools/cli/main.cpp); this keeps both so.
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

#if MGEDUMP_USES_MIMALLOC
// mimalloc prints its options with MIMALLOC_VERBOSE=1: large_os_pages is on by
// default for the one-model commands, off for `batch`, and the environment can
// still decide either way.
TEST(CliStartupHeap, PrefersLargeOsPagesUnlessTheEnvironmentSaysNo) {
    const CliRun on = run_shell("MIMALLOC_VERBOSE=1 " + cli_path() + " --version 2>&1");
    EXPECT_EQ(on.status, 0) << on.out;
    EXPECT_NE(on.out.find("option 'large_os_pages': 1"), std::string::npos) << on.out;
    const CliRun off = run_shell("MIMALLOC_VERBOSE=1 MIMALLOC_LARGE_OS_PAGES=0 " + cli_path() + " --version 2>&1");
    EXPECT_EQ(off.status, 0) << off.out;
    EXPECT_NE(off.out.find("option 'large_os_pages': 0"), std::string::npos) << off.out;
}

TEST(CliStartupHeap, BatchKeepsSmallPagesUnlessTheEnvironmentSaysYes) {
    const CliRun batch = run_shell("MIMALLOC_VERBOSE=1 " + cli_path() + " batch --help 2>&1");
    EXPECT_EQ(batch.status, 0) << batch.out;
    EXPECT_NE(batch.out.find("option 'large_os_pages': 0"), std::string::npos) << batch.out;
    const CliRun dump = run_shell("MIMALLOC_VERBOSE=1 " + cli_path() + " dump --help 2>&1");
    EXPECT_EQ(dump.status, 0) << dump.out;
    EXPECT_NE(dump.out.find("option 'large_os_pages': 1"), std::string::npos) << dump.out;
    const CliRun asked =
        run_shell("MIMALLOC_VERBOSE=1 MIMALLOC_LARGE_OS_PAGES=1 " + cli_path() + " batch --help 2>&1");
    EXPECT_EQ(asked.status, 0) << asked.out;
    EXPECT_NE(asked.out.find("option 'large_os_pages': 1"), std::string::npos) << asked.out;
}
#endif

}  // namespace
}  // namespace mgedump::test
