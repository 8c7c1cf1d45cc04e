#include <gtest/gtest.h>

#include <cerrno>

#include "batch_fixtures.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

const jobs::ArtifactReport& row(const jobs::BatchReport& r, const std::string& path) {
    for (const auto& a : r.artifacts)
        if (a.path == path) return a;
    throw std::runtime_error("no report row for " + path);
}

TEST(BatchIsolation, FailingJobsAreReportedWithTheirModelAndTheOthersComplete) {
    ScratchDir in, out;
    write_text(in / "good.json", small_graph_json(1));
    std::string unknown_op = small_graph_json(2);
    unknown_op.replace(unknown_op.find("\"MUL\""), 5, "\"NOT_A_MODE\"");
    write_text(in / "badparam.json", unknown_op);
    std::string bad_op = small_graph_json(3);
    bad_op.replace(bad_op.find("\"op\": \"Elemwise\""), 16, "\"op\": \"NoSuchOp\"");
    write_text(in / "badop.json", bad_op);
    write_text(in / "m.jsonl",
               R"({"input": "good.json"})" "\n"
               R"({"input": "missing.json"})" "\n"
               R"({"input": "badparam.json"})" "\n"
               R"({"input": "badop.json"})" "\n"
               R"({"input": "good.json", "output": "v2compat.mge", "compat_older_version": "8.14"})" "\n"
               R"({"input": "good.json", "output": "../escape.mge"})" "\n");
    jobs::Manifest m = jobs::read_manifest_file(in / "m.jsonl", engine::DumpOptions{});
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.threads = 2;
    jobs::BatchReport r = jobs::run_batch(m, o);

    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.totals.written, 1u);
    EXPECT_EQ(r.totals.failed, 5u);
    EXPECT_EQ(row(r, "good.mge").status, jobs::ArtifactStatus::Written);
    EXPECT_TRUE(fs::exists(out / "good.mge"));
    EXPECT_NE(row(r, "missing.mge").error.find("missing.json"), std::string::npos) << row(r, "missing.mge").error;
    const std::string& param_error = row(r, "badparam.mge").error;
    EXPECT_NE(param_error.find("badparam.json"), std::string::npos) << param_error;
    EXPECT_NE(param_error.find("mode"), std::string::npos) << param_error;
    EXPECT_NE(row(r, "badop.mge").error.find("NoSuchOp"), std::string::npos) << row(r, "badop.mge").error;
    EXPECT_NE(row(r, "v2compat.mge").error.find("8.14"), std::string::npos) << row(r, "v2compat.mge").error;
    EXPECT_FALSE(fs::exists(out / "badparam.mge"));
    EXPECT_FALSE(fs::exists(out.path.parent_path() / "escape.mge"));
}

// Fails every write with `err` after creating the temporary file.
struct FailingWrites : engine::FileOps {
    int err;
    explicit FailingWrites(int e) : err(e) {}
    long write_some(int, std::span<const std::span<const std::byte>>) override {
        errno = err;
        return -1;
    }
};

struct RefusedCreate : engine::FileOps {
    int open_exclusive(const std::string&) override {
        errno = EACCES;
        return -1;
    }
};

TEST(BatchIsolation, AFullDiskFailsTheJobWithTheOsErrorAndLeavesNoTemporaryFile) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    jobs::Manifest m = jobs::parse_manifest(R"({"input": "a.json"})", in.path, engine::DumpOptions{});
    FailingWrites full(ENOSPC);
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.file_ops = &full;
    jobs::BatchReport r = jobs::run_batch(m, o);
    ASSERT_EQ(r.artifacts.size(), 1u);
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Failed);
    EXPECT_NE(r.artifacts[0].error.find(std::strerror(ENOSPC)), std::string::npos) << r.artifacts[0].error;
    EXPECT_TRUE(tree(out.path, true).empty()) << "left behind: " << tree(out.path, true).begin()->first;
}

TEST(BatchIsolation, APermissionErrorFailsTheJobAndNamesTheArtifact) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    jobs::Manifest m = jobs::parse_manifest(R"({"input": "a.json", "output": "x/a.mge"})", in.path, engine::DumpOptions{});
    RefusedCreate denied;
    jobs::BatchOptions o;
    o.out_dir = out.path;
    o.file_ops = &denied;
    jobs::BatchReport r = jobs::run_batch(m, o);
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Failed);
    EXPECT_NE(r.artifacts[0].error.find(std::strerror(EACCES)), std::string::npos) << r.artifacts[0].error;
    EXPECT_NE(r.artifacts[0].error.find("x/a.mge"), std::string::npos) << r.artifacts[0].error;
}

}  // namespace
}  // namespace mgedump::test
