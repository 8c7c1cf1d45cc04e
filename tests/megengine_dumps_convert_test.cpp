// `convert` against MegEngine's own writer: every .mge in
// ../shared/realdata/megengine-dumps was written by MegEngine (that folder's
// README). Loading it and dumping it again with the options of its variant (the
// README's table) and without param dedup must give MegEngine's bytes exactly:
// the same operators, params, tensors, names, and the shapes MegEngine's static
// inference recorded in the FBS_V2 MiddleTensors. (A loaded file holds
// MegEngine's rewritten operators, which a dump keeps as they are.)
//
// mgedump's own compatibility rewrites of the graph each file was made from
// (source.json) match MegEngine's operator for operator, except for the graphs of
// kDeliberateDifferences, where MegEngine's rewrite does not compute the operator
// it replaces (README, "Deliberate differences"): there they differ, the
// operators of the graph that no rewrite touches stay the same, and mgedump's
// dump computes the operator's numbers.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "engine/dump.h"
#include "engine/eval/elements.h"
#include "engine/eval/evaluator.h"
#include "engine/eval/npy_tensor.h"
#include "engine/passes/compat_rewrite.h"
#include "formats/graph_json.h"
#include "formats/model_reader.h"
#include "ir/op_registry.h"
#include "ir/order.h"
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
        if (want[i] != got[i])
            return fmt::format("first difference at byte {} of {} (got {})", i, want.size(), got.size());
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

INSTANTIATE_TEST_SUITE_P(Graphs, MegEngineDumpsConvert, ::testing::ValuesIn(graph_folders()),
                         graph_test_name);

TEST(MegEngineDumpsConvert, FindsEveryFile) {
    size_t files = 0;
    for (const auto& folder : graph_folders())
        for (const Variant& v : kVariants)
            files += fs::exists(dumps_dir() / folder / (std::string(v.name) + ".mge"));
    EXPECT_EQ(files, 1484u);
}

// --- mgedump's own rewrites against MegEngine's ---------------------------------------------

// Graphs whose rewrite mgedump spells differently from MegEngine on purpose.
// `numbers_differ`: on the folder's stored inputs, MegEngine's outputs are not
// the operator's (beyond float32 rounding); otherwise its spelling goes wrong only
// on inputs the folder does not hold (NaN, x ≤ −17, a large offset, ...).
struct DeliberateDifference {
    const char* graph;
    bool numbers_differ;
    const char* why;
};
const DeliberateDifference kDeliberateDifferences[] = {
    {"opmatrix.Elemwise.SIGN", true, "MegEngine's LT(x,0) − LT(0,x) is −sign(x)"},
    {"opmatrix.Elemwise.SIGN.Int32", true, "MegEngine's LT(x,0) − LT(0,x) is −sign(x)"},
    {"extra.elemwise_unary", true, "holds SIGN (−sign(x) in MegEngine) and RELU6"},
    {"opmatrix.ElemwiseMultiType.ISINF", true, "MegEngine compares x with +inf: −inf is not detected"},
    {"opmatrix.GroupNorm.affine_wC_W_eq_C", true,
     "a (C,) weight: MegEngine multiplies it in along W; and the variance (below)"},
    {"opmatrix.InstanceNorm.affine_wC_W_eq_C", true,
     "a (C,) weight: MegEngine multiplies it in along W; and the variance (below)"},
    {"opmatrix.GroupNormBackward.N1_G1", true, "MegEngine's dx has x̂·S·Σg where x̂·Σ(g·x̂) belongs"},
    {"opmatrix.InstanceNormBackward.N1_G1", true, "MegEngine's dx has x̂·S·Σg where x̂·Σ(g·x̂) belongs"},
    {"opmatrix.GroupNorm.affine_w1C11", false, "variance as E[x²] − E[x]², which cancels for a large offset"},
    {"opmatrix.GroupNorm.no_affine_all_outputs", false, "variance as E[x²] − E[x]²"},
    {"opmatrix.InstanceNorm.affine_w1C11", false, "variance as E[x²] − E[x]²"},
    {"opmatrix.InstanceNorm.no_affine_all_outputs", false, "variance as E[x²] − E[x]²"},
    {"opmatrix.LayerNorm.affine", false,
     "FBS: SUM_SQR/n − mean² and x·r − mean·r, which cancel for a large offset"},
    {"opmatrix.LayerNorm.no_affine_all_outputs", false, "FBS: SUM_SQR/n − mean² and x·r − mean·r"},
    {"opmatrix.Elemwise.SINH", false, "u(u+2)/(2(u+1)), u = expm1(x): −inf for x ≤ −17.4, NaN for x > 88.7"},
    {"opmatrix.Elemwise.ASINH", false, "log(x + sqrt(x²+1)): −inf for x ≤ −4096, 0 for |x| < 6e-8"},
    {"opmatrix.Elemwise.ACOSH", false, "log(x + sqrt(x²−1)): cancels near 1, inf for x > 1.8e19"},
    {"opmatrix.Elemwise.ATANH", false, "log1p(2x/(1−x))/2: ~5e-6 relative off near −1 (40 ulps)"},
    // MegEngine's Elemwise::make orders the operands of MIN, MAX (and the product of
    // FUSE_MUL_ADD3) by var id, so its files hold MIN(hi, MAX(x, lo)), MIN(6, MAX(x, 0)),
    // FUSE_MUL_ADD3(w, MIN(x, 0), MAX(x, 0)); MIN/MAX return their second operand on NaN.
    {"opmatrix.Elemwise.CLIP", false, "MIN(hi, MAX(x, lo)) gives lo for a NaN x (CLIP: hi)"},
    {"opmatrix.Elemwise.RELU6", false, "MIN(6, MAX(x, 0)) gives 0 for a NaN x (RELU6: 6)"},
    {"opmatrix.Elemwise.RELU6.Int32", false, "the operand order of RELU6 (no NaN in Int32: same numbers)"},
    {"opmatrix.Elemwise.PRELU", false,
     "FUSE_MUL_ADD3(w, MIN(x, 0), MAX(x, 0)) gives 0 for a NaN x (PRELU: NaN)"},
};

const DeliberateDifference* deliberate_difference(const std::string& graph) {
    for (const DeliberateDifference& d : kDeliberateDifferences)
        if (graph == d.graph) return &d;
    return nullptr;
}

// Printable param values, for the expressions below.
std::string field_text(const ir::FieldValue& v) {
    struct Print {
        std::string operator()(int64_t x) const { return std::to_string(x); }
        std::string operator()(uint64_t x) const { return std::to_string(x); }
        std::string operator()(double x) const { return fmt::format("{}", x); }
        std::string operator()(const std::vector<int32_t>& x) const {
            return fmt::format("[{}]", fmt::join(x, ","));
        }
        std::string operator()(const std::vector<ir::AxisDesc>& x) const {
            std::string out;
            for (const auto& a : x) out += fmt::format("{}:{};", static_cast<int>(a.method), a.axis);
            return out;
        }
        std::string operator()(const std::vector<ir::IndexDescMaskItem>& x) const {
            std::string out;
            for (const auto& i : x) out += fmt::format("{}{}{}{}{};", i.axis, i.begin, i.end, i.step, i.idx);
            return out;
        }
        std::string operator()(const ir::DTypeScalar& x) const {
            return fmt::format("{}:{},{},{},{}", static_cast<int>(x.dtype), x.storage[0], x.storage[1],
                               x.storage[2], x.storage[3]);
        }
        std::string operator()(const ir::DType& x) const { return ir::dtype_string(x); }
    };
    return std::visit(Print{}, v);
}

// What computes var `v`, independent of names, ids and operator order: operator
// types with all params, graph inputs by name, constants by dtype, shape and
// value; a shared sub-expression is spelled out at each use. A TypeCvt of a small
// constant is spelled as the converted constant: MegEngine folds it at make time
// (mgedump writes the TypeCvt), the same value either way.
struct Expr {
    std::string text;
    std::optional<engine::eval::Tensor> constant;  // set for small constants
};

Expr constant_expr(const engine::eval::Tensor& t) {
    return Expr{fmt::format("const<{}>[{}]{{{}}}", ir::dtype_name(t.dtype().type),
                            fmt::join(t.shape().dims(), ","), fmt::join(engine::eval::to_doubles(t), ",")),
                t};
}

bool is_plain_numeric(ir::DTypeEnum t) {
    return t == ir::DTypeEnum::Float32 || t == ir::DTypeEnum::Float16 || t == ir::DTypeEnum::Int32;
}

const Expr& expression(const ir::Graph& g, ir::VarId v, std::map<uint32_t, Expr>& memo) {
    if (auto it = memo.find(v.value); it != memo.end()) return it->second;
    const ir::OprId o = g.vars.owner[v.value];
    const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
    const ir::Range tensors = g.oprs.tensors[o.value];
    if (def.name == "ImmutableTensor" && tensors.count == 1 &&
        is_plain_numeric(g.tensors.dtype[tensors.begin].type) &&
        ir::element_count(g.tensor_shape(ir::TensorId(tensors.begin))) <= 64) {
        const auto shape = g.tensor_shape(ir::TensorId(tensors.begin));
        const auto t = engine::eval::Tensor::copy_of(g.tensors.dtype[tensors.begin], ir::Shape::of(shape),
                                                     g.blobs.bytes(g.tensors.blob[tensors.begin]));
        return memo[v.value] = constant_expr(t);
    }
    if (def.name == "TypeCvt") {
        const Expr& in = expression(g, g.inputs_of(o)[0], memo);
        const ir::DType to = std::get<ir::DType>(g.params_of(o)[0].fields[0]);
        if (in.constant && is_plain_numeric(to.type)) {
            const std::vector<double> values = engine::eval::to_doubles(*in.constant);
            return memo[v.value] =
                       constant_expr(engine::eval::from_doubles(to, in.constant->shape(), values));
        }
    }
    std::string s(def.name);
    const ir::Range outs = g.oprs.outputs[o.value];
    if (outs.count > 1) s += fmt::format("#{}", v.value - outs.begin);
    if (def.name == "Host2DeviceCopy") {
        s += fmt::format("'{}'", g.str(g.tensors.name[tensors.begin]));
    } else {
        for (const ir::ParamValue& p : g.params_of(o))
            for (const ir::FieldValue& f : p.fields) s += "|" + field_text(f);
        for (uint32_t t = tensors.begin; t < tensors.begin + tensors.count; ++t) {
            const auto bytes = g.tensors.blob[t].valid() ? g.blobs.bytes(g.tensors.blob[t]) : ir::Bytes{};
            s += fmt::format("<{}[{}]#{:x}>", ir::dtype_string(g.tensors.dtype[t]),
                             fmt::join(g.tensor_shape(ir::TensorId(t)), ","),
                             std::hash<std::string_view>{}(std::string_view(
                                 reinterpret_cast<const char*>(bytes.data()), bytes.size())));
        }
        std::vector<std::string> args;
        for (ir::VarId in : g.inputs_of(o)) args.push_back(expression(g, in, memo).text);
        s += fmt::format("({})", fmt::join(args, ", "));
    }
    return memo[v.value] = Expr{s, std::nullopt};
}

std::vector<std::string> output_expressions(const ir::Graph& g) {
    std::map<uint32_t, Expr> memo;
    std::vector<std::string> out;
    for (ir::VarId v : g.outputs) out.push_back(expression(g, v, memo).text);
    return out;
}

// Operators of `g` by type, without those a rewrite emits or removes.
std::map<std::string, int> untouched_operators(const ir::Graph& g) {
    static const std::set<std::string_view> rewrite_vocabulary = {"Elemwise",
                                                                  "ElemwiseMultiType",
                                                                  "TypeCvt",
                                                                  "ImmutableTensor",
                                                                  "Reduce",
                                                                  "Reshape",
                                                                  "GetVarShape",
                                                                  "Subtensor",
                                                                  "Concat",
                                                                  "PowC",
                                                                  "GroupNorm",
                                                                  "InstanceNorm",
                                                                  "GroupNormBackward",
                                                                  "InstanceNormBackward",
                                                                  "LayerNorm",
                                                                  "Softmax",
                                                                  "Where",
                                                                  "Dropout",
                                                                  "UniformRNG"};
    std::map<std::string, int> counts;
    for (ir::OprId o : ir::dump_order(g)) {
        const std::string_view name = ir::op_def(g.oprs.type[o.value]).name;
        if (!rewrite_vocabulary.contains(name)) ++counts[std::string(name)];
    }
    return counts;
}

// Graph folders made from an mgedump graph JSON (not from an ONNX model) with an
// operator some format rewrites.
std::vector<std::string> rewritten_source_folders() {
    std::vector<std::string> out;
    for (const std::string& folder : graph_folders("source.json")) {
        if (folder.starts_with("onnx.")) continue;
        try {
            const ir::Graph g = formats::read_graph_json_file(dumps_dir() / folder / "source.json");
            // MegEngine wrote no FBS file of some (CheckNonFinite: it cannot load them back).
            const bool v2 = fs::exists(dumps_dir() / folder / "v2.mge") &&
                            engine::needs_compat_rewrites(g, engine::DumpFormat::FBS_V2);
            const bool fbs = fs::exists(dumps_dir() / folder / "fbs.mge") &&
                             engine::needs_compat_rewrites(g, engine::DumpFormat::FBS);
            if (v2 || fbs) out.push_back(folder);
        } catch (const std::exception&) {
            out.push_back(folder);  // the test then reports why it cannot be read
        }
    }
    return out;
}

engine::eval::Feeds stored_inputs(const ir::Graph& g, const fs::path& dir) {
    engine::eval::Feeds feeds;
    for (const auto& in : engine::eval::graph_inputs(g))
        feeds.emplace(in.name, engine::eval::read_npy_tensor(dir / "inputs" / (in.name + ".npy"), in.dtype));
    return feeds;
}

// |a − b| within float rounding (Float32: a few ulps and 1e-6 of the largest |b|;
// Float16: two half ulps and 1e-3); integers and Bool exactly; NaN where NaN.
bool same_numbers(const engine::eval::Tensor& a, const engine::eval::Tensor& b) {
    if (!(a.dtype() == b.dtype()) || !(a.shape() == b.shape())) return false;
    const auto x = engine::eval::to_doubles(a), y = engine::eval::to_doubles(b);
    double top = 0;
    for (double v : y)
        if (std::isfinite(v)) top = std::max(top, std::fabs(v));
    const bool half = b.dtype().type == ir::DTypeEnum::Float16;
    const double rel = half ? 2.0 / 1024 : 4.8e-7, of_top = half ? 1e-3 : 1e-6;
    for (size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) || std::isnan(y[i])) {
            if (std::isnan(x[i]) != std::isnan(y[i])) return false;
            continue;
        }
        if (std::isinf(x[i]) || std::isinf(y[i])) {
            if (x[i] != y[i]) return false;
            continue;
        }
        if (std::fabs(x[i] - y[i]) > rel * std::fabs(y[i]) + of_top * top) return false;
    }
    return true;
}

class MegEngineDumpsRewrite : public ::testing::TestWithParam<std::string> {};

TEST_P(MegEngineDumpsRewrite, MgedumpsRewriteOfTheSourceGraphIsMegEnginesUnlessListed) {
    const fs::path dir = dumps_dir() / GetParam();
    const DeliberateDifference* deliberate = deliberate_difference(GetParam());
    const ir::Graph source = formats::read_graph_json_file(dir / "source.json");
    bool any_differs = false;
    int rewritten = 0;
    for (const Variant& v : kVariants) {
        // The names variants differ only in names; 8.14 and model version 1 only in ids.
        if (std::string_view(v.name) != "v2" && std::string_view(v.name) != "fbs") continue;
        const fs::path file = dir / (std::string(v.name) + ".mge");
        if (!fs::exists(file) || !engine::needs_compat_rewrites(source, v.format)) continue;
        ++rewritten;
        SCOPED_TRACE(file.string());
        auto theirs_bytes = read_file(file);
        const formats::LoadedModel theirs = formats::read_model(ir::Bytes(*theirs_bytes), theirs_bytes);
        engine::DumpOptions o;
        o.dump_format = v.format;
        o.dedup_params = false;
        auto ours_bytes =
            std::make_shared<std::vector<std::byte>>(engine::dump_graph(source, o).bytes.to_bytes());
        const formats::LoadedModel ours = formats::read_model(ir::Bytes(*ours_bytes), ours_bytes);

        const std::vector<std::string> ours_expr = output_expressions(ours.graph),
                                       theirs_expr = output_expressions(theirs.graph);
        const bool same = ours_expr == theirs_expr;
        any_differs = any_differs || !same;
        if (!deliberate) {
            EXPECT_TRUE(same)
                << "mgedump's rewrite is not MegEngine's, and the graph is not a listed difference:\n  "
                << fmt::format("{}", fmt::join(ours_expr, "; ")) << "\nMegEngine's:\n  "
                << fmt::format("{}", fmt::join(theirs_expr, "; "));
            continue;
        }
        EXPECT_EQ(untouched_operators(ours.graph), untouched_operators(theirs.graph));
    }
    if (deliberate) {
        EXPECT_TRUE(any_differs) << "listed as a deliberate difference, but the rewrites agree";
    }
    EXPECT_GT(rewritten, 0) << "no file of this folder has a rewritten operator";
}

INSTANTIATE_TEST_SUITE_P(Graphs, MegEngineDumpsRewrite, ::testing::ValuesIn(rewritten_source_folders()),
                         graph_test_name);

// On the folder's inputs, mgedump's rewritten dump computes what the source graph
// computes unrewritten (the evaluator, MegDNN's definitions); MegEngine's files
// do too, except where listed with numbers_differ.
class MegEngineDumpsDeliberateDifference : public ::testing::TestWithParam<DeliberateDifference> {};

TEST_P(MegEngineDumpsDeliberateDifference, OursComputesTheOperatorAndMegEnginesDiffersAsListed) {
    const DeliberateDifference& d = GetParam();
    const fs::path dir = dumps_dir() / d.graph;
    const ir::Graph source = formats::read_graph_json_file(dir / "source.json");
    const engine::eval::Feeds feeds = stored_inputs(source, dir);
    const auto reference = engine::eval::evaluate(source, feeds);
    bool megengine_differs = false;
    for (const Variant& v : kVariants) {
        if (std::string_view(v.name) != "v2" && std::string_view(v.name) != "fbs") continue;
        const fs::path file = dir / (std::string(v.name) + ".mge");
        if (!fs::exists(file)) continue;
        SCOPED_TRACE(file.string());
        engine::DumpOptions o;
        o.dump_format = v.format;
        auto bytes = std::make_shared<std::vector<std::byte>>(engine::dump_graph(source, o).bytes.to_bytes());
        const formats::LoadedModel ours = formats::read_model(ir::Bytes(*bytes), bytes);
        const auto got = engine::eval::evaluate(ours.graph, feeds);
        ASSERT_EQ(got.size(), reference.size());
        for (size_t i = 0; i < got.size(); ++i)
            EXPECT_TRUE(same_numbers(got[i].value, reference[i].value))
                << "output " << i << " of mgedump's dump";
        // MegEngine's own results for its file (outputs/<variant>/<i>_<name>.npy).
        for (const auto& e : fs::directory_iterator(dir / "outputs" / v.name)) {
            const std::string n = e.path().filename().string();
            const size_t i = std::stoul(n.substr(0, n.find('_')));
            ASSERT_LT(i, reference.size());
            const auto theirs = engine::eval::read_npy_tensor(e.path(), reference[i].value.dtype());
            megengine_differs = megengine_differs || !same_numbers(theirs, reference[i].value);
        }
    }
    EXPECT_EQ(megengine_differs, d.numbers_differ) << d.why;
}

INSTANTIATE_TEST_SUITE_P(Listed, MegEngineDumpsDeliberateDifference,
                         ::testing::ValuesIn(kDeliberateDifferences),
                         [](const ::testing::TestParamInfo<DeliberateDifference>& info) {
                             std::string s = info.param.graph;
                             for (char& c : s)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return s;
                         });

}  // namespace
}  // namespace mgedump::test
