// Conv, ConvTranspose, BatchNormalization (folded and not), Gemm and MatMul.
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;

TEST(OnnxConv, ConvWithBiasBecomesConvBiasWithPadsStridesDilationsAndAReshapedBias) {
    OnnxModel m;
    m.input("x", {1, 3, 8, 8}).output("y");
    m.ramp("w", {4, 3, 3, 3});
    m.ramp("b", {4});
    auto& n = m.node("Conv", {"x", "w", "b"}, {"y"}, "conv1");
    set_attr(n, "pads", std::vector<int64_t>{1, 2, 1, 2});
    set_attr(n, "strides", std::vector<int64_t>{2, 1});
    set_attr(n, "dilations", std::vector<int64_t>{1, 2});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"ConvBias"});
    ir::OprId c = find_opr(g, "ConvBias");
    EXPECT_EQ(int_field(g, c, "pad_h"), 1);
    EXPECT_EQ(int_field(g, c, "pad_w"), 2);
    EXPECT_EQ(int_field(g, c, "stride_h"), 2);
    EXPECT_EQ(int_field(g, c, "stride_w"), 1);
    EXPECT_EQ(int_field(g, c, "dilate_h"), 1);
    EXPECT_EQ(int_field(g, c, "dilate_w"), 2);
    EXPECT_EQ(enum_field(g, c, "sparse"), "DENSE");
    EXPECT_EQ(input_shape(g, c, 2), (std::vector<uint32_t>{1, 4, 1, 1}));
    EXPECT_EQ(input_floats(g, c, 2), (std::vector<float>{0, 0.5f, 1, 1.5f}));
    EXPECT_EQ(g.str(g.oprs.name[c.value]), "conv1");
    expect_round_trip(g);
}

TEST(OnnxConv, ConvWithoutBiasBecomesConvolution) {
    OnnxModel m;
    m.input("x", {1, 3, 8, 8}).output("y");
    m.ramp("w", {4, 3, 1, 1});
    m.node("Conv", {"x", "w"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Convolution"});
    expect_round_trip(g);
}

TEST(OnnxConv, GroupedConvUsesSparseGroupWithWeightsViewedAsFiveAxes) {
    OnnxModel m;
    m.input("x", {1, 4, 8, 8}).output("y");
    m.ramp("w", {6, 2, 3, 3});
    auto& n = m.node("Conv", {"x", "w"}, {"y"});
    set_attr(n, "group", int64_t{2});
    ir::Graph g = m.import();
    ir::OprId c = find_opr(g, "Convolution");
    EXPECT_EQ(enum_field(g, c, "sparse"), "GROUP");
    EXPECT_EQ(input_shape(g, c, 1), (std::vector<uint32_t>{2, 3, 2, 3, 3}));
    expect_round_trip(g);
}

TEST(OnnxConv, ConvWeightsAreViewedInTheParsedModelNotCopied) {
    OnnxModel m;
    m.input("x", {1, 3, 8, 8}).output("y");
    m.ramp("w", {4, 3, 3, 3});
    m.node("Conv", {"x", "w"}, {"y"});
    ir::Graph g = m.import();
    ir::OprId c = find_opr(g, "Convolution");
    ir::OprId holder = g.vars.owner[g.inputs_of(c)[1].value];
    ir::BlobId blob = g.tensors.blob[g.oprs.tensors[holder.value].begin];
    // A view's keepalive is the parsed ModelProto, not a vector the importer filled.
    EXPECT_NE(std::static_pointer_cast<const onnx::ModelProto>(g.blobs.owner(blob)), nullptr);
    EXPECT_EQ(g.blobs.bytes(blob).size(), 4u * 3 * 3 * 3 * 4);
}

TEST(OnnxConv, AsymmetricPadsPadTheDifferenceWithZerosFirst) {
    OnnxModel m;
    m.input("x", {1, 3, 8, 8}).output("y");
    m.ramp("w", {4, 3, 3, 3});
    // TensorFlow's SAME with stride 2: one more row and column at the end.
    auto& n = m.node("Conv", {"x", "w"}, {"y"}, "c7");
    set_attr(n, "pads", std::vector<int64_t>{0, 1, 1, 2});
    set_attr(n, "strides", std::vector<int64_t>{2, 2});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Padding", "Convolution"}));
    ir::OprId p = find_opr(g, "Padding"), c = find_opr(g, "Convolution");
    EXPECT_EQ(int_field(g, p, "front_offset_dim2"), 0);
    EXPECT_EQ(int_field(g, p, "back_offset_dim2"), 1);
    EXPECT_EQ(int_field(g, p, "front_offset_dim3"), 0);
    EXPECT_EQ(int_field(g, p, "back_offset_dim3"), 1);
    EXPECT_EQ(std::get<double>(field(g, p, "padding_val")), 0.0);
    EXPECT_EQ(int_field(g, c, "pad_h"), 0);
    EXPECT_EQ(int_field(g, c, "pad_w"), 1);
    expect_round_trip(g);
}

TEST(OnnxConv, ConvTransposeBecomesConvolutionBackwardDataWithWeightFirstAndBiasAdded) {
    OnnxModel m;
    m.input("x", {1, 4, 5, 5}).output("y");
    m.ramp("w", {4, 2, 3, 3});
    m.ramp("b", {2});
    set_attr(m.node("ConvTranspose", {"x", "w", "b"}, {"y"}), "strides", std::vector<int64_t>{2, 2});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"ConvolutionBackwardData", "Elemwise"}));
    ir::OprId d = find_opr(g, "ConvolutionBackwardData");
    EXPECT_EQ(input_shape(g, d, 0), (std::vector<uint32_t>{4, 2, 3, 3}));
    EXPECT_EQ(int_field(g, d, "stride_h"), 2);
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), "ADD");
    expect_round_trip(g);
}

// BN after Conv: w' = w * gamma / sqrt(var + eps), b' = (b - mean) * that + beta.
TEST(OnnxConv, BatchNormAfterConvIsFoldedIntoTheConvWeightsAndBias) {
    OnnxModel m;
    m.input("x", {1, 1, 4, 4}).output("y");
    m.initializer("w", {2, 1, 1, 1}, {1.0f, 2.0f});
    m.initializer("gamma", {2}, {2.0f, 3.0f});
    m.initializer("beta", {2}, {0.5f, -1.0f});
    m.initializer("mean", {2}, {1.0f, 4.0f});
    m.initializer("var", {2}, {3.0f, 8.0f});
    m.node("Conv", {"x", "w"}, {"c"});
    set_attr(m.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"}), "epsilon", 1.0f);
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"ConvBias"});
    ir::OprId c = find_opr(g, "ConvBias");
    // scales: 2/sqrt(4) = 1, 3/sqrt(9) = 1 → w' = w; b' = -mean * 1 + beta.
    EXPECT_EQ(input_floats(g, c, 1), (std::vector<float>{1.0f, 2.0f}));
    EXPECT_EQ(input_floats(g, c, 2), (std::vector<float>{-0.5f, -5.0f}));
    expect_round_trip(g);
}

TEST(OnnxConv, BatchNormWhoseConvOutputIsAlsoUsedElsewhereStaysOneFuseMulAdd3) {
    ir::Graph g = conv_bn_model(/*c_is_an_output_too=*/true).import();
    EXPECT_EQ(compute_ops(g), (V{"Convolution", "Elemwise"}));
    ir::OprId e = find_opr(g, "Elemwise");
    EXPECT_EQ(enum_field(g, e, "mode"), "FUSE_MUL_ADD3");
    EXPECT_EQ(input_shape(g, e, 1), (std::vector<uint32_t>{1, 2, 1, 1}));
    EXPECT_EQ(input_floats(g, e, 1), (std::vector<float>{1.0f, 4.0f}));
    EXPECT_EQ(input_floats(g, e, 2), (std::vector<float>{0.0f, -7.0f}));
    expect_round_trip(g);
}

// training_mode = 1 (BatchNormalization-14+): normalised with the batch's mean and
// population variance over every axis but 1, running statistics updated with momentum.
// A FLOAT16 BatchNormalization (statistics FLOAT16 too): scale' and bias' are
// constants of X's dtype. They were Float32, which made MegEngine's make promote
// the output, and FLOAT16 statistics were refused as "not a float constant".
TEST(OnnxConv, Float16BatchNormIsOneFuseMulAdd3InFloat16) {
    OnnxModel m(15);
    m.input("x", {1, 2, 1, 2}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16);
    // scale [2, 0.5], B [1, 0], mean [0, 1], var [0.75, 0.75], epsilon 0.25: √(var + ε) = 1.
    const uint16_t scale[] = {0x4000, 0x3800}, b[] = {0x3C00, 0}, mean[] = {0, 0x3C00}, var[] = {0x3A00, 0x3A00};
    m.initializer_bytes("s", {2}, OnnxType::FLOAT16, scale, 4);
    m.initializer_bytes("b", {2}, OnnxType::FLOAT16, b, 4);
    m.initializer_bytes("m", {2}, OnnxType::FLOAT16, mean, 4);
    m.initializer_bytes("v", {2}, OnnxType::FLOAT16, var, 4);
    set_attr(m.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}), "epsilon", 0.25f);
    ir::Graph g = m.import();
    EXPECT_EQ(g.vars.dtype[g.outputs.at(0).value].type, ir::DTypeEnum::Float16);
    // (x − mean) · scale + B: channel 0 (1, 2) → (3, 5), channel 1 (3, 4) → (1, 1.5).
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}}), (std::vector<double>{3, 5, 1, 1.5}));
}

TEST(OnnxConv, BatchNormInTrainingModeUsesTheBatchStatistics) {
    OnnxModel m(15);
    m.input("x", {1, 2, 1, 2}).output("y").output("running_mean").output("running_var");
    m.initializer("gamma", {2}, {2, 1});
    m.initializer("beta", {2}, {0, 1});
    m.initializer("mean", {2}, {10, 20});
    m.initializer("var", {2}, {1, 2});
    auto& n = m.node("BatchNormalization", {"x", "gamma", "beta", "mean", "var"}, {"y", "running_mean", "running_var"},
                     "bn");
    set_attr(n, "training_mode", int64_t{1});
    set_attr(n, "epsilon", 0.0f);
    set_attr(n, "momentum", 0.5f);
    const auto out = evaluate(m.import(), {{"x", {1, 3, 0, 4}}});
    // Channel 0: mean 2, var 1 → (x − 2)·2 + 0; channel 1: mean 2, var 4 → (x − 2)/2 + 1.
    expect_near_all(engine::eval::to_doubles(out.at(0).value), {-2, 2, 0, 2});
    expect_near_all(engine::eval::to_doubles(out.at(1).value), {10 * 0.5 + 2 * 0.5, 20 * 0.5 + 2 * 0.5});
    expect_near_all(engine::eval::to_doubles(out.at(2).value), {1 * 0.5 + 1 * 0.5, 2 * 0.5 + 4 * 0.5});

    OnnxModel old(13);  // BatchNormalization-9 has no training_mode attribute
    old.input("x", {1, 2, 4, 4}).output("y");
    for (const char* name : {"gamma", "beta", "mean", "var"}) old.ramp(name, {2});
    set_attr(old.node("BatchNormalization", {"x", "gamma", "beta", "mean", "var"}, {"y"}, "bn"), "training_mode",
             int64_t{1});
    EXPECT_NE(import_error(old).find("training_mode at opset 13"), std::string::npos) << import_error(old);
}

// Statistics fed at run time: ONNX's (x − mean) / √(var + ε) · scale + B with Elemwise.
TEST(OnnxConv, BatchNormWithRuntimeStatisticsIsComputedWithElemwise) {
    OnnxModel m(15);
    m.input("x", {1, 2, 1, 2});
    for (const char* n : {"gamma", "beta", "mean", "var"}) m.input(n, {2});
    m.output("y");
    set_attr(m.node("BatchNormalization", {"x", "gamma", "beta", "mean", "var"}, {"y"}, "bn"), "epsilon", 1.0f);
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Elemwise"), 5u);  // SUB, ADD, SQRT, TRUE_DIV, FUSE_MUL_ADD3
    // Channel 0: (x − 1)/√(3 + 1)·2 + 10; channel 1: (x − 0)/√(0 + 1)·−1 + 0.
    expect_near_all(evaluate_values(g, {{"x", {1, 5, 2, -3}},
                                        {"gamma", {2, -1}},
                                        {"beta", {10, 0}},
                                        {"mean", {1, 0}},
                                        {"var", {3, 0}}}),
                    {10, 14, -2, 3});
}

TEST(OnnxLinear, GemmWithTransBAlphaBetaBecomesMatrixMulTimesAlphaPlusBetaC) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.ramp("w", {4, 3});
    m.ramp("b", {4});
    auto& n = m.node("Gemm", {"x", "w", "b"}, {"y"});
    set_attr(n, "transB", int64_t{1});
    set_attr(n, "alpha", 2.0f);
    set_attr(n, "beta", 3.0f);
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"MatrixMul", "Elemwise", "Elemwise", "Elemwise"}));
    ir::OprId mm = find_opr(g, "MatrixMul");
    EXPECT_EQ(int_field(g, mm, "transposeA"), 0);
    EXPECT_EQ(int_field(g, mm, "transposeB"), 1);
    EXPECT_EQ(input_floats(g, find_opr(g, "Elemwise", 0), 1), std::vector<float>{2.0f});
    EXPECT_EQ(input_floats(g, find_opr(g, "Elemwise", 1), 1), std::vector<float>{3.0f});
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise", 2), "mode"), "ADD");
    expect_round_trip(g);
}

TEST(OnnxLinear, PlainGemmWithBiasIsMatrixMulAndOneAdd) {
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.ramp("w", {3, 4});
    m.ramp("b", {4});
    m.node("Gemm", {"x", "w", "b"}, {"y"});
    EXPECT_EQ(compute_ops(m.import()), (V{"MatrixMul", "Elemwise"}));
}

TEST(OnnxLinear, MatMulOfThreeDByMatrixFoldsLeadingAxesAroundMatrixMul) {
    OnnxModel m;
    m.input("x", {2, 5, 3}).output("y");
    m.ramp("w", {3, 4});
    m.node("MatMul", {"x", "w"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Reshape", "MatrixMul", "Reshape"}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape", 0), 1), (std::vector<int32_t>{10, 3}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape", 1), 1), (std::vector<int32_t>{2, 5, 4}));
    expect_round_trip(g);
}

TEST(OnnxLinear, MatMulOfMatchingBatchesIsBatchedMatrixMul) {
    OnnxModel m;
    m.input("a", {6, 5, 3}).input("b", {6, 3, 2}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"BatchedMatrixMul"});
    expect_round_trip(g);
}

TEST(OnnxLinear, FourDMatMulFoldsBatchAxesIntoOne) {
    OnnxModel m;
    m.input("a", {2, 3, 5, 4}).input("b", {2, 3, 4, 6}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Reshape", "Reshape", "BatchedMatrixMul", "Reshape"}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape", 2), 1), (std::vector<int32_t>{2, 3, 5, 6}));
}

// Batch axes that differ broadcast (ONNX MatMul is numpy.matmul): y[i, j] =
// Σ_k a[bi..., i, k] · b[bj..., k, j], each operand's batch index taken from the
// broadcast one (an axis of 1 repeats). The expected values are that sum,
// computed here directly over the two inputs.
std::vector<double> numpy_matmul(const std::vector<double>& a, const std::vector<int64_t>& a_batch,
                                 const std::vector<double>& b, const std::vector<int64_t>& b_batch,
                                 const std::vector<int64_t>& batch, int64_t m, int64_t k, int64_t n) {
    // The operands' batch strides (in matrices) under right alignment, 0 where an axis broadcasts.
    auto strides = [&](const std::vector<int64_t>& own) {
        std::vector<int64_t> st(batch.size(), 0);
        int64_t step = 1;
        for (size_t r = 0; r < own.size(); ++r) {
            const size_t axis = own.size() - 1 - r, out_axis = batch.size() - 1 - r;
            st[out_axis] = own[axis] == 1 ? 0 : step;
            step *= own[axis];
        }
        return st;
    };
    const auto sa = strides(a_batch), sb = strides(b_batch);
    int64_t count = 1;
    for (int64_t d : batch) count *= d;
    std::vector<double> y;
    for (int64_t flat = 0; flat < count; ++flat) {
        int64_t rest = flat, ia = 0, ib = 0;
        for (size_t axis = batch.size(); axis-- > 0;) {
            const int64_t idx = rest % batch[axis];
            rest /= batch[axis];
            ia += idx * sa[axis];
            ib += idx * sb[axis];
        }
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                double sum = 0;
                for (int64_t t = 0; t < k; ++t) sum += a[(ia * m + i) * k + t] * b[(ib * k + t) * n + j];
                y.push_back(sum);
            }
    }
    return y;
}

std::vector<double> counting(size_t n, double scale) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = (static_cast<double>(i % 7) - 3) * scale;
    return v;
}

TEST(OnnxLinear, MatMulBroadcastsBatchAxesOfOneBeforeFoldingThem) {
    OnnxModel m;
    m.input("a", {2, 1, 3, 4}).input("b", {5, 4, 2}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Broadcast", "Broadcast", "Reshape", "Reshape", "BatchedMatrixMul", "Reshape"}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Broadcast", 0), 1), (std::vector<int32_t>{2, 5, 3, 4}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Broadcast", 1), 1), (std::vector<int32_t>{2, 5, 4, 2}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape", 2), 1), (std::vector<int32_t>{2, 5, 3, 2}));
    const auto a = counting(24, 0.5), b = counting(40, 0.25);
    expect_near_all(evaluate_values(g, {{"a", a}, {"b", b}}), numpy_matmul(a, {2, 1}, b, {5}, {2, 5}, 3, 4, 2));
    expect_same_ops_after_round_trip(g);  // the dump's walk orders the two branches its own way
}

TEST(OnnxLinear, MatMulOfAMatrixByABatchBroadcastsTheMatrix) {
    OnnxModel m;
    m.input("a", {3, 4}).input("b", {2, 4, 5}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Broadcast", "BatchedMatrixMul"}));
    const auto a = counting(12, 1), b = counting(40, 0.5);
    expect_near_all(evaluate_values(g, {{"a", a}, {"b", b}}), numpy_matmul(a, {}, b, {2}, {2}, 3, 4, 5));
}

TEST(OnnxLinear, MatMulOfAVectorByABatchOfMatricesDropsTheVectorAxis) {
    // [K] x [B, K, N] -> [B, N]: the vector is [1, K] broadcast to [B, 1, K].
    OnnxModel m;
    m.input("a", {4}).input("b", {3, 4, 2}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    const auto a = counting(4, 1), b = counting(24, 0.5);
    const auto out = evaluate(g, {{"a", a}, {"b", b}});
    EXPECT_EQ(out.at(0).value.shape(), ir::Shape::of({3, 2}));
    expect_near_all(engine::eval::to_doubles(out.at(0).value), numpy_matmul(a, {}, b, {3}, {3}, 1, 4, 2));
}

TEST(OnnxLinear, MatMulBroadcastsABatchAxisOfOneOnTheRight) {
    OnnxModel m;
    m.input("a", {2, 3, 4}).input("b", {1, 4, 5}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Broadcast", "BatchedMatrixMul"}));
    const auto a = counting(24, 0.5), b = counting(20, 1);
    expect_near_all(evaluate_values(g, {{"a", a}, {"b", b}}), numpy_matmul(a, {2}, b, {1}, {2}, 3, 4, 5));
}

TEST(OnnxLinear, MatMulWithBatchAxesThatDoNotBroadcastIsRefusedNamingBothShapes) {
    OnnxModel m;
    m.input("a", {2, 5, 4}).input("b", {3, 4, 6}).output("y");
    m.node("MatMul", {"a", "b"}, {"y"});
    EXPECT_THROW(m.import(), GraphError);
    const std::string err = import_error(m);
    EXPECT_NE(err.find("batch axes of [2,5,4] and [3,4,6] do not broadcast together"), std::string::npos) << err;
}

// A node without a name is named by the output it makes, not as if that output
// were its name (its operators still take the output's name).
TEST(OnnxConv, AnUnnamedNodeIsNamedByTheOutputItMakes) {
    OnnxModel m;
    m.input("x", {1, 3, 4, 4}).input("w", {2, 5, 3, 3}).output("y");
    m.node("Conv", {"x", "w"}, {"y"}).clear_name();
    const std::string err = import_error(m);
    EXPECT_NE(err.find("test.onnx: unnamed Conv node making 'y': "), std::string::npos) << err;
    EXPECT_EQ(err.find("node 'y'"), std::string::npos) << err;

    OnnxModel named;
    named.input("x", {1, 3, 4, 4}).input("w", {2, 5, 3, 3}).output("y");
    named.node("Conv", {"x", "w"}, {"y"}, "conv1");
    const std::string named_err = import_error(named);
    EXPECT_NE(named_err.find("test.onnx: node 'conv1' (Conv): "), std::string::npos) << named_err;
}

}  // namespace
}  // namespace mgedump::test
