// What the `mgedump` executable loads and sets up when it starts. A start was most
// of the gap between `mgedump dump model.onnx` and `cp` of the file (#17), and most
// of a start was loading and relocating shared libraries, the allocations of their
// static initializers, and page faults: full protobuf (registering every ONNX
// message's descriptor), Debian's libonnx_proto built for it and the zlib it
// brings. The ONNX classes are generated for protobuf-lite (cmake/onnx.cmake) and
// the heap prefers 2 MiB pages (tools/cli/main.cpp); this keeps both so.
#include <fmt/format.h>
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
// Runs `env mgedump args` with mimalloc's options printed and checks the
// large_os_pages value it reports (1 or 0).
void expect_large_pages(const std::string& env, const std::string& args, int expected) {
    const CliRun run = run_shell("MIMALLOC_VERBOSE=1 " + env + " " + cli_path() + " " + args + " 2>&1");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find(fmt::format("option 'large_os_pages': {}", expected)), std::string::npos)
        << env << " mgedump " << args << ":\n" << run.out;
}

TEST(CliStartupHeap, PrefersLargeOsPagesUnlessTheEnvironmentSaysNo) {
    expect_large_pages("", "--version", 1);
    expect_large_pages("MIMALLOC_LARGE_OS_PAGES=0", "--version", 0);
}

TEST(CliStartupHeap, BatchKeepsSmallPagesUnlessTheEnvironmentSaysYes) {
    expect_large_pages("", "batch --help", 0);
    expect_large_pages("", "dump --help", 1);
    expect_large_pages("MIMALLOC_LARGE_OS_PAGES=1", "batch --help", 1);
}
#endif

}  // namespace
}  // namespace mgedump::test
