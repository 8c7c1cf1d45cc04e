#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "jobs/manifest.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

struct IncrementalRun {
    ScratchDir in, out;
    jobs::BatchReport run(const std::string& manifest = R"({"input": "a.json"})"
                                                        "\n"
                                                        R"({"input": "p.json"})") {
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
    // The batch's merged strip info comes from the stamps, as if the models had been read.
    EXPECT_EQ(jobs::report_to_json(second)["strip_info"], jobs::report_to_json(first)["strip_info"]);
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
    write_npy(t.in / "w.npy", 8, 2.0f);  // same size, other values: only the digest can tell
    jobs::BatchReport r = t.run();
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Skipped);
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Written);
    EXPECT_EQ(r.totals.models_read, 1u);
}

TEST(BatchIncremental, DecidingToSkipNeverReadsTheModel) {
    IncrementalRun t;
    jobs::BatchReport first = t.run();
    EXPECT_EQ(first.totals.models_read, 2u);
    jobs::BatchReport second = t.run();
    EXPECT_EQ(second.totals.skipped, 2u);
    EXPECT_EQ(second.totals.models_read, 0u);  // counted where the batch parses an input
    EXPECT_EQ(second.blobs.blobs, 0u);         // and no tensor of either model was loaded
}

TEST(BatchIncremental, RewritingAnNpyWithTheSameBytesStillSkips) {
    IncrementalRun t;
    t.run();
    write_npy(t.in / "w.npy", 8, 1.0f);  // new modification time, same content
    jobs::BatchReport r = t.run();
    EXPECT_EQ(r.totals.skipped, 2u);
    EXPECT_EQ(r.totals.models_read, 0u);
}

TEST(BatchIncremental, AnNpyThatDisappearedReRunsItsJobAndReportsTheMissingFile) {
    IncrementalRun t;
    t.run();
    fs::remove(t.in / "w.npy");
    jobs::BatchReport r = t.run();
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Skipped);
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Failed);
    EXPECT_NE(r.artifacts[1].error.find("w.npy"), std::string::npos) << r.artifacts[1].error;
}

TEST(BatchIncremental, OnlyTheVariantsThatAreNotCurrentAreWrittenFromOneRead) {
    IncrementalRun t;
    const std::string two_variants =
        R"({"input": "p.json", "variants": [{"suffix": ".v2.mge"}, {"suffix": ".v1.mge", "dump_format": "FBS"}]})";
    t.run(two_variants);
    const std::string v1_bytes = read_text(t.out / "p.v1.mge");
    fs::remove(t.out / "p.v1.mge");
    jobs::BatchReport r = t.run(two_variants);
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Skipped);
    EXPECT_EQ(r.artifacts[1].status, jobs::ArtifactStatus::Written);
    EXPECT_EQ(r.totals.models_read, 1u);
    EXPECT_EQ(read_text(t.out / "p.v1.mge"), v1_bytes);
}

TEST(BatchIncremental, AnArtifactMadeFromAnotherInputIsMadeAgain) {
    IncrementalRun t;
    t.run();
    fs::copy_file(t.in / "a.json", t.in / "a_copy.json");
    jobs::BatchReport r = t.run(R"({"input": "a_copy.json", "output": "a.mge"})");
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Written);
}

TEST(BatchIncremental, ChangedOptionsReRunTheJob) {
    IncrementalRun t;
    t.run();
    jobs::BatchReport r = t.run(R"({"input": "a.json", "keep_opr_name": true})"
                                "\n"
                                R"({"input": "p.json"})");
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

// A Conv whose weights live in an external file next to the .onnx model.
void write_onnx_with_external_weights(const fs::path& dir, float first_weight) {
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y");
    m.external_initializer("w", {2, 3, 1, 1}, "w.bin");
    m.node("Conv", {"x", "w"}, {"y"});
    m.write(dir / "m.onnx");
    std::vector<float> w{first_weight, 2, 3, 4, 5, 6};
    std::ofstream(dir / "w.bin", std::ios::binary).write(reinterpret_cast<const char*>(w.data()), 24);
}

TEST(BatchIncremental, AnOnnxModelIsSkippedUntilItsExternalWeightsChange) {
    IncrementalRun t;
    write_onnx_with_external_weights(t.in.path, 1.0f);
    const std::string manifest = R"({"input": "m.onnx"})";
    EXPECT_EQ(t.run(manifest).totals.written, 1u);
    jobs::BatchReport same = t.run(manifest);
    EXPECT_EQ(same.totals.skipped, 1u);
    EXPECT_EQ(same.totals.models_read, 0u);
    write_onnx_with_external_weights(t.in.path, 9.0f);  // the .onnx file is byte-identical
    jobs::BatchReport changed = t.run(manifest);
    EXPECT_EQ(changed.totals.written, 1u);
    EXPECT_EQ(changed.totals.models_read, 1u);
}

}  // namespace
}  // namespace mgedump::test
