// The norm family's kernels (engine/eval/kernels_norm.cpp) on small graphs, for
// what the MegEngine oracle graphs do not cover: Softmax on large and infinite
// inputs, GeneralNorm's E[x²] − mean² in float squares, the variance GroupNorm
// writes in rstd's place, InstanceNorm with affine weights, the backward
// kernels against the gradient of the forward definition, BatchNorm's running
// statistics and per-HW parameters, refusals.
//
// Forward expectations are numpy float32 scalar arithmetic in the order of
// MegDNN's naive kernels (dnn/src/naive/layer_norm, general_norm, group_norm:
// sequential float sums, double sums for GeneralNorm). Backward and BatchNorm
// expectations are float64 numpy of the mathematical definition: for a group of
// M elements with σ = sqrt(var + eps), x̂ = (x − mean)/σ and g = w·dy,
// dx = (g − mean(g) − x̂·mean(g·x̂)) / σ, dweight = Σ dy·x̂, dbias = Σ dy;
// BatchNorm y = scale·(x − mean)/sqrt(var + eps) + bias with the batch's biased
// variance, the running variance updated with the unbiased one.
#include <gtest/gtest.h>

#include <string>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

// ---------------------------------------------------------------- Softmax

TEST(NormKernels, SoftmaxSubtractsTheMaximumFirst) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 2});
    VarId rows = b.op("Softmax", {x}, {{"axis", -1}});
    VarId cols = b.op("Softmax", {x}, {{"axis", 0}});
    // Row 0 [1000, 1001]: exp(-1), exp(0) over their sum, in float32 (no overflow).
    // Row 1 [-inf, 0]: exp(-inf) = 0. Columns [1000, -inf] and [1001, 0].
    const auto out = run(b, {rows, cols}, {{"x", tensor(F32, {2, 2}, {1000, 1001, -kInf, 0})}});
    expect_floats(out[0], {0.26894140243530273, 0.7310585975646973, 0, 1});
    expect_floats(out[1], {1, 1, 0, 0});
}

// ---------------------------------------------------------------- LayerNorm / GeneralNorm

TEST(NormKernels, LayerNormAffineWithMeanAndRstd) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3});
    VarId w = floats(b, {3}, {1, 2, -0.5});
    VarId bias = floats(b, {3}, {0, 0.25, 1});
    VarId y =
        b.op("LayerNorm", {x, w, bias}, {{"eps", 1e-5f}, {"normalized_dim", 1}, {"normalized_size", 3}});
    const auto out = run(b, {y, nth(y, 1), nth(y, 2)}, {{"x", tensor(F32, {2, 3}, {1, 2, 4, -3, 0.5, 10})}});
    expect_floats(out[0], {-1.06904137134552, -0.28452056646347046, 0.3318490982055664, -1.0013800859451294,
                           -0.47827649116516113, 0.317240834236145});
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{2}));
    expect_floats(out[1], {2.3333332538604736, 2.5});
    expect_floats(out[2], {0.8017810583114624, 0.18206912279129028});
}

TEST(NormKernels, LayerNormRefusesANormalizedSizeThatIsNotTheShapes) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3});
    VarId y =
        b.op("LayerNorm", {x}, {{"affine", ParamArg{false}}, {"normalized_dim", 1}, {"normalized_size", 4}});
    const std::string e = eval_error_of([&] {
        run(b, {y}, {{"x", tensor(F32, {2, 3}, {1, 2, 3, 4, 5, 6})}});
    });
    EXPECT_NE(e.find("LayerNorm"), std::string::npos) << e;
    EXPECT_NE(e.find("normalized_size 4"), std::string::npos) << e;
}

TEST(NormKernels, GeneralNormUsesFloatSquaresInDoubleSums) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 2});
    VarId w = floats(b, {3}, {1, 2, 3});
    VarId bias = floats(b, {3}, {0, 1, -1});
    VarId y = b.op("GeneralNorm", {x, w, bias}, {{"eps", 1e-5f}, {"axis_start", 0}, {"axis_end", 1}});
    // Column 0 [10001, 10002, 10003]: the float squares round to 100020000,
    // 100040000, 100060008, so E[x²] − mean² is 2.67, not the exact 2/3, and
    // rstd is 1/sqrt(2.67) = 0.6124.
    const auto out =
        run(b, {y, nth(y, 1), nth(y, 2)}, {{"x", tensor(F32, {3, 2}, {10001, 1, 10002, -2, 10003, 4})}});
    expect_floats(out[0],
                  {-0.6123713254928589, 0.0, 1.0, -1.4494876861572266, 0.8371139764785767, 2.67423152923584});
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{2}));
    expect_floats(out[1], {10002.0, 1.0});
    expect_floats(out[2], {0.6123713254928589, 0.4082479476928711});
}

// ---------------------------------------------------------------- GroupNorm / InstanceNorm

TEST(NormKernels, GroupNormWritesTheVarianceAsRstd) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 4, 1, 2});
    VarId y = b.op("GroupNorm", {x}, {{"affine", ParamArg{false}}, {"eps", 1e-4f}, {"group", 2}});
    const auto out =
        run(b, {y, nth(y, 1), nth(y, 2)}, {{"x", tensor(F32, {1, 4, 1, 2}, {1, 2, 3, 5, -1, -1, 0, 6})}});
    expect_floats(out[0],
                  {-1.1831889152526855, -0.5070809721946716, 0.16902698576450348, 1.5212428569793701,
                   -0.6859903335571289, -0.6859903335571289, -0.34299516677856445, 1.7149758338928223});
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{1, 2}));
    expect_floats(out[1], {2.75, 1.0});
    // The naive kernel stores slice_var in the rstd output (and its backward
    // reads it back as the variance).
    expect_floats(out[2], {2.1875, 8.5});
}

TEST(NormKernels, InstanceNormAffineIsOneGroupPerChannel) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 1, 3});
    VarId w = floats(b, {1, 2, 1, 1}, {2, -1});
    VarId bias = floats(b, {1, 2, 1, 1}, {0.5, 0});
    VarId y = b.op("InstanceNorm", {x, w, bias}, {{"eps", 1e-4f}});
    const auto out =
        run(b, {y, nth(y, 1), nth(y, 2)}, {{"x", tensor(F32, {1, 2, 1, 3}, {0, 1, 5, 2, 2, 8})}});
    expect_floats(out[0], {-1.3516204357147217, -0.42581021785736084, 3.277430772781372, 0.707102358341217,
                           0.707102358341217, -1.414204716682434});
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{1, 2}));
    expect_floats(out[1], {2.0, 4.0});
    expect_floats(out[2], {4.666666507720947, 8.0});
}

const std::vector<double> kBackX{1, 2, 3, 5, -1, -1, 0, 6, 0.5, 0, 2, -2, 3, 1, 1, 4};
const std::vector<double> kBackDy{0.1, -0.2, 0.3, 0.4, 1, 0, -1, 0.5, 0.2, 0.2, -0.3, 0.7, -0.5, 0.25, 0, 1};

TEST(NormKernels, GroupNormBackwardIsTheGradientOfTheForward) {
    // N=2, C=4, H=1, W=2, two groups; mean and variance of each group of x are
    // fed as the mean and rstd inputs, as the forward kernel writes them.
    GraphBuilder b;
    VarId dy = b.input("dy", F32, {2, 4, 1, 2});
    VarId x = b.input("x", F32, {2, 4, 1, 2});
    VarId mean = b.input("mean", F32, {2, 2});
    VarId var = b.input("rstd", F32, {2, 2});
    VarId w = floats(b, {1, 4, 1, 1}, {1.5, -0.5, 2, 0.25});
    VarId g = b.op("GroupNormBackward", {dy, x, w, mean, var}, {{"eps", 1e-4f}, {"group", 2}});
    const auto out = run(b, {g, nth(g, 1), nth(g, 2)},
                         {{"dy", tensor(F32, {2, 4, 1, 2}, kBackDy)},
                          {"x", tensor(F32, {2, 4, 1, 2}, kBackX)},
                          {"mean", tensor(F32, {2, 2}, {2.75, 1.0, 0.125, 2.25})},
                          {"rstd", tensor(F32, {2, 2}, {2.1875, 8.5, 2.046875, 1.6875})}});
    expect_near(out[0],
                {0.114941597, -0.148742358, -0.006761543, 0.040562305, 0.46216149, -0.223828816, -0.278052685,
                 0.039720011, 0.104576873, 0.151526688, -0.1411145, -0.114989061, -0.641486044, 0.299365856,
                 -0.08552292, 0.427643108},
                2e-6);
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{1, 4, 1, 1}));
    expect_near(out[1], {0.01804461, -0.773634401, -1.215212372, 2.547593749}, 2e-6);
    expect_near(out[2], {0.3, 1.1, 0.75, 0.5}, 1e-6);
}

TEST(NormKernels, InstanceNormBackwardWithoutAffineGivesDx) {
    // One group per channel, no weight (4 inputs). Channel 0: x [1, 2], mean 1.5,
    // variance 0.25; channel 1: x [3, 5], mean 4, variance 1. With two elements
    // per group dx nearly cancels: the float64 definition gives ±1.19928e-4 and
    // ∓4.99925e-6; the naive kernel's float32 terms (c1·dy + c2·x + c3, each
    // ~0.1) leave an error of a few 1e-8, which is what it computes. Expected:
    // its formula in numpy float32 scalars, in its order.
    GraphBuilder b;
    VarId dy = b.input("dy", F32, {1, 2, 1, 2});
    VarId x = b.input("x", F32, {1, 2, 1, 2});
    VarId mean = b.input("mean", F32, {1, 2});
    VarId var = b.input("rstd", F32, {1, 2});
    VarId g = b.op("InstanceNormBackward", {dy, x, mean, var}, {{"affine", ParamArg{false}}, {"eps", 1e-4f}},
                   OpOptions{.outputs = 3});
    const auto out = run(b, {g},
                         {{"dy", tensor(F32, {1, 2, 1, 2}, {0.1, -0.2, 0.3, 0.4})},
                          {"x", tensor(F32, {1, 2, 1, 2}, {1, 2, 3, 5})},
                          {"mean", tensor(F32, {1, 2}, {1.5, 4})},
                          {"rstd", tensor(F32, {1, 2}, {0.25, 1})}});
    expect_floats(out[0], {0.00011986494064331055, -0.00011992454528808594, -5.036592483520508e-06,
                           5.036592483520508e-06});
    expect_near(out[0], {0.000119928, -0.000119928, -4.99925e-06, 4.99925e-06}, 1e-7);
}

// ---------------------------------------------------------------- BatchNorm

TEST(NormKernels, BatchNormTrainingUpdatesTheRunningStatistics) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 2, 1, 2});
    VarId scale = floats(b, {1, 2, 1, 1}, {2, 0.5});
    VarId bias = floats(b, {1, 2, 1, 1}, {0.1, -1});
    VarId rmean = floats(b, {1, 2, 1, 1}, {0.5, 1.0});
    VarId rvar = floats(b, {1, 2, 1, 1}, {2.0, 3.0});
    VarId bn = b.op("BatchNorm", {x, scale, bias, rmean, rvar},
                    {{"fwd_mode", "TRAINING"}, {"epsilon", ParamArg{1e-3}}, {"avg_factor", ParamArg{0.25}}},
                    OpOptions{.outputs = 6});
    const auto out = run(b, {bn, nth(bn, 1), nth(bn, 2), nth(bn, 3), nth(bn, 5)},
                         {{"x", tensor(F32, {2, 2, 1, 2}, {1, 2, 3, -1, 0, 4, 5, 7})}});
    // Channel 0 holds 1, 2, 0, 4 (mean 1.75, variance 2.1875); channel 1 holds
    // 3, -1, 5, 7 (mean 3.5, variance 8.75). Running: 0.75·old + 0.25·batch,
    // the variance unbiased (·4/3).
    expect_near(out[0], {0.8125, 1.625}, 1e-6);
    expect_near(out[1], {2.2291667, 5.1666667}, 1e-6);
    expect_near(out[2], {1.75, 3.5}, 1e-6);
    expect_near(out[3], {0.6759689, 0.3380424}, 1e-6);  // 1/sqrt(variance + eps)
    expect_near(
        out[4],
        {-0.9139534, 0.4379845, -1.0845106, -1.7605954, -2.2658912, 3.1418601, -0.7464682, -0.4084258}, 1e-6);
}

TEST(NormKernels, BatchNormInferenceWithParamsPerChannelAndWidth) {
    // Scale, bias, mean and variance of shape [1,2,1,2]: one per (C, W)
    // position, broadcast over N and H.
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 2, 1, 2});
    VarId scale = floats(b, {1, 2, 1, 2}, {1, -2, 0.5, 1});
    VarId bias = floats(b, {1, 2, 1, 2}, {0, 1, 0, -1});
    VarId mean = floats(b, {1, 2, 1, 2}, {1, 2, 0, 3});
    VarId var = floats(b, {1, 2, 1, 2}, {4, 0.25, 1, 2});
    VarId bn = b.op("BatchNorm", {x, scale, bias, mean, var},
                    {{"fwd_mode", "INFERENCE"}, {"epsilon", ParamArg{1e-3}}}, OpOptions{.outputs = 6});
    const auto out = run(b, {nth(bn, 5)}, {{"x", tensor(F32, {2, 2, 1, 2}, {1, 2, 3, -1, 0, 4, 5, 7})}});
    expect_near(out[0], {0.0, 1.0, 1.4992506, -3.8277203, -0.4999375, -6.9840478, 2.4987509, 1.8277203},
                1e-6);
}

TEST(NormKernels, BatchNormTrainingWithThreeInputsGivesBatchStatistics) {
    // Params per (C, W): each statistic covers the N (and H) positions. Position
    // (c0, w0) holds 1 and 0: mean 0.5, variance 0.25, 1/sqrt(0.251) = 1.996.
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 2, 1, 2});
    VarId scale = floats(b, {1, 2, 1, 2}, {1, 1, 1, 1});
    VarId bias = floats(b, {1, 2, 1, 2}, {0, 0, 0, 0});
    VarId bn = b.op("BatchNorm", {x, scale, bias}, {{"fwd_mode", "TRAINING"}, {"epsilon", ParamArg{1e-3}}},
                    OpOptions{.outputs = 4});
    const auto out = run(b, {bn, nth(bn, 1)}, {{"x", tensor(F32, {2, 2, 1, 2}, {1, 2, 3, -1, 0, 4, 5, 7})}});
    expect_near(out[0], {0.5, 3.0, 4.0, 3.0}, 1e-6);
    expect_near(out[1], {1.996012, 0.9995004, 0.9995004, 0.2499922}, 1e-6);
}

}  // namespace
}  // namespace mgedump::test
