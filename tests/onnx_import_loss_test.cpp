// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss (formats/onnx/ops_loss.cpp) and
// CastLike (formats/onnx/ops_elementwise.cpp), against values worked out here from
// the ONNX operator definitions and its reference
// (onnx/backend/test/case/node/negativeloglikelihoodloss.py, softmaxcrossentropyloss.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

// Log-probabilities of 2 samples over 3 classes, [2, 3].
const D kLogProb{-1.0, -2.0, -0.5,   // sample 0
                 -0.25, -3.0, -1.5};  // sample 1
// Per-class weights.
const std::vector<float> kWeight{0.2f, 0.3f, 0.5f};

struct Loss {
    std::string op = "NegativeLogLikelihoodLoss";
    std::string reduction = "mean";
    bool weighted = false;
    std::optional<int64_t> ignore_index;
};

// A loss node over x [2, 3] and an INT64 target [2] (weights as an initializer).
OnnxModel loss_model(const Loss& l, int64_t opset = 13) {
    OnnxModel m(opset);
    m.input("x", {2, 3}).input("t", {2}, OnnxType::INT64).output("loss");
    std::vector<std::string> inputs{"x", "t"};
    if (l.weighted) {
        m.initializer("w", {3}, kWeight);
        inputs.push_back("w");
    }
    auto& n = m.node(l.op, inputs, {"loss"}, "l");
    set_attr(n, "reduction", l.reduction.c_str());
    if (l.ignore_index) set_attr(n, "ignore_index", *l.ignore_index);
    return m;
}

D run(const Loss& l, const D& target, const D& x = kLogProb, int64_t opset = 13) {
    return evaluate_values(loss_model(l, opset).import(), {{"x", x}, {"t", target}});
}

// loss[n] = −x[n][t[n]]: targets (2, 0) pick −0.5 and −0.25.
TEST(OnnxLoss, NllPicksTheTargetClassOfEachSample) {
    expect_near_all(run({.reduction = "none"}, {2, 0}), {0.5, 0.25});
    expect_near_all(run({.reduction = "sum"}, {2, 0}), {0.75});
    expect_near_all(run({.reduction = "mean"}, {2, 0}), {0.375});  // 0.75 / 2
    expect_near_all(run({.reduction = "mean"}, {2, 0}, kLogProb, 12), {0.375});
    expect_near_all(run({.reduction = "none"}, {1, 2}), {2.0, 1.5});
}

// loss[n] = −x[n][t[n]] · w[t[n]]: (0.5 · 0.5, 0.25 · 0.2); mean divides by Σ w[t] = 0.7.
TEST(OnnxLoss, NllWeightsEachSampleByItsClass) {
    expect_near_all(run({.reduction = "none", .weighted = true}, {2, 0}), {0.25, 0.05});
    expect_near_all(run({.reduction = "sum", .weighted = true}, {2, 0}), {0.3});
    expect_near_all(run({.reduction = "mean", .weighted = true}, {2, 0}), {0.3 / 0.7});
}

// An ignored target contributes 0 and is left out of the mean's divisor, whether
// ignore_index lies inside [0, C) or outside it (−1, C).
TEST(OnnxLoss, NllIgnoreIndexInsideAndOutsideTheClasses) {
    for (int64_t ii : {int64_t{-1}, int64_t{3}, int64_t{0}}) {
        SCOPED_TRACE(ii);
        const D target{2, static_cast<double>(ii)};
        expect_near_all(run({.reduction = "none", .ignore_index = ii}, target), {0.5, 0});
        expect_near_all(run({.reduction = "sum", .ignore_index = ii}, target), {0.5});
        expect_near_all(run({.reduction = "mean", .ignore_index = ii}, target), {0.5});  // 0.5 / 1
        // weighted: 0.5 · w2 = 0.25, divided by w2 = 0.5 (the ignored sample's weight is 0)
        expect_near_all(run({.reduction = "sum", .weighted = true, .ignore_index = ii}, target), {0.25});
        expect_near_all(run({.reduction = "mean", .weighted = true, .ignore_index = ii}, target), {0.5});
    }
}

// ONNX's reference gives an ignored position exactly 0; the element the pick reads
// there (class 0) is −inf, which a multiplication by a 0 mask would turn into NaN.
TEST(OnnxLoss, NllIgnoredPositionIsExactlyZeroEvenOverInfinity) {
    D x = kLogProb;
    x[3] = -std::numeric_limits<double>::infinity();  // x[1][0]
    expect_near_all(run({.reduction = "none", .ignore_index = 1}, {2, 1}, x), {0.5, 0});
    expect_near_all(run({.reduction = "none", .weighted = true, .ignore_index = 1}, {2, 1}, x), {0.25, 0});
    expect_near_all(run({.reduction = "mean", .weighted = true, .ignore_index = 1}, {2, 1}, x), {0.5});
}

// The pick is IndexingOneHot along the class axis on the input seen as (N, C, D);
// ignored targets are replaced by 0 (target · keep) before it.
TEST(OnnxLoss, NllMapsToIndexingOneHotAlongTheClassAxis) {
    ir::Graph g = loss_model({.reduction = "mean", .weighted = true, .ignore_index = -1}).import();
    EXPECT_EQ(count_ops(g, "IndexingOneHot"), 2u);  // the input, and the broadcast weights
    EXPECT_EQ(int_field(g, find_opr(g, "IndexingOneHot"), "axis"), 1);
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 0u);
    EXPECT_EQ(count_ops(g, "Reduce"), 2u);  // Σ loss, Σ weight
    expect_same_ops_after_round_trip(g);
}

// (N, C, d1) = (1, 2, 2): x[0][c][d]; targets (1, 0) pick x[0][1][0] and x[0][0][1].
TEST(OnnxLoss, NllOverExtraAxesKeepsTheTargetShape) {
    OnnxModel m;
    m.input("x", {1, 2, 2}).input("t", {1, 2}, OnnxType::INT64).output("loss");
    set_attr(m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}), "reduction", "none");
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"x", {-1, -2, -3, -4}}, {"t", {1, 0}}});
    const auto dims = out.at(0).value.shape().dims();
    EXPECT_EQ(std::vector<uint32_t>(dims.begin(), dims.end()), (std::vector<uint32_t>{1, 2}));
    expect_near_all(engine::eval::to_doubles(out.at(0).value), {3, 2});
}

// log_softmax of (1, 2, 3): k − log(e + e² + e³), log(e + e² + e³) = 3.40760596;
// of (1, 1, 1): −log 3. Targets (2, 0): mean of 0.40760596 and 1.09861229.
TEST(OnnxLoss, SoftmaxCrossEntropyIsNllOfTheLogSoftmax) {
    OnnxModel m;
    m.input("s", {2, 3}).input("t", {2}, OnnxType::INT64).output("loss").output("log_prob");
    m.node("SoftmaxCrossEntropyLoss", {"s", "t"}, {"loss", "log_prob"});
    auto out = evaluate(m.import(), {{"s", {1, 2, 3, 1, 1, 1}}, {"t", {2, 0}}});
    const double lse = 3.40760596, l3 = std::log(3.0);
    expect_near_all(engine::eval::to_doubles(out.at(0).value), {(lse - 3 + l3) / 2});
    expect_near_all(engine::eval::to_doubles(out.at(1).value), {1 - lse, 2 - lse, 3 - lse, -l3, -l3, -l3});
}

TEST(OnnxLoss, SoftmaxCrossEntropyWithWeightsAndIgnoreIndex) {
    // sample 1 ignored: sum = w2 · 0.40760596, mean divides by w2 = 0.5.
    Loss l{.op = "SoftmaxCrossEntropyLoss", .reduction = "sum", .weighted = true, .ignore_index = 5};
    expect_near_all(run(l, {2, 5}, {1, 2, 3, 1, 1, 1}, 12), {0.5 * 0.40760596});
    l.reduction = "mean";
    expect_near_all(run(l, {2, 5}, {1, 2, 3, 1, 1, 1}), {0.40760596});
}

TEST(OnnxLoss, RefusesWhatIsNotDefined) {
    auto refusal = [](const OnnxModel& m, const std::string& want) {
        std::string e = import_error(m);
        EXPECT_NE(e.find(want), std::string::npos) << e;
    };
    refusal(loss_model({.reduction = "max"}),
            "node 'l' (NegativeLogLikelihoodLoss): reduction 'max' is not defined (none, sum or mean)");
    refusal(loss_model({.ignore_index = int64_t{1} << 40}),
            "ignore_index 1099511627776 does not fit Int32");
    {
        OnnxModel m;
        m.input("x", {2, 3}).input("t", {3}, OnnxType::INT64).output("loss");
        m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, "l");
        refusal(m, "the target (input #1) has shape [3]; for input of shape [2,3] it must be [2]");
    }
    {
        OnnxModel m;
        m.input("x", {2, 3}).input("t", {2}, OnnxType::FLOAT).output("loss");
        m.node("SoftmaxCrossEntropyLoss", {"x", "t"}, {"loss"}, "l");
        refusal(m, "node 'l' (SoftmaxCrossEntropyLoss): the target (input #1) is FLOAT; it must be INT32 or INT64");
    }
    {
        OnnxModel m;
        m.input("x", {3}).input("t", {3}, OnnxType::INT64).output("loss");
        m.node("NegativeLogLikelihoodLoss", {"x", "t"}, {"loss"}, "l");
        refusal(m, "input (input #0) must be (N, C) or (N, C, d1, …, dk), has shape [3]");
    }
    {
        OnnxModel m;
        m.input("x", {2, 3}).input("t", {2}, OnnxType::INT64).output("loss");
        m.initializer("w", {2}, {1, 2});
        m.node("NegativeLogLikelihoodLoss", {"x", "t", "w"}, {"loss"}, "l");
        refusal(m, "the weight (input #2) has shape [2]; it must be [3] (one per class)");
    }
}

// CastLike takes the element type of its second input, not its values.
TEST(OnnxCastLike, CastsToTheTypeOfTheSecondInput) {
    OnnxModel m(15);
    m.input("x", {3}).input("like", {1}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16);
    m.node("CastLike", {"x", "like"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"TypeCvt"});
    auto out = evaluate(g, {{"x", {1.5, -2, 0.25}}, {"like", {7}}});
    EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Float16);
    expect_near_all(engine::eval::to_doubles(out.at(0).value), {1.5, -2, 0.25});
}

// A STRING operand (test_castlike_*_STRING) has no MegEngine dtype: the model is
// refused (at the graph input that carries it).
TEST(OnnxCastLike, SameTypeIsRemovedAndStringIsRefused) {
    {
        OnnxModel m(15);
        m.input("x", {3}).input("like", {2}).output("y");
        m.node("CastLike", {"x", "like"}, {"y"});
        EXPECT_TRUE(compute_ops(m.import()).empty());
    }
    OnnxModel m(15);
    m.input("x", {3}).input("like", {1}, OnnxType::STRING).output("y", OnnxType::STRING);
    m.node("CastLike", {"x", "like"}, {"y"});
    std::string e = import_error(m);
    EXPECT_NE(e.find("STRING has no MegEngine dtype"), std::string::npos) << e;
}

}  // namespace
}  // namespace mgedump::test
