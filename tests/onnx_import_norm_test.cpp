// LayerNormalization, InstanceNormalization and LRN (formats/onnx/ops_norm.cpp),
// against values computed here from the ONNX definitions.
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;
using D = std::vector<double>;

// (v − mean) / √(var + eps) of one group of values.
D normalized(const D& v, double eps) {
    double mean = 0, var = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    for (double x : v) var += (x - mean) * (x - mean);
    var /= static_cast<double>(v.size());
    D out;
    for (double x : v) out.push_back((x - mean) / std::sqrt(var + eps));
    return out;
}

TEST(OnnxNorm, LayerNormalizationWithItsStatistics) {
    OnnxModel m(17);
    m.input("x", {2, 3}).output("y").output("mean").output("inv_std");
    m.initializer("scale", {3}, {1, 2, 0.5f});
    m.initializer("bias", {3}, {0, 1, -1});
    set_attr(m.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv_std"}), "epsilon", 1e-3f);
    ir::Graph g = m.import();
    ASSERT_EQ(count_ops(g, "LayerNorm"), 1u);
    const D x{1, 2, 4, -1, 0, 7};
    auto out = evaluate(g, {{"x", x}});
    ASSERT_EQ(out.size(), 3u);
    D want;
    for (size_t r = 0; r < 2; ++r) {
        D n = normalized({x[3 * r], x[3 * r + 1], x[3 * r + 2]}, 1e-3);
        want.insert(want.end(), {n[0] * 1 + 0, n[1] * 2 + 1, n[2] * 0.5 - 1});
    }
    expect_near_all(engine::eval::to_doubles(out[0].value), want);
    EXPECT_EQ(out[1].value.shape(), (ir::Shape::of({2, 1})));
    expect_near_all(engine::eval::to_doubles(out[1].value), {7.0 / 3, 2});
    const double var0 = (std::pow(1 - 7.0 / 3, 2) + std::pow(2 - 7.0 / 3, 2) + std::pow(4 - 7.0 / 3, 2)) / 3;
    EXPECT_NEAR(engine::eval::to_doubles(out[2].value)[0], 1 / std::sqrt(var0 + 1e-3), 1e-5);
    expect_round_trip(g);
}

TEST(OnnxNorm, LayerNormalizationOverEveryAxisWithoutBias) {
    // axis 0: the whole [2, 2] is one group; without B, Y = normalized · Scale.
    OnnxModel m(17);
    m.input("x", {2, 2}).output("y");
    m.initializer("scale", {2}, {2, 3});
    set_attr(m.node("LayerNormalization", {"x", "scale"}, {"y"}), "axis", int64_t{0});
    const D x{1, 2, 3, 6};
    D n = normalized(x, 1e-5);
    expect_near_all(evaluate_values(m.import(), {{"x", x}}), {n[0] * 2, n[1] * 3, n[2] * 2, n[3] * 3});
}

// FLOAT16 with stash_type FLOAT, as ONNX's function body: normalized in Float32,
// cast to FLOAT16, then · Scale + B in FLOAT16. Values whose results are exact
// in Float16 at every step: x = (1, 3) normalizes to (-1, 1) (eps 0), so
// Y = (-1·2 + 0.5, 1·(-0.25) + 0.5) = (-1.5, 0.25).
TEST(OnnxNorm, LayerNormalizationOfFloat16NormalizesInFloat32) {
    OnnxModel m(17);
    m.input("x", {2, 2}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16).output("mean").output("inv");
    const uint16_t scale[] = {0x4000, 0xB400}, b[] = {0x3800, 0x3800};  // (2, -0.25), (0.5, 0.5)
    m.initializer_bytes("s", {2}, OnnxType::FLOAT16, scale, 4);
    m.initializer_bytes("b", {2}, OnnxType::FLOAT16, b, 4);
    set_attr(m.node("LayerNormalization", {"x", "s", "b"}, {"y", "mean", "inv"}, "ln"), "epsilon", 0.0f);
    ir::Graph g = m.import();
    EXPECT_EQ(g.vars.dtype[g.outputs.at(0).value].type, ir::DTypeEnum::Float16);
    EXPECT_EQ(g.vars.dtype[g.outputs.at(1).value].type, ir::DTypeEnum::Float32);  // U, the stash type
    auto out = evaluate(g, {{"x", {1, 3, -2, 6}}});
    // Row 2: (-2, 6) → (-1, 1) too: (-1.5, 0.25).
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{-1.5, 0.25, -1.5, 0.25}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{1, 0.25}));  // 1/√1, 1/√16

    OnnxModel mixed(17);
    mixed.input("x", {2, 2}, OnnxType::FLOAT16).input("s", {2}).output("y", OnnxType::FLOAT16);
    mixed.node("LayerNormalization", {"x", "s"}, {"y"}, "ln");
    EXPECT_NE(import_error(mixed).find("'ln' (LayerNormalization): Scale (input #1) is FLOAT, X is FLOAT16"),
              std::string::npos)
        << import_error(mixed);
}

TEST(OnnxNorm, InstanceNormalizationOfA3DInputIsReshapedTo4D) {
    OnnxModel m(13);
    m.input("x", {1, 2, 3}).output("y");
    m.initializer("scale", {2}, {1, 2});
    m.initializer("b", {2}, {0, 1});
    m.node("InstanceNormalization", {"x", "scale", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (V{"Reshape", "InstanceNorm", "Reshape"}));
    const D x{1, 2, 3, 0, 0, 6};
    D c0 = normalized({1, 2, 3}, 1e-5), c1 = normalized({0, 0, 6}, 1e-5);
    expect_near_all(evaluate_values(g, {{"x", x}}), {c0[0], c0[1], c0[2], c1[0] * 2 + 1, c1[1] * 2 + 1, c1[2] * 2 + 1},
                    1e-4);
    expect_round_trip(g);
}

// GroupNormalization: each (sample, group of C/G channels) normalized over its
// channels and spatial axes, then scale and bias per channel (opset 21) or per
// group (opset 18: one value for all the group's channels).
TEST(OnnxNorm, GroupNormalizationPerChannelAt21AndPerGroupAt18) {
    // X (1, 4, 3): groups {channels 0, 1} and {2, 3}.
    D x(12);
    for (size_t k = 0; k < x.size(); ++k) x[k] = std::sin(static_cast<double>(k)) * 3 + static_cast<double>(k % 5);
    const double eps = 1e-3;
    const D g0 = normalized(D(x.begin(), x.begin() + 6), eps), g1 = normalized(D(x.begin() + 6, x.end()), eps);
    D norm(g0);
    norm.insert(norm.end(), g1.begin(), g1.end());
    for (int64_t opset : {18, 21}) {
        const std::vector<float> scale = opset == 21 ? std::vector<float>{1, 2, 3, 4} : std::vector<float>{2, -1};
        const std::vector<float> bias = opset == 21 ? std::vector<float>{0.5, 0, -0.5, 1} : std::vector<float>{1, 3};
        OnnxModel m(opset);
        m.input("x", {1, 4, 3}).output("y");
        m.initializer("s", {static_cast<int64_t>(scale.size())}, scale);
        m.initializer("b", {static_cast<int64_t>(bias.size())}, bias);
        auto& n = m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
        set_attr(n, "num_groups", int64_t{2});
        set_attr(n, "epsilon", static_cast<float>(eps));
        ir::Graph g = m.import();
        EXPECT_EQ(count_ops(g, "GroupNorm"), 1u);
        D want(12);
        for (size_t k = 0; k < 12; ++k) {
            const size_t channel = k / 3, at = opset == 21 ? channel : channel / 2;
            want[k] = norm[k] * scale[at] + bias[at];
        }
        expect_near_all(evaluate_values(g, {{"x", x}}), want, 1e-5);
    }
    // Per group at opset 18 and known only at run time: MegEngine's weight is per channel.
    OnnxModel runtime(18);
    runtime.input("x", {1, 4, 3}).input("s", {2}).input("b", {2}).output("y");
    set_attr(runtime.node("GroupNormalization", {"x", "s", "b"}, {"y"}, "gn"), "num_groups", int64_t{2});
    EXPECT_NE(import_error(runtime).find("node 'gn' (GroupNormalization): scale (input #1) is per group (opset 18) "
                                         "and known only at run time"),
              std::string::npos)
        << import_error(runtime);
}

// FLOAT16 as InstanceNormalization's: groups {1, 3, 1, 3} and {-2, 6, -2, 6}
// both normalize to (-1, 1, -1, 1) exactly (epsilon 0), then the per-channel
// scale (2, -0.25, 1, 0.5) and bias (0.5, 0.5, 0, 0) in FLOAT16.
TEST(OnnxNorm, GroupNormalizationOfFloat16NormalizesInFloat32) {
    OnnxModel m(21);
    m.input("x", {1, 4, 2}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16);
    const uint16_t scale[] = {0x4000, 0xB400, 0x3C00, 0x3800}, b[] = {0x3800, 0x3800, 0, 0};
    m.initializer_bytes("s", {4}, OnnxType::FLOAT16, scale, 8);
    m.initializer_bytes("b", {4}, OnnxType::FLOAT16, b, 8);
    auto& n = m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
    set_attr(n, "num_groups", int64_t{2});
    set_attr(n, "epsilon", 0.0f);
    ir::Graph g = m.import();
    EXPECT_EQ(g.vars.dtype[g.outputs.at(0).value].type, ir::DTypeEnum::Float16);
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 3, 1, 3, -2, 6, -2, 6}}}), (D{-1.5, 2.5, 0.75, 0.25, -1, 1, -0.5, 0.5}));
}

// x / ‖x‖_p along the axis (ONNX's definition: numpy's norm).
TEST(OnnxNorm, LpNormalizationDividesByTheL1OrL2NormAlongTheAxis) {
    const D x{3, -4, 1, 2, 0, -2};  // (2, 3)
    for (int64_t p : {1, 2})
        for (int64_t axis : {0, 1}) {
            OnnxModel m(13);
            m.input("x", {2, 3}).output("y");
            auto& n = m.node("LpNormalization", {"x"}, {"y"});
            set_attr(n, "p", p);
            set_attr(n, "axis", axis);
            D want(6);
            for (size_t r = 0; r < 2; ++r)
                for (size_t k = 0; k < 3; ++k) {
                    double norm = 0;
                    for (size_t j = 0; j < (axis == 0 ? 2u : 3u); ++j) {
                        const double v = axis == 0 ? x[j * 3 + k] : x[r * 3 + j];
                        norm += p == 1 ? std::abs(v) : v * v;
                    }
                    want[r * 3 + k] = x[r * 3 + k] / (p == 1 ? norm : std::sqrt(norm));
                }
            expect_near_all(evaluate_values(m.import(), {{"x", x}}), want, 1e-6);
        }
    OnnxModel three(13);
    three.input("x", {2, 3}).output("y");
    set_attr(three.node("LpNormalization", {"x"}, {"y"}, "lp"), "p", int64_t{3});
    EXPECT_NE(import_error(three).find("node 'lp' (LpNormalization): p = 3 is not 1 or 2"), std::string::npos);
}

// FLOAT16: normalized in Float32, converted back, scale and B applied in FLOAT16.
// Each channel of 2 values normalizes to (-1, 1) with epsilon 0, exactly.
TEST(OnnxNorm, InstanceNormalizationOfFloat16NormalizesInFloat32) {
    OnnxModel m(13);
    m.input("x", {1, 2, 2}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16);
    const uint16_t scale[] = {0x4000, 0xB400}, b[] = {0x3800, 0x3800};  // (2, -0.25), (0.5, 0.5)
    m.initializer_bytes("s", {2}, OnnxType::FLOAT16, scale, 4);
    m.initializer_bytes("b", {2}, OnnxType::FLOAT16, b, 4);
    set_attr(m.node("InstanceNormalization", {"x", "s", "b"}, {"y"}), "epsilon", 0.0f);
    ir::Graph g = m.import();
    EXPECT_EQ(g.vars.dtype[g.outputs.at(0).value].type, ir::DTypeEnum::Float16);
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 3, -2, 6}}}), (D{-1.5, 2.5, 0.75, 0.25}));
}

TEST(OnnxNorm, LrnIsMegEngineLrnWithAlphaOverSize) {
    OnnxModel m(13);
    m.input("x", {1, 3, 1, 1}).output("y");
    auto& n = m.node("LRN", {"x"}, {"y"});
    set_attr(n, "size", int64_t{3});
    set_attr(n, "alpha", 0.3f);
    set_attr(n, "beta", 0.75f);
    set_attr(n, "bias", 2.0f);
    ir::Graph g = m.import();
    ir::OprId o = find_opr(g, "LRN");
    const ir::FieldValue nf = field(g, o, "n");
    EXPECT_EQ(std::holds_alternative<uint64_t>(nf) ? static_cast<int64_t>(std::get<uint64_t>(nf)) : std::get<int64_t>(nf),
              3);
    EXPECT_NEAR(std::get<double>(field(g, o, "alpha")), 0.1, 1e-7);
    const D x{1, 2, 3};
    // ONNX: y_c = x_c / (bias + alpha/size · Σ x² over [c − 1, c + 1])^beta.
    D want;
    for (int c = 0; c < 3; ++c) {
        double s = 0;
        for (int k = std::max(0, c - 1); k <= std::min(2, c + 1); ++k) s += x[k] * x[k];
        want.push_back(x[c] / std::pow(2.0 + 0.3 / 3 * s, 0.75));
    }
    expect_near_all(evaluate_values(g, {{"x", x}}), want);
}

TEST(OnnxNorm, LrnRefusesAnEvenSize) {
    OnnxModel m(13);
    m.input("x", {1, 4, 2, 2}).output("y");
    set_attr(m.node("LRN", {"x"}, {"y"}, "lrn"), "size", int64_t{2});
    try {
        m.import();
        FAIL() << "imported";
    } catch (const GraphError& e) {
        EXPECT_NE(std::string(e.what()).find("'lrn' (LRN): size 2 is not supported"), std::string::npos) << e.what();
    }
}

TEST(OnnxNorm, MeanVarianceNormalizationOverTheGivenAxes) {
    OnnxModel m(13);
    m.input("x", {2, 3}).output("y");
    set_attr(m.node("MeanVarianceNormalization", {"x"}, {"y"}), "axes", std::vector<int64_t>{1});
    const D x{1, 2, 6, 0, 3, 3};
    D want;
    for (size_t r = 0; r < 2; ++r) {
        const double* v = &x[3 * r];
        const double mean = (v[0] + v[1] + v[2]) / 3, sq = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / 3;
        for (int k = 0; k < 3; ++k) want.push_back((v[k] - mean) / (std::sqrt(sq - mean * mean) + 1e-9));
    }
    expect_near_all(evaluate_values(m.import(), {{"x", x}}), want, 1e-4);
}

}  // namespace
}  // namespace mgedump::test
