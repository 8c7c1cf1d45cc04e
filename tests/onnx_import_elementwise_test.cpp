// Element-wise operators, Cast, Identity and Dropout.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;

struct ModeCase {
    const char* onnx_op;
    const char* mode;
    int inputs;
};

class OnnxElemwiseMode : public ::testing::TestWithParam<ModeCase> {};

TEST_P(OnnxElemwiseMode, MapsToOneElemwiseWithTheMode) {
    const ModeCase& c = GetParam();
    OnnxModel m;
    m.input("a", {2, 3}).output("y");
    std::vector<std::string> in{"a"};
    if (c.inputs == 2) {
        m.input("b", {3});
        in.push_back("b");
    }
    m.node(c.onnx_op, in, {"y"});
    ir::Graph g = m.import();
    ASSERT_EQ(compute_ops(g), V{"Elemwise"});
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), c.mode);
    expect_round_trip(g);
}

INSTANTIATE_TEST_SUITE_P(All, OnnxElemwiseMode,
                         ::testing::Values(ModeCase{"Add", "ADD", 2}, ModeCase{"Sub", "SUB", 2},
                                           ModeCase{"Mul", "MUL", 2}, ModeCase{"Div", "TRUE_DIV", 2},
                                           ModeCase{"Pow", "POW", 2}, ModeCase{"Relu", "RELU", 1},
                                           ModeCase{"Sigmoid", "SIGMOID", 1}, ModeCase{"Tanh", "TANH", 1},
                                           ModeCase{"Exp", "EXP", 1}, ModeCase{"Log", "LOG", 1},
                                           ModeCase{"Sqrt", "SQRT", 1}, ModeCase{"Abs", "ABS", 1},
                                           ModeCase{"Neg", "NEGATE", 1}, ModeCase{"Erf", "ERF", 1},
                                           ModeCase{"HardSwish", "H_SWISH", 1}),
                         [](const auto& info) { return std::string(info.param.onnx_op); });

TEST(OnnxElemwise, ClipZeroSixIsRelu6) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.initializer("lo", {}, {0.0f});
    m.initializer("hi", {}, {6.0f});
    m.node("Clip", {"x", "lo", "hi"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), "RELU6");
    expect_round_trip(g);
}

TEST(OnnxElemwise, ClipWithOtherBoundsIsClipWithScalarBounds) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.initializer("lo", {}, {-1.0f});
    m.initializer("hi", {}, {2.5f});
    m.node("Clip", {"x", "lo", "hi"}, {"y"});
    ir::Graph g = m.import();
    ir::OprId e = find_opr(g, "Elemwise");
    EXPECT_EQ(enum_field(g, e, "mode"), "CLIP");
    EXPECT_EQ(input_floats(g, e, 1), std::vector<float>{-1.0f});
    EXPECT_EQ(input_floats(g, e, 2), std::vector<float>{2.5f});
    expect_round_trip(g);
}

// torch.clamp of an INT64 tensor: the bounds are INT64 too. Float32 bound
// constants made the output Float32, and the import refused it.
TEST(OnnxElemwise, ClipOfIntegersTakesBoundsOfTheirType) {
    auto clip = [](int32_t type, std::vector<int64_t> bounds, const std::vector<double>& x) {
        OnnxModel m(13);
        m.input("x", {static_cast<int64_t>(x.size())}, type).output("y", type);
        std::vector<std::string> in{"x"};
        for (size_t k = 0; k < bounds.size(); ++k) {
            const std::string name = k == 0 ? "lo" : "hi";
            m.initializer_bytes(name, {}, OnnxType::INT64, &bounds[k], 8);
            in.push_back(name);
        }
        m.node("Clip", in, {"y"});
        ir::Graph g = m.import();
        EXPECT_EQ(g.vars.dtype[g.outputs.at(0).value].type, ir::DTypeEnum::Int32);
        return evaluate_values(g, {{"x", x}});
    };
    EXPECT_EQ(clip(OnnxType::INT64, {0, 5}, {-3, 0, 4, 9}), (std::vector<double>{0, 0, 4, 5}));
    // 0 and 6 is RELU6 for floats only.
    EXPECT_EQ(clip(OnnxType::INT64, {0, 6}, {-3, 0, 4, 9}), (std::vector<double>{0, 0, 4, 6}));
    // Bounds past Int32, which holds INT64, bound nothing on their side.
    EXPECT_EQ(clip(OnnxType::INT64, {-(int64_t{1} << 40), int64_t{1} << 40}, {-2147483648.0, 0, 2147483647.0}),
              (std::vector<double>{-2147483648.0, 0, 2147483647.0}));
}

TEST(OnnxElemwise, ClipWithAMinimumAboveTheMaximumGivesTheMaximum) {
    // ONNX's Clip: "When 'min' is greater than 'max', the clip operator sets all
    // the 'input' values to the value of 'max'". MegEngine's CLIP gives min below it.
    OnnxModel m;
    m.input("x", {3}).output("y");
    m.initializer("lo", {}, {3.0f});
    m.initializer("hi", {}, {1.0f});
    m.node("Clip", {"x", "lo", "hi"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {0, 2, 5}}}), (std::vector<double>{1, 1, 1}));
}

// A FLOAT16 model's constants in its own dtype: Float32 ones made MegEngine's
// make promote the output to Float32, and the import refused the node; FLOAT16
// constants (Clip's bounds) could not be read at all. The values are exact in
// Float16, so the results are ONNX's definitions worked by hand.
TEST(OnnxElemwise, Float16ActivationsClipAndGemmKeepTheirDtype) {
    auto run = [](const std::function<void(OnnxModel&)>& build) {
        OnnxModel m(13);
        m.input("x", {1, 3}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16);
        build(m);
        ir::Graph g = m.import();
        EXPECT_EQ(g.vars.dtype[g.outputs.at(0).value].type, ir::DTypeEnum::Float16);
        return evaluate_values(g, {{"x", {-2, 0.5, 4}}});
    };
    using D = std::vector<double>;
    // max(x, 0) + 0.25·min(x, 0)
    EXPECT_EQ(run([](OnnxModel& m) { set_attr(m.node("LeakyRelu", {"x"}, {"y"}), "alpha", 0.25f); }),
              (D{-0.5, 0.5, 4}));
    // clip(0.25·x + 0.5, 0, 1)
    EXPECT_EQ(run([](OnnxModel& m) {
                  auto& n = m.node("HardSigmoid", {"x"}, {"y"});
                  set_attr(n, "alpha", 0.25f);
                  set_attr(n, "beta", 0.5f);
              }),
              (D{0, 0.625, 1}));
    // clip(x, -1, 2.5), the bounds FLOAT16 constants (bits 0xBC00 and 0x4100)
    EXPECT_EQ(run([](OnnxModel& m) {
                  const uint16_t lo = 0xBC00, hi = 0x4100;
                  m.initializer_bytes("lo", {}, OnnxType::FLOAT16, &lo, 2);
                  m.initializer_bytes("hi", {}, OnnxType::FLOAT16, &hi, 2);
                  m.node("Clip", {"x", "lo", "hi"}, {"y"});
              }),
              (D{-1, 0.5, 2.5}));
    // 0.5 · x · I
    EXPECT_EQ(run([](OnnxModel& m) {
                  const uint16_t one = 0x3C00, eye[9] = {one, 0, 0, 0, one, 0, 0, 0, one};
                  m.initializer_bytes("w", {3, 3}, OnnxType::FLOAT16, eye, sizeof eye);
                  set_attr(m.node("Gemm", {"x", "w"}, {"y"}), "alpha", 0.5f);
              }),
              (D{-1, 0.25, 2}));
}

TEST(OnnxElemwise, ClipWithOnlyAMinimumIsMax) {
    OnnxModel m(10);
    m.input("x", {4}).output("y");
    set_attr(m.node("Clip", {"x"}, {"y"}), "min", 0.5f);
    // opset 10 gives bounds as attributes; with max absent only the lower bound applies.
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), "MAX_");
}

TEST(OnnxElemwise, HardSigmoidWithTorchConstantsIsHSigmoid) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    auto& n = m.node("HardSigmoid", {"x"}, {"y"});
    set_attr(n, "alpha", 1.0f / 6);
    set_attr(n, "beta", 0.5f);
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), "HSIGMOID");
}

TEST(OnnxElemwise, HardSigmoidWithOtherConstantsIsMulAddThenClip) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("HardSigmoid", {"x"}, {"y"});  // ONNX defaults: alpha 0.2, beta 0.5
    ir::Graph g = m.import();
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise", 0), "mode"), "FUSE_MUL_ADD3");
    EXPECT_EQ(input_floats(g, find_opr(g, "Elemwise", 0), 1), std::vector<float>{0.2f});
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise", 1), "mode"), "CLIP");
    expect_round_trip(g);
}

TEST(OnnxElemwise, LeakyReluIsPreluWithTheSlope) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    set_attr(m.node("LeakyRelu", {"x"}, {"y"}), "alpha", 0.25f);
    ir::Graph g = m.import();
    ir::OprId e = find_opr(g, "Elemwise");
    EXPECT_EQ(enum_field(g, e, "mode"), "PRELU");
    EXPECT_EQ(input_floats(g, e, 1), std::vector<float>{0.25f});
    expect_round_trip(g);
}

TEST(OnnxElemwise, IdentityAndInferenceDropoutAreRemoved) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("Identity", {"x"}, {"a"});
    m.node("Dropout", {"a"}, {"b"});
    m.node("Relu", {"b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Elemwise"});
}

// Dropout-7/10 leave the mask of inference unspecified; from opset 12 it is all true.
TEST(OnnxElemwise, DropoutMaskIsAllTrueFromOpset12AndAnErrorBefore) {
    OnnxModel old(10);
    old.input("x", {4}).output("y").output("mask", OnnxType::BOOL);
    old.node("Dropout", {"x"}, {"y", "mask"}, "d");
    EXPECT_EQ(import_error(old),
              "test.onnx: node 'd' (Dropout): the mask output (#1) is used; Dropout of opset 10 does not define the "
              "mask of inference, only output #0 is supported");
    OnnxModel m(13);
    m.input("x", {2, 2}).output("y").output("mask", OnnxType::BOOL);
    m.node("Dropout", {"x"}, {"y", "mask"});
    const auto out = evaluate(m.import(), {{"x", {1, -2, 3, 0}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (std::vector<double>{1, -2, 3, 0}));
    EXPECT_EQ(out.at(1).value.dtype().type, ir::DTypeEnum::Bool);
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (std::vector<double>{1, 1, 1, 1}));
}

// ONNX's Dropout drops nothing at ratio 0, in training mode too (PyTorch exports
// swin_t's attention dropout so); other ratios draw random masks.
TEST(OnnxElemwise, TrainingDropoutOfRatio0IsTheIdentityAndOtherRatiosAreRefused) {
    auto model = [](float ratio) {
        OnnxModel m(13);
        m.input("x", {3}).output("y");
        m.initializer("ratio", {}, {ratio});
        const bool yes = true;
        m.initializer_bytes("training", {}, OnnxType::BOOL, &yes, 1);
        m.node("Dropout", {"x", "ratio", "training"}, {"y"}, "d");
        return m;
    };
    ir::Graph g = model(0.0f).import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{});
    EXPECT_EQ(evaluate_values(g, {{"x", {1, -2, 3}}}), (std::vector<double>{1, -2, 3}));
    EXPECT_EQ(import_error(model(0.25f)),
              "test.onnx: node 'd' (Dropout): training_mode is true and the ratio is 0.25: the outputs are random "
              "samples; only a ratio of 0 (the identity) or inference Dropout is supported");
}

// training_mode given as a graph input (ONNX's own tests do so): a constant ratio of
// 0 is the identity whatever it is; another ratio would be random when it is true.
TEST(OnnxElemwise, TrainingModeKnownOnlyAtRunTimeNeedsARatioOf0) {
    auto model = [](float ratio) {
        OnnxModel m(13);
        m.input("x", {3}).input("training", {}, OnnxType::BOOL).output("y").output("mask", OnnxType::BOOL);
        m.initializer("ratio", {}, {ratio});
        m.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"}, "d");
        return m;
    };
    ir::Graph g = model(0.0f).import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{});
    const auto out = evaluate(g, {{"x", {1, -2, 3}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (std::vector<double>{1, -2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (std::vector<double>{1, 1, 1}));
    EXPECT_EQ(import_error(model(0.5f)),
              "test.onnx: node 'd' (Dropout): training_mode is known only at run time and the ratio is 0.5: in "
              "training mode the outputs are random samples; only a ratio of 0 (the identity) or inference Dropout "
              "is supported");
}

TEST(OnnxElemwise, CastOfAVarIsTypeCvt) {
    OnnxModel m;
    m.input("x", {4}).output("y", OnnxType::INT32);
    set_attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{OnnxType::INT32});
    ir::Graph g = m.import();
    ir::OprId t = find_opr(g, "TypeCvt");
    EXPECT_EQ(std::get<ir::DType>(field(g, t, "dtype")).type, ir::DTypeEnum::Int32);
    expect_round_trip(g);
}

TEST(OnnxElemwise, IntegerArithmeticOnConstantsIsFolded) {
    OnnxModel m;
    m.input("x", {2, 6}).output("y");
    m.initializer_i64("a", {2}, {2, 24});
    m.initializer_i64("d", {}, {2});
    m.node("Div", {"a", "d"}, {"t"});  // (1, 12)
    m.node("Reshape", {"x", "t"}, {"r"});
    m.node("Relu", {"r"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Reshape", "Elemwise"}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape"), 1), (std::vector<int32_t>{1, 12}));
}

// A node on constants folded at import, then Cast to FLOAT and added to x (all
// zeros), so that the folded values come out of an evaluated graph.
std::vector<double> folded_through_float(OnnxModel& m, const std::string& folded, size_t n) {
    m.input("x", {static_cast<int64_t>(n)}).output("y");
    set_attr(m.node("Cast", {folded}, {"as_float"}), "to", int64_t{OnnxType::FLOAT});
    m.node("Add", {"x", "as_float"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Elemwise"}) << "the constant arithmetic is folded";
    return evaluate_values(g, {{"x", std::vector<double>(n, 0.0)}});
}

// Folded integer arithmetic stays in the operands' ONNX type, wrapping in its
// width as numpy does (ONNX's reference): 200 + 100 in UINT8 is 44.
TEST(OnnxElemwise, FoldedIntegerConstantsKeepTheirTypeAndWrapInIt) {
    {
        OnnxModel m;
        const uint8_t a[] = {200, 3}, b[] = {100, 255};
        m.initializer_bytes("a", {2}, OnnxType::UINT8, a, 2);
        m.initializer_bytes("b", {2}, OnnxType::UINT8, b, 2);
        m.node("Add", {"a", "b"}, {"s"});
        EXPECT_EQ(folded_through_float(m, "s", 2), (std::vector<double>{44, 2}));
    }
    {
        // Cast between integer types wraps: 300 → 44, -129 → 127 in INT8.
        OnnxModel m;
        const int32_t c[] = {300, -129};
        m.initializer_bytes("c", {2}, OnnxType::INT32, c, sizeof c);
        set_attr(m.node("Cast", {"c"}, {"i8"}), "to", int64_t{OnnxType::INT8});
        EXPECT_EQ(folded_through_float(m, "i8", 2), (std::vector<double>{44, 127}));
    }
    {
        // Neg of INT8's minimum is itself (np.negative on int8).
        OnnxModel m;
        const int8_t c[] = {-128, 5};
        m.initializer_bytes("c", {2}, OnnxType::INT8, c, 2);
        m.node("Neg", {"c"}, {"n"});
        EXPECT_EQ(folded_through_float(m, "n", 2), (std::vector<double>{-128, -5}));
    }
    {
        // Float to integer truncates toward zero (astype).
        OnnxModel m;
        m.initializer("f", {3}, {127.9f, -128.9f, -0.5f});
        set_attr(m.node("Cast", {"f"}, {"i8"}), "to", int64_t{OnnxType::INT8});
        EXPECT_EQ(folded_through_float(m, "i8", 3), (std::vector<double>{127, -128, 0}));
    }
    {
        // FLOAT to DOUBLE: relabelled, its float bytes were read back as doubles.
        OnnxModel m;
        m.initializer("f", {2}, {1.5f, -2.25f});
        set_attr(m.node("Cast", {"f"}, {"d"}), "to", int64_t{OnnxType::DOUBLE});
        EXPECT_EQ(folded_through_float(m, "d", 2), (std::vector<double>{1.5, -2.25}));
    }
}

TEST(OnnxElemwise, AFoldedCastToBoolIsABoolCondition) {
    OnnxModel m;
    m.input("x", {3}).input("z", {3}).output("y");
    m.initializer("f", {3}, {0.5f, 0.0f, std::nanf("")});  // NaN is true, as numpy's
    set_attr(m.node("Cast", {"f"}, {"cond"}), "to", int64_t{OnnxType::BOOL});
    m.node("Where", {"cond", "x", "z"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 2, 3}}, {"z", {-1, -2, -3}}}),
              (std::vector<double>{1, -2, 3}));
}

TEST(OnnxElemwise, AFoldedCastOfAFloatOutsideTheIntegerTypeIsRefused) {
    // ONNX leaves it undefined, and in C++ the conversion was undefined behaviour.
    for (float v : {300.0f, -129.0f, std::nanf(""), std::numeric_limits<float>::infinity()}) {
        OnnxModel m;
        m.input("x", {1}).output("y");
        m.initializer("f", {1}, {v});
        auto& cast = m.node("Cast", {"f"}, {"i8"}, "cast");
        set_attr(cast, "to", int64_t{OnnxType::INT8});
        set_attr(m.node("Cast", {"i8"}, {"back"}), "to", int64_t{OnnxType::FLOAT});
        m.node("Add", {"x", "back"}, {"y"});
        const std::string error = import_error(m);
        EXPECT_NE(error.find(fmt::format("node 'cast' (Cast): Cast of the constant {} to INT8: the value is outside "
                                         "the type",
                                         v)),
                  std::string::npos)
            << error;
    }
}

TEST(OnnxElemwise, AFoldedCastKeepsEachIntegerTypesEdgesAndRefusesOnePast) {
    // The ranges of the ONNX types (two's complement, unsigned from 0); the
    // fraction is dropped toward zero first, as numpy's astype does.
    struct Edge {
        int32_t type;
        float lowest, highest;
    };
    for (const Edge& e : {Edge{OnnxType::INT8, -128, 127}, Edge{OnnxType::UINT8, 0, 255},
                          Edge{OnnxType::INT16, -32768, 32767}, Edge{OnnxType::UINT16, 0, 65535}}) {
        auto model = [&](float v) {
            OnnxModel m;
            m.input("x", {1}).output("y");
            m.initializer("f", {1}, {v});
            set_attr(m.node("Cast", {"f"}, {"i"}, "cast"), "to", int64_t{e.type});
            set_attr(m.node("Cast", {"i"}, {"back"}), "to", int64_t{OnnxType::FLOAT});
            m.node("Add", {"x", "back"}, {"y"});
            return m;
        };
        for (float v : {e.lowest, e.highest, e.lowest - 0.5f, e.highest + 0.5f})
            EXPECT_EQ(evaluate_values(model(v).import(), {{"x", {1}}}),
                      (std::vector<double>{1 + std::trunc(static_cast<double>(v))}))
                << e.type << " " << v;
        for (float v : {e.lowest - 1, e.highest + 1})
            EXPECT_NE(import_error(model(v)).find("the value is outside the type"), std::string::npos)
                << e.type << " " << v;
    }
}

TEST(OnnxElemwise, FoldedInt64DivisionOfTheMinimumByMinusOneDoesNotTrap) {
    // INT64_MIN / -1 overflows: x86's idiv traps (SIGFPE). numpy's result wraps
    // to INT64_MIN, which MegEngine's Int32 cannot hold: refused, no crash.
    OnnxModel m;
    m.input("x", {1}, OnnxType::INT64).output("y", OnnxType::INT64);
    m.initializer_i64("a", {1}, {std::numeric_limits<int64_t>::min()});
    m.initializer_i64("d", {1}, {-1});
    m.node("Div", {"a", "d"}, {"q"});
    m.node("Add", {"x", "q"}, {"y"});
    EXPECT_NE(import_error(m).find("-9223372036854775808"), std::string::npos) << import_error(m);
}

// Integer Div and Pow keep ONNX's integer type and numbers (onnx.reference casts
// np.divide / np.power back to the input type: Div truncates toward zero).
ir::DTypeEnum output_dtype(const ir::Graph& g) { return g.vars.dtype[g.outputs.at(0).value].type; }

TEST(OnnxElemwise, SignedIntegerDivTruncatesTowardZeroInTheInputType) {
    OnnxModel m;
    m.input("a", {8}, OnnxType::INT32).input("b", {8}, OnnxType::INT32).output("y", OnnxType::INT32);
    m.node("Div", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(output_dtype(g), ir::DTypeEnum::Int32);
    EXPECT_EQ(count_ops(g, "TypeCvt"), 0u);
    EXPECT_EQ(evaluate_values(g, {{"a", {7, -7, 7, -7, 0, 5, -1, 9}}, {"b", {2, 2, -2, -2, 3, -5, 4, 3}}}),
              (std::vector<double>{3, -3, -3, 3, 0, -1, 0, 3}));
    expect_round_trip(g);
}

TEST(OnnxElemwise, IntegerDivByAPositiveConstantTruncatesTowardZero) {
    OnnxModel m(13);
    m.input("a", {4}, OnnxType::INT64).output("y", OnnxType::INT64);
    m.initializer_i64("d", {}, {3});
    m.node("Div", {"a", "d"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"a", {-7, 7, -2, 8}}}), (std::vector<double>{-2, 2, 0, 2}));
}

TEST(OnnxElemwise, SignedIntegerDivTruncatesAtTheTypesMinimum) {
    // np.divide(-128, 3) = -42.67, cast to int8: -42. Through |a| it was 43: |-128|
    // wraps to -128 in Int8, and sign(a)·⌊-128 / 3⌋ = -1·-43.
    OnnxModel m;
    m.input("a", {4}, OnnxType::INT8).input("b", {4}, OnnxType::INT8).output("y", OnnxType::INT8);
    m.node("Div", {"a", "b"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"a", {-128, -128, -128, 127}}, {"b", {3, -3, 127, -128}}}),
              (std::vector<double>{-42, 42, -1, 0}));
}

TEST(OnnxElemwise, UnsignedIntegerDivIsOneFloorDiv) {
    OnnxModel m(14);
    m.input("a", {4}, OnnxType::UINT8).input("b", {4}, OnnxType::UINT8).output("y", OnnxType::UINT8);
    m.node("Div", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"Elemwise"});
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise"), "mode"), "FLOOR_DIV");
    EXPECT_EQ(output_dtype(g), ir::DTypeEnum::Uint8);
    // ONNX's test_div_uint8, first elements.
    EXPECT_EQ(evaluate_values(g, {{"a", {16, 6, 0, 200}}, {"b", {11, 5, 23, 7}}}),
              (std::vector<double>{1, 1, 0, 28}));
}

TEST(OnnxElemwise, IntegerPowWithAConstantIntegerExponentIsExactMultiplication) {
    OnnxModel m(15);
    m.input("x", {4}, OnnxType::INT32).output("y", OnnxType::INT32);
    m.initializer_i64("n", {}, {5});
    m.node("Pow", {"x", "n"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(output_dtype(g), ir::DTypeEnum::Int32);
    EXPECT_EQ(count_ops(g, "TypeCvt"), 0u);
    EXPECT_EQ(count_ops(g, "Elemwise"), 3u);  // x², x⁴, x⁴·x
    // 37⁵ = 69343957 is beyond float32's exact integers.
    EXPECT_EQ(evaluate_values(g, {{"x", {2, -3, 37, 0}}}), (std::vector<double>{32, -243, 69343957, 0}));
}

TEST(OnnxElemwise, IntegerPowWithAVariableExponentTruncatesLikeTheCast) {
    OnnxModel m(15);
    m.input("x", {4}, OnnxType::INT64).input("e", {4}).output("y", OnnxType::INT64);
    m.node("Pow", {"x", "e"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(output_dtype(g), ir::DTypeEnum::Int32);
    EXPECT_EQ(evaluate_values(g, {{"x", {2, 3, -2, 3}}, {"e", {0.5, 2, 3, 6}}}),
              (std::vector<double>{1, 9, -8, 729}));
}

TEST(OnnxElemwise, FloatPowWithAnIntegerExponentStaysFloat) {
    OnnxModel m(15);
    m.input("x", {3}).input("e", {3}, OnnxType::INT32).output("y");
    m.node("Pow", {"x", "e"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(output_dtype(g), ir::DTypeEnum::Float32);
    expect_near_all(evaluate_values(g, {{"x", {1.5, 2, -3}}, {"e", {2, 5, 3}}}), {2.25, 32, -27});
}

}  // namespace
}  // namespace mgedump::test
