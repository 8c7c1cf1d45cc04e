// Per-worker write buffers: a job leases a scratch, so later jobs build their
// artifacts in memory an earlier job allocated (the bytes are checked equal across
// thread counts in batch_determinism_test.cpp).
#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

jobs::Manifest same_sized_models(const ScratchDir& in, int n) {
    std::string lines;
    for (int i = 0; i < n; ++i) {
        write_text(in / fmt::format("m{}.json", i), small_graph_json(i, false, 256));
        lines += fmt::format(R"({{"input": "m{}.json"}})", i) + "\n";
    }
    write_text(in / "manifest.jsonl", lines);
    return jobs::read_manifest_file(in / "manifest.jsonl", engine::DumpOptions{});
}

TEST(BatchBuffers, OneWorkerBuildsEveryArtifactAfterTheFirstInRecycledMemory) {
    ScratchDir in, out;
    jobs::Manifest m = same_sized_models(in, 8);
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.threads = 1;
    jobs::BatchReport r = jobs::run_batch(m, o);
    ASSERT_TRUE(r.ok()) << report_summary(r);
    EXPECT_EQ(r.buffers.scratches, 1u);
    EXPECT_EQ(r.buffers.buffers.buffers_reused, 7u);
    EXPECT_EQ(r.buffers.buffers.buffers_allocated, 1u);
    auto run = jobs::report_to_json(r)["run"]["write_buffers"];
    EXPECT_EQ(run["reused"], 7u);
}

TEST(BatchBuffers, ManyWorkersKeepAtMostOneScratchPerModelInFlight) {
    ScratchDir in, out;
    jobs::Manifest m = same_sized_models(in, 24);
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.threads = 4;
    jobs::BatchReport r = jobs::run_batch(m, o);
    ASSERT_TRUE(r.ok()) << report_summary(r);
    EXPECT_GE(r.buffers.scratches, 1u);
    EXPECT_LE(r.buffers.scratches, 8u);  // two pipeline tokens per thread
    EXPECT_EQ(r.buffers.buffers.buffers_reused + r.buffers.buffers.buffers_allocated, 24u);
    EXPECT_GE(r.buffers.buffers.buffers_reused, 24u - r.buffers.scratches);
}

TEST(BatchBuffers, ABudgetTooSmallToRetainBuffersStillWritesEveryArtifact) {
    ScratchDir in, out;
    jobs::Manifest m = same_sized_models(in, 4);
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.threads = 1;
    o.memory_budget = 1;
    jobs::BatchReport r = jobs::run_batch(m, o);
    ASSERT_TRUE(r.ok()) << report_summary(r);
    EXPECT_EQ(r.buffers.buffers.buffers_reused, 0u);
    EXPECT_EQ(r.totals.written, 4u);
}

}  // namespace
}  // namespace mgedump::test
