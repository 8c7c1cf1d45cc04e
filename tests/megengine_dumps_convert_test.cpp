// `convert` against MegEngine's own writer: every .mge in
// ../shared/realdata/megengine-dumps was written by MegEngine (that folder's
// README). Loading it and dumping it again with the options of its variant (the
// README's table) and without param dedup must give MegEngine's bytes exactly:
// the same operators, params, tensors, names, and the shapes MegEngine's static
// inference recorded in the FBS_V2 MiddleTensors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/dump.h"
#include "formats/model_reader.h"
#include "tests/megengine_dumps.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

struct Variant {
    const char* name;
    engine::DumpFormat format;
    uint32_t model_version;
    int keep_var_name;
    bool names;  // keep_opr_name and keep_param_name
    bool compat_814;
};

// The README's "Variants" table.
constexpr Variant kVariants[] = {
    {"v2", engine::DumpFormat::FBS_V2, 2, 1, false, false},
    {"v2_names", engine::DumpFormat::FBS_V2, 2, 2, true, false},
    {"v2_mv1", engine::DumpFormat::FBS_V2, 1, 1, false, false},
    {"fbs", engine::DumpFormat::FBS, 2, 1, false, false},
    {"fbs_names", engine::DumpFormat::FBS, 2, 2, true, false},
    {"fbs_compat814", engine::DumpFormat::FBS, 2, 1, false, true},
};

// The first differing byte, for a message a person can follow up with flatc.
std::string first_difference(const std::vector<std::byte>& want, std::span<const std::byte> got) {
    const size_t n = std::min(want.size(), got.size());
    for (size_t i = 0; i < n; ++i)
        if (want[i] != got[i]) return fmt::format("first difference at byte {} of {} (got {})", i, want.size(), got.size());
    return fmt::format("sizes differ: MegEngine {} bytes, ours {}", want.size(), got.size());
}

class MegEngineDumpsConvert : public ::testing::TestWithParam<std::string> {};

TEST_P(MegEngineDumpsConvert, ReproducesEveryVariantByteForByte) {
    const fs::path dir = dumps_dir() / GetParam();
    int files = 0;
    for (const Variant& v : kVariants) {
        const fs::path file = dir / (std::string(v.name) + ".mge");
        if (!fs::exists(file)) continue;
        ++files;
        SCOPED_TRACE(file.string());
        auto bytes = read_file(file);
        formats::LoadedModel m = formats::read_model(ir::Bytes(*bytes), bytes);
        engine::DumpOptions o;
        o.dump_format = v.format;
        o.model_version = v.model_version;
        o.keep_var_name = v.keep_var_name;
        o.keep_opr_name = o.keep_param_name = v.names;
        if (v.compat_814) o.compat_older_version = "8.14";
        o.mgb_version = m.mgb_version;
        o.metadata = m.metadata;
        o.dedup_params = false;
        const auto out = engine::dump_graph(m.graph, o).bytes.to_bytes();
        EXPECT_TRUE(std::equal(bytes->begin(), bytes->end(), out.begin(), out.end()))
            << first_difference(*bytes, out);
    }
    EXPECT_GT(files, 0);
}

INSTANTIATE_TEST_SUITE_P(Graphs, MegEngineDumpsConvert, ::testing::ValuesIn(graph_folders()), graph_test_name);

TEST(MegEngineDumpsConvert, FindsEveryFile) {
    size_t files = 0;
    for (const auto& folder : graph_folders())
        for (const Variant& v : kVariants) files += fs::exists(dumps_dir() / folder / (std::string(v.name) + ".mge"));
    EXPECT_EQ(files, 1484u);
}

}  // namespace
}  // namespace mgedump::test
