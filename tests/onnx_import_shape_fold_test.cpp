// Shape arithmetic on small integer constants folds at import time, as an exporter's
// pads computation needs (swin_t builds Pad's pads by Reshape, a step −1 Slice and a
// Transpose of constants): the graph gets the static Padding MegEngine takes.
// Expected values follow the ONNX definitions of Transpose and Slice by hand.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;
using V = std::vector<std::string>;

// pads = Reshape(Transpose(Slice(p, step −1 on axis 0)), [−1]) with p (2, 2) =
// [[a0, a1], [b0, b1]] → reversed rows [[b0, b1], [a0, a1]] → transposed
// [[b0, a0], [b1, a1]] → [b0, a0, b1, a1], ONNX's (begins, ends) order.
OnnxModel pads_model() {
    OnnxModel m;
    m.input("x", {2, 2}).output("y");
    m.initializer_i64("p", {2, 2}, {2, 1, 1, 0});
    m.initializer_i64("starts", {1}, {-1});
    m.initializer_i64("ends", {1}, {INT64_MIN});
    m.initializer_i64("axes", {1}, {0});
    m.initializer_i64("steps", {1}, {-1});
    m.initializer_i64("flat", {1}, {-1});
    m.node("Slice", {"p", "starts", "ends", "axes", "steps"}, {"reversed"});
    m.node("Transpose", {"reversed"}, {"transposed"});
    m.node("Reshape", {"transposed", "flat"}, {"pads"});
    m.node("Pad", {"x", "pads"}, {"y"});
    return m;
}

TEST(OnnxShapeFold, PadsComputedFromConstantsGiveOneStaticPadding) {
    ir::Graph g = pads_model().import();
    EXPECT_EQ(compute_ops(g), V{"Padding"});
    // p = [[2, 1], [1, 0]] → pads [1, 2, 0, 1]: a row before, two columns before, one after
    // (without the Transpose it would be [1, 0, 2, 1], without the Slice [2, 1, 1, 0]).
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}}), (D{0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 3, 4, 0}));
}

TEST(OnnxShapeFold, TransposeOfAnIntegerConstantIsItsValue) {
    OnnxModel m;
    m.input("x", {1}).output("y", OnnxType::INT64);
    m.initializer_i64("c", {2, 3}, {1, 2, 3, 4, 5, 6});
    set_attr(m.node("Transpose", {"c"}, {"y"}), "perm", std::vector<int64_t>{1, 0});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{});
    EXPECT_EQ(evaluate_values(g, {{"x", {0}}}), (D{1, 4, 2, 5, 3, 6}));
}

TEST(OnnxShapeFold, SliceOfARank2IntegerConstantPicksOnEveryAxis) {
    OnnxModel m;
    m.input("x", {1}).output("y", OnnxType::INT64);
    m.initializer_i64("c", {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
    m.initializer_i64("starts", {2}, {2, 1});
    m.initializer_i64("ends", {2}, {-4, 4});
    m.initializer_i64("axes", {2}, {0, 1});
    m.initializer_i64("steps", {2}, {-2, 2});
    m.node("Slice", {"c", "starts", "ends", "axes", "steps"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{});
    // Rows 2, 0 (step −2 from 2); columns 1, 3.
    EXPECT_EQ(evaluate_values(g, {{"x", {0}}}), (D{21, 23, 1, 3}));
}

TEST(OnnxShapeFold, AFloatWeightIsNotFoldedButTransposedByDimshuffle) {
    OnnxModel m;
    m.input("x", {1}).output("y");
    m.initializer("w", {2, 3}, {1, 2, 3, 4, 5, 6});
    m.node("Transpose", {"w"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Dimshuffle"});
    EXPECT_EQ(evaluate_values(g, {{"x", {0}}}), (D{1, 4, 2, 5, 3, 6}));
}

TEST(OnnxShapeFold, ASliceThatNamesAnAxisTwiceIsRefused) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.initializer_i64("starts", {2}, {0, 1});
    m.initializer_i64("ends", {2}, {3, 2});
    m.initializer_i64("axes", {2}, {0, 0});
    m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"}, "s");
    EXPECT_EQ(import_error(m), "test.onnx: node 's' (Slice): axis 0 is sliced twice");
}

}  // namespace
}  // namespace mgedump::test
