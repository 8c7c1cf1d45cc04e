// The quantization operators on plain dtypes: QuantizeLinear / DequantizeLinear
// (per-tensor and per-axis), DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
// ConvInteger, QLinearConv. Scales and zero points are graph inputs, as in ONNX's
// tests. Expected values are derived by hand from the ONNX operator definitions:
// y = saturate(round_half_even(x / scale) + zp), x = (q − zp)·scale, integer sums of
// (a − a_zp)(b − b_zp), requantized with (s_a·s_b)/s_y.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxQuantize, QuantizeLinearRoundsHalfToEvenThenSaturates) {
    OnnxModel m;
    m.input("x", {8}).input("s", {}).input("zp", {}, OnnxType::UINT8).output("y", OnnxType::UINT8);
    m.node("QuantizeLinear", {"x", "s", "zp"}, {"y"});
    const auto out = evaluate(m.import(), {{"x", {1, 3, 5, -1, -3, 600, -600, 7}}, {"s", {2}}, {"zp", {10}}});
    EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Uint8);
    // x/2 = .5 1.5 2.5 −.5 −1.5 300 −300 3.5 → 0 2 2 0 −2 300 −300 4, + 10, saturated to [0, 255].
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{10, 12, 12, 10, 8, 255, 0, 14}));
}

TEST(OnnxQuantize, QuantizeLinearToInt8SaturatesToItsRange) {
    OnnxModel m;
    m.input("x", {4}).input("s", {}).input("zp", {}, OnnxType::INT8).output("y", OnnxType::INT8);
    m.node("QuantizeLinear", {"x", "s", "zp"}, {"y"});
    const auto out = evaluate(m.import(), {{"x", {0.25, 0.75, 100, -100}}, {"s", {0.5}}, {"zp", {-3}}});
    EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Int8);
    // .5 1.5 200 −200 → 0 2 200 −200, − 3 → −3 −1 197 −203 → −3 −1 127 −128.
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{-3, -1, 127, -128}));
}

TEST(OnnxQuantize, QuantizeLinearPerAxisScalesAlongTheAxis) {
    OnnxModel m(13);
    m.input("x", {2, 3}).input("s", {2}).input("zp", {2}, OnnxType::UINT8).output("y", OnnxType::UINT8);
    set_attr(m.node("QuantizeLinear", {"x", "s", "zp"}, {"y"}), "axis", int64_t{0});
    // Row 0: scale 1, zp 0; row 1: scale 10, zp 100 (35/10 = 3.5 rounds to 4).
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 2, 3, 10, -20, 35}}, {"s", {1, 10}}, {"zp", {0, 100}}}),
              (D{1, 2, 3, 101, 98, 104}));
}

TEST(OnnxQuantize, RefusesPerAxisScalesBeforeOpset13AndIntegerX) {
    OnnxModel m(10);
    m.input("x", {2, 3}).input("s", {3}).output("y", OnnxType::UINT8);
    m.node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'q' (QuantizeLinear): y_scale (input #1) of shape [3] is neither one value (only "
              "per-tensor is defined here)");
    OnnxModel ints(13);
    ints.input("x", {2}, OnnxType::INT32).input("s", {}).output("y", OnnxType::UINT8);
    ints.node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
    EXPECT_EQ(import_error(ints), "test.onnx: node 'q' (QuantizeLinear): x (input #0) is INT32; supported: FLOAT");
}

TEST(OnnxQuantize, DequantizeLinearPerAxisInt8) {
    OnnxModel m(13);
    m.input("x", {2, 2}, OnnxType::INT8).input("s", {2}).input("zp", {2}, OnnxType::INT8).output("y");
    m.node("DequantizeLinear", {"x", "s", "zp"}, {"y"});
    // Axis 1 (the default): column scales .5, 2 and zero points −128, 1.
    // (−128 + 128)·.5, (127 − 1)·2, (0 + 128)·.5, (5 − 1)·2.
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {-128, 127, 0, 5}}, {"s", {0.5, 2}}, {"zp", {-128, 1}}}),
              (D{0, 252, 64, 8}));
}

TEST(OnnxQuantize, DequantizeLinearOfInt32RefusesARuntimeZeroPoint) {
    OnnxModel m(13);
    m.input("x", {2}, OnnxType::INT32).input("s", {}).input("zp", {}, OnnxType::INT32).output("y");
    m.node("DequantizeLinear", {"x", "s", "zp"}, {"y"}, "d");
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'd' (DequantizeLinear): an INT32 x takes no zero point other than 0 (ONNX's "
              "definition); x − zp in Float32 would round");
}

TEST(OnnxQuantize, DynamicQuantizeLinearFollowsItsFunctionBody) {
    OnnxModel m(11);
    m.input("x", {4}).output("y", OnnxType::UINT8).output("s").output("zp", OnnxType::UINT8);
    m.node("DynamicQuantizeLinear", {"x"}, {"y", "s", "zp"});
    const auto out = evaluate(m.import(), {{"x", {-1, 0, 1, 254}}});
    // min −1, max 254: scale 255/255 = 1, zero point round(0 − (−1)/1) = 1; y = x + 1.
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 1, 2, 255}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{1}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(2).value), (D{1}));
}

TEST(OnnxQuantize, MatMulIntegerIsAnInt16MatrixMulIntoInt32) {
    OnnxModel m(10);
    m.input("a", {2, 3}, OnnxType::UINT8).input("b", {3, 2}, OnnxType::UINT8);
    m.input("azp", {}, OnnxType::UINT8).input("bzp", {}, OnnxType::UINT8).output("y", OnnxType::INT32);
    m.node("MatMulInteger", {"a", "b", "azp", "bzp"}, {"y"});
    ir::Graph g = m.import();
    const ir::OprId mm = find_opr(g, "MatrixMul");
    EXPECT_EQ(g.vars.dtype[g.inputs_of(mm)[0].value].type, ir::DTypeEnum::Int16);
    const auto out = evaluate(g, {{"a", {255, 0, 1, 2, 3, 4}}, {"b", {0, 255, 1, 2, 3, 4}}, {"azp", {1}}, {"bzp", {2}}});
    EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Int32);
    // A − 1 = [[254, −1, 0], [1, 2, 3]], B − 2 = [[−2, 253], [−1, 0], [1, 2]].
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{-507, 64262, -1, 259}));
}

TEST(OnnxQuantize, BatchedMatMulIntegerSumsInFloat32OnlyWhileExact) {
    OnnxModel m(10);
    m.input("a", {2, 1, 2}, OnnxType::UINT8).input("b", {2, 2, 1}, OnnxType::UINT8).output("y", OnnxType::INT32);
    m.node("MatMulInteger", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "BatchedMatrixMul"), 1u);
    EXPECT_EQ(evaluate_values(g, {{"a", {1, 2, 3, 4}}, {"b", {5, 6, 7, 8}}}), (D{17, 53}));

    OnnxModel big(10);
    big.input("a", {2, 1, 300}, OnnxType::UINT8).input("b", {2, 300, 1}, OnnxType::UINT8);
    big.output("y", OnnxType::INT32);
    big.node("MatMulInteger", {"a", "b"}, {"y"}, "mm");
    EXPECT_EQ(import_error(big),
              "test.onnx: node 'mm' (MatMulInteger): a batched integer product with K = 300 is not supported: "
              "MegEngine's BatchedMatrixMul takes no Int16, and in Float32 its sums are exact only for K <= 258 "
              "(K·255² < 2^24)");
}

TEST(OnnxQuantize, QLinearMatMulRequantizesWithHalfToEvenRounding) {
    OnnxModel m(10);
    m.input("a", {1, 2}, OnnxType::UINT8).input("sa", {}).input("azp", {}, OnnxType::UINT8);
    m.input("b", {2, 2}, OnnxType::UINT8).input("sb", {}).input("bzp", {}, OnnxType::UINT8);
    m.input("sy", {}).input("yzp", {}, OnnxType::UINT8).output("y", OnnxType::UINT8);
    m.node("QLinearMatMul", {"a", "sa", "azp", "b", "sb", "bzp", "sy", "yzp"}, {"y"});
    // a − 10 = [0, 10]; b − 1 = [[2, 2], [4, 1]]: sums 40 and 10; multiplier .5·.25/.5 = .25:
    // 10 → 110 and 2.5 → 2 (half to even) → 102.
    EXPECT_EQ(evaluate_values(m.import(), {{"a", {10, 20}},
                                           {"sa", {0.5}},
                                           {"azp", {10}},
                                           {"b", {3, 3, 5, 2}},
                                           {"sb", {0.25}},
                                           {"bzp", {1}},
                                           {"sy", {0.5}},
                                           {"yzp", {100}}}),
              (D{110, 102}));
}

TEST(OnnxQuantize, ConvIntegerPadsWithTheZeroPoint) {
    OnnxModel m(10);
    m.input("x", {1, 1, 2, 2}, OnnxType::UINT8).input("w", {1, 1, 2, 2}, OnnxType::UINT8);
    m.input("xzp", {}, OnnxType::UINT8).output("y", OnnxType::INT32);
    set_attr(m.node("ConvInteger", {"x", "w", "xzp"}, {"y"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Convolution"), 1u);
    // x − 1 = [[0, 1], [2, 3]] padded with zeros (x's zero point), every weight 2:
    // twice each 2×2 window's sum.
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}, {"w", {2, 2, 2, 2}}, {"xzp", {1}}}),
              (D{0, 2, 2, 4, 12, 8, 4, 10, 6}));
}

TEST(OnnxQuantize, ConvIntegerRefusesSumsBeyondFloat32Exactness) {
    OnnxModel m(10);
    m.input("x", {1, 300, 1, 1}, OnnxType::UINT8).input("w", {1, 300, 1, 1}, OnnxType::UINT8);
    m.output("y", OnnxType::INT32);
    m.node("ConvInteger", {"x", "w"}, {"y"}, "ci");
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'ci' (ConvInteger): an integer convolution with 300 products per output "
              "(C/group·kernel) is not supported: MegEngine's Convolution takes no Int16, and in Float32 its sums "
              "are exact only up to 258 (K·255² < 2^24)");
}

TEST(OnnxQuantize, QLinearConvWithPerChannelWeightsAndBias) {
    OnnxModel m(10);
    m.input("x", {1, 1, 1, 2}, OnnxType::UINT8).input("sx", {}).input("xzp", {}, OnnxType::UINT8);
    m.input("w", {2, 1, 1, 1}, OnnxType::INT8).input("sw", {2}).input("wzp", {2}, OnnxType::INT8);
    m.input("sy", {}).input("yzp", {}, OnnxType::UINT8).input("bias", {2}, OnnxType::INT32);
    m.output("y", OnnxType::UINT8);
    m.node("QLinearConv", {"x", "sx", "xzp", "w", "sw", "wzp", "sy", "yzp", "bias"}, {"y"});
    // x − 5 = [0, 2]; w − wzp = [2, −2]; + bias [1, −1]: channel 0 [1, 5], channel 1 [−1, −5];
    // multipliers 1·.5/.5 = 1 and 1·1/.5 = 2: [1, 5], [−2, −10]; + 3, saturated: [4, 8], [1, 0].
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {5, 7}},
                                           {"sx", {1}},
                                           {"xzp", {5}},
                                           {"w", {3, -2}},
                                           {"sw", {0.5, 1}},
                                           {"wzp", {1, 0}},
                                           {"sy", {0.5}},
                                           {"yzp", {3}},
                                           {"bias", {1, -1}}}),
              (D{4, 8, 1, 0}));
}

}  // namespace
}  // namespace mgedump::test
