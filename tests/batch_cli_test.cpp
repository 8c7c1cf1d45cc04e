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
    // Not a terminal: a plain progress line per artifact, never a redrawn bar.
    EXPECT_NE(r.out.find("[1/2] "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[2/2] "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
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

// 256 parameters that are all views of one 8 MiB .npy: 2 GiB of tensor values for
// FBS_V2 while the process maps 8 MiB once. The limit is found before anything is
// built, so the test costs no real memory.
std::string over_two_gib_json() {
    std::string constants, operators;
    std::string prev = "x";
    for (int i = 0; i < 256; ++i) {
        constants += fmt::format(R"({}{{"name": "w{}", "param": true, "npy": "big.npy"}})", i ? ", " : "", i);
        operators += fmt::format(R"({}{{"op": "Elemwise", "name": "a{}", "inputs": ["{}", "w{}"], "params": {{"mode": "ADD"}}}})",
                                 i ? ", " : "", i, prev, i);
        prev = fmt::format("a{}", i);
    }
    return fmt::format(R"({{"format": "mgedump-graph", "version": 1,
 "inputs": [{{"name": "x", "dtype": "Float32", "shape": [2097152]}}],
 "constants": [{}], "operators": [{}], "outputs": ["{}"]}})",
                       constants, operators, prev);
}

TEST(BatchCli, AJobOverAFormatLimitFailsAloneWithTheLimitInTheReportAndLeavesNoFile) {
    ScratchDir in, out;
    write_npy(in / "big.npy", size_t{1} << 21, 0.0f);  // 2^21 float32: 8 MiB
    write_text(in / "big.json", over_two_gib_json());
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "b.json", small_graph_json(2));
    // Without dedup the 256 equal parameters stay 256 tensors (dedup would merge them).
    write_text(in / "m.jsonl", R"({"input": "a.json"})" "\n"
                               R"({"input": "big.json", "dedup_params": false})" "\n"
                               R"({"input": "b.json"})" "\n");
    CliRun r = run_cli(fmt::format("batch {} -o {} --threads 2", (in / "m.jsonl").string(), out.path.string()));
    EXPECT_EQ(r.status, 1) << r.out;
    auto report = nlohmann::json::parse(read_text(out / "report.json"));
    EXPECT_EQ(report["totals"]["written"], 2);
    EXPECT_EQ(report["totals"]["failed"], 1);
    const auto& big = report["artifacts"][1];
    EXPECT_EQ(big["path"], "big.mge");
    EXPECT_EQ(big["status"], "failed");
    const std::string error = big["error"];
    EXPECT_NE(error.find("big.json"), std::string::npos) << error;
    EXPECT_NE(error.find("2 GiB"), std::string::npos) << error;
    EXPECT_NE(error.find("dump with FBS"), std::string::npos) << error;
    EXPECT_NE(r.out.find("2 GiB"), std::string::npos) << r.out;  // the summary shows it too
    auto files = tree(out.path, true);
    EXPECT_TRUE(files.count("a.mge") && files.count("b.mge"));
    EXPECT_FALSE(files.count("big.mge"));
    for (const auto& [name, bytes] : files) EXPECT_TRUE(name.ends_with(".mge") || name.ends_with(".stamp")) << name;
}

}  // namespace
}  // namespace mgedump::test
