#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "ir/error.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

std::string errors_of(const jobs::Job& j) { return fmt::format("{}", fmt::join(j.errors, "\n")); }

TEST(BatchManifest, VariantOptionsOverrideJobOptionsWhichOverrideDefaultsWhichOverrideTheCommandLine) {
    engine::DumpOptions cli;
    cli.keep_opr_name = true;
    cli.keep_var_name = 2;
    jobs::Manifest m = jobs::parse_manifest(R"({
        "defaults": {"keep_var_name": 0, "dedup_params": true},
        "jobs": [{"input": "nets/a.json", "output": "a", "keep_param_name": true,
                  "variants": [{"suffix": ".v2.mge"},
                               {"suffix": ".fbs.mge", "dump_format": "FBS", "compat_older_version": "8.14",
                                "keep_param_name": false}]}]})",
                                            "/base", cli);
    ASSERT_EQ(m.jobs.size(), 1u);
    const jobs::Job& j = m.jobs[0];
    ASSERT_TRUE(j.ok()) << errors_of(j);
    EXPECT_EQ(j.input, fs::path("/base/nets/a.json"));
    ASSERT_EQ(j.variants.size(), 2u);
    EXPECT_EQ(j.variants[0].output, "a.v2.mge");
    EXPECT_EQ(j.variants[1].output, "a.fbs.mge");
    for (const auto& v : j.variants) {
        EXPECT_TRUE(v.options.keep_opr_name);      // command line
        EXPECT_EQ(v.options.keep_var_name, 0);     // defaults
        EXPECT_TRUE(v.options.dedup_params);
    }
    EXPECT_TRUE(j.variants[0].options.keep_param_name);  // job
    EXPECT_FALSE(j.variants[1].options.keep_param_name); // variant
    EXPECT_EQ(j.variants[1].options.dump_format, engine::DumpFormat::FBS);
    EXPECT_EQ(j.variants[1].options.compat_older_version, "8.14");
}

TEST(BatchManifest, JsonLinesTakeDefaultsLinesAndNameOutputsAfterTheirInputs) {
    jobs::Manifest m = jobs::parse_manifest(
        R"({"input": "a.json"})" "\n\n" R"({"defaults": {"dump_format": "FBS"}})" "\n" R"({"input": "dir/b.mge"})" "\n",
        "/in", {});
    ASSERT_EQ(m.jobs.size(), 2u);
    EXPECT_EQ(m.jobs[0].variants[0].output, "a.mge");
    EXPECT_EQ(m.jobs[0].variants[0].options.dump_format, engine::DumpFormat::FBS_V2);
    EXPECT_EQ(m.jobs[1].variants[0].output, "b.mge");
    EXPECT_EQ(m.jobs[1].variants[0].options.dump_format, engine::DumpFormat::FBS);
    EXPECT_EQ(m.jobs[1].index, 1u);
}

TEST(BatchManifest, ABadEntryFailsOnlyThatJobAndSaysWhy) {
    jobs::Manifest m = jobs::parse_manifest(R"([{"input": "a.json", "keep_var_name": 7},
                                                {"input": "b.json", "colour": "red"},
                                                {"input": "c.json", "strip_info_file": "s.json"},
                                                {"input": "d.json"}])",
                                            "/in", {});
    ASSERT_EQ(m.jobs.size(), 4u);
    EXPECT_NE(errors_of(m.jobs[0]).find("keep_var_name"), std::string::npos) << errors_of(m.jobs[0]);
    EXPECT_NE(errors_of(m.jobs[1]).find("colour"), std::string::npos) << errors_of(m.jobs[1]);
    EXPECT_NE(errors_of(m.jobs[2]).find("strip_info_file"), std::string::npos) << errors_of(m.jobs[2]);
    EXPECT_TRUE(m.jobs[3].ok());
}

TEST(BatchManifest, TwoJobsWritingOneOutputFailTheLaterOne) {
    jobs::Manifest m = jobs::parse_manifest(R"([{"input": "a.json", "output": "x.mge"},
                                                {"input": "b.json", "output": "x.mge"}])",
                                            "/in", {});
    EXPECT_TRUE(m.jobs[0].ok());
    EXPECT_NE(errors_of(m.jobs[1]).find("already written by job 1 (manifest: jobs[0])"), std::string::npos) << errors_of(m.jobs[1]);
}

TEST(BatchManifest, SyntaxErrorsNameTheLine) {
    try {
        jobs::parse_manifest("{\"input\": \"a.json\"}\n{oops\n", "/in", {}, "m.jsonl");
        FAIL();
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("m.jsonl:2"), std::string::npos) << e.what();
    }
}

TEST(BatchManifest, DirectoryModeTakesGraphsAndModelsInNameOrder) {
    ScratchDir in;
    write_text(in / "b.json", "{}");
    write_text(in / "a.mge", "x");
    write_text(in / "notes.txt", "x");
    jobs::Manifest m = jobs::scan_directory(in.path, {});
    ASSERT_EQ(m.jobs.size(), 2u);
    EXPECT_EQ(m.jobs[0].input.filename(), "a.mge");
    EXPECT_EQ(m.jobs[1].variants[0].output, "b.mge");
}

TEST(BatchManifest, AMisspeltDefaultIsRefusedNotSilentlyIgnored) {
    // Ignored, "keep_var_nme" would leave every job at keep_var_name 1 without a word.
    try {
        jobs::parse_manifest(R"({"defaults": {"keep_var_nme": 0}, "jobs": [{"input": "a.json"}]})", "/base", {});
        ADD_FAILURE() << "a manifest with a misspelt default was accepted";
    } catch (const jobs::ManifestError& e) {
        EXPECT_NE(std::string(e.what()).find("defaults: unknown key \"keep_var_nme\" (expected a dump option or an "
                                             "ONNX import option)"),
                  std::string::npos)
            << e.what();
    }
}

TEST(BatchManifest, AModelVersionNamedWithFbsInOneObjectFailsThatJobAndDefaultsLeaveItToFbsV2Variants) {
    // As --model-version with --dump-format FBS on the command line: an FBS file has
    // no model version, so one object asking for both asks for what cannot be written.
    jobs::Manifest m = jobs::parse_manifest(R"({
        "defaults": {"model_version": 1},
        "jobs": [{"input": "a.json", "dump_format": "FBS", "model_version": 2},
                 {"input": "b.json", "variants": [{"suffix": ".v2.mge"},
                                                  {"suffix": ".v1.mge", "dump_format": "FBS", "model_version": 1}]},
                 {"input": "c.json", "variants": [{"suffix": ".v2.mge"}, {"suffix": ".fbs.mge", "dump_format": "FBS"}]},
                 {"input": "d.json", "dump_format": "FBS_V2", "model_version": 2}]})",
                                            "/base", {});
    ASSERT_EQ(m.jobs.size(), 4u);
    EXPECT_NE(errors_of(m.jobs[0]).find("\"model_version\": 2 applies to FBS_V2 only, and this object's dump_format "
                                        "is \"FBS\""),
              std::string::npos)
        << errors_of(m.jobs[0]);
    EXPECT_NE(errors_of(m.jobs[1]).find("\"model_version\": 1 applies to FBS_V2 only"), std::string::npos)
        << errors_of(m.jobs[1]);
    // The default's model_version is for the FBS_V2 variant; the FBS one ignores it.
    ASSERT_TRUE(m.jobs[2].ok()) << errors_of(m.jobs[2]);
    EXPECT_EQ(m.jobs[2].variants[0].options.model_version, 1u);
    EXPECT_EQ(m.jobs[2].variants[1].options.dump_format, engine::DumpFormat::FBS);
    ASSERT_TRUE(m.jobs[3].ok()) << errors_of(m.jobs[3]);
    EXPECT_EQ(m.jobs[3].variants[0].options.model_version, 2u);
}

}  // namespace
}  // namespace mgedump::test
