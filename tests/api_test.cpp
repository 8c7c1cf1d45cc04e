// The embedding API (api/mgedump.h) gives what the command line gives: the same
// bytes for the same graph and options, files read back, batches run.
#include "api/mgedump.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "cli_run.h"

namespace mgedump {
namespace {

class ApiTest : public test::TempDirTest {
  protected:
    ApiTest() : TempDirTest("mgedump_api_test_") {}
};

Graph appendix_c_graph() {
    GraphBuilder b;
    const VarId x = b.input("data", DType::of(DTypeEnum::Float32), {1, 3});
    const VarId c = b.constant<float>({3}, {1, 2, 3}, "const");
    b.output(b.op("Elemwise", {x, c}, {{"mode", "ADD"}}), "out");
    return b.finish();
}

TEST_F(ApiTest, DumpGivesTheBytesTheCommandLineWritesForTheSameGraphAndOptions) {
    const std::string json = write("g.json", test::kAppendixCGraph);
    for (const char* format : {"FBS", "FBS_V2"}) {
        const std::string out = (dir / (std::string(format) + ".mge")).string();
        ASSERT_EQ(test::run_cli(fmt::format("dump {} -o {} --dump-format {} -q", json, out, format)).status, 0);
        DumpOptions options;
        options.dump_format = *engine::format_from_name(format);
        const DumpedBytes d = dump(read_model(json), options);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(d.bytes.data()), d.bytes.size()), test::file_bytes(out))
            << format;
        EXPECT_EQ(d.result.tot_bytes, d.bytes.size());
        EXPECT_EQ(d.result.outputs, std::vector<std::string>{"out"});
    }
}

TEST_F(ApiTest, AGraphBuiltInCxxDumpsToAFileAndLoadsBackFromFileAndMemory) {
    const Graph g = appendix_c_graph();
    const DumpResult r = dump_to_file(g, {}, dir / "c.mge");
    const DumpedBytes in_memory = dump(g);
    EXPECT_EQ(test::file_bytes(dir / "c.mge").size(), r.tot_bytes);
    EXPECT_EQ(r.xxh3_128, in_memory.result.xxh3_128);

    const LoadedModel from_file = load(dir / "c.mge");
    const LoadedModel from_memory = load(std::span<const std::byte>(in_memory.bytes));
    EXPECT_EQ(from_file.format, ModelFormat::FbsV2);
    EXPECT_EQ(from_file.graph.oprs.size(), from_memory.graph.oprs.size());
    EXPECT_EQ(load_all(dir / "c.mge").size(), 1u);
}

TEST_F(ApiTest, BadOptionsAreRefusedBeforeAnythingIsWritten) {
    DumpOptions options;
    options.compat_older_version = "8.14";  // needs FBS
    EXPECT_THROW(dump_to_file(appendix_c_graph(), options, dir / "x.mge"), OptionError);
    EXPECT_FALSE(std::filesystem::exists(dir / "x.mge"));
}

TEST_F(ApiTest, RunBatchWritesEveryArtifactAndTheReport) {
    write("g.json", test::kAppendixCGraph);
    write("jobs.jsonl", R"({"input": "g.json", "output": "g", "variants": [{"suffix": ".v2.mge"},)"
                        R"( {"suffix": ".v1.mge", "dump_format": "FBS"}]})"
                        "\n");
    const BatchSummary s = run_batch(dir / "jobs.jsonl", {.out_dir = dir / "out", .threads = 2});
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.written, 2u);
    ASSERT_EQ(s.artifacts.size(), 2u);
    EXPECT_EQ(s.artifacts[1].format, DumpFormat::FBS);
    EXPECT_EQ(s.artifacts[1].status, BatchArtifact::Status::Written);
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / "g.v1.mge"));
    EXPECT_EQ(s.report, dir / "out" / "report.json");
    EXPECT_TRUE(std::filesystem::exists(s.report));
}

TEST_F(ApiTest, ABadManifestIsRefusedWithEveryProblemListed) {
    write("jobs.jsonl", "{\"input\": \"missing.json\", \"output\": \"a.mge\"}\n{\"bogus\": 1}\n");
    try {
        run_batch(dir / "jobs.jsonl", {.out_dir = dir / "out"});
        FAIL() << "no OptionError";
    } catch (const OptionError& e) {
        const std::string text = e.what();
        EXPECT_NE(text.find("3 problem(s), nothing was written"), std::string::npos) << text;
        EXPECT_NE(text.find("jobs.jsonl:1: input "), std::string::npos) << text;
        EXPECT_NE(text.find("jobs.jsonl:2: unknown key \"bogus\""), std::string::npos) << text;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "a.mge"));
}

}  // namespace
}  // namespace mgedump
