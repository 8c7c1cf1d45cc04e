// Per-worker write buffers: a job leases a scratch, so later jobs build their
// artifacts in memory an earlier job allocated (the bytes are checked equal across
// thread counts in batch_determinism_test.cpp).
#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

// A batch of `n` models of one size; the report must say every job succeeded.
jobs::BatchReport run_same_sized(int n, unsigned threads, uint64_t memory_budget = 0) {
    ScratchDir in, out;
    std::string lines;
    for (int i = 0; i < n; ++i) {
        write_text(in / fmt::format("m{}.json", i), small_graph_json(i, false, 256));
        lines += fmt::format(R"({{"input": "m{}.json"}})", i) + "\n";
    }
    write_text(in / "manifest.jsonl", lines);
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.threads = threads;
    o.memory_budget = memory_budget;
    jobs::BatchReport r =
        jobs::run_batch(jobs::read_manifest_file(in / "manifest.jsonl", engine::DumpOptions{}), o);
    EXPECT_TRUE(r.ok()) << report_summary(r);
    EXPECT_EQ(r.totals.written, static_cast<uint64_t>(n));
    return r;
}

TEST(BatchBuffers, OneWorkerBuildsEveryArtifactAfterTheFirstInRecycledMemory) {
    jobs::BatchReport r = run_same_sized(8, 1);
    EXPECT_EQ(r.buffers.scratches, 1u);
    EXPECT_EQ(r.buffers.buffers.buffers_reused, 7u);
    EXPECT_EQ(r.buffers.buffers.buffers_allocated, 1u);
    EXPECT_EQ(jobs::report_to_json(r)["run"]["write_buffers"]["reused"], 7u);
}

TEST(BatchBuffers, ManyWorkersKeepAtMostOneScratchPerModelInFlight) {
    jobs::BatchReport r = run_same_sized(24, 4);
    EXPECT_GE(r.buffers.scratches, 1u);
    EXPECT_LE(r.buffers.scratches, 8u);  // two pipeline tokens per thread
    EXPECT_EQ(r.buffers.buffers.buffers_reused + r.buffers.buffers.buffers_allocated, 24u);
    EXPECT_GE(r.buffers.buffers.buffers_reused, 24u - r.buffers.scratches);
}

TEST(BatchBuffers, ABudgetTooSmallToRetainBuffersStillWritesEveryArtifact) {
    jobs::BatchReport r = run_same_sized(4, 1, /*memory_budget=*/1);
    EXPECT_EQ(r.buffers.buffers.buffers_reused, 0u);
}

}  // namespace
}  // namespace mgedump::test
