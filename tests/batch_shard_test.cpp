#include <gtest/gtest.h>

#include <cstring>

#include "batch_fixtures.h"
#include "ir/error.h"
#include "jobs/manifest.h"
#include "jobs/shard.h"

namespace mgedump::test {
namespace {

jobs::Manifest seven_jobs(const ScratchDir& in) {
    std::string lines;
    for (int i = 0; i < 7; ++i) {
        write_text(in / fmt::format("g{}.json", i), small_graph_json(i));
        lines += fmt::format(R"({{"input": "g{}.json", "variants": [{{"suffix": ".mge"}}, {{"suffix": ".fbs", "dump_format": "FBS"}}]}})", i) + "\n";
    }
    write_text(in / "m.jsonl", lines);
    return jobs::read_manifest_file(in / "m.jsonl", engine::DumpOptions{});
}

TEST(BatchShard, TheUnionOfAllShardsIsASingleRunByteForByte) {
    ScratchDir in, single, shards;
    jobs::Manifest m = seven_jobs(in);
    jobs::BatchOptions o;
    o.threads = 2;
    o.out_dir = single.path;
    jobs::run_batch(m, o);

    for (auto by : {jobs::ShardBy::Index, jobs::ShardBy::Name}) {
        std::map<std::string, std::string> merged;
        size_t artifacts = 0;
        for (uint32_t k = 0; k < 3; ++k) {
            ScratchDir part;
            o.out_dir = part.path;
            o.shard = jobs::Shard{k, 3, by, "test"};
            jobs::BatchReport r = jobs::run_batch(m, o);
            artifacts += r.totals.artifacts;
            for (auto& [path, bytes] : tree(part.path)) EXPECT_TRUE(merged.emplace(path, bytes).second) << path;
        }
        EXPECT_EQ(artifacts, 14u);
        EXPECT_EQ(merged, tree(single.path));
    }
}

TEST(BatchShard, ShardSpecsAreParsedAndCheckedAgainstTheirCount) {
    jobs::Shard s = jobs::parse_shard("2/5");
    EXPECT_EQ(s.index, 2u);
    EXPECT_EQ(s.count, 5u);
    EXPECT_THROW(jobs::parse_shard("5/5"), OptionError);
    EXPECT_THROW(jobs::parse_shard("1/0"), OptionError);
    EXPECT_THROW(jobs::parse_shard("x"), OptionError);
}

const char* slurm_env(const char* name) {
    if (!std::strcmp(name, "SLURM_ARRAY_TASK_ID")) return "4";
    if (!std::strcmp(name, "SLURM_ARRAY_TASK_MIN")) return "1";
    if (!std::strcmp(name, "SLURM_ARRAY_TASK_COUNT")) return "8";
    return nullptr;
}
const char* k8s_env(const char* name) { return std::strcmp(name, "JOB_COMPLETION_INDEX") ? nullptr : "3"; }
const char* no_env(const char*) { return nullptr; }

TEST(BatchShard, SlurmArraysAndKubernetesIndexedJobsPickTheirShardFromTheEnvironment) {
    auto slurm = jobs::shard_from_environment(std::nullopt, slurm_env);
    ASSERT_TRUE(slurm);
    EXPECT_EQ(slurm->index, 3u);  // task 4 of an array starting at 1
    EXPECT_EQ(slurm->count, 8u);
    auto k8s = jobs::shard_from_environment(4u, k8s_env);
    ASSERT_TRUE(k8s);
    EXPECT_EQ(k8s->index, 3u);
    EXPECT_EQ(k8s->count, 4u);
    EXPECT_THROW(jobs::shard_from_environment(std::nullopt, k8s_env), OptionError);  // count unknown
    EXPECT_FALSE(jobs::shard_from_environment(std::nullopt, no_env));
}

}  // namespace
}  // namespace mgedump::test
