#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

// Eight models, two of them with two variants, one sharing an .npy with another.
jobs::Manifest eight_models(const ScratchDir& in) {
    std::string lines = R"({"defaults": {"dedup_params": true}})" "\n";
    for (int i = 0; i < 6; ++i) {
        write_text(in / fmt::format("m{}.json", i), small_graph_json(i, i % 2 == 0, 64));
        lines += fmt::format(R"({{"input": "m{}.json", "output": "out/m{}.mge"}})", i, i) + "\n";
    }
    write_npy(in / "w.npy", 256, 1.0f);
    write_text(in / "p0.json", npy_graph_json("w.npy", 256));
    write_text(in / "p1.json", npy_graph_json("w.npy", 256));
    lines += R"({"input": "p0.json", "variants": [{"suffix": ".v2.mge"}, {"suffix": ".fbs.mge", "dump_format": "FBS", "compat_older_version": "8.14"}]})" "\n";
    lines += R"({"input": "p1.json", "variants": [{"suffix": ".v2.mge"}, {"suffix": ".v1.mge", "dump_format": "FBS"}]})" "\n";
    write_text(in / "manifest.jsonl", lines);
    return jobs::read_manifest_file(in / "manifest.jsonl", engine::DumpOptions{});
}

TEST(BatchDeterminism, OneThreadAndManyThreadsWriteTheSameBytesAndTheSameReport) {
    ScratchDir in, one, many, again;
    jobs::Manifest m = eight_models(in);

    jobs::BatchOptions o;
    o.out_dir = one.path;
    o.threads = 1;
    jobs::BatchReport r1 = jobs::run_batch(m, o);
    o.out_dir = many.path;
    o.threads = 4;
    jobs::BatchReport r4 = jobs::run_batch(m, o);
    o.out_dir = again.path;
    jobs::BatchReport r4b = jobs::run_batch(m, o);

    ASSERT_TRUE(r1.ok()) << report_summary(r1);
    EXPECT_EQ(r1.totals.written, 10u);
    EXPECT_EQ(tree(one.path), tree(many.path));
    EXPECT_EQ(tree(many.path), tree(again.path));
    EXPECT_EQ(stable_report(r1), stable_report(r4));
    EXPECT_EQ(stable_report(r4), stable_report(r4b));
}

TEST(BatchDeterminism, ATightMemoryBudgetChangesOnlyHowManyModelsAreInFlight) {
    ScratchDir in, roomy, tight;
    jobs::Manifest m = eight_models(in);
    jobs::BatchOptions o;
    o.threads = 2;
    o.out_dir = roomy.path;
    jobs::BatchReport a = jobs::run_batch(m, o);
    o.out_dir = tight.path;
    o.memory_budget = 1;  // smaller than any model: one at a time, none refused
    jobs::BatchReport b = jobs::run_batch(m, o);
    EXPECT_TRUE(b.ok()) << report_summary(b);
    EXPECT_EQ(tree(roomy.path), tree(tight.path));
    EXPECT_EQ(stable_report(a)["artifacts"], stable_report(b)["artifacts"]);
}

}  // namespace
}  // namespace mgedump::test
