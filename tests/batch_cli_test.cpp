#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "cli_run.h"

namespace mgedump::test {
namespace {

TEST(BatchCli, ADirectoryBatchWritesEveryModelPrintsTheSummaryAndTheReport) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "b.json", small_graph_json(2));
    CliRun r = run_cli(fmt::format("batch {} -o {} --threads 2", in.path.string(), out.path.string()));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("2 written"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("xxh3"), std::string::npos) << r.out;
    auto report = nlohmann::json::parse(read_text(out / "report.json"));
    EXPECT_EQ(report["totals"]["written"], 2);
    EXPECT_EQ(report["artifacts"][0]["dedup_tensors_saved"], 1);  // on by default on the command line
}

TEST(BatchCli, NoDedupKeepsEveryConstantAndAFailedJobMakesTheExitStatusNonZero) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "bad.json", "{\"format\": \"mgedump-graph\"}");
    CliRun r = run_cli(fmt::format("batch {} -o {} --no-dedup --report {}", in.path.string(), out.path.string(),
                                   (in / "r.json").string()));
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("bad.json"), std::string::npos) << r.out;
    auto report = nlohmann::json::parse(read_text(in / "r.json"));
    EXPECT_EQ(report["artifacts"][0]["dedup_tensors_saved"], 0);
    EXPECT_EQ(report["artifacts"][1]["status"], "failed");
    EXPECT_TRUE(fs::exists(out / "a.mge"));
}

TEST(BatchCli, ModelsWrittenByOneBatchAreInputsOfTheNext) {
    ScratchDir in, mid, out;
    write_text(in / "a.json", small_graph_json(1));
    ASSERT_EQ(run_cli(fmt::format("batch {} -o {} -q", in.path.string(), mid.path.string())).status, 0);
    fs::remove(mid / "report.json");
    write_text(in / "m.jsonl", fmt::format(R"({{"input": "{}", "variants": [{{"suffix": ".v2.mge"}}, {{"suffix": ".v1.mge", "dump_format": "FBS"}}]}})",
                                           (mid / "a.mge").string()));
    CliRun r = run_cli(fmt::format("batch {} -o {} -q --shard 0/1", (in / "m.jsonl").string(), out.path.string()));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(read_text(out / "a.v2.mge"), read_text(mid / "a.mge"));
    EXPECT_TRUE(fs::exists(out / "a.v1.mge"));
}

}  // namespace
}  // namespace mgedump::test
