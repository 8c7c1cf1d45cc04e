// Comparisons, logic, Where, the variadic Min / Max / Sum / Mean, Mod and BitShift
// (formats/onnx/ops_compare.cpp): Bool outputs, broadcasting, numpy's and C's
// remainders, and the import-time folding of integer constants.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;
using D = std::vector<double>;

D binary(const std::string& op, int32_t type, const D& a, const D& b, int32_t out_type,
         const std::function<void(onnx::NodeProto&)>& attrs = {}) {
    OnnxModel m(13);
    m.input("a", {static_cast<int64_t>(a.size())}, type)
        .input("b", {static_cast<int64_t>(b.size())}, type)
        .output("y", out_type);
    auto& n = m.node(op, {"a", "b"}, {"y"});
    if (attrs) attrs(n);
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"a", a}, {"b", b}});
    if (out_type == OnnxType::BOOL) {
        EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Bool) << op;
    }
    return engine::eval::to_doubles(out.at(0).value);
}

TEST(OnnxCompare, ComparisonsAreBool) {
    const D a{1, 2, 3}, b{2, 2, 2};
    EXPECT_EQ(binary("Equal", OnnxType::FLOAT, a, b, OnnxType::BOOL), (D{0, 1, 0}));
    EXPECT_EQ(binary("Less", OnnxType::FLOAT, a, b, OnnxType::BOOL), (D{1, 0, 0}));
    EXPECT_EQ(binary("LessOrEqual", OnnxType::FLOAT, a, b, OnnxType::BOOL), (D{1, 1, 0}));
    EXPECT_EQ(binary("Greater", OnnxType::INT64, a, b, OnnxType::BOOL), (D{0, 0, 1}));
    EXPECT_EQ(binary("GreaterOrEqual", OnnxType::INT32, a, b, OnnxType::BOOL), (D{0, 1, 1}));
}

TEST(OnnxCompare, GreaterIsLtWithTheOperandsSwapped) {
    OnnxModel m;
    m.input("a", {3}).input("b", {3}).output("y", OnnxType::BOOL);
    m.node("Greater", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    ASSERT_EQ(compute_ops(g), V{"ElemwiseMultiType"});
    ir::OprId o = find_opr(g, "ElemwiseMultiType");
    EXPECT_EQ(enum_field(g, o, "mode"), "LT");
    // LT's first operand is the graph input b.
    for (const auto& in : engine::eval::graph_inputs(g))
        if (in.name == "b") {
            EXPECT_EQ(g.inputs_of(o)[0].value, g.output_var(in.opr, 0).value);
        }
    expect_round_trip(g);
}

TEST(OnnxCompare, LogicOnBoolBroadcasts) {
    OnnxModel m;
    m.input("a", {2, 2}, OnnxType::BOOL).input("b", {2}, OnnxType::BOOL);
    m.output("and", OnnxType::BOOL).output("or", OnnxType::BOOL).output("xor", OnnxType::BOOL);
    m.node("And", {"a", "b"}, {"and"});
    m.node("Or", {"a", "b"}, {"or"});
    m.node("Xor", {"a", "b"}, {"xor"});
    auto out = evaluate(m.import(), {{"a", {1, 0, 1, 1}}, {"b", {1, 0}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 0, 1, 0}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 0, 1, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{0, 0, 0, 1}));
}

TEST(OnnxCompare, WhereBroadcastsItsOperandsFirst) {
    OnnxModel m;
    m.input("c", {2, 1}, OnnxType::BOOL).input("x", {1, 3}).output("y");
    m.initializer("z", {}, {-1.0f});
    m.node("Where", {"c", "x", "z"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Where"), 1u);
    EXPECT_EQ(count_ops(g, "Broadcast"), 3u);
    EXPECT_EQ(evaluate_values(g, {{"c", {1, 0}}, {"x", {1, 2, 3}}}), (D{1, 2, 3, -1, -1, -1}));
    expect_round_trip(g);
}

TEST(OnnxCompare, EqualAndWhereOnShapeConstantsFold) {
    // The Expand-shape idiom of torch.onnx.export: Where(Equal(shape, -1), ones, shape).
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.initializer_i64("shape", {3}, {2, -1, 3});
    m.initializer_i64("minus1", {}, {-1});
    m.initializer_i64("ones", {3}, {1, 1, 1});
    m.node("Equal", {"shape", "minus1"}, {"is_neg"});
    m.node("Where", {"is_neg", "ones", "shape"}, {"fixed"});
    m.node("Reshape", {"x", "fixed"}, {"r"});  // fixed must be a constant: [2, 1, 3]
    m.node("Identity", {"r"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "ElemwiseMultiType"), 0u);
    EXPECT_EQ(count_ops(g, "Where"), 0u);
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape"), 1), (std::vector<int32_t>{2, 1, 3}));
}

TEST(OnnxCompare, VariadicOperatorsFoldLeftWithBroadcasting) {
    OnnxModel m;
    m.input("a", {2, 2}).input("b", {2}).input("c", {1});
    m.output("max").output("min").output("sum").output("mean");
    m.node("Max", {"a", "b", "c"}, {"max"});
    m.node("Min", {"a", "b", "c"}, {"min"});
    m.node("Sum", {"a", "b", "c"}, {"sum"});
    m.node("Mean", {"a", "b", "c"}, {"mean"});
    auto out = evaluate(m.import(), {{"a", {1, 5, -3, 0}}, {"b", {2, 1}}, {"c", {0.5}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{2, 5, 2, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0.5, 0.5, -3, 0}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{3.5, 6.5, -0.5, 1.5}));
    expect_near_all(engine::eval::to_doubles(out[3].value), {3.5 / 3, 6.5 / 3, -0.5 / 3, 0.5});
}

TEST(OnnxCompare, SingleInputVariadicIsTheInput) {
    OnnxModel m;
    m.input("a", {3}).output("y");
    m.node("Max", {"a"}, {"y"});
    EXPECT_TRUE(compute_ops(m.import()).empty());
}

TEST(OnnxCompare, ModFollowsNumpyForFmod0AndCForFmod1) {
    const D a{-4, 7, 5, 4, -7, 8}, b{2, -3, 8, -2, 3, 5};
    auto fmod = [](onnx::NodeProto& n) { set_attr(n, "fmod", int64_t{1}); };
    // numpy.mod: the sign of the divisor; numpy.fmod: the sign of the dividend.
    EXPECT_EQ(binary("Mod", OnnxType::INT32, a, b, OnnxType::INT32), (D{0, -2, 5, 0, 2, 3}));
    EXPECT_EQ(binary("Mod", OnnxType::INT64, a, b, OnnxType::INT64, fmod), (D{0, 1, 5, 0, -1, 3}));
    expect_near_all(binary("Mod", OnnxType::FLOAT, {-4.5, 7.5}, {2, -2}, OnnxType::FLOAT, fmod), {-0.5, 1.5});
    // At Int8's minimum: numpy.fmod(-128, 3) = -2 (-128 = -42·3 - 2). Through |x| it
    // was -1: |-128| wraps to -128, whose numpy mod 3 is 1.
    EXPECT_EQ(binary("Mod", OnnxType::INT8, {-128, -128, -128, 127}, {3, -3, 127, -128}, OnnxType::INT8, fmod),
              (D{-2, -2, -1, 127}));
    EXPECT_EQ(binary("Mod", OnnxType::INT8, {-128, -128, -128, 127}, {3, -3, 127, -128}, OnnxType::INT8),
              (D{1, -2, 126, -1}));
}

TEST(OnnxCompare, ModRefusesFmod0OnFloats) {
    OnnxModel m;
    m.input("a", {3}).input("b", {3}).output("y");
    m.node("Mod", {"a", "b"}, {"y"}, "m");
    try {
        m.import();
        FAIL() << "imported";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'m' (Mod): fmod=0 on a float type"), std::string::npos) << e.what();
    }
}

TEST(OnnxCompare, BitShiftOnUint8) {
    auto left = [](onnx::NodeProto& n) { set_attr(n, "direction", "LEFT"); };
    auto right = [](onnx::NodeProto& n) { set_attr(n, "direction", "RIGHT"); };
    EXPECT_EQ(binary("BitShift", OnnxType::UINT8, {16, 4, 1, 200}, {1, 2, 3, 1}, OnnxType::UINT8, left),
              (D{32, 16, 8, 144}));
    EXPECT_EQ(binary("BitShift", OnnxType::UINT8, {16, 4, 1, 200}, {1, 2, 3, 1}, OnnxType::UINT8, right),
              (D{8, 1, 0, 100}));
}

}  // namespace
}  // namespace mgedump::test
