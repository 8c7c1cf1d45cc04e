// 1-D and 3-D convolutions and pools, asymmetric pads, ConvTranspose's
// output_padding, dilated MaxPool: the MegEngine operators they map to and their
// values on the reference evaluator (expected values derived by hand from the ONNX
// definitions: y[o] = Σ_k w[k]·x_padded[o·stride + k·dilation]).
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxWindow, Conv1dIsA2dConvolutionOverAUnitAxisWithAsymmetricPadsAsPadding) {
    OnnxModel m;
    m.input("x", {1, 1, 5}).output("y");
    m.initializer("w", {1, 1, 3}, {1, 2, 3});
    set_attr(m.node("Conv", {"x", "w"}, {"y"}), "pads", std::vector<int64_t>{1, 0});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Padding"), 1u);
    ir::OprId c = find_opr(g, "Convolution");
    EXPECT_EQ(input_shape(g, c, 1), (std::vector<uint32_t>{1, 1, 1, 3}));
    EXPECT_EQ(int_field(g, c, "pad_h"), 0);
    EXPECT_EQ(int_field(g, c, "pad_w"), 0);
    // x padded: [0, 1, 2, 3, 4, 5]
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5}}}), (D{8, 14, 20, 26}));
    expect_round_trip(g);
}

TEST(OnnxWindow, Conv1dWithGroupsStrideAndDilation) {
    OnnxModel m;
    m.input("x", {1, 2, 5}).output("y");
    m.initializer("w", {2, 1, 2}, {1, 1, 1, -1});
    m.initializer("b", {2}, {0.5f, 0});
    auto& n = m.node("Conv", {"x", "w", "b"}, {"y"});
    set_attr(n, "group", int64_t{2});
    set_attr(n, "strides", std::vector<int64_t>{2});
    set_attr(n, "dilations", std::vector<int64_t>{2});
    ir::Graph g = m.import();
    ir::OprId c = find_opr(g, "ConvBias");
    EXPECT_EQ(enum_field(g, c, "sparse"), "GROUP");
    EXPECT_EQ(int_field(g, c, "stride_w"), 2);
    EXPECT_EQ(int_field(g, c, "dilate_w"), 2);
    // channel 0: x0[o·2] + x0[o·2 + 2] + 0.5; channel 1: x1[o·2] − x1[o·2 + 2]
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 10, 20, 30, 40, 50}}}), (D{4.5, 8.5, -20, -20}));
}

TEST(OnnxWindow, Conv3dIsConvolution3DPlusTheBias) {
    OnnxModel m;
    m.input("x", {1, 1, 2, 2, 2}).output("y");
    m.initializer("w", {2, 1, 1, 1, 1}, {1, 2});
    m.initializer("b", {2}, {0.5f, -1});
    m.node("Conv", {"x", "w", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (std::vector<std::string>{"Convolution3D", "Elemwise"}));
    EXPECT_EQ(evaluate_values(g, {{"x", D(8, 1.0)}}), (D{1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1, 1, 1, 1, 1, 1, 1, 1}));
    expect_round_trip(g);
}

// The full transposed convolution of [1, 2] by [1, 1] with stride 2 is
// [1, 1, 2, 2]; ONNX keeps [pad_begin, pad_begin + L), L = 4 + output_padding − pads.
TEST(OnnxWindow, ConvTransposeOutputPaddingAndPads) {
    struct Case {
        std::vector<int64_t> pads;
        D want;
    };
    for (const Case& k : {Case{{0, 0}, D{1.5, 1.5, 2.5, 2.5, 0.5}}, Case{{1, 1}, D{1.5, 2.5, 2.5}},
                          Case{{0, 1}, D{1.5, 1.5, 2.5, 2.5}}}) {
        OnnxModel m;
        m.input("x", {1, 1, 2}).output("y");
        m.initializer("w", {1, 1, 2}, {1, 1});
        m.initializer("b", {1}, {0.5f});
        auto& n = m.node("ConvTranspose", {"x", "w", "b"}, {"y"});
        set_attr(n, "strides", std::vector<int64_t>{2});
        set_attr(n, "output_padding", std::vector<int64_t>{1});
        set_attr(n, "pads", k.pads);
        ir::Graph g = m.import();
        EXPECT_EQ(count_ops(g, "ConvolutionBackwardData"), 1u);
        EXPECT_EQ(evaluate_values(g, {{"x", {1, 2}}}), k.want) << k.pads[0] << "," << k.pads[1];
    }
}

TEST(OnnxWindow, ConvTransposeOutputShapeSetsThePads) {
    OnnxModel m;
    m.input("x", {1, 1, 2}).output("y");
    m.initializer("w", {1, 1, 2}, {1, 1});
    auto& n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    set_attr(n, "strides", std::vector<int64_t>{2});
    set_attr(n, "output_shape", std::vector<int64_t>{5});  // total padding −1: one zero at the end
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 2}}}), (D{1, 1, 2, 2, 0}));
}

TEST(OnnxWindow, DilatedMaxPoolIsAMaximumOfStridedSlices) {
    OnnxModel m;
    m.input("x", {1, 1, 5}).output("y");
    auto& n = m.node("MaxPool", {"x"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{2});
    set_attr(n, "dilations", std::vector<int64_t>{2});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Pooling"), 0u);
    EXPECT_EQ(count_ops(g, "Subtensor"), 2u);
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 5, 2, 4, 3}}}), (D{2, 5, 3}));
}

TEST(OnnxWindow, DilatedMaxPool2dWithPadsAndStride) {
    OnnxModel m(12);
    m.input("x", {1, 1, 4, 4}).output("y");
    auto& n = m.node("MaxPool", {"x"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    set_attr(n, "dilations", std::vector<int64_t>{2, 2});
    set_attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
    set_attr(n, "strides", std::vector<int64_t>{2, 2});
    // Padded 6x6 (−inf border); windows at padded rows/cols {0, 2} and {2, 4}, i.e.
    // input rows/cols {1} and {1, 3}.
    D x(16);
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(k + 1);
    EXPECT_EQ(evaluate_values(m.import(), {{"x", x}}), (D{6, 8, 14, 16}));
}

TEST(OnnxWindow, AveragePool1dExcludesThePaddingFromTheCount) {
    OnnxModel m;
    m.input("x", {1, 1, 4}).output("y");
    auto& n = m.node("AveragePool", {"x"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{3});
    set_attr(n, "pads", std::vector<int64_t>{1, 1});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Pooling"), 1u);
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}}), (D{1.5, 2, 3, 3.5}));
}

TEST(OnnxWindow, Pools3dAreTwoSeparablePoolings) {
    D x(27);
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(k);
    OnnxModel m;
    m.input("x", {1, 1, 3, 3, 3}).output("max").output("avg");
    set_attr(m.node("MaxPool", {"x"}, {"max"}), "kernel_shape", std::vector<int64_t>{2, 2, 2});
    auto& a = m.node("AveragePool", {"x"}, {"avg"});
    set_attr(a, "kernel_shape", std::vector<int64_t>{3, 3, 3});
    set_attr(a, "pads", std::vector<int64_t>{1, 1, 1, 1, 1, 1});
    set_attr(a, "strides", std::vector<int64_t>{2, 2, 2});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Pooling"), 4u);
    auto out = evaluate(g, {{"x", x}});
    // max over a 2x2x2 box of x[d][h][w] = 9d + 3h + w: its far corner
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{13, 14, 16, 17, 22, 23, 25, 26}));
    // each window covers {0, 1} or {1, 2} of each axis inside the input: 9·d̄ + 3·h̄ + w̄
    expect_near_all(engine::eval::to_doubles(out[1].value), {6.5, 7.5, 9.5, 10.5, 15.5, 16.5, 18.5, 19.5});
}

TEST(OnnxWindow, GlobalAveragePoolOf1dData) {
    OnnxModel m;
    m.input("x", {1, 2, 3}).output("y");
    m.node("GlobalAveragePool", {"x"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 2, 3, 4, 5, 9}}}), (D{2, 6}));
}

}  // namespace
}  // namespace mgedump::test
