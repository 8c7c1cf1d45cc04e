// The inference rules against MegEngine's own: every FBS_V2 file in
// ../shared/realdata/megengine-dumps was written by MegEngine, whose dumper
// records each var's statically inferred shape in its MiddleTensor (spec §6.5),
// and the outputs MegEngine computed from it are stored beside it as .npy. So for
// every var of every graph there, the shape we infer (or "not known") must be the
// one MegEngine recorded, and every output's dtype and shape the one MegEngine
// computed.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "formats/model_reader.h"
#include "formats/npy.h"
#include "ir/describe.h"
#include "ir/infer.h"
#include "ir/op_registry.h"
#include "tests/megengine_dumps.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

std::string dims_string(std::span<const uint32_t> d) {
    return d.empty() ? "unknown" : fmt::format("[{}]", fmt::join(d, ","));
}

class InferRealData : public ::testing::TestWithParam<std::string> {};

TEST_P(InferRealData, SharesMegEnginesShapesAndOutputDtypes) {
    const fs::path dir = dumps_dir() / GetParam();
    auto bytes = read_file(dir / "v2.mge");
    formats::LoadedModel model = formats::read_model(ir::Bytes(*bytes), bytes);
    ir::Graph& g = model.graph;

    // What MegEngine recorded, then forget it for every computed var.
    std::vector<std::vector<uint32_t>> recorded(g.vars.size());
    for (uint32_t v = 0; v < g.vars.size(); ++v) {
        auto s = g.var_shape(ir::VarId(v));
        recorded[v].assign(s.begin(), s.end());
        if (ir::op_def(g.oprs.type[g.vars.owner[v].value]).tensors == ir::OpTensors::None) {
            g.vars.shape[v] = ir::Range{};
            g.vars.dtype[v] = ir::DType::none();
        }
    }
    ir::InferState state = ir::infer_graph(g);
    ir::apply_inferred(g, state);

    std::vector<std::string> mismatches;
    for (uint32_t v = 0; v < g.vars.size(); ++v) {
        if (g.vars.flags[v] & ir::kVarVolatile) continue;
        auto inferred = g.var_shape(ir::VarId(v));
        if (!std::equal(inferred.begin(), inferred.end(), recorded[v].begin(), recorded[v].end()))
            mismatches.push_back(fmt::format("{} of {}: MegEngine {}, inferred {}", ir::describe_var(g, ir::VarId(v)),
                                             ir::describe_opr(g, g.vars.owner[v]), dims_string(recorded[v]),
                                             dims_string(inferred)));
    }

    // Outputs MegEngine computed: outputs/v2/<i>_<name>.npy.
    std::map<int, fs::path> npys;
    for (const auto& e : fs::directory_iterator(dir / "outputs" / "v2"))
        npys[std::stoi(e.path().filename().string())] = e.path();
    EXPECT_EQ(npys.size(), g.outputs.size());
    for (const auto& [i, path] : npys) {
        if (static_cast<size_t>(i) >= g.outputs.size()) continue;
        const ir::VarId out = g.outputs[i];
        formats::NpyArray a = formats::read_npy(path);
        const ir::DType d = g.vars.dtype[out.value];
        if (!d.valid || formats::npy_descr(d.type) != formats::npy_descr(a.dtype))
            mismatches.push_back(fmt::format("output {} {}: MegEngine computed {}, inferred {}", i,
                                             ir::describe_var(g, out), ir::dtype_name(a.dtype),
                                             d.valid ? ir::dtype_name(d.type) : "unknown"));
        auto inferred = g.var_shape(out);
        if (!inferred.empty() && !std::equal(inferred.begin(), inferred.end(), a.shape.begin(), a.shape.end()))
            mismatches.push_back(fmt::format("output {} {}: MegEngine computed {}, inferred {}", i,
                                             ir::describe_var(g, out), dims_string(a.shape), dims_string(inferred)));
    }
    EXPECT_TRUE(mismatches.empty()) << fmt::format("{}", fmt::join(mismatches, "\n"));
}

INSTANTIATE_TEST_SUITE_P(MegEngineDumps, InferRealData, ::testing::ValuesIn(graph_folders("v2.mge")),
                         graph_test_name);

TEST(InferRealData, FindsTheDumps) { EXPECT_GE(graph_folders("v2.mge").size(), 250u); }

}  // namespace
}  // namespace mgedump::test
