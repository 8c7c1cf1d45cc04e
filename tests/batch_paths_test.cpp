#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "ir/error.h"
#include "jobs/manifest.h"
#include "jobs/output_path.h"

namespace mgedump::test {
namespace {

TEST(BatchPaths, RelativeNamesWithPlainComponentsAreAccepted) {
    EXPECT_EQ(jobs::check_output_name("a.mge"), "a.mge");
    EXPECT_EQ(jobs::check_output_name("nets/v2/a.mge"), "nets/v2/a.mge");
    EXPECT_EQ(jobs::check_output_name("..a.mge"), "..a.mge");
}

TEST(BatchPaths, NamesThatCouldLeaveOutDirAreRejected) {
    for (const char* bad : {"/etc/passwd", "../a.mge", "a/../../b.mge", "a/..", "./a.mge", "a//b.mge", "a/",
                            "", "a\\..\\b", "a\nb", ".mgedump-stamps/x"})
        EXPECT_THROW(jobs::check_output_name(bad), OptionError) << bad;
}

TEST(BatchPaths, ASymlinkedDirectoryInsideOutDirIsNotFollowed) {
    ScratchDir out, elsewhere;
    fs::create_directory_symlink(elsewhere.path, out / "link");
    EXPECT_THROW(jobs::resolve_output(out.path, "link/a.mge"), OptionError);
    write_text(elsewhere / "target.mge", "x");
    fs::create_symlink(elsewhere / "target.mge", out / "file.mge");
    EXPECT_THROW(jobs::resolve_output(out.path, "file.mge"), OptionError);
    EXPECT_EQ(jobs::resolve_output(out.path, "sub/dir/a.mge"), out / "sub/dir/a.mge");
    EXPECT_TRUE(fs::is_directory(out / "sub/dir"));
}

TEST(BatchPaths, AJobWritingThroughASymlinkFailsAndWritesNothingOutside) {
    ScratchDir in, out, elsewhere;
    write_text(in / "a.json", small_graph_json(1));
    fs::create_directory_symlink(elsewhere.path, out / "link");
    jobs::Manifest m = jobs::parse_manifest(R"({"input": "a.json", "output": "link/a.mge"})", in.path, {});
    jobs::BatchOptions o;
    o.out_dir = out.path;
    jobs::BatchReport r = jobs::run_batch(m, o);
    EXPECT_EQ(r.artifacts[0].status, jobs::ArtifactStatus::Failed);
    EXPECT_NE(r.artifacts[0].error.find("symlink"), std::string::npos) << r.artifacts[0].error;
    EXPECT_TRUE(fs::is_empty(elsewhere.path));
}

}  // namespace
}  // namespace mgedump::test
