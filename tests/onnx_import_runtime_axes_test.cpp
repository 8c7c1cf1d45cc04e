// Operands MegEngine takes as a param, given as graph inputs (formats/onnx/runtime_axes.h):
// Reduce*'s axes, Squeeze / Unsqueeze's axes, CumSum's axis and Pad's pads. The
// input's rank is static, so each converted graph computes at run time what those
// operands decide (Reduce's target shape, Reshape's target, the Cumsum selected,
// the gathered source indices) and is run on the reference evaluator with several
// operand values: one graph, the values chosen at run time. Expected values are
// derived by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;
using Dims = std::vector<uint32_t>;

Dims dims_of(const engine::eval::EvalOutput& out) {
    auto d = out.value.shape().dims();
    return {d.begin(), d.end()};
}

bool shape_unknown_statically(const ir::Graph& g) { return g.var_shape(g.outputs.at(0)).empty(); }

D iota(int n) {
    D v;
    for (int k = 0; k < n; ++k) v.push_back(k);
    return v;
}

// x[i, j, k] = 6i + 2j + k on (2, 3, 2).
OnnxModel reduce_sum_model(int64_t keepdims, int64_t axes_count) {
    OnnxModel m;
    m.input("x", {2, 3, 2}).input("axes", {axes_count}, OnnxType::INT64).output("y");
    set_attr(m.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", keepdims);
    return m;
}

TEST(OnnxRuntimeAxes, ReduceSumReducesToATargetShapeComputedAtRunTime) {
    ir::Graph g = reduce_sum_model(1, 1).import();
    EXPECT_EQ(count_ops(g, "AxisAddRemove"), 0u);
    EXPECT_TRUE(shape_unknown_statically(g));
    // Σ_j (6i + 2j + k) = 18i + 3k + 6, kept as (2, 1, 2).
    auto out = evaluate(g, {{"x", iota(12)}, {"axes", {1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2, 1, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{6, 9, 24, 27}));
    // The same graph, axis −1: Σ_k = 12i + 4j + 1, as (2, 3, 1).
    out = evaluate(g, {{"x", iota(12)}, {"axes", {-1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2, 3, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 5, 9, 13, 17, 21}));
}

TEST(OnnxRuntimeAxes, ReduceSumWithoutKeepdimsReshapesToTheDimsNotReduced) {
    ir::Graph g = reduce_sum_model(0, 2).import();
    // Over i and k: 8j + 14 for each j, shape (3); in either order.
    auto out = evaluate(g, {{"x", iota(12)}, {"axes", {0, 2}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{14, 22, 30}));
    EXPECT_EQ(evaluate_values(g, {{"x", iota(12)}, {"axes", {-1, 0}}}), (D{14, 22, 30}));
    // Over i and j: 30 + 6k, shape (2).
    out = evaluate(g, {{"x", iota(12)}, {"axes", {1, -3}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{30, 36}));
}

TEST(OnnxRuntimeAxes, RepeatedOrOutOfRangeRuntimeAxesFailAtRunTime) {
    // ONNX's axes are distinct and in [−r, r): the computed target is zeroed
    // otherwise, which MegEngine's Reduce refuses.
    ir::Graph keep = reduce_sum_model(1, 2).import();
    EXPECT_THROW(evaluate(keep, {{"x", iota(12)}, {"axes", {1, 1}}}), Error);
    EXPECT_THROW(evaluate(keep, {{"x", iota(12)}, {"axes", {0, 3}}}), Error);
    EXPECT_THROW(evaluate(keep, {{"x", iota(12)}, {"axes", {1, -2}}}), Error);  // −2 is axis 1 again
    // Distinct axes 1 and 2: Σ_j Σ_k (6i + 2j + k) = 36i + 15.
    auto out = evaluate(keep, {{"x", iota(12)}, {"axes", {1, -1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2, 1, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{15, 51}));
    ir::Graph drop = reduce_sum_model(0, 2).import();
    EXPECT_THROW(evaluate(drop, {{"x", iota(12)}, {"axes", {-1, 2}}}), Error);
}

TEST(OnnxRuntimeAxes, AxesWhoseLengthFixesThemNeedNoRuntimeShape) {
    // As many axes as the input has: every axis (they are distinct), static.
    ir::Graph g = reduce_sum_model(1, 3).import();
    EXPECT_FALSE(shape_unknown_statically(g));
    EXPECT_EQ(evaluate_values(g, {{"x", iota(12)}, {"axes", {2, 0, 1}}}), (D{66}));
    // No axes: every axis, or with noop_with_empty_axes the input itself.
    ir::Graph all = reduce_sum_model(0, 0).import();
    EXPECT_EQ(evaluate_values(all, {{"x", iota(12)}, {"axes", {}}}), (D{66}));
    OnnxModel noop;
    noop.input("x", {2, 3, 2}).input("axes", {0}, OnnxType::INT64).output("y");
    set_attr(noop.node("ReduceSum", {"x", "axes"}, {"y"}), "noop_with_empty_axes", int64_t{1});
    EXPECT_EQ(evaluate_values(noop.import(), {{"x", iota(12)}, {"axes", {}}}), iota(12));
    // More axes than the rank: one would repeat.
    EXPECT_NE(import_error(reduce_sum_model(1, 4)).find("axes (input #1) holds 4 values for an input of rank 3"),
              std::string::npos);
}

TEST(OnnxRuntimeAxes, Opset18ReductionsTakeRuntimeAxesWithTheirElementwiseSteps) {
    // ReduceSumSquare: Σ x² over axis 0 of [[1, 2], [3, 4]] = [10, 20].
    OnnxModel sq(18);
    sq.input("x", {2, 2}).input("axes", {1}, OnnxType::INT64).output("y");
    sq.node("ReduceSumSquare", {"x", "axes"}, {"y"});
    ir::Graph g = sq.import();
    auto out = evaluate(g, {{"x", {1, 2, 3, 4}}, {"axes", {0}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{1, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{10, 20}));
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}, {"axes", {1}}}), (D{5, 25}));
    // ReduceMax over axis 1 of [[1, 5], [7, 3]], keepdims = 0.
    OnnxModel mx(18);
    mx.input("x", {2, 2}).input("axes", {1}, OnnxType::INT64).output("y");
    set_attr(mx.node("ReduceMax", {"x", "axes"}, {"y"}), "keepdims", int64_t{0});
    out = evaluate(mx.import(), {{"x", {1, 5, 7, 3}}, {"axes", {1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{5, 7}));
    // ReduceL2 = √(Σ x²) over axis 0: √10, √20.
    OnnxModel l2(18);
    l2.input("x", {2, 2}).input("axes", {1}, OnnxType::INT64).output("y");
    l2.node("ReduceL2", {"x", "axes"}, {"y"});
    expect_near_all(evaluate_values(l2.import(), {{"x", {1, 2, 3, 4}}, {"axes", {-2}}}),
                    (D{std::sqrt(10.0), std::sqrt(20.0)}));
}

TEST(OnnxRuntimeAxes, UnsqueezeReshapesToTheShapeTheRuntimeAxesGive) {
    OnnxModel m;
    m.input("x", {2, 3}).input("axes", {2}, OnnxType::INT64).output("y");
    m.node("Unsqueeze", {"x", "axes"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "AxisAddRemove"), 0u);
    EXPECT_TRUE(shape_unknown_statically(g));
    auto out = evaluate(g, {{"x", iota(6)}, {"axes", {0, 3}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{1, 2, 3, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), iota(6));
    // Negative axes count in the output's rank 4, in any order: 3 and 1.
    out = evaluate(g, {{"x", iota(6)}, {"axes", {-1, 1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2, 1, 3, 1}));
    out = evaluate(g, {{"x", iota(6)}, {"axes", {2, 1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2, 1, 1, 3}));
    EXPECT_THROW(evaluate(g, {{"x", iota(6)}, {"axes", {1, 1}}}), Error);
    EXPECT_THROW(evaluate(g, {{"x", iota(6)}, {"axes", {4, 0}}}), Error);
}

TEST(OnnxRuntimeAxes, SqueezeRemovesTheRuntimeAxesAndRefusesOneNotOfLength1) {
    OnnxModel m;
    m.input("x", {1, 3, 1}).input("axes", {1}, OnnxType::INT64).output("y");
    m.node("Squeeze", {"x", "axes"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "AxisAddRemove"), 0u);
    auto out = evaluate(g, {{"x", {4, 5, 6}}, {"axes", {0}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{3, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{4, 5, 6}));
    out = evaluate(g, {{"x", {4, 5, 6}}, {"axes", {-1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{1, 3}));
    // Axis 1 has length 3: ONNX refuses to squeeze it, and so does the Reshape.
    EXPECT_THROW(evaluate(g, {{"x", {4, 5, 6}}, {"axes", {1}}}), Error);
}

TEST(OnnxRuntimeAxes, SqueezeWithAnEmptyRuntimeAxesTensorIsRefused) {
    OnnxModel m;
    m.input("x", {1, 3}).input("axes", {0}, OnnxType::INT64).output("y");
    m.node("Squeeze", {"x", "axes"}, {"y"});
    EXPECT_NE(import_error(m).find("axes (input #1) is empty"), std::string::npos) << import_error(m);
}

OnnxModel cumsum_model(int64_t exclusive, int64_t reverse) {
    OnnxModel m(14);
    m.input("x", {2, 3}).input("axis", {}, OnnxType::INT64).output("y");
    auto& n = m.node("CumSum", {"x", "axis"}, {"y"});
    set_attr(n, "exclusive", exclusive);
    set_attr(n, "reverse", reverse);
    return m;
}

TEST(OnnxRuntimeAxes, CumSumSelectsTheSumsAlongTheRuntimeAxis) {
    ir::Graph g = cumsum_model(0, 0).import();
    EXPECT_EQ(count_ops(g, "Cumsum"), 2u);
    EXPECT_EQ(count_ops(g, "Where"), 1u);
    const D x{1, 2, 3, 4, 5, 6};
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"axis", {0}}}), (D{1, 2, 3, 5, 7, 9}));
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"axis", {1}}}), (D{1, 3, 6, 4, 9, 15}));
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"axis", {-1}}}), (D{1, 3, 6, 4, 9, 15}));
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"axis", {-2}}}), (D{1, 2, 3, 5, 7, 9}));
}

TEST(OnnxRuntimeAxes, CumSumAlongARuntimeAxisKeepsNaNWhereItBelongs) {
    // Selection, not arithmetic: along axis 1 the NaN of row 0 leaves row 1 alone.
    ir::Graph g = cumsum_model(0, 0).import();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    D y = evaluate_values(g, {{"x", {nan, 2, 3, 4, 5, 6}}, {"axis", {1}}});
    ASSERT_EQ(y.size(), 6u);
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(std::isnan(y[k])) << k;
    EXPECT_EQ((D{y[3], y[4], y[5]}), (D{4, 9, 15}));
    y = evaluate_values(g, {{"x", {nan, 2, 3, 4, 5, 6}}, {"axis", {0}}});
    EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[3]));
    EXPECT_EQ((D{y[1], y[2], y[4], y[5]}), (D{2, 3, 7, 9}));
}

TEST(OnnxRuntimeAxes, CumSumExclusiveReverseAlongARuntimeAxis) {
    ir::Graph g = cumsum_model(1, 1).import();
    // Each element: the sum of those after it along the axis.
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"axis", {1}}}), (D{5, 3, 0, 11, 6, 0}));
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"axis", {0}}}), (D{4, 5, 6, 0, 0, 0}));
}

OnnxModel pad_model(const char* mode, bool value_input) {
    OnnxModel m;
    m.input("x", {2, 2}).input("pads", {4}, OnnxType::INT64);
    std::vector<std::string> in{"x", "pads"};
    if (value_input) {
        m.input("value", {});
        in.push_back("value");
    }
    m.output("y");
    set_attr(m.node("Pad", in, {"y"}), "mode", mode);
    return m;
}

TEST(OnnxRuntimeAxes, ConstantPadWithRuntimePadsAndValue) {
    ir::Graph g = pad_model("constant", true).import();
    EXPECT_EQ(count_ops(g, "Padding"), 0u);
    EXPECT_TRUE(shape_unknown_statically(g));
    // pads = [x1_begin, x2_begin, x1_end, x2_end] = [1, 0, 0, 2].
    auto out = evaluate(g, {{"x", {1, 2, 3, 4}}, {"pads", {1, 0, 0, 2}}, {"value", {9}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{3, 4}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}));
    // A negative pad removes: one column off the front, one of the value at the end.
    out = evaluate(g, {{"x", {1, 2, 3, 4}}, {"pads", {0, -1, 0, 1}}, {"value", {-7}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{2, -7, 4, -7}));
}

TEST(OnnxRuntimeAxes, ConstantPadWithoutAValueInputPadsWithZero) {
    ir::Graph g = pad_model("constant", false).import();
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}, {"pads", {0, 1, 1, 0}}}), (D{0, 1, 2, 0, 3, 4, 0, 0, 0}));
}

TEST(OnnxRuntimeAxes, EdgePadWithRuntimePadsRepeatsTheBorder) {
    ir::Graph g = pad_model("edge", false).import();
    auto out = evaluate(g, {{"x", {1, 2, 3, 4}}, {"pads", {0, 2, 1, 1}}});
    EXPECT_EQ(dims_of(out[0]), (Dims{3, 5}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 3, 3, 3, 4, 4}));
}

TEST(OnnxRuntimeAxes, ReflectPadWithRuntimePadsReflectsAgainBeyondTheInput) {
    OnnxModel m;
    m.input("x", {1, 3}).input("pads", {4}, OnnxType::INT64).output("y");
    set_attr(m.node("Pad", {"x", "pads"}, {"y"}), "mode", "reflect");
    ir::Graph g = m.import();
    // Reflection about the first and last element: [3 2 | 1 2 3 | 2].
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3}}, {"pads", {0, 2, 0, 1}}}), (D{3, 2, 1, 2, 3, 2}));
    // Pads longer than the axis reflect again (np.pad, ONNX's reference): period 2·(3 − 1).
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3}}, {"pads", {0, 5, 0, 6}}}),
              (D{2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1}));
}

TEST(OnnxRuntimeAxes, PadWithRuntimePadsRefusesWhatItCannotMap) {
    OnnxModel wrap(19);
    wrap.input("x", {2, 2}).input("pads", {4}, OnnxType::INT64).output("y");
    set_attr(wrap.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
    EXPECT_NE(import_error(wrap).find("mode 'wrap' is not supported"), std::string::npos) << import_error(wrap);
    OnnxModel short_pads;
    short_pads.input("x", {2, 2}).input("pads", {3}, OnnxType::INT64).output("y");
    short_pads.node("Pad", {"x", "pads"}, {"y"});
    EXPECT_NE(import_error(short_pads).find("pads (input #1) holds 3 values, expected 4"), std::string::npos)
        << import_error(short_pads);
}

}  // namespace
}  // namespace mgedump::test
