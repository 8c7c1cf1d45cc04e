// Why mgedump's compatibility rewrites differ from MegEngine's (README, "Deliberate
// differences"), by execution: the files of ../shared/realdata/megengine-dumps
// hold MegEngine's own rewrite of each graph (written by its dumper); evaluated on
// inputs that reach the case, they do not compute the operator they replace, while
// mgedump's dump of the same source graph does. "The operator" is the source graph
// evaluated as given (the evaluator's kernels, MegDNN's definitions).
//
// Each case names a folder, the variant file, and the input values (filled into
// the input's shape, cycling); the rest of the inputs are the folder's own.
// Agreement means: within float32 rounding (1e-6 of max|y| + 4.8e-7·|y|; for
// data around 1000, plus 8·ulp(1000)/σ of max|y|, what such data carries), NaN
// where NaN, the same infinities; integers and Bool exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "engine/eval/npy_tensor.h"
#include "formats/graph_json.h"
#include "tests/eval/rewrite_test_util.h"
#include "tests/megengine_dumps.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;
using engine::eval::Feeds;
using engine::eval::Tensor;

struct Evidence {
    const char* name;
    const char* folder;
    const char* variant;  // "v2" or "fbs"
    const char* input;    // the input given `values` ("" = the folder's inputs)
    std::vector<double> values;
    const char* megengine_gives;  // what the test shows, for the report
    // Data around 1000 with a spread of 1 is known only to ulp(1000)/σ after
    // normalizing (rewrite_norm_test.cpp): 8 of those are allowed.
    bool offset_data = false;
};

// A large offset against a spread of 1: 1000 + N(0, 1).
std::vector<double> offset_values(size_t n) {
    std::mt19937 gen(3);
    std::normal_distribution<double> d(0.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<float>(1000.0 + d(gen));
    return v;
}

const Evidence kEvidence[] = {
    {"SIGN", "opmatrix.Elemwise.SIGN", "v2", "x0", {-2.5, -1e-30, 0.0, 1e-30, 0.5, 7.0}, "−sign(x)"},
    {"SIGN_Int32", "opmatrix.Elemwise.SIGN.Int32", "v2", "x", {-7, -1, 0, 1, 9}, "−sign(x)"},
    {"ISINF", "opmatrix.ElemwiseMultiType.ISINF", "v2", "", {}, "false for −inf"},
    {"GroupNorm_weight_C_W_eq_C",
     "opmatrix.GroupNorm.affine_wC_W_eq_C",
     "v2",
     "",
     {},
     "the (C,) weight applied along W"},
    {"InstanceNorm_weight_C_W_eq_C",
     "opmatrix.InstanceNorm.affine_wC_W_eq_C",
     "v2",
     "",
     {},
     "the (C,) weight applied along W"},
    {"GroupNormBackward_N1_G1", "opmatrix.GroupNormBackward.N1_G1", "v2", "", {}, "a wrong dx"},
    {"InstanceNormBackward_N1_G1", "opmatrix.InstanceNormBackward.N1_G1", "v2", "", {}, "a wrong dx"},
    {"GroupNorm_offset_1000", "opmatrix.GroupNorm.no_affine_all_outputs", "v2", "x", offset_values(72),
     "E[x²] − E[x]² cancels", true},
    {"InstanceNorm_offset_1000", "opmatrix.InstanceNorm.no_affine_all_outputs", "v2", "x", offset_values(72),
     "E[x²] − E[x]² cancels", true},
    {"LayerNorm_fbs_offset_1000", "opmatrix.LayerNorm.no_affine_all_outputs", "fbs", "x", offset_values(24),
     "SUM_SQR/n − mean² cancels", true},
    {"SINH",
     "opmatrix.Elemwise.SINH",
     "v2",
     "x0",
     {-20.0, -18.0, 100.0, 1.0},
     "−inf for x ≤ −17.4, NaN for x > 88.7"},
    {"ASINH", "opmatrix.Elemwise.ASINH", "v2", "x0", {-1e4, -5000.0, 1e-8, 1e20, 1.0}, "−inf, 0, inf"},
    {"ACOSH",
     "opmatrix.Elemwise.ACOSH",
     "v2",
     "x0",
     {1.0000001, 1.000001, 1e20, -1e4, 2.0},
     "imprecise near 1, inf, −inf"},
    {"ATANH",
     "opmatrix.Elemwise.ATANH",
     "v2",
     "x0",
     {-0.999, -0.9999, -0.99999, 0.5},
     "~5e-6 relative off near −1"},
    {"CLIP_NaN", "opmatrix.Elemwise.CLIP", "v2", "x0", {kNaN, 0.1}, "lo for NaN (CLIP: hi)"},
    {"RELU6_NaN", "opmatrix.Elemwise.RELU6", "v2", "x0", {kNaN, 2.0}, "0 for NaN (RELU6: 6)"},
    {"PRELU_NaN", "opmatrix.Elemwise.PRELU", "v2", "x0", {kNaN, -1.0}, "0 for NaN (PRELU: NaN)"},
};

Feeds feeds_for(const Evidence& e, const ir::Graph& source, const fs::path& dir) {
    Feeds feeds;
    for (const auto& in : engine::eval::graph_inputs(source)) {
        if (in.name == e.input) {
            std::vector<double> v(in.shape.elements());
            for (size_t i = 0; i < v.size(); ++i) v[i] = e.values[i % e.values.size()];
            feeds.emplace(in.name, engine::eval::from_doubles(in.dtype, in.shape, v));
        } else {
            feeds.emplace(in.name,
                          engine::eval::read_npy_tensor(dir / "inputs" / (in.name + ".npy"), in.dtype));
        }
    }
    return feeds;
}

// "" when `got` computes `want`; else the largest difference and an example.
std::string disagreement(const Tensor& got, const Tensor& want, bool offset_data) {
    if (!engine::eval::is_float_dtype(want.dtype().type)) return compare_tensors(got, want, Tolerance{0, 0});
    return compare_tensors(got, want,
                           Tolerance{4.8e-7, 1e-6 + (offset_data ? 8 * std::ldexp(1003.0, -23) / 0.5 : 0)});
}

class MegEngineRewriteEvidence : public testing::TestWithParam<Evidence> {};

TEST_P(MegEngineRewriteEvidence, MegEnginesFileMissesTheOperatorAndMgedumpsDumpComputesIt) {
    const Evidence& e = GetParam();
    const fs::path dir = dumps_dir() / e.folder;
    const ir::Graph source = formats::read_graph_json_file(dir / "source.json");
    const Feeds feeds = feeds_for(e, source, dir);
    const auto reference = engine::eval::evaluate(source, feeds);

    auto bytes = read_file(dir / (std::string(e.variant) + ".mge"));
    const formats::LoadedModel theirs = formats::read_model(ir::Bytes(*bytes), bytes);
    const auto megengine = engine::eval::evaluate(theirs.graph, feeds);
    const Reloaded ours = dump_and_reload(
        source, std::string_view(e.variant) == "fbs" ? engine::DumpFormat::FBS : engine::DumpFormat::FBS_V2);
    const auto mgedump = engine::eval::evaluate(ours.model.graph, feeds);
    ASSERT_EQ(megengine.size(), reference.size());
    ASSERT_EQ(mgedump.size(), reference.size());

    // Output 0 is the rewritten one (the norms' mean and rstd stay the operator's).
    const std::string wrong = disagreement(megengine[0].value, reference[0].value, e.offset_data);
    EXPECT_NE(wrong, "") << "MegEngine's rewrite computes the operator here: " << e.megengine_gives;
    EXPECT_EQ(disagreement(mgedump[0].value, reference[0].value, e.offset_data), "");
    RecordProperty("megengine", wrong);
    RecordProperty("megengine_relative",
                   fmt::format("{:.3g}", max_relative_difference(megengine[0].value, reference[0].value)));
    RecordProperty("mgedump_relative",
                   fmt::format("{:.3g}", max_relative_difference(mgedump[0].value, reference[0].value)));
}

INSTANTIATE_TEST_SUITE_P(Cases, MegEngineRewriteEvidence, testing::ValuesIn(kEvidence),
                         [](const testing::TestParamInfo<Evidence>& info) {
                             return std::string(info.param.name);
                         });

}  // namespace
}  // namespace mgedump::test
