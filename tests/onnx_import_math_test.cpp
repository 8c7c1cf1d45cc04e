// Unary math and activations (formats/onnx/ops_math.cpp): the Elemwise mode each
// maps to, and the numbers of the decompositions against values derived from the
// ONNX operator definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;
using D = std::vector<double>;

struct ModeCase {
    const char* onnx_op;
    const char* mode;
};

class OnnxMathMode : public ::testing::TestWithParam<ModeCase> {};

TEST_P(OnnxMathMode, MapsToOneElemwiseWithTheMode) {
    const ModeCase& c = GetParam();
    OnnxModel m;
    m.input("x", {2, 3}).output("y");
    m.node(c.onnx_op, {"x"}, {"y"});
    ir::Graph g = m.import();
    ASSERT_EQ(compute_ops(g), V{"Elemwise"});
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), c.mode);
}

INSTANTIATE_TEST_SUITE_P(
    All, OnnxMathMode,
    ::testing::Values(ModeCase{"Floor", "FLOOR"}, ModeCase{"Ceil", "CEIL"}, ModeCase{"Sin", "SIN"},
                      ModeCase{"Cos", "COS"}, ModeCase{"Tan", "TAN"}, ModeCase{"Asin", "ASIN"},
                      ModeCase{"Acos", "ACOS"}, ModeCase{"Sinh", "SINH"}, ModeCase{"Cosh", "COSH"},
                      ModeCase{"Asinh", "ASINH"}, ModeCase{"Acosh", "ACOSH"}, ModeCase{"Atanh", "ATANH"},
                      ModeCase{"Sign", "SIGN"}, ModeCase{"Softplus", "SOFTPLUS"}),
    [](const auto& info) { return std::string(info.param.onnx_op); });

// One unary node on a float vector, evaluated.
D run_unary(const std::string& op, const D& x, const std::function<void(onnx::NodeProto&)>& attrs = {},
            int64_t opset = 13) {
    OnnxModel m(opset);
    m.input("x", {static_cast<int64_t>(x.size())}).output("y");
    auto& n = m.node(op, {"x"}, {"y"});
    if (attrs) attrs(n);
    return evaluate_values(m.import(), {{"x", x}});
}

TEST(OnnxMath, RoundIsHalfToEven) {
    // ONNX's Round: "rounds half to even" (numpy.round); MegEngine's ROUND rounds half away.
    const D x{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -2.6, 3.5, 0.49999997, 1e8,
              std::numeric_limits<double>::infinity()};
    const D want{0, 2, 2, -0.0, -2, -2, 2, 3, -3, 4, 0, 1e8, std::numeric_limits<double>::infinity()};
    const D got = run_unary("Round", x);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << "x = " << x[i];
    EXPECT_TRUE(std::isnan(run_unary("Round", {std::nan("")})[0]));
}

TEST(OnnxMath, RoundUsesWhereOnTies) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("Round", {"x"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Where"), 1u);
    EXPECT_EQ(count_ops(g, "ElemwiseMultiType"), 1u);
    expect_round_trip(g);
}

TEST(OnnxMath, AtanIsAtan2WithOne) {
    const D got = run_unary("Atan", {1.0, -1.0, 0.0, 10.0});
    expect_near_all(got, {std::atan(1.0), std::atan(-1.0), 0.0, std::atan(10.0)});
}

TEST(OnnxMath, ReciprocalIsOneOverX) { expect_near_all(run_unary("Reciprocal", {2, -4, 0.5}), {0.5, -0.25, 2}); }

TEST(OnnxMath, EluCeluSeluFollowTheirDefinitions) {
    const D x{-2, -0.5, 0, 1.5};
    auto alpha = [](float a) { return [a](onnx::NodeProto& n) { set_attr(n, "alpha", a); }; };
    D elu, celu, selu;
    const double sa = 1.67326319217681884765625, sg = 1.05070102214813232421875;
    for (double v : x) {
        elu.push_back(v > 0 ? v : 0.5 * (std::exp(v) - 1));
        celu.push_back(std::max(0.0, v) + std::min(0.0, 2.0 * (std::exp(v / 2.0) - 1)));
        selu.push_back(v > 0 ? sg * v : sg * (sa * std::exp(v) - sa));
    }
    expect_near_all(run_unary("Elu", x, alpha(0.5f)), elu);
    expect_near_all(run_unary("Celu", x, alpha(2.0f)), celu);
    expect_near_all(run_unary("Selu", x), selu);
}

TEST(OnnxMath, PReluBroadcastsTheSlopeOverX) {
    OnnxModel m(9);
    m.input("x", {2, 3}).output("y");
    m.initializer("slope", {3}, {0.5f, 0.25f, 2.0f});
    m.node("PRelu", {"x", "slope"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), "PRELU");
    expect_near_all(evaluate_values(g, {{"x", {-2, -4, -1, 1, 2, 3}}}), {-1, -1, -2, 1, 2, 3});
}

TEST(OnnxMath, PReluRefusesASlopeThatWouldBroadcastX) {
    OnnxModel m(9);
    m.input("x", {3}).output("y");
    m.initializer("slope", {2, 3}, {1, 1, 1, 1, 1, 1});
    m.node("PRelu", {"x", "slope"}, {"y"}, "pr");
    try {
        m.import();
        FAIL() << "imported";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'pr' (PRelu): slope of shape [2,3] does not broadcast to X's [3]"),
                  std::string::npos)
            << e.what();
    }
}

TEST(OnnxMath, ThresholdedReluKeepsOnlyValuesAboveAlpha) {
    auto alpha = [](onnx::NodeProto& n) { set_attr(n, "alpha", 1.0f); };
    EXPECT_EQ(run_unary("ThresholdedRelu", {0.5, 1.0, 1.5, -2, 2}, alpha, 10), (D{0, 0, 1.5, 0, 2}));
}

TEST(OnnxMath, ShrinkSoftAndHard) {
    // ONNX's shrink_soft: lambd 1.5, bias 1.5; shrink_hard: lambd 1.5, bias 0.
    auto soft = [](onnx::NodeProto& n) {
        set_attr(n, "lambd", 1.5f);
        set_attr(n, "bias", 1.5f);
    };
    auto hard = [](onnx::NodeProto& n) { set_attr(n, "lambd", 1.5f); };
    EXPECT_EQ(run_unary("Shrink", {-2, -1, 0, 1, 2}, soft, 9), (D{-0.5, 0, 0, 0, 0.5}));
    EXPECT_EQ(run_unary("Shrink", {-2, -1.5, 0, 1.5, 2}, hard, 9), (D{-2, 0, 0, 0, 2}));
}

TEST(OnnxMath, ShrinkRefusesANegativeLambd) {
    OnnxModel m(9);
    m.input("x", {3}).output("y");
    set_attr(m.node("Shrink", {"x"}, {"y"}, "s"), "lambd", -1.0f);
    EXPECT_THROW(
        {
            try {
                m.import();
            } catch (const GraphError& e) {
                EXPECT_NE(std::string(e.what()).find("lambd -1 is negative"), std::string::npos) << e.what();
                throw;
            }
        },
        GraphError);
}

// On an integer input, ONNX's Shrink compares x with ±lambd and adds or subtracts
// bias in x's type: the constants become operands of that dtype.
OnnxModel int_shrink(float lambd, float bias, int32_t type) {
    OnnxModel m(9);
    m.input("x", {5}, type).output("y");
    auto& n = m.node("Shrink", {"x"}, {"y"}, "s");
    set_attr(n, "lambd", lambd);
    set_attr(n, "bias", bias);
    return m;
}

OnnxModel int8_shrink(float lambd, float bias) { return int_shrink(lambd, bias, OnnxType::INT8); }

TEST(OnnxMath, ShrinkOfInt8TakesWholeConstantsOfItsType) {
    // x < -2: x + 1; x > 2: x - 1; else 0 (the ONNX definition).
    EXPECT_EQ(evaluate_values(int8_shrink(2, 1).import(), {{"x", {-3, -2, 0, 2, 3}}}), (D{-2, 0, 0, 0, 2}));
    // At the type's limits: 127 is Int8's largest value, still a constant of x's
    // type, and x - lambd would wrap (-128 - 127 is 1 in Int8).
    EXPECT_EQ(evaluate_values(int8_shrink(127, 0).import(), {{"x", {-128, -127, 0, 127, 126}}}), (D{-128, 0, 0, 0, 0}));
    EXPECT_EQ(evaluate_values(int8_shrink(126, 1).import(), {{"x", {-128, -127, -126, 127, 126}}}),
              (D{-127, -126, 0, 126, 0}));
    // Unsigned: nothing is below -lambd, and 255 - 1 does not wrap.
    EXPECT_EQ(evaluate_values(int_shrink(2, 1, OnnxType::UINT8).import(), {{"x", {0, 1, 2, 3, 255}}}),
              (D{0, 0, 0, 2, 254}));
}

TEST(OnnxMath, ShrinkOfInt8RefusesAConstantItsTypeCannotHold) {
    // NaN was cast to an integer before the check (undefined behaviour: fuzz_onnx);
    // 128 wrapped to -128 in the TypeCvt, and every x > -128 counted as above lambd.
    EXPECT_NE(import_error(int8_shrink(std::numeric_limits<float>::quiet_NaN(), 0))
                  .find("node 's' (Shrink): the constant nan is not a whole number, the operand is INT8"),
              std::string::npos);
    EXPECT_NE(import_error(int8_shrink(128, 0))
                  .find("node 's' (Shrink): the constant 128 does not fit the INT8 operand (held as Int8: -128 to 127)"),
              std::string::npos)
        << import_error(int8_shrink(128, 0));
    EXPECT_NE(import_error(int8_shrink(1, 3e9f)).find("the constant 3000000000 does not fit the INT8 operand"),
              std::string::npos)
        << import_error(int8_shrink(1, 3e9f));
}

TEST(OnnxMath, SoftsignAndMish) {
    const D x{-3, 0, 2};
    D softsign, mish;
    for (double v : x) {
        softsign.push_back(v / (1 + std::abs(v)));
        mish.push_back(v * std::tanh(std::log1p(std::exp(v))));
    }
    expect_near_all(run_unary("Softsign", x), softsign);
    expect_near_all(run_unary("Mish", x, {}, 18), mish);
}

TEST(OnnxMath, GeluExactAndTanhApproximation) {
    // Gelu-20: ½x(1 + erf(x/√2)); approximate "tanh": ½x(1 + tanh(√(2/π)(x + 0.044715x³))).
    const D x{-3, -1, -0.25, 0, 0.5, 2, 4};
    D exact, tanh_form;
    for (double v : x) {
        exact.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
        tanh_form.push_back(0.5 * v * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (v + 0.044715 * v * v * v))));
    }
    expect_near_all(run_unary("Gelu", x, {}, 20), exact);
    expect_near_all(run_unary("Gelu", x, [](onnx::NodeProto& n) { set_attr(n, "approximate", "tanh"); }, 20),
                    tanh_form);
    // The two differ by up to about 1e-3 here: each test tells them apart.
    EXPECT_GT(std::abs(exact[1] - tanh_form[1]), 1e-4);
    OnnxModel m(20);
    m.input("x", {2}).output("y");
    set_attr(m.node("Gelu", {"x"}, {"y"}, "g"), "approximate", "erf");
    EXPECT_NE(import_error(m).find("node 'g' (Gelu): approximate 'erf' is not one of none, tanh"), std::string::npos);
}

TEST(OnnxMath, HardmaxMarksTheFirstMaximumAlongTheAxis) {
    OnnxModel m(13);
    m.input("x", {2, 3}).output("y");
    set_attr(m.node("Hardmax", {"x"}, {"y"}), "axis", int64_t{1});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 3, 3, 4, 2, 0}}}), (D{0, 1, 0, 1, 0, 0}));
}

TEST(OnnxMath, HardmaxBeforeOpset13CoercesTo2D) {
    // opset 11, axis 0: the whole [2, 2] input is one row of 4.
    OnnxModel m(11);
    m.input("x", {2, 2}).output("y");
    set_attr(m.node("Hardmax", {"x"}, {"y"}), "axis", int64_t{0});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 3, 3, 0}}}), (D{0, 1, 0, 0}));
}

TEST(OnnxMath, IsNaNAndIsInfAreBool) {
    const double inf = std::numeric_limits<double>::infinity();
    const D x{1, inf, -inf, std::nan("")};
    OnnxModel m(10);
    m.input("x", {4}).output("nan", OnnxType::BOOL).output("inf", OnnxType::BOOL).output("pos", OnnxType::BOOL);
    m.node("IsNaN", {"x"}, {"nan"});
    m.node("IsInf", {"x"}, {"inf"});
    set_attr(m.node("IsInf", {"x"}, {"pos"}), "detect_negative", int64_t{0});
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"x", x}});
    ASSERT_EQ(out.size(), 3u);
    for (const auto& o : out) EXPECT_EQ(o.value.dtype().type, ir::DTypeEnum::Bool);
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 0, 0, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 1, 1, 0}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{0, 1, 0, 0}));
    expect_round_trip(g);
}

TEST(OnnxMath, NotNegatesBool) {
    OnnxModel m;
    m.input("x", {3}, OnnxType::BOOL).output("y", OnnxType::BOOL);
    m.node("Not", {"x"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 0, 1}}}), (D{0, 1, 0}));
}

TEST(OnnxMath, FloatOnlyOperatorsRefuseIntegers) {
    OnnxModel m;
    m.input("x", {3}, OnnxType::INT32).output("y", OnnxType::INT32);
    m.node("Floor", {"x"}, {"y"}, "f");
    try {
        m.import();
        FAIL() << "imported";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'f' (Floor): input #0 is INT32; only float element types"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace mgedump::test
