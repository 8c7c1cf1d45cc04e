// The §9.1 compatibility rewrites (engine/passes/compat_rewrite.h): for every rule, the
// structure of the replacement as seen from the graph output, plus what is left alone,
// naming, redirection, determinism of the parallel path and error messages.
#include "engine/passes/compat_rewrite.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/order.h"
#include "ir/validate.h"
#include "engine/dump.h"
#include "formats/model_reader.h"
#include "tests/model_test_util.h"

namespace mgedump::engine {
namespace {

using ir::DType;
using ir::DTypeEnum;
using ir::Graph;
using ir::GraphBuilder;
using ir::OprId;
using ir::VarId;

const DType kF32 = DType::of(DTypeEnum::Float32);
const DType kF16 = DType::of(DTypeEnum::Float16);
const DType kBool = DType::of(DTypeEnum::Bool);

ir::OpOptions named(std::string name) {
    ir::OpOptions o;
    o.name = std::move(name);
    return o;
}
ir::OpOptions on_comp_node(std::string cn) {
    ir::OpOptions o;
    o.comp_nodes = {std::move(cn)};
    return o;
}
ir::OpOptions with_outputs(uint32_t n) {
    ir::OpOptions o;
    o.outputs = n;
    return o;
}
ir::OpOptions with_priority(int32_t p) {
    ir::OpOptions o;
    o.priority = p;
    return o;
}

std::string_view op_name(const Graph& g, OprId o) { return ir::op_def(g.oprs.type[o.value]).name; }

// Enum member name of a param field ("MAX_" → "MAX").
std::string enum_name(const Graph& g, OprId o, std::string_view field) {
    const ir::ParamValue& p = g.params_of(o)[0];
    const ir::ParamTableDesc& t = ir::param_table(p.table);
    int idx = ir::find_field(t, field);
    auto value = static_cast<uint32_t>(std::get<int64_t>(p.fields[idx]));
    std::string name(ir::find_enum_member(*t.fields[idx].enum_type, value)->name);
    if (name.ends_with('_')) name.pop_back();
    return name;
}

int64_t int_param(const Graph& g, OprId o, std::string_view field) {
    const ir::ParamValue& p = g.params_of(o)[0];
    const auto& v = p.fields[ir::find_field(ir::param_table(p.table), field)];
    if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*u);
    return std::get<int64_t>(v);
}

double float_param(const Graph& g, OprId o, std::string_view field) {
    const ir::ParamValue& p = g.params_of(o)[0];
    return std::get<double>(p.fields[ir::find_field(ir::param_table(p.table), field)]);
}

std::string constant_text(const Graph& g, OprId o) {
    const ir::TensorId t(g.oprs.tensors[o.value].begin);
    const auto shape = g.tensor_shape(t);
    const auto bytes = g.blobs.bytes(g.tensors.blob[t.value]);
    const DTypeEnum type = g.tensors.dtype[t.value].type;
    std::vector<std::string> values;
    for (size_t i = 0; i < ir::element_count(shape); ++i) {
        if (type == DTypeEnum::Float32) {
            float f;
            std::memcpy(&f, bytes.data() + 4 * i, 4);
            values.push_back(fmt::format("{}", f));
        } else if (type == DTypeEnum::Int32) {
            int32_t v;
            std::memcpy(&v, bytes.data() + 4 * i, 4);
            values.push_back(fmt::format("{}", v));
        } else {
            values.push_back("?");
        }
    }
    // Scalars of shape [1] print as Float32(0.5); vectors as Int32{2,3,4}.
    if (shape.size() == 1 && shape[0] == 1) return fmt::format("{}({})", ir::dtype_name(type), values[0]);
    return fmt::format("{}{{{}}}", ir::dtype_name(type), fmt::join(values, ","));
}

// The expression computing `v`, spelled out from the graph tables: inputs by name,
// constants by value, Elemwise by mode, other operators by name with their salient
// params in <>.
std::string expr(const Graph& g, VarId v) {
    const OprId o = g.vars.owner[v.value];
    const std::string_view type = op_name(g, o);
    std::vector<std::string> args;
    for (VarId in : g.inputs_of(o)) args.push_back(expr(g, in));
    const std::string joined = fmt::format("{}", fmt::join(args, ", "));

    if (type == "Host2DeviceCopy" || type == "SharedDeviceTensor")
        return std::string(g.str(g.vars.name[v.value]));
    if (type == "ImmutableTensor") return constant_text(g, o);
    if (type == "Elemwise") return fmt::format("{}({})", enum_name(g, o, "mode"), joined);
    if (type == "ElemwiseMultiType") return fmt::format("MT.{}({})", enum_name(g, o, "mode"), joined);
    if (type == "TypeCvt") {
        const auto& d = std::get<DType>(g.params_of(o)[0].fields[0]);
        return fmt::format("TypeCvt<{}>({})", ir::dtype_name(d.type), joined);
    }
    if (type == "Reduce") {
        const int64_t axis = int_param(g, o, "axis");
        if (axis == std::numeric_limits<int32_t>::max())
            return fmt::format("Reduce<{}>({})", enum_name(g, o, "mode"), joined);
        return fmt::format("Reduce<{},{}>({})", enum_name(g, o, "mode"), axis, joined);
    }
    if (type == "PowC") return fmt::format("PowC<{}>({})", float_param(g, o, "exp"), joined);
    if (type == "Reshape") {
        const int64_t axis = int_param(g, o, "axis");
        if (axis == 7) return fmt::format("Reshape({})", joined);
        return fmt::format("Reshape<{}>({})", axis, joined);
    }
    if (type == "Concat") return fmt::format("Concat<{}>({})", int_param(g, o, "axis"), joined);
    if (type == "UniformRNG") return fmt::format("UniformRNG<{}>({})", int_param(g, o, "seed"), joined);
    if (type == "Subtensor") {
        const auto& items = std::get<std::vector<ir::IndexDescMaskItem>>(g.params_of(o)[0].fields[0]);
        std::string spec;
        for (const auto& it : items)
            spec += fmt::format("{}{}{}{}{}", it.axis, it.begin ? "b" : "", it.end ? "e" : "",
                                it.step ? "s" : "", it.idx ? "i" : "");
        return fmt::format("Subtensor<{}>({})", spec, joined);
    }
    return fmt::format("{}({})", type, joined);
}

std::string output_expr(const Graph& g, size_t k = 0) { return expr(g, g.outputs[k]); }

size_t count_in_dump(const Graph& g, std::string_view type) {
    size_t n = 0;
    for (OprId o : ir::dump_order(g)) n += op_name(g, o) == type;
    return n;
}

size_t count_elemwise_in_dump(const Graph& g, std::string_view mode) {
    size_t n = 0;
    for (OprId o : ir::dump_order(g))
        if (op_name(g, o) == "Elemwise" && enum_name(g, o, "mode") == mode) ++n;
    return n;
}

// A graph with one Elemwise of `mode` over inputs x (and w, lo, hi as the arity asks).
Graph elemwise_graph(std::string_view mode, DType dtype = kF32) {
    GraphBuilder b;
    VarId x = b.input("x", dtype, {2, 3});
    std::vector<VarId> inputs{x};
    if (mode == "PRELU") inputs.push_back(b.input("w", dtype, {3}));
    if (mode == "CLIP") {
        inputs.push_back(b.input("lo", dtype, {1}));
        inputs.push_back(b.input("hi", dtype, {1}));
    }
    b.output(b.op("Elemwise", inputs, {{"mode", std::string(mode)}}), "y");
    return b.finish();
}

Graph rewritten(Graph g, DumpFormat format) {
    apply_compat_rewrites(g, format);
    ir::validate(g, ir::ValidateOptions{});
    return g;
}

// --- Elemwise: all 15 modes, both formats ---------------------------------------------

struct ElemwiseCase {
    const char* mode;
    const char* expected;
};

class ElemwiseRewrite : public testing::TestWithParam<ElemwiseCase> {};

TEST_P(ElemwiseRewrite, ReplacesTheModeWithTheSpecifiedSubgraphInBothFormats) {
    for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
        Graph g = rewritten(elemwise_graph(GetParam().mode), format);
        EXPECT_EQ(output_expr(g), GetParam().expected) << format_name(format);
        EXPECT_EQ(count_elemwise_in_dump(g, GetParam().mode), 0u) << format_name(format);
    }
}

INSTANTIATE_TEST_SUITE_P(
    EveryListedMode, ElemwiseRewrite,
    testing::Values(
        ElemwiseCase{"SQRT", "POW(x, Float32(0.5))"}, ElemwiseCase{"SQUARE", "POW(x, Float32(2))"},
        ElemwiseCase{"TAN", "TRUE_DIV(SIN(x), COS(x))"},
        ElemwiseCase{"COSH", "MUL(Float32(0.5), ADD(EXP(x), EXP(NEGATE(x))))"},
        // SINH to PRELU, except HSIGMOID, differ from what MegEngine's files hold
        // (rules_elemwise.cpp says why; megengine_dumps_convert_test.cpp checks it).
        ElemwiseCase{"SINH", "MUL(SUB(EXPM1(x), EXPM1(NEGATE(x))), Float32(0.5))"},
        ElemwiseCase{"ASINH",
                     "MUL(SUB(LT(Float32(0), x), LT(x, Float32(0))), LOG1P(ADD(ABS(x), TRUE_DIV(ABS(x), "
                     "ADD(TRUE_DIV(Float32(1), ABS(x)), POW(ADD(MUL(TRUE_DIV(Float32(1), ABS(x)), "
                     "TRUE_DIV(Float32(1), ABS(x))), Float32(1)), Float32(0.5)))))))"},
        ElemwiseCase{"ACOSH",
                     "LOG1P(ADD(SUB(x, Float32(1)), MUL(POW(SUB(x, Float32(1)), Float32(0.5)), POW(ADD(x, "
                     "Float32(1)), Float32(0.5)))))"},
        ElemwiseCase{"ATANH",
                     "MUL(SUB(LT(Float32(0), x), LT(x, Float32(0))), TRUE_DIV(LOG1P(TRUE_DIV(MUL(Float32(2), "
                     "ABS(x)), SUB(Float32(1), ABS(x)))), Float32(2)))"},
        ElemwiseCase{"CLIP", "MIN(MAX(lo, x), hi)"},
        ElemwiseCase{"SIGN", "SUB(LT(Float32(0), x), LT(x, Float32(0)))"},
        ElemwiseCase{"HSIGMOID",
                     "TRUE_DIV(MIN(Float32(6), MAX(Float32(0), ADD(x, Float32(3)))), Float32(6))"},
        ElemwiseCase{"RELU6", "MIN(MAX(Float32(0), x), Float32(6))"},
        ElemwiseCase{"PRELU", "FUSE_MUL_ADD3(MIN(Float32(0), x), w, MAX(Float32(0), x))"},
        ElemwiseCase{"SOFTPLUS", "ADD(LOG1P(EXP(NEGATE(ABS(x)))), RELU(x))"},
        ElemwiseCase{"LOGSIGMOID", "NEGATE(ADD(LOG1P(EXP(NEGATE(ABS(x)))), RELU(NEGATE(x))))"}),
    [](const testing::TestParamInfo<ElemwiseCase>& info) { return std::string(info.param.mode); });

TEST(CompatRewrite, SinhIsHalfTheDifferenceOfTwoExpm1) {
    Graph g = rewritten(elemwise_graph("SINH"), DumpFormat::FBS);
    EXPECT_EQ(count_elemwise_in_dump(g, "EXPM1"), 2u);
    EXPECT_EQ(count_in_dump(g, "ImmutableTensor"), 1u);  // 0.5
}

TEST(CompatRewrite, AsinhAndAtanhShareOneAbsAndOneZeroForTheSign) {
    for (const char* mode : {"ASINH", "ATANH"}) {
        Graph g = rewritten(elemwise_graph(mode), DumpFormat::FBS_V2);
        EXPECT_EQ(count_elemwise_in_dump(g, "ABS"), 1u) << mode;
        EXPECT_EQ(count_elemwise_in_dump(g, "LT"), 2u) << mode;
    }
}

TEST(CompatRewrite, HsigmoidUsesOneSixConstantForBothOperands) {
    Graph g = rewritten(elemwise_graph("HSIGMOID"), DumpFormat::FBS);
    EXPECT_EQ(count_in_dump(g, "ImmutableTensor"), 3u);  // 6, 0, 3
}

TEST(CompatRewrite, ConstantsAreCastToANonFloat32InputsDtype) {
    Graph g = rewritten(elemwise_graph("SQRT", kF16), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g), "POW(x, TypeCvt<Float16>(Float32(0.5)))");
    Graph relu6 = rewritten(elemwise_graph("RELU6", kF16), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(relu6), "MIN(MAX(TypeCvt<Float16>(Float32(0)), x), TypeCvt<Float16>(Float32(6)))");
}

TEST(CompatRewrite, ConstantsAreOneElementTensorsOfShapeOneOnTheInputsCompNode) {
    GraphBuilder b("cpu0:1");
    VarId x = b.input("x", kF32, {4});
    b.output(b.op("Elemwise", {x}, {{"mode", "SQRT"}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    for (OprId o : ir::dump_order(g)) {
        if (op_name(g, o) != "ImmutableTensor") continue;
        const uint32_t t = g.oprs.tensors[o.value].begin;
        EXPECT_EQ(g.oprs.tensors[o.value].count, 1u);
        EXPECT_EQ(g.tensors.method[t], ir::TensorMethod::ValueAnonymous);
        EXPECT_EQ(std::vector<uint32_t>(g.tensor_shape(ir::TensorId(t)).begin(),
                                        g.tensor_shape(ir::TensorId(t)).end()),
                  std::vector<uint32_t>{1});
        EXPECT_EQ(g.str(g.tensors.comp_node[t]), "cpu0:1");
        ASSERT_EQ(g.comp_nodes_of(o).size(), 1u);
        EXPECT_EQ(g.str(g.comp_nodes_of(o)[0]), "cpu0:1");
    }
}

TEST(CompatRewrite, ConstantsFollowAnExplicitCompNodeOfTheProducer) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {4});
    VarId r = b.op("Elemwise", {x}, {{"mode", "RELU"}}, on_comp_node("gpu1:0"));
    VarId e = b.op("Elemwise", {r}, {{"mode", "EXP"}});  // inherits gpu1:0 through its input
    b.output(b.op("Elemwise", {e}, {{"mode", "SQUARE"}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    const VarId two = g.inputs_of(g.vars.owner[g.outputs[0].value])[1];
    const uint32_t t = g.oprs.tensors[g.vars.owner[two.value].value].begin;
    EXPECT_EQ(g.str(g.tensors.comp_node[t]), "gpu1:0");
}

TEST(CompatRewrite, EqualConstantsAreSharedAcrossRewrites) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {4});
    VarId y = b.input("y", kF32, {4});
    VarId sx = b.op("Elemwise", {x}, {{"mode", "SQRT"}});
    VarId sy = b.op("Elemwise", {y}, {{"mode", "SQRT"}});
    b.output(b.op("Elemwise", {sx, sy}, {{"mode", "ADD"}}), "z");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    EXPECT_EQ(output_expr(g), "ADD(POW(x, Float32(0.5)), POW(y, Float32(0.5)))");
    EXPECT_EQ(count_in_dump(g, "ImmutableTensor"), 1u);
}

// --- ElemwiseMultiType and Where ----------------------------------------------------

// The comparison modes (EQ, NEQ, LT, LEQ, ISNAN, ISINF) need output_dtype Bool, as
// in MegEngine.
Graph multi_type_graph(std::string_view mode, DType dtype = kF32) {
    GraphBuilder b;
    VarId a = b.input("a", dtype, {3});
    std::vector<VarId> inputs{a};
    if (mode != "ISNAN" && mode != "ISINF") inputs.push_back(b.input("b", dtype, {3}));
    b.output(b.op("ElemwiseMultiType", inputs, {{"mode", std::string(mode)}}, ir::OpOptions{.output_dtype = kBool}),
             "m");
    return b.finish();
}

// x reshaped to a shape read from an Int32 input of `rank` elements: its value is
// not static, so neither is the result's shape (nor its rank).
VarId with_unknown_shape(GraphBuilder& b, VarId x, uint32_t rank) {
    VarId target = b.input("target_shape", DType::of(DTypeEnum::Int32), {rank});
    return b.op("Reshape", {x, target});
}

TEST(CompatRewrite, MultiTypeComparisonsBecomeElemwiseOfTheSameModeCastToBool) {
    for (const char* mode : {"EQ", "LT", "LEQ"}) {
        for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
            Graph g = rewritten(multi_type_graph(mode), format);
            EXPECT_EQ(output_expr(g), fmt::format("TypeCvt<Bool>({}(a, b))", mode)) << mode;
            EXPECT_EQ(g.vars.dtype[g.outputs[0].value], kBool);
        }
    }
}

TEST(CompatRewrite, MultiTypeNeqIsNotOfEqual) {
    Graph g = rewritten(multi_type_graph("NEQ"), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g), "NOT(TypeCvt<Bool>(EQ(a, b)))");
    EXPECT_EQ(g.vars.dtype[g.outputs[0].value], kBool);
}

TEST(CompatRewrite, MultiTypeIsnanIsNotOfSelfEquality) {
    Graph g = rewritten(multi_type_graph("ISNAN"), DumpFormat::FBS);
    EXPECT_EQ(output_expr(g), "NOT(TypeCvt<Bool>(EQ(a, a)))");
}

// MegEngine compares a itself with +inf, missing −inf.
TEST(CompatRewrite, MultiTypeIsinfComparesTheMagnitudeWithInfinityInFloat32) {
    Graph g = rewritten(multi_type_graph("ISINF"), DumpFormat::FBS);
    EXPECT_EQ(output_expr(g), "TypeCvt<Bool>(EQ(ABS(a), Float32(inf)))");
    Graph half = rewritten(multi_type_graph("ISINF", kF16), DumpFormat::FBS);
    EXPECT_EQ(output_expr(half), "TypeCvt<Bool>(EQ(ABS(TypeCvt<Float32>(a)), Float32(inf)))");
}

TEST(CompatRewrite, MultiTypeModesWithoutARuleAreLeftAlone) {
    GraphBuilder b;
    // FUSE_MUL_ADD3_INT16x32x32x32 takes Int16, Int32, Int32.
    VarId a = b.input("a", DType::of(DTypeEnum::Int16), {3});
    VarId c = b.input("c", DType::of(DTypeEnum::Int32), {3});
    b.output(b.op("ElemwiseMultiType", {a, c, c}, {{"mode", "FUSE_MUL_ADD3_INT16x32x32x32"}}), "m");
    Graph g = b.finish();
    EXPECT_EQ(apply_compat_rewrites(g, DumpFormat::FBS).rewritten, 0u);
    EXPECT_EQ(output_expr(g), "MT.FUSE_MUL_ADD3_INT16x32x32x32(a, c, c)");
}

TEST(CompatRewrite, WhereBecomesTwoSwitchesOfTheMaskInXsDtype) {
    GraphBuilder b;
    VarId mask = b.input("mask", kBool, {3});
    VarId x = b.input("x", kF32, {3});
    VarId y = b.input("y", kF32, {3});
    b.output(b.op("Where", {mask, x, y}), "w");
    for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
        Graph g = rewritten(b.graph(), format);
        EXPECT_EQ(output_expr(g),
                  "ADD(SWITCH_GT0(TypeCvt<Float32>(mask), x), SWITCH_GT0(SUB(Float32(1), "
                  "TypeCvt<Float32>(mask)), y))");
        EXPECT_EQ(count_in_dump(g, "TypeCvt"), 1u);
        EXPECT_EQ(count_in_dump(g, "Where"), 0u);
    }
}

TEST(CompatRewrite, WhereOnIntegersCastsTheOneToTheirDtype) {
    // MegEngine's Float32 1.0 would promote the result to Float32 (its dumper
    // refuses); cast, the rewrite keeps x's dtype.
    GraphBuilder b;
    VarId mask = b.input("mask", kBool, {3});
    VarId x = b.input("x", DType::of(DTypeEnum::Int32), {3});
    VarId y = b.input("y", DType::of(DTypeEnum::Int32), {3});
    b.output(b.op("Where", {mask, x, y}), "w");
    Graph g = rewritten(b.finish(), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g),
              "ADD(SWITCH_GT0(TypeCvt<Int32>(mask), x), SWITCH_GT0(SUB(TypeCvt<Int32>(Float32(1)), "
              "TypeCvt<Int32>(mask)), y))");
    EXPECT_EQ(g.vars.dtype[g.outputs[0].value], DType::of(DTypeEnum::Int32));
}

// --- GroupNorm / InstanceNorm ---------------------------------------------------------

// The variance is the mean of (x − mean)², as MegDNN computes it (MegEngine's
// spelling: E[x²] − E[x]²).
std::string group_norm_expr(const std::string& x, const std::string& target_shape) {
    const std::string flat = fmt::format("Reshape({}, {})", x, target_shape);
    const std::string centered = fmt::format("SUB({0}, Reduce<MEAN,2>({0}))", flat);
    const std::string var = fmt::format("Reduce<MEAN,2>(MUL({0}, {0}))", centered);
    const std::string std = fmt::format("POW(ADD({}, Float32(1e-05)), Float32(0.5))", var);
    return fmt::format("Reshape(TRUE_DIV({}, {}), GetVarShape({}))", centered, std, x);
}

TEST(CompatRewrite, GroupNormIsRewrittenWithAConstantGroupedShapeInBothFormats) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId w = b.input("w", kF32, {1, 4, 1, 1});
    VarId bias = b.input("bias", kF32, {1, 4, 1, 1});
    b.output(b.op("GroupNorm", {x, w, bias}, {{"group", 2}, {"eps", 1e-5f}}, named("gn")), "y");
    for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
        Graph g = rewritten(b.graph(), format);
        EXPECT_EQ(output_expr(g),
                  fmt::format("ADD(MUL({}, w), bias)", group_norm_expr("x", "Int32{2,2,18}")));
        EXPECT_EQ(count_in_dump(g, "GroupNorm"), 0u);
    }
}

// MegEngine Python's (C,) weight: MegEngine's rewrite multiplies it in as is, which
// broadcasts along W.
TEST(CompatRewrite, GroupNormReshapesAChannelVectorWeightAndBiasToBroadcastOverChannels) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 4});
    VarId w = b.input("w", kF32, {4});
    VarId bias = b.input("bias", kF32, {4});
    b.output(b.op("GroupNorm", {x, w, bias}, {{"group", 2}, {"eps", 1e-5f}}), "y");
    for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
        Graph g = rewritten(b.graph(), format);
        EXPECT_EQ(output_expr(g),
                  fmt::format("ADD(MUL({}, Reshape(w, Int32{{1,4,1,1}})), Reshape(bias, Int32{{1,4,1,1}}))",
                              group_norm_expr("x", "Int32{2,2,24}")));
    }
}

TEST(CompatRewrite, GroupNormLeavesAWeightThatBroadcastsOverChannelsAsItIs) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId w = b.input("w", kF32, {4, 1, 1});
    VarId bias = b.input("bias", kF32, {4, 1, 1});
    b.output(b.op("GroupNorm", {x, w, bias}, {{"group", 2}, {"eps", 1e-5f}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g), fmt::format("ADD(MUL({}, w), bias)", group_norm_expr("x", "Int32{2,2,18}")));
}

TEST(CompatRewrite, GroupNormWithWeightAndBiasButAffineFalseIgnoresThem) {
    // GroupNormForward::scn_do_execute passes no weight and bias without affine.
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId w = b.input("w", kF32, {4});
    VarId bias = b.input("bias", kF32, {4});
    b.output(b.op("GroupNorm", {x, w, bias}, {{"group", 2}, {"eps", 1e-5f}, {"affine", 0}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g), group_norm_expr("x", "Int32{2,2,18}"));
}

TEST(CompatRewrite, GroupNormWithAWeightOfTheWrongSizeIsAnErrorNamingTheOperator) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId w = b.input("w", kF32, {3});
    VarId bias = b.input("bias", kF32, {3});
    b.output(b.op("GroupNorm", {x, w, bias}, {{"group", 2}}, named("gn")), "y");
    Graph g = b.finish();
    try {
        apply_compat_rewrites(g, DumpFormat::FBS_V2);
        FAIL() << "expected GraphError";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'gn' (GroupNorm)"), std::string::npos) << what;
        EXPECT_NE(what.find("needs 4 elements"), std::string::npos) << what;
    }
}

TEST(CompatRewrite, GroupNormWithoutWeightAndBiasIsNotScaled) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    b.output(b.op("GroupNorm", {x}, {{"group", 4}, {"affine", 0}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g), group_norm_expr("x", "Int32{2,4,9}"));
}

TEST(CompatRewrite, InstanceNormIsGroupNormWithOneGroupPerChannel) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId w = b.input("w", kF32, {1, 4, 1, 1});
    VarId bias = b.input("bias", kF32, {1, 4, 1, 1});
    b.output(b.op("InstanceNorm", {x, w, bias}, {{"eps", 1e-5f}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    EXPECT_EQ(output_expr(g), fmt::format("ADD(MUL({}, w), bias)", group_norm_expr("x", "Int32{2,4,9}")));
}

TEST(CompatRewrite, GroupNormWithoutAKnownInputShapeIsAnErrorNamingTheOperator) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId r = with_unknown_shape(b, x, 4);  // operator #2
    b.output(b.op("GroupNorm", {r}, {{"group", 2}, {"affine", 0}}, named("gn1")), "y");
    Graph g = b.finish();
    try {
        apply_compat_rewrites(g, DumpFormat::FBS_V2);
        FAIL() << "expected GraphError";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("operator #3 'gn1' (GroupNorm)"), std::string::npos) << what;
        EXPECT_NE(what.find("shape"), std::string::npos) << what;
        EXPECT_NE(what.find("give the input's shape"), std::string::npos) << what;
    }
}

TEST(CompatRewrite, GroupNormWhoseGroupsDoNotDivideTheChannelsIsAnError) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 6, 3, 3});
    // MegEngine's GroupNorm refuses it as the operator is built (the builder infers at op()).
    try {
        b.op("GroupNorm", {x}, {{"group", 4}, {"affine", 0}}, named("gn"));
        FAIL() << "expected GraphError";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'gn' (GroupNorm)"), std::string::npos) << what;
        EXPECT_NE(what.find("divisible by group 4"), std::string::npos) << what;
    }
}

// dx = rstd·(g − mean(g) − x̂·mean(g·x̂)) per group, g = dy·w, x̂ = (x − mean)·rstd,
// with the (N, G) statistics reshaped to (N, G, 1). MegEngine's spelling has
// x̂·S·Σg for the last term and cannot broadcast (N, G) statistics.
std::string backward_expr(const std::string& grad) {
    const std::string inv_std =
        "TRUE_DIV(Float32(1), POW(ADD(Reshape(rstd, Int32{2,2,1}), Float32(1e-05)), Float32(0.5)))";
    const std::string x_hat =
        fmt::format("MUL(SUB(Reshape(x, Int32{{2,2,18}}), Reshape(mean, Int32{{2,2,1}})), {})", inv_std);
    const std::string g = fmt::format("Reshape({}, Int32{{2,2,18}})", grad);
    const std::string centered =
        fmt::format("SUB(SUB({0}, Reduce<MEAN,2>({0})), MUL({1}, Reduce<MEAN,2>(MUL({0}, {1}))))", g, x_hat);
    return fmt::format("Reshape(MUL({}, {}), GetVarShape(x))", centered, inv_std);
}

TEST(CompatRewrite, GroupNormBackwardIsRewrittenToTheDataGradient) {
    GraphBuilder b;
    VarId diff = b.input("dy", kF32, {2, 4, 3, 3});
    VarId data = b.input("x", kF32, {2, 4, 3, 3});
    VarId w = b.input("w", kF32, {1, 4, 1, 1});
    VarId mean = b.input("mean", kF32, {2, 2});
    VarId rstd = b.input("rstd", kF32, {2, 2});
    b.output(b.op("GroupNormBackward", {diff, data, w, mean, rstd}, {{"group", 2}, {"eps", 1e-5f}}), "dx");
    Graph g = rewritten(b.finish(), DumpFormat::FBS_V2);
    EXPECT_EQ(output_expr(g), backward_expr("MUL(dy, w)"));
}

TEST(CompatRewrite, GroupNormBackwardWithoutAffineTakesMeanAndRstdFromInputsTwoAndThree) {
    GraphBuilder b;
    VarId diff = b.input("dy", kF32, {2, 4, 3, 3});
    VarId data = b.input("x", kF32, {2, 4, 3, 3});
    VarId mean = b.input("mean", kF32, {2, 2});
    VarId rstd = b.input("rstd", kF32, {2, 2});
    b.output(b.op("GroupNormBackward", {diff, data, mean, rstd}, {{"group", 2}, {"eps", 1e-5f}, {"affine", 0}}),
             "dx");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    EXPECT_EQ(output_expr(g), backward_expr("dy"));
}

// --- FBS v1 only: Softmax, LayerNorm, Dropout, CheckNonFinite -------------------------------

TEST(CompatRewrite, SoftmaxBecomesExpOverSumWithMaxSubtractedInFbsV1) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 5});
    b.output(b.op("Softmax", {x}, {{"axis", 1}}), "p");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    const std::string e = "EXP(SUB(x, Reduce<MAX,1>(x)))";
    EXPECT_EQ(output_expr(g), fmt::format("TRUE_DIV({0}, Reduce<SUM,1>({0}))", e));
    EXPECT_EQ(count_elemwise_in_dump(g, "EXP"), 1u);
}

// The variance is the mean of (x − mean)², as MegDNN computes it (MegEngine's
// spelling: SUM_SQR/n − mean², then x·r − mean·r).
std::string layer_norm_expr() {
    const std::string shp = "GetVarShape(x)";
    const std::string flat =
        fmt::format("Reshape<2>(x, Concat<0>(Subtensor<0e>({}, Int32(2)), Int32(-1)))", shp);
    const std::string centered = fmt::format("SUB({0}, Reduce<MEAN,-1>({0}))", flat);
    const std::string r =
        fmt::format("PowC<-0.5>(ADD(Reduce<MEAN,-1>(MUL({0}, {0})), Float32(1e-05)))", centered);
    const std::string y = fmt::format("Reshape(MUL({}, {}), {})", centered, r, shp);
    return fmt::format("ADD(MUL({}, w), b)", y);
}

TEST(CompatRewrite, LayerNormIsFlattenedNormalizedAndReshapedBackInFbsV1) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 3, 4});
    VarId w = b.input("w", kF32, {4});
    VarId bias = b.input("b", kF32, {4});
    b.output(b.op("LayerNorm", {x, w, bias}, {{"normalized_dim", 1}, {"normalized_size", 4}, {"eps", 1e-5f}}),
             "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    EXPECT_EQ(output_expr(g), layer_norm_expr());
    EXPECT_EQ(count_in_dump(g, "GetVarShape"), 1u);  // of x, shared
}

TEST(CompatRewrite, LayerNormWithoutAKnownInputRankIsAnErrorNamingTheOperator) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 3, 4});
    VarId r = with_unknown_shape(b, x, 3);
    b.output(b.op("LayerNorm", {r}, {{"affine", 0}}, named("ln")), "y");
    Graph g = b.finish();
    try {
        apply_compat_rewrites(g, DumpFormat::FBS);
        FAIL() << "expected GraphError";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'ln' (LayerNorm)"), std::string::npos) << e.what();
    }
}

TEST(CompatRewrite, DropoutBecomesAUniformMaskAndRescaleInFbsV1) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {8});
    b.output(b.op("Dropout", {x}, {{"drop_prob", 0.25f}, {"seed", 7}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    EXPECT_EQ(
        output_expr(g),
        fmt::format(
            "MUL(MUL(x, TypeCvt<Float32>(TypeCvt<Bool>(LT(Float32(0.25), UniformRNG<7>(GetVarShape(x)))))), "
            "Float32({}))",
            1.0f / (1.0f - 0.25f)));
}

TEST(CompatRewrite, CheckNonFiniteIsKeptWithItsPassThroughOutputsVolatileInFbsV1) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {8});
    VarId y = b.input("y", kF32, {8});
    VarId first = b.op("CheckNonFinite", {x, y}, {}, with_outputs(3));
    const OprId cnf = b.graph().vars.owner[first.value];
    b.output(b.graph().output_var(cnf, 2), "flag");
    Graph v1 = b.graph();
    RewriteStats stats = apply_compat_rewrites(v1, DumpFormat::FBS);
    EXPECT_EQ(stats.rewritten, 0u);
    EXPECT_EQ(stats.marked_volatile, 1u);
    EXPECT_EQ(v1.vars.owner[v1.outputs[0].value], cnf);
    EXPECT_TRUE(v1.vars.flags[v1.output_var(cnf, 0).value] & ir::kVarVolatile);
    EXPECT_TRUE(v1.vars.flags[v1.output_var(cnf, 1).value] & ir::kVarVolatile);
    EXPECT_FALSE(v1.vars.flags[v1.output_var(cnf, 2).value] & ir::kVarVolatile);
    EXPECT_EQ(ir::number_vars(v1, ir::dump_order(v1)).count, 3u);  // x, y, flag

    Graph v2 = b.graph();
    apply_compat_rewrites(v2, DumpFormat::FBS_V2);
    for (uint32_t k = 0; k < 3; ++k)
        EXPECT_FALSE(v2.vars.flags[v2.output_var(cnf, k).value] & ir::kVarVolatile);
}

// --- what is left alone, names, wiring ----------------------------------------------------

TEST(CompatRewrite, FbsV2KeepsSoftmaxLayerNormDropoutAndCheckNonFiniteButRewritesElemwise) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 3, 4});
    VarId s = b.op("Softmax", {x}, {{"axis", -1}});
    VarId l = b.op("LayerNorm", {s}, {{"affine", 0}});
    VarId d = b.op("Dropout", {l}, {{"drop_prob", 0.5f}});
    VarId r = b.op("Elemwise", {d}, {{"mode", "SQRT"}});
    VarId c = b.op("CheckNonFinite", {r}, {}, with_outputs(2));
    b.output(r, "r");
    b.output(b.graph().output_var(b.graph().vars.owner[c.value], 1), "flag");
    Graph g = rewritten(b.finish(), DumpFormat::FBS_V2);
    EXPECT_EQ(count_in_dump(g, "Softmax"), 1u);
    EXPECT_EQ(count_in_dump(g, "LayerNorm"), 1u);
    EXPECT_EQ(count_in_dump(g, "Dropout"), 1u);
    EXPECT_EQ(count_in_dump(g, "CheckNonFinite"), 1u);
    EXPECT_EQ(count_elemwise_in_dump(g, "SQRT"), 0u);
    EXPECT_EQ(output_expr(g, 0), "POW(Dropout(LayerNorm(Softmax(x))), Float32(0.5))");
    EXPECT_EQ(output_expr(g, 1), "CheckNonFinite(POW(Dropout(LayerNorm(Softmax(x))), Float32(0.5)))");
}

TEST(CompatRewrite, ModesWithoutARuleAreLeftUntouched) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {3});
    VarId y = b.input("y", kF32, {3});
    b.output(b.op("Elemwise", {b.op("Elemwise", {x, y}, {{"mode", "ADD"}})}, {{"mode", "RELU"}}), "z");
    Graph g = b.finish();
    const Graph before = g;
    for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
        RewriteStats stats = apply_compat_rewrites(g, format);
        EXPECT_EQ(stats.rewritten, 0u);
        EXPECT_EQ(stats.added_operators, 0u);
        EXPECT_EQ(g.oprs.size(), before.oprs.size());
        EXPECT_EQ(g.opr_inputs, before.opr_inputs);
        EXPECT_EQ(g.outputs, before.outputs);
        EXPECT_EQ(output_expr(g), "RELU(ADD(x, y))");
    }
}

TEST(CompatRewrite, ARewrittenOutputKeepsItsNameAndConsumersUseTheNewVar) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {3});
    VarId s = b.op("Elemwise", {x}, {{"mode", "SQUARE"}});
    VarId r = b.op("Elemwise", {s}, {{"mode", "RELU"}});
    b.output(s, "squared");
    b.output(r, "relu");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    EXPECT_NE(g.outputs[0], s);
    EXPECT_EQ(g.str(g.vars.name[g.outputs[0].value]), "squared");
    EXPECT_EQ(g.str(g.vars.name[g.outputs[1].value]), "relu");
    EXPECT_EQ(g.inputs_of(g.vars.owner[r.value])[0], g.outputs[0]);
    EXPECT_EQ(output_expr(g, 1), "RELU(POW(x, Float32(2)))");
}

TEST(CompatRewrite, RewritesOfRewrittenInputsChainCorrectly) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4});
    VarId s = b.op("Softmax", {x}, {{"axis", 1}});
    b.output(b.op("Elemwise", {s}, {{"mode", "SQRT"}}), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    const std::string e = "EXP(SUB(x, Reduce<MAX,1>(x)))";
    EXPECT_EQ(output_expr(g), fmt::format("POW(TRUE_DIV({0}, Reduce<SUM,1>({0})), Float32(0.5))", e));
}

TEST(CompatRewrite, NewOperatorsTakeThePriorityOfTheOperatorTheyReplace) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {3});
    b.output(b.op("Elemwise", {x}, {{"mode", "TAN"}}, with_priority(5)), "y");
    Graph g = rewritten(b.finish(), DumpFormat::FBS);
    for (OprId o : ir::dump_order(g))
        if (op_name(g, o) == "Elemwise") {
            EXPECT_EQ(g.oprs.priority[o.value], 5);
        }
}

TEST(CompatRewrite, OnlyReachableOperatorsAreRewritten) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {3});
    b.op("Elemwise", {x}, {{"mode", "SQRT"}});  // dangling
    b.output(b.op("Elemwise", {x}, {{"mode", "RELU"}}), "y");
    Graph g = b.finish();
    EXPECT_EQ(apply_compat_rewrites(g, DumpFormat::FBS).rewritten, 0u);
}

// --- determinism of the parallel path -----------------------------------------------------

Graph many_rewrites_graph() {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId h = b.input("h", kF16, {2, 4, 3, 3});
    const char* modes[] = {"SQRT",  "SQUARE", "TAN",      "COSH",  "SINH",     "ASINH",      "ACOSH",
                           "ATANH", "SIGN",   "HSIGMOID", "RELU6", "SOFTPLUS", "LOGSIGMOID", "RELU"};
    VarId cur = x;
    for (int i = 0; i < 300; ++i) {
        const char* mode = modes[i % std::size(modes)];
        cur = b.op("Elemwise", {cur}, {{"mode", mode}});
        if (i % 7 == 0) b.output(b.op("Elemwise", {h}, {{"mode", mode}}), fmt::format("h{}", i));
        if (i % 11 == 0) b.output(b.op("Softmax", {cur}, {{"axis", 1}}), fmt::format("s{}", i));
        if (i % 13 == 0)
            b.output(b.op("GroupNorm", {x}, {{"group", 2}, {"eps", float(i)}, {"affine", 0}}),
                     fmt::format("g{}", i));
        if (i % 17 == 0)
            b.output(b.op("ElemwiseMultiType", {cur, x}, {{"mode", "LT"}}, ir::OpOptions{.output_dtype = kBool}),
                     fmt::format("m{}", i));
    }
    b.output(cur, "out");
    return b.finish();
}

void expect_same_tables(const Graph& a, const Graph& b) {
    EXPECT_EQ(a.oprs.type, b.oprs.type);
    EXPECT_EQ(a.oprs.name, b.oprs.name);
    EXPECT_EQ(a.oprs.priority, b.oprs.priority);
    EXPECT_EQ(a.oprs.comp_nodes, b.oprs.comp_nodes);
    EXPECT_EQ(a.oprs.params, b.oprs.params);
    EXPECT_EQ(a.oprs.inputs, b.oprs.inputs);
    EXPECT_EQ(a.oprs.outputs, b.oprs.outputs);
    EXPECT_EQ(a.oprs.tensors, b.oprs.tensors);
    EXPECT_EQ(a.params, b.params);
    EXPECT_EQ(a.opr_inputs, b.opr_inputs);
    EXPECT_EQ(a.opr_comp_nodes, b.opr_comp_nodes);
    EXPECT_EQ(a.dims, b.dims);
    EXPECT_EQ(a.outputs, b.outputs);
    EXPECT_EQ(a.vars.name, b.vars.name);
    EXPECT_EQ(a.vars.dtype, b.vars.dtype);
    EXPECT_EQ(a.vars.shape, b.vars.shape);
    EXPECT_EQ(a.vars.flags, b.vars.flags);
    EXPECT_EQ(a.tensors.dtype, b.tensors.dtype);
    EXPECT_EQ(a.tensors.shape, b.tensors.shape);
    EXPECT_EQ(a.tensors.comp_node, b.tensors.comp_node);
    ASSERT_EQ(a.tensors.blob.size(), b.tensors.blob.size());
    for (size_t t = 0; t < a.tensors.blob.size(); ++t) {
        if (!a.tensors.blob[t].valid()) continue;
        auto x = a.blobs.bytes(a.tensors.blob[t]), y = b.blobs.bytes(b.tensors.blob[t]);
        EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), y.end())) << "tensor " << t;
    }
    ASSERT_EQ(a.strings.size(), b.strings.size());
    for (uint32_t s = 0; s < a.strings.size(); ++s)
        EXPECT_EQ(a.strings.view(ir::StrId(s)), b.strings.view(ir::StrId(s)));
}

TEST(CompatRewrite, ParallelAndSerialPathsGiveIdenticalTables) {
    const Graph original = many_rewrites_graph();
    for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
        Graph serial = original, parallel = original;
        RewriteStats s = apply_compat_rewrites(serial, format, {.parallel_threshold = SIZE_MAX});
        RewriteStats p = apply_compat_rewrites(parallel, format, {.parallel_threshold = 0});
        EXPECT_GT(s.rewritten, 300u);
        EXPECT_EQ(s.rewritten, p.rewritten);
        EXPECT_EQ(s.added_operators, p.added_operators);
        expect_same_tables(serial, parallel);
        ir::validate(parallel, ir::ValidateOptions{});
    }
}

TEST(CompatRewrite, TheFirstFailingOperatorIsReportedWhicheverPathRuns) {
    GraphBuilder b;
    VarId x = b.input("x", kF32, {2, 4, 3, 3});
    VarId r = with_unknown_shape(b, x, 4);
    for (int i = 0; i < 50; ++i)
        b.output(b.op("GroupNorm", {r}, {{"group", 2}, {"affine", 0}}, named(fmt::format("gn{}", i))),
                 fmt::format("y{}", i));
    const Graph original = b.finish();
    for (size_t threshold : {size_t{0}, SIZE_MAX}) {
        Graph g = original;
        try {
            apply_compat_rewrites(g, DumpFormat::FBS, {.parallel_threshold = threshold});
            FAIL() << "expected GraphError";
        } catch (const GraphError& e) {
            EXPECT_NE(std::string(e.what()).find("'gn0'"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace mgedump::engine

namespace mgedump::test {
namespace {

// The norm rewrites read the input's static shape; it now comes from inference,
// so a GroupNorm / InstanceNorm / LayerNorm after other operators (here a
// Convolution: [2,3,5,5] * [4,3,3,3], pad 1 → [2,4,5,5], convolution.cpp's
// oh = (ih + 2·ph − fh) / sh + 1) is rewritten without the user giving a shape.
TEST(CompatRewrite, NormRewritesTakeTheInputShapeFromInference) {
    for (const char* norm : {"GroupNorm", "InstanceNorm", "LayerNorm"}) {
        ir::GraphBuilder b;
        ir::VarId x = b.input("x", ir::DType::of(ir::DTypeEnum::Float32), {2, 3, 5, 5});
        ir::VarId w = b.param("w", ir::DType::of(ir::DTypeEnum::Float32), {4, 3, 3, 3},
                              std::vector<std::byte>(4 * 3 * 3 * 3 * 4));
        ir::VarId c = b.op("Convolution", {x, w}, {{"pad_h", 1}, {"pad_w", 1}});
        ASSERT_EQ(std::vector<uint32_t>(b.graph().var_shape(c).begin(), b.graph().var_shape(c).end()),
                  (std::vector<uint32_t>{2, 4, 5, 5}));
        ir::ParamArgs args = {{"affine", 0}};
        if (std::string_view(norm) == "GroupNorm") args.push_back({"group", 2});
        if (std::string_view(norm) == "LayerNorm") {
            args.push_back({"normalized_dim", 2});
            args.push_back({"normalized_size", 25});
        }
        b.output(b.op(norm, {c}, args), "y");
        ir::Graph g = b.finish();
        // LayerNorm is rewritten for FBS only (§9.1); the norms of GroupNorm's family in both.
        engine::DumpOptions fbs;
        fbs.dump_format = engine::DumpFormat::FBS;
        auto bytes = owned_bytes(engine::dump_graph(g, fbs).bytes.to_bytes());
        formats::LoadedModel m = load_bytes(bytes);
        for (ir::OpTypeId t : m.graph.oprs.type) EXPECT_NE(ir::op_def(t).name, std::string_view(norm));
        // The rewrite's output has the norm's shape.
        auto out = m.graph.var_shape(m.graph.outputs[0]);
        EXPECT_EQ(std::vector<uint32_t>(out.begin(), out.end()), (std::vector<uint32_t>{2, 4, 5, 5})) << norm;
    }
}

}  // namespace
}  // namespace mgedump::test
