// The batch command's shard and thread flags as a Slurm or Kubernetes task runs
// them: the environment the scheduler exports, the command line a script writes.
#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "cli_run.h"

namespace mgedump::test {
namespace {

// The scheduler variables this test sets, cleared first: the suite itself may be
// running inside a Slurm job.
constexpr const char* kCleanEnv =
    "env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_MAX -u SLURM_ARRAY_TASK_STEP "
    "-u SLURM_ARRAY_TASK_COUNT -u JOB_COMPLETION_INDEX -u SLURM_CPUS_PER_TASK -u SLURM_CPUS_ON_NODE";

// Task `id` of a one-task array: what `sbatch --array=ID` exports.
std::string one_task_array(int id) {
    return fmt::format(
        "SLURM_ARRAY_TASK_ID={0} SLURM_ARRAY_TASK_MIN={0} SLURM_ARRAY_TASK_MAX={0} "
        "SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=1",
        id);
}

struct FourJobs {
    ScratchDir in, out;
    FourJobs() {
        std::string lines;
        for (int i = 0; i < 4; ++i) {
            write_text(in / fmt::format("g{}.json", i), small_graph_json(i));
            lines += fmt::format(R"({{"input": "g{}.json"}})", i) + "\n";
        }
        write_text(in / "m.jsonl", lines);
    }
    std::string batch(const std::string& env, const std::string& flags) const {
        return fmt::format("{} {} {} batch {} -o {} -q {}", kCleanEnv, env, cli_path(),
                           (in / "m.jsonl").string(), out.path.string(), flags);
    }
    nlohmann::json report() const { return nlohmann::json::parse(read_text(out / "report.json")); }
};

TEST(BatchShardCli, AReSubmittedArrayTaskWithoutAShardCountExitsTwoWithTheFixAndWritesNothing) {
    FourJobs b;
    CliRun r = run_shell(b.batch(one_task_array(1), ""));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--shard-count"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::is_empty(b.out.path));
}

TEST(BatchShardCli, AReSubmittedArrayTaskWithAShardCountRunsItsShardAndTheReportSaysWhereItCameFrom) {
    FourJobs b;
    CliRun r = run_shell(b.batch(one_task_array(1), "--shard-count 4"));
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json report = b.report();
    EXPECT_EQ(report["shard"]["index"], 1);
    EXPECT_EQ(report["shard"]["count"], 4);
    ASSERT_EQ(report["artifacts"].size(), 1u);
    EXPECT_EQ(report["artifacts"][0]["job"], 1);
    const std::string source = report["run"]["source_of_shard"];
    EXPECT_NE(source.find("SLURM_ARRAY_TASK_ID=1"), std::string::npos) << source;
    EXPECT_NE(source.find("--shard-count 4"), std::string::npos) << source;
}

TEST(BatchShardCli, AKubernetesPodRunsTheShardOfItsCompletionIndex) {
    FourJobs b;
    CliRun r = run_shell(b.batch("JOB_COMPLETION_INDEX=3", "--shard-count 4"));
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json report = b.report();
    ASSERT_EQ(report["artifacts"].size(), 1u);
    EXPECT_EQ(report["artifacts"][0]["job"], 3);
    EXPECT_EQ(report["run"]["source_of_shard"], "JOB_COMPLETION_INDEX=3, --shard-count 4");
}

TEST(BatchShardCli, AnEmptyThreadsValueRunsOnTheCpusSlurmAllotted) {
    // `--threads "$SLURM_CPUS_PER_TASK"` in a task submitted without --cpus-per-task.
    FourJobs b;
    CliRun r = run_shell(b.batch("SLURM_CPUS_PER_TASK= SLURM_CPUS_ON_NODE=1", "--threads ''"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(b.report()["run"]["threads"], 1);
    EXPECT_EQ(b.report()["totals"]["written"], 4);
}

TEST(BatchShardCli, AThreadsValueThatIsNotACountIsAUsageError) {
    FourJobs b;
    CliRun r = run_shell(b.batch("", "--threads 0"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--threads"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::is_empty(b.out.path));
}

}  // namespace
}  // namespace mgedump::test
