// The dump command end to end, as a user runs it: real files, exit codes, and no
// partial artifact on error.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <iterator>
#include <sstream>

#include "cli_run.h"
#include "fb_peek.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

using test::CliRun;

CliRun run(const std::string& args) { return test::run_cli(args); }

class CliDump : public test::TempDirTest {
  protected:
    CliDump() : TempDirTest("mgedump_cli_") {}
};

// The spec's Appendix C graph (names as there). Its shapes are all static, so as
// FBS_V2 it is C.3 (760 bytes; C.2's 712 lack the MiddleTensor shapes) but for the
// arbitrary original_id, a scalar of the same size; as FBS v1 it is C.1's 492.
const char* const kGraph = test::kAppendixCGraph;

TEST_F(CliDump, WritesTheArtifactAndPrintsTheResult) {
    std::string g = write("g.json", kGraph);
    CliRun r = run("dump " + g + " -o " + (dir / "g.mge").string() + " --json");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(fs::file_size(dir / "g.mge"), 760u);  // the Appendix C model as FBS_V2 (C.3)
    EXPECT_NE(r.out.find("\"nr_opr\": 3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"outputs\""), std::string::npos) << r.out;
}

TEST_F(CliDump, BadGraphGivesANonZeroExitAndNoOutputFile) {
    std::string g = write("bad.json", R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "x", "dtype": "Float32", "shape": [2]}],
      "operators": [{"op": "Frobnicate", "name": "f1", "inputs": ["x"], "outputs": ["y"]}], "outputs": ["y"]})");
    CliRun r = run("dump " + g + " -o " + (dir / "bad.mge").string());
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("Frobnicate"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("bad.json"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "bad.mge"));
    for (auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().extension(), ".json") << e.path();
}

TEST_F(CliDump, ImpossibleOptionsAreRejectedBeforeAnythingIsWritten) {
    std::string g = write("g.json", kGraph);
    CliRun r = run("dump " + g + " -o " + (dir / "g.mge").string() + " --compat-older-version 8.14");
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("FBS"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "g.mge"));
}

// The docstring: model_version "works only when dump format is FBS_V2". A flag
// given that cannot take effect is refused (exit 2, nothing written), in dump and
// in convert; with FBS_V2 it is written, and without the flag FBS is fine.
TEST_F(CliDump, AModelVersionGivenWithFbsIsRefusedAndNothingWritten) {
    std::string g = write("g.json", kGraph);
    const std::string out = (dir / "g.mge").string();
    for (const char* version : {"1", "2"}) {
        CliRun r = run("dump " + g + " -o " + out + " --dump-format FBS --model-version " + version);
        EXPECT_EQ(r.status, 2) << r.out;
        EXPECT_NE(r.out.find(std::string("--model-version ") + version + " applies to FBS_V2 only"), std::string::npos)
            << r.out;
        EXPECT_FALSE(fs::exists(out));
    }
    ASSERT_EQ(run("dump " + g + " -o " + out + " --dump-format FBS").status, 0);
    EXPECT_EQ(fs::file_size(out), 492u);  // C.1
    const std::string v1_bytes = test::file_bytes(out);

    const std::string converted = (dir / "c.mge").string();
    CliRun r = run("convert " + out + " -o " + converted + " --dump-format FBS --model-version 1");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("applies to FBS_V2 only"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(converted));
    EXPECT_EQ(test::file_bytes(out), v1_bytes);  // the input untouched

    ASSERT_EQ(run("convert " + out + " -o " + converted + " --model-version 1").status, 0);
    const std::string s = test::file_bytes(converted);
    std::vector<std::byte> b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    EXPECT_EQ(test::v2_root(b)->GetField<uint32_t>(test::slot(test::v2::model_version), 0), 1u);
}

TEST_F(CliDump, SeveralGraphsGoIntoOneFileOneAfterTheOther) {
    std::string g = write("g.json", kGraph);
    std::string out = (dir / "two.mge").string();
    ASSERT_EQ(run("dump " + g + " " + g + " -o " + out).status, 0);
    EXPECT_EQ(fs::file_size(out), 2 * 760u);  // C.3's size, twice
    ASSERT_EQ(run("dump " + g + " -o " + out + " --append --dump-format FBS").status, 0);
    EXPECT_EQ(fs::file_size(out), 2 * 760u + 492u);  // plus the Appendix C model as FBS v1
}

TEST_F(CliDump, ConvertKeepsTheVersionNumberOnlyWithinTheSameFormat) {
    auto read = [](const fs::path& p) {
        const std::string s = test::file_bytes(p);
        std::vector<std::byte> b(s.size());
        std::memcpy(b.data(), s.data(), s.size());
        return b;
    };
    std::string real = test::realdata_dir() + "/chenls_xornet_deploy.mge";  // mgb_version 801100 (README)
    ASSERT_EQ(run("convert " + real + " -o " + (dir / "same.mge").string() + " --dump-format FBS").status, 0);
    auto same = read(dir / "same.mge");
    EXPECT_EQ(test::v1_root(same)->GetField<uint32_t>(test::slot(test::v1::mgb_version), 0), 801100u);
    ASSERT_EQ(run("convert " + real + " -o " + (dir / "v2.mge").string()).status, 0);  // FBS_V2 by default
    auto v2 = read(dir / "v2.mge");
    EXPECT_EQ(test::v2_root(v2)->GetField<uint32_t>(test::slot(test::v2::mge_version), 0), 101304u);
}

TEST_F(CliDump, VersionNamesTheAllocatorOfThisBuild) {
    CliRun r = run("--version");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find(MGEDUMP_USES_MIMALLOC ? "allocator mimalloc 2." : "allocator the sanitizer's"),
              std::string::npos)
        << r.out;
}

TEST_F(CliDump, MimallocReallyServesTheAllocations) {
    // The dynamic linker's own account: malloc and free, even libc's internal
    // uses, are bound to libmimalloc, not to glibc's allocator. Sanitizer builds
    // link no mimalloc (ASan owns malloc there), so there must be no binding to it.
    std::string out = test::run_shell("LD_DEBUG=bindings " + test::cli_path() + " --version").out;
    std::istringstream lines(out);
    std::string line;
    int malloc_bindings = 0, to_mimalloc = 0;
    while (std::getline(lines, line)) {
        if (line.find("normal symbol `malloc'") == std::string::npos) continue;
        ++malloc_bindings;
        auto target = line.find(" to ");
        to_mimalloc += target != std::string::npos && line.find("libmimalloc", target) != std::string::npos;
    }
    EXPECT_GT(malloc_bindings, 0) << out.substr(0, 2000);
    EXPECT_EQ(to_mimalloc, MGEDUMP_USES_MIMALLOC ? malloc_bindings : 0) << out.substr(0, 2000);
}

}  // namespace
}  // namespace mgedump
