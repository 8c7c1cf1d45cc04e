#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

struct IncrementalRun {
    ScratchDir in, out;
    jobs::BatchReport run(const std::string& manifest = R"({"input": "a.json"})" "\n" R"({"input": "p.json"})") {
        write_text(in / "m.jsonl", manifest);
        jobs::Manifest m = jobs::read_manifest_file(in / "m.jsonl", engine::DumpOptions{});
        jobs::BatchOptions o;
        o.out_dir = out.path;
        o.threads = 2;
        o.incremental = true;
        return jobs::run_batch(m, o);
    }
    IncrementalRun() {
        write_text(in / "a.json", small_graph_json(1));
        write_npy(in / "w.npy", 8, 1.0f);
        write_text(in / "p.json", npy_graph_json("w.npy", 8));
    }
};

TEST(BatchIncremental, UnchangedJobsAreSkippedAndReportTheSameResults) {
    IncrementalRun t;
    jobs::BatchReport first = t.run();
    auto before = tree(t.out.path);
    jobs::BatchReport second = t.run();
    EXPECT_EQ(second.totals.skipped, 2u);
    EXPECT_EQ(second.totals.written, 0u);
    EXPECT_EQ(tree(t.out.path), before);
    for (size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(second.artifacts[i].result.xxh3_128, first.artifacts[i].result.xxh3_128);
        EXPECT_EQ(second.artifacts[i].result.nr_opr, first.artifacts[i].result.nr_opr);
    }
}

TEST(BatchIncremental, AChangedInputFileReRunsOnlyItsJob) {
    IncrementalRun t;
    t.run();
    write_text(t.in / "a.json", small_graph_json(2));
    jobs::BatchReport r = t.run();
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Written);
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Skipped);
}

TEST(BatchIncremental, AChangedNpyBehindAGraphReRunsItsJob) {
    IncrementalRun t;
    t.run();
    write_npy(t.in / "w.npy", 8, 2.0f);
    jobs::BatchReport r = t.run();
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Skipped);
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Written);
}

TEST(BatchIncremental, ChangedOptionsReRunTheJob) {
    IncrementalRun t;
    t.run();
    jobs::BatchReport r = t.run(R"({"input": "a.json", "keep_opr_name": true})" "\n" R"({"input": "p.json"})");
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Written);
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Skipped);
}

TEST(BatchIncremental, AMissingOrTruncatedArtifactIsWrittenAgain) {
    IncrementalRun t;
    t.run();
    fs::remove(t.out / "a.mge");
    write_text(t.out / "p.mge", "short");
    jobs::BatchReport r = t.run();
    EXPECT_EQ(r.totals.written, 2u);
}

}  // namespace
}  // namespace mgedump::test
