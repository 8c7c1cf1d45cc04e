#include <gtest/gtest.h>

#include "batch_fixtures.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

TEST(BatchReport, EachArtifactHasItsResultAndTheTotalsAddUp) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1, true));
    write_text(in / "b.json", small_graph_json(1, true));  // the same constants as a.json
    write_text(in / "m.json", R"({"defaults": {"dedup_params": true}, "jobs": [
        {"input": "a.json", "variants": [{"suffix": ".mge"}, {"suffix": ".fbs.mge", "dump_format": "FBS"}]},
        {"input": "b.json"}, {"input": "missing.json"}]})");
    jobs::Manifest m = jobs::read_manifest_file(in / "m.json", {});
    jobs::BatchOptions o;
    o.out_dir = out.path;
    jobs::BatchReport r = jobs::run_batch(m, o);
    auto j = jobs::report_to_json(r);

    ASSERT_EQ(j["artifacts"].size(), 4u);
    const auto& v2 = j["artifacts"][0];
    EXPECT_EQ(v2["path"], "a.mge");
    EXPECT_EQ(v2["format"], "FBS_V2");
    EXPECT_EQ(v2["status"], "written");
    EXPECT_EQ(v2["bytes"], fs::file_size(out / "a.mge"));
    EXPECT_EQ(v2["content_hash"], 0);
    EXPECT_EQ(v2["dedup_tensors_saved"], 1);
    EXPECT_EQ(v2["dedup_bytes_saved"], 16);
    EXPECT_EQ(v2["inputs"], nlohmann::ordered_json::array({"x"}));
    EXPECT_EQ(v2["outputs"], nlohmann::ordered_json::array({"y"}));
    EXPECT_EQ(v2["xxh3_128"].get<std::string>().size(), 32u);
    const auto& v1 = j["artifacts"][1];
    EXPECT_EQ(v1["format"], "FBS");
    EXPECT_NE(v1["content_hash"], 0);
    EXPECT_EQ(j["artifacts"][3]["status"], "failed");
    EXPECT_NE(j["artifacts"][3]["error"].get<std::string>().find("missing.json"), std::string::npos);

    EXPECT_EQ(j["totals"]["written"], 3);
    EXPECT_EQ(j["totals"]["failed"], 1);
    EXPECT_EQ(j["totals"]["dedup_tensors_saved"], 3);
    EXPECT_EQ(j["totals"]["bytes"], fs::file_size(out / "a.mge") + fs::file_size(out / "a.fbs.mge") +
                                        fs::file_size(out / "b.mge"));
    // a.json and b.json hold the same 16 bytes twice each: 64 bytes, 16 unique.
    EXPECT_EQ(j["blob_cache"]["bytes"], 64);
    EXPECT_EQ(j["blob_cache"]["unique_bytes"], 16);

    const auto& strip = j["strip_info"];
    EXPECT_EQ(strip["opr_types"], nlohmann::ordered_json::array({"Elemwise", "Host2DeviceCopy", "ImmutableTensor"}));
    EXPECT_EQ(strip["elemwise_modes"], nlohmann::ordered_json::array({"ADD", "MUL"}));
}

}  // namespace
}  // namespace mgedump::test
