#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

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

// An environment holding exactly `vars`.
jobs::Getenv env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

// What Slurm 22.05 exports to task `id` of an array (checked on a real cluster:
// `--array=0-6:2` gives MIN 0, MAX 6, STEP 2, COUNT 4; a list `--array=1,3,7`
// gives MIN 1, MAX 7, STEP 1, COUNT 3).
jobs::Getenv slurm_task(uint64_t id, uint64_t min, uint64_t max, uint64_t step, uint64_t count) {
    return env_of({{"SLURM_ARRAY_TASK_ID", std::to_string(id)},
                   {"SLURM_ARRAY_TASK_MIN", std::to_string(min)},
                   {"SLURM_ARRAY_TASK_MAX", std::to_string(max)},
                   {"SLURM_ARRAY_TASK_STEP", std::to_string(step)},
                   {"SLURM_ARRAY_TASK_COUNT", std::to_string(count)}});
}

// The OptionError's message, or "" when `f` does not throw one.
template <class F>
std::string refusal(F f) {
    try {
        f();
    } catch (const OptionError& e) {
        return e.what();
    }
    return "";
}

TEST(BatchShard, EveryTaskOfASteppedSlurmArrayRunsADifferentShardOfTheArraysTaskCount) {
    std::set<uint32_t> indices;
    for (uint64_t id : {0, 2, 4, 6}) {  // sbatch --array=0-6:2
        auto s = jobs::shard_from_environment(std::nullopt, slurm_task(id, 0, 6, 2, 4));
        ASSERT_TRUE(s) << id;
        EXPECT_EQ(s->count, 4u);
        EXPECT_EQ(s->index, id / 2);
        indices.insert(s->index);
        EXPECT_NE(s->source.find(fmt::format("SLURM_ARRAY_TASK_ID={}", id)), std::string::npos) << s->source;
        EXPECT_NE(s->source.find("SLURM_ARRAY_TASK_STEP=2"), std::string::npos) << s->source;
    }
    EXPECT_EQ(indices.size(), 4u);
}

TEST(BatchShard, AnArrayMayStartAnywhere) {
    for (uint64_t id = 1; id <= 8; ++id) {  // sbatch --array=1-8
        auto s = jobs::shard_from_environment(std::nullopt, slurm_task(id, 1, 8, 1, 8));
        ASSERT_TRUE(s);
        EXPECT_EQ(s->index, id - 1);
        EXPECT_EQ(s->count, 8u);
    }
}

TEST(BatchShard, AOneTaskArrayWithoutAShardCountIsRefusedWithTheFix) {
    // sbatch --array=1: a failed task re-submitted. Running shard 0/1 (the whole
    // batch) would be silently wrong.
    for (uint64_t id : {0, 1, 5}) {
        std::string e = refusal([&] { jobs::shard_from_environment(std::nullopt, slurm_task(id, id, id, 1, 1)); });
        EXPECT_NE(e.find("--shard-count"), std::string::npos) << e;
        EXPECT_NE(e.find("--shard 0/1"), std::string::npos) << e;
    }
}

TEST(BatchShard, WithAShardCountTheTaskIdIsTheShardIndexSoAReSubmittedTaskRunsItsOwnShard) {
    auto s = jobs::shard_from_environment(4u, slurm_task(1, 1, 1, 1, 1));  // sbatch --array=1 ... --shard-count 4
    ASSERT_TRUE(s);
    EXPECT_EQ(s->index, 1u);
    EXPECT_EQ(s->count, 4u);
    EXPECT_NE(s->source.find("--shard-count 4"), std::string::npos) << s->source;
    for (uint64_t id : {3, 7}) {  // sbatch --array=3,7 ... --shard-count 16
        auto t = jobs::shard_from_environment(16u, slurm_task(id, 3, 7, 1, 2));
        ASSERT_TRUE(t);
        EXPECT_EQ(t->index, id);
        EXPECT_EQ(t->count, 16u);
    }
}

TEST(BatchShard, AnArrayWhoseTaskIdsReachTheShardCountIsRefusedInEveryTask) {
    // --array=1-16 with --shard-count 16 would leave shard 0 unrun while tasks 1-15
    // succeed: task 1 refuses too, not only task 16.
    for (uint64_t id : {1, 16}) {
        std::string e = refusal([&] { jobs::shard_from_environment(16u, slurm_task(id, 1, 16, 1, 16)); });
        EXPECT_NE(e.find("--array=0-15"), std::string::npos) << e;
    }
    // A stepped array numbers tasks past its count.
    EXPECT_NE(refusal([] { jobs::shard_from_environment(4u, slurm_task(0, 0, 6, 2, 4)); }), "");
}

TEST(BatchShard, TaskIdsThatAreNotOneSteppedRangeAreRefusedWithoutAShardCount) {
    // sbatch --array=1,3,7 (or some tasks of a larger array): no task knows its place.
    std::string e = refusal([] { jobs::shard_from_environment(std::nullopt, slurm_task(3, 1, 7, 1, 3)); });
    EXPECT_NE(e.find("--shard-count"), std::string::npos) << e;
    // An ID off the step, and a missing variable, are refused too.
    EXPECT_NE(refusal([] { jobs::shard_from_environment(std::nullopt, slurm_task(3, 0, 6, 2, 4)); }), "");
    std::string missing = refusal([] {
        jobs::shard_from_environment(std::nullopt, env_of({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
    });
    EXPECT_NE(missing.find("SLURM_ARRAY_TASK_MIN"), std::string::npos) << missing;
}

TEST(BatchShard, AVariableThatIsNotANumberIsNamed) {
    std::string e = refusal([] { jobs::shard_from_environment(4u, env_of({{"JOB_COMPLETION_INDEX", ""}})); });
    EXPECT_NE(e.find("JOB_COMPLETION_INDEX"), std::string::npos) << e;
    e = refusal([] { jobs::shard_from_environment(std::nullopt, env_of({{"SLURM_ARRAY_TASK_ID", "x"}})); });
    EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << e;
}

TEST(BatchShard, AKubernetesIndexedJobNeedsItsCompletionCount) {
    auto k8s = jobs::shard_from_environment(4u, env_of({{"JOB_COMPLETION_INDEX", "3"}}));
    ASSERT_TRUE(k8s);
    EXPECT_EQ(k8s->index, 3u);
    EXPECT_EQ(k8s->count, 4u);
    EXPECT_EQ(k8s->source, "JOB_COMPLETION_INDEX=3, --shard-count 4");
    std::string e = refusal([] { jobs::shard_from_environment(std::nullopt, env_of({{"JOB_COMPLETION_INDEX", "3"}})); });
    EXPECT_NE(e.find("--shard-count"), std::string::npos) << e;
    EXPECT_NE(refusal([] { jobs::shard_from_environment(3u, env_of({{"JOB_COMPLETION_INDEX", "3"}})); }), "");
    EXPECT_FALSE(jobs::shard_from_environment(std::nullopt, env_of({})));
}

TEST(BatchShard, SlurmAndKubernetesIndicesTogetherAreRefused) {
    EXPECT_NE(refusal([] {
                  jobs::shard_from_environment(
                      4u, env_of({{"SLURM_ARRAY_TASK_ID", "1"}, {"JOB_COMPLETION_INDEX", "1"}}));
              }),
              "");
}

TEST(BatchShard, TheShardFlagWinsACountMustAgreeWithItAndACountAloneIsRefused) {
    jobs::Shard flag = jobs::resolve_shard("2/4", std::nullopt, slurm_task(1, 0, 3, 1, 4));
    EXPECT_EQ(flag.index, 2u);
    EXPECT_EQ(flag.source, "--shard 2/4");
    EXPECT_EQ(jobs::resolve_shard("2/4", 4u, env_of({})).index, 2u);
    EXPECT_NE(refusal([] { jobs::resolve_shard("2/4", 5u, env_of({})); }), "");
    // Outside an array a count says nothing about which shard this is.
    std::string e = refusal([] { jobs::resolve_shard("", 4u, env_of({})); });
    EXPECT_NE(e.find("--shard K/4"), std::string::npos) << e;
    jobs::Shard none = jobs::resolve_shard("", std::nullopt, env_of({}));
    EXPECT_EQ(none.count, 1u);
    EXPECT_EQ(none.source, "none");
    jobs::Shard env = jobs::resolve_shard("", std::nullopt, slurm_task(6, 0, 6, 2, 4));
    EXPECT_EQ(env.index, 3u);
    EXPECT_EQ(env.count, 4u);
}

TEST(BatchShard, TheTasksOfASteppedArrayTogetherWriteASingleRunsArtifacts) {
    ScratchDir in, single, shared;
    jobs::Manifest m = seven_jobs(in);
    jobs::BatchOptions o;
    o.threads = 2;
    o.out_dir = single.path;
    jobs::run_batch(m, o);

    std::multiset<size_t> jobs_run;
    o.out_dir = shared.path;
    for (uint64_t id : {0, 2, 4, 6}) {  // sbatch --array=0-6:2, all writing into one directory
        o.shard = jobs::resolve_shard("", std::nullopt, slurm_task(id, 0, 6, 2, 4));
        for (const jobs::ArtifactReport& a : jobs::run_batch(m, o).artifacts) jobs_run.insert(a.job);
    }
    EXPECT_EQ(jobs_run.size(), 14u);  // 7 jobs of 2 variants each, every one once
    for (size_t j = 0; j < 7; ++j) EXPECT_EQ(jobs_run.count(j), 2u) << j;
    EXPECT_EQ(tree(shared.path), tree(single.path));
}

}  // namespace
}  // namespace mgedump::test
