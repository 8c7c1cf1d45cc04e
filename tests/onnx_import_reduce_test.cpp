// Reductions, ArgMax / ArgMin, LogSoftmax and CumSum (formats/onnx/ops_reduce.cpp),
// against values computed here from the ONNX definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;
using D = std::vector<double>;

const D kX{1, -2, 3, 4, 0.5, -1};  // [2, 3]

// `op` over axis 1 of kX, keepdims 0.
D reduce_rows(const std::string& op, int64_t opset = 13) {
    OnnxModel m(opset);
    m.input("x", {2, 3}).output("y");
    auto& n = opset >= 18 ? m.node(op, {"x", "axes"}, {"y"}) : m.node(op, {"x"}, {"y"});
    if (opset >= 18)
        m.initializer_i64("axes", {1}, {1});
    else
        set_attr(n, "axes", std::vector<int64_t>{1});
    set_attr(n, "keepdims", int64_t{0});
    return evaluate_values(m.import(), {{"x", kX}});
}

TEST(OnnxReduce, EveryReductionOverOneAxis) {
    auto rows = [](auto f) {
        D out;
        for (size_t r = 0; r < 2; ++r) out.push_back(f(&kX[3 * r]));
        return out;
    };
    expect_near_all(reduce_rows("ReduceMin"), rows([](const double* v) { return std::min({v[0], v[1], v[2]}); }));
    expect_near_all(reduce_rows("ReduceProd"), rows([](const double* v) { return v[0] * v[1] * v[2]; }));
    expect_near_all(reduce_rows("ReduceL1"),
                    rows([](const double* v) { return std::abs(v[0]) + std::abs(v[1]) + std::abs(v[2]); }));
    expect_near_all(reduce_rows("ReduceL2"),
                    rows([](const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }));
    expect_near_all(reduce_rows("ReduceSumSquare"),
                    rows([](const double* v) { return v[0] * v[0] + v[1] * v[1] + v[2] * v[2]; }));
    expect_near_all(reduce_rows("ReduceLogSumExp"), rows([](const double* v) {
                        return std::log(std::exp(v[0]) + std::exp(v[1]) + std::exp(v[2]));
                    }));
}

TEST(OnnxReduce, Opset18TakesTheAxesAsAnInput) {
    expect_near_all(reduce_rows("ReduceL1", 18), {6, 5.5});
}

TEST(OnnxReduce, SumSquareOverSeveralAxesSquaresOnce) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.node("ReduceSumSquare", {"x"}, {"y"});  // every axis
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Reduce", 0), "mode"), "SUM_SQR");
    EXPECT_EQ(enum_field(g, find_opr(g, "Reduce", 1), "mode"), "SUM");
    expect_near_all(evaluate_values(g, {{"x", kX}}), {1 + 4 + 9 + 16 + 0.25 + 1});
}

// ONNX's ReduceMean of integers is numpy's mean cast back to the type: the sum
// over every reduced axis, divided once, truncated toward zero.
TEST(OnnxReduce, IntegerMeanOverSeveralAxesTruncatesOnce) {
    auto mean = [](std::vector<int64_t> dims, std::vector<int64_t> axes, int64_t keepdims, const D& x) {
        OnnxModel m(13);
        m.input("x", dims, OnnxType::INT32).output("y", OnnxType::INT32);
        auto& n = m.node("ReduceMean", {"x"}, {"y"});
        if (!axes.empty()) set_attr(n, "axes", axes);
        set_attr(n, "keepdims", keepdims);
        return evaluate(m.import(), {{"x", x}})[0];
    };
    // Every axis: trunc(4 / 4) = 1 and trunc(-4 / 4) = -1 (one Reduce per axis
    // gave 0: [3/2, 1/2] = [1, 0], then 1/2 = 0).
    EXPECT_EQ(engine::eval::to_doubles(mean({2, 2}, {}, 1, {2, 1, 1, 0}).value), (D{1}));
    EXPECT_EQ(engine::eval::to_doubles(mean({2, 2}, {}, 0, {-2, -1, -1, 0}).value), (D{-1}));
    // Axes 0 and 2 of [2, 2, 2] (not next to each other), for each of the two
    // middle positions: x[.,0,.] = {3, 0, 0, 0} → trunc(3/4) = 0,
    // x[.,1,.] = {1, 2, 3, 5} → trunc(11/4) = 2.
    const auto kept = mean({2, 2, 2}, {0, 2}, 1, {3, 0, 1, 2, 0, 0, 3, 5});
    EXPECT_EQ(engine::eval::to_doubles(kept.value), (D{0, 2}));
    EXPECT_EQ(dims_of(kept), (std::vector<uint32_t>{1, 2, 1}));
    EXPECT_EQ(dims_of(mean({2, 2, 2}, {0, 2}, 0, {3, 0, 1, 2, 0, 0, 3, 5})), (std::vector<uint32_t>{2}));
}

TEST(OnnxReduce, LogSumOfPositiveValues) {
    OnnxModel m;
    m.input("x", {2, 2}).output("y");
    set_attr(m.node("ReduceLogSum", {"x"}, {"y"}), "axes", std::vector<int64_t>{0});
    expect_near_all(evaluate_values(m.import(), {{"x", {1, 2, 3, 4}}}), {std::log(4.0), std::log(6.0)});
}

TEST(OnnxReduce, NoopWithEmptyAxesIsRefusedWhereTextAndReferenceDisagree) {
    OnnxModel m(18);
    m.input("x", {2, 3}).output("y");
    set_attr(m.node("ReduceL1", {"x"}, {"y"}, "l1"), "noop_with_empty_axes", int64_t{1});
    try {
        m.import();
        FAIL() << "imported";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'l1' (ReduceL1): noop_with_empty_axes=1"), std::string::npos)
            << e.what();
    }
    OnnxModel n(18);
    n.input("x", {2, 3}).output("y");
    set_attr(n.node("ReduceMin", {"x"}, {"y"}), "noop_with_empty_axes", int64_t{1});
    EXPECT_TRUE(compute_ops(n.import()).empty());
}

D arg(const std::string& op, int64_t last, int64_t keepdims, const D& x) {
    OnnxModel m(13);
    m.input("x", {2, 3}).output("y", OnnxType::INT64);
    auto& n = m.node(op, {"x"}, {"y"});
    set_attr(n, "axis", int64_t{1});
    set_attr(n, "keepdims", keepdims);
    set_attr(n, "select_last_index", last);
    return evaluate_values(m.import(), {{"x", x}});
}

TEST(OnnxReduce, ArgMaxAndArgMinFirstOrLastIndex) {
    const D x{2, 5, 5, 1, 1, 0};
    EXPECT_EQ(arg("ArgMax", 0, 1, x), (D{1, 0}));
    EXPECT_EQ(arg("ArgMax", 1, 1, x), (D{2, 1}));
    EXPECT_EQ(arg("ArgMin", 0, 0, x), (D{0, 2}));
    EXPECT_EQ(arg("ArgMin", 1, 0, {2, 2, 5, 0, 1, 0}), (D{1, 2}));
}

TEST(OnnxReduce, ArgMaxSelectLastIndexReversesTheAxis) {
    OnnxModel m(13);
    m.input("x", {2, 3}).output("y", OnnxType::INT64);
    set_attr(m.node("ArgMax", {"x"}, {"y"}), "select_last_index", int64_t{1});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Subtensor", "Argmax", "Elemwise"}));
    expect_round_trip(g);
}

D log_softmax_of(const D& v) {
    const double mx = *std::max_element(v.begin(), v.end());
    double s = 0;
    for (double x : v) s += std::exp(x - mx);
    D out;
    for (double x : v) out.push_back(x - mx - std::log(s));
    return out;
}

TEST(OnnxReduce, LogSoftmaxOverAnAxis) {
    OnnxModel m(13);
    m.input("x", {2, 2}).output("y");
    set_attr(m.node("LogSoftmax", {"x"}, {"y"}), "axis", int64_t{0});
    const D got = evaluate_values(m.import(), {{"x", {1, 10, 3, 10000}}});
    const D c0 = log_softmax_of({1, 3}), c1 = log_softmax_of({10, 10000});
    expect_near_all(got, {c0[0], c1[0], c0[1], c1[1]});
}

TEST(OnnxReduce, LogSoftmaxBeforeOpset13CoercesTo2D) {
    // opset 11, axis 1 of [2, 2, 2]: each batch's 4 values form one row.
    OnnxModel m(11);
    m.input("x", {2, 2, 2}).output("y");
    m.node("LogSoftmax", {"x"}, {"y"});
    const D x{0, 1, 2, 3, -1, -1, 5, 0};
    D want = log_softmax_of({0, 1, 2, 3});
    for (double v : log_softmax_of({-1, -1, 5, 0})) want.push_back(v);
    expect_near_all(evaluate_values(m.import(), {{"x", x}}), want);
}

TEST(OnnxReduce, SoftmaxBeforeOpset13NormalizesOverTheFlattenedTrailingAxes) {
    // Softmax-11, axis 1 of [2, 2, 2]: like LogSoftmax-11, each batch's 4 values are one row.
    OnnxModel m(11);
    m.input("x", {2, 2, 2}).output("y");
    m.node("Softmax", {"x"}, {"y"});
    const ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Reshape", "Softmax", "Reshape"}));
    D want;
    for (const D& row : {D{0, 1, 2, 3}, D{-1, -1, 5, 0}})
        for (double v : log_softmax_of(row)) want.push_back(std::exp(v));
    expect_near_all(evaluate_values(g, {{"x", {0, 1, 2, 3, -1, -1, 5, 0}}}), want);
    expect_round_trip(g);
}

TEST(OnnxReduce, CumSumExclusiveAndReverse) {
    auto run = [](int64_t exclusive, int64_t reverse) {
        OnnxModel m(14);
        m.input("x", {5}).output("y");
        m.initializer_i64("axis", {}, {0});
        auto& n = m.node("CumSum", {"x", "axis"}, {"y"});
        set_attr(n, "exclusive", exclusive);
        set_attr(n, "reverse", reverse);
        return evaluate_values(m.import(), {{"x", {1, 2, 3, 4, 5}}});
    };
    EXPECT_EQ(run(0, 0), (D{1, 3, 6, 10, 15}));
    EXPECT_EQ(run(1, 0), (D{0, 1, 3, 6, 10}));
    EXPECT_EQ(run(0, 1), (D{15, 14, 12, 9, 5}));
    EXPECT_EQ(run(1, 1), (D{14, 12, 9, 5, 0}));
}

}  // namespace
}  // namespace mgedump::test
