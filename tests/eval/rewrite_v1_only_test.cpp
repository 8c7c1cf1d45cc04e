// The rewrites only FBS v1 applies (spec §9.1, engine/passes/rules_v1_only.cpp):
// Softmax, LayerNorm, Dropout and CheckNonFinite, evaluated as given and as the
// FBS dump loads back, on the same inputs.
//
// Tolerances: Softmax and LayerNorm as the norms (rewrite_norm_test.cpp): 1e-6 of
// max|y| plus 4.8e-7·|y|, plus for LayerNorm on data with an offset 8·ulp(max|x|)/σ
// (times max|y|), what the input itself carries. Dropout draws its mask: with
// drop_prob 0 the result is x exactly; otherwise each element must be 0 or
// x/(1 − p), in both graphs (the draws are not the same stream). CheckNonFinite:
// its flag (Int32) exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/passes/compat_rewrite.h"
#include "ir/error.h"
#include "tests/eval/rewrite_test_util.h"

namespace mgedump::test {
namespace {

using engine::DumpFormat;
using engine::eval::Feeds;

std::vector<double> normal_values(size_t n, double offset, double scale, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> d(0.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<float>(offset + scale * d(gen));
    return v;
}

uint32_t product(const std::vector<uint32_t>& shape) {
    uint32_t p = 1;
    for (uint32_t d : shape) p *= d;
    return p;
}

const ir::Graph& loaded(const RewriteRun& r) { return r.reloaded.model.graph; }

void expect_kept(const RewriteRun& r, Tolerance tol) {
    ASSERT_EQ(r.rewritten.size(), r.original.size());
    for (size_t i = 0; i < r.original.size(); ++i)
        EXPECT_EQ(compare_tensors(r.rewritten[i].value, r.original[i].value, tol), "") << "output " << i;
    if (!r.original.empty())
        ::testing::Test::RecordProperty(
            "max_rel_diff",
            fmt::format("{:.3g}", max_relative_difference(r.rewritten[0].value, r.original[0].value)));
}

// --- Softmax -------------------------------------------------------------------------------

ir::Graph softmax_graph(std::vector<uint32_t> shape, int axis) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, std::move(shape));
    b.output(b.op("Softmax", {x}, {{"axis", axis}}), "p");
    return b.finish();
}

TEST(SoftmaxRewrite, KeepsTheNumbersAlongEveryAxis) {
    const std::vector<uint32_t> shape{3, 4, 5};
    const std::vector<double> x = normal_values(60, 0, 3, 1);
    for (int axis : {0, 1, 2, -1}) {
        SCOPED_TRACE(fmt::format("axis {}", axis));
        const RewriteRun r =
            run_rewritten(softmax_graph(shape, axis), {{"x", tensor_of(kF32, shape, x)}}, DumpFormat::FBS);
        EXPECT_FALSE(has_operator(loaded(r), "Softmax"));
        expect_kept(r, Tolerance{4.8e-7, 1e-6});
    }
}

TEST(SoftmaxRewrite, KeepsTheNumbersOnLargeAndNonFiniteValues) {
    // Rows: a spread of 1e4 (most exponentials underflow to 0), large equal
    // values, a −inf entry (weight 0), every entry −inf (0/0: NaN), a +inf entry
    // (inf − inf: NaN), a NaN.
    const std::vector<double> x{-5e3,  0, 5e3, 1, 2, 3e38,  3e38,  3e38,  3e38,  3e38,
                                -kInf, 0, 1,   2, 3, -kInf, -kInf, -kInf, -kInf, -kInf,
                                kInf,  0, 1,   2, 3, 0,     1,     kNaN,  2,     3};
    const RewriteRun r =
        run_rewritten(softmax_graph({6, 5}, 1), {{"x", tensor_of(kF32, {6, 5}, x)}}, DumpFormat::FBS);
    expect_kept(r, Tolerance{4.8e-7, 1e-6});
}

TEST(SoftmaxRewrite, IsNotAppliedInFbsV2) {
    const RewriteRun r = run_rewritten(
        softmax_graph({2, 3}, 1), {{"x", tensor_of(kF32, {2, 3}, {1, 2, 3, 4, 5, 6})}}, DumpFormat::FBS_V2);
    EXPECT_TRUE(has_operator(loaded(r), "Softmax"));
    expect_kept(r, Tolerance{0, 0});
}

// --- LayerNorm -----------------------------------------------------------------------------

struct LayerNormCase {
    std::string name;
    std::vector<uint32_t> x_shape;
    uint32_t normalized_dim;
    bool weight = true;  // weight and bias inputs
    bool affine = true;
    double offset = 0, scale = 1;
};

class LayerNormRewrite : public testing::TestWithParam<LayerNormCase> {};

TEST_P(LayerNormRewrite, KeepsTheNumbersOfTheOperator) {
    const LayerNormCase& c = GetParam();
    const std::vector<uint32_t> normalized(c.x_shape.end() - c.normalized_dim, c.x_shape.end());
    const uint32_t size = product(normalized);
    ir::GraphBuilder b;
    std::vector<ir::VarId> in{b.input("x", kF32, c.x_shape)};
    if (c.weight) {
        in.push_back(b.input("w", kF32, normalized));
        in.push_back(b.input("b", kF32, normalized));
    }
    b.output(b.op("LayerNorm", in,
                  {{"affine", c.affine ? 1 : 0},
                   {"eps", 1e-5f},
                   {"normalized_dim", static_cast<int>(c.normalized_dim)},
                   {"normalized_size", static_cast<int>(size)}}),
             "y");
    const std::vector<double> x = normal_values(product(c.x_shape), c.offset, c.scale, 4);
    Feeds feeds{{"x", tensor_of(kF32, c.x_shape, x)}};
    if (c.weight) {
        std::vector<double> w(size), bias(size);
        for (uint32_t i = 0; i < size; ++i) {
            w[i] = 0.5 + 0.25 * i;
            bias[i] = 1.0 - 0.125 * i;
        }
        feeds.emplace("w", tensor_of(kF32, normalized, w));
        feeds.emplace("b", tensor_of(kF32, normalized, bias));
    }
    double max_x = 0;
    for (double v : x) max_x = std::max(max_x, std::fabs(v));
    const Tolerance tol{4.8e-7, 1e-6 + 8 * std::ldexp(max_x, -23) / (0.5 * c.scale)};
    const RewriteRun r = run_rewritten(b.finish(), feeds, DumpFormat::FBS);
    const ir::Graph& lg = loaded(r);
    EXPECT_NE(ir::op_def(lg.oprs.type[lg.vars.owner[lg.outputs[0].value].value]).name, "LayerNorm");
    expect_kept(r, tol);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LayerNormRewrite,
    testing::Values(LayerNormCase{"last_dim_affine", {2, 3, 8}, 1},
                    LayerNormCase{"two_dims_affine", {2, 3, 8}, 2},
                    LayerNormCase{"no_affine", {4, 16}, 1, false, false},
                    // Weight and bias present but affine=false: the operator does not read them.
                    LayerNormCase{"inputs_without_affine", {4, 16}, 1, true, false},
                    LayerNormCase{"offset_100", {4, 32}, 1, true, true, 100.0, 1.0},
                    LayerNormCase{"offset_1000", {4, 32}, 1, true, true, 1000.0, 1.0},
                    LayerNormCase{"offset_1e4", {4, 32}, 1, false, false, 1e4, 1.0},
                    LayerNormCase{"large_scale", {4, 32}, 1, true, true, 0.0, 1e4}),
    [](const testing::TestParamInfo<LayerNormCase>& info) { return info.param.name; });

TEST(LayerNormRewriteSpecial, ConstantRowsNaNAndInfKeepTheOperatorsValues) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {4, 6});
    b.output(b.op("LayerNorm", {x}, {{"affine", 0}, {"normalized_dim", 1}, {"normalized_size", 6}}), "y");
    std::vector<double> xs = normal_values(24, 0, 1, 9);
    for (int i = 0; i < 6; ++i) xs[i] = -2.0;  // variance 0
    xs[8] = kNaN;
    xs[15] = -kInf;
    const RewriteRun r = run_rewritten(b.finish(), {{"x", tensor_of(kF32, {4, 6}, xs)}}, DumpFormat::FBS);
    expect_kept(r, Tolerance{4.8e-7, 1e-6});
}

// --- Dropout -------------------------------------------------------------------------------

ir::Graph dropout_graph(float p, uint32_t n) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {n});
    b.output(b.op("Dropout", {x}, {{"drop_prob", p}, {"seed", 7}}), "y");
    return b.finish();
}

TEST(DropoutRewrite, WithDropProbZeroKeepsEveryValue) {
    const std::vector<double> x = normal_values(1000, 0, 10, 2);
    const RewriteRun r =
        run_rewritten(dropout_graph(0.0f, 1000), {{"x", tensor_of(kF32, x)}}, DumpFormat::FBS);
    EXPECT_FALSE(has_operator(loaded(r), "Dropout"));
    EXPECT_EQ(compare_exact(r.rewritten[0].value, tensor_of(kF32, x)), "");
    EXPECT_EQ(compare_exact(r.original[0].value, tensor_of(kF32, x)), "");
}

TEST(DropoutRewrite, KeepsOrDropsEachValueAndRescalesAsDropoutDoes) {
    const float p = 0.25f;
    const uint32_t n = 4000;
    const std::vector<double> x = normal_values(n, 3, 1, 5);
    const RewriteRun r = run_rewritten(dropout_graph(p, n), {{"x", tensor_of(kF32, x)}}, DumpFormat::FBS);
    EXPECT_FALSE(has_operator(loaded(r), "Dropout"));
    const float scale = 1.0f / (1.0f - p);
    for (const auto* outputs : {&r.original, &r.rewritten}) {
        const auto y = storage_values((*outputs)[0].value);
        size_t kept = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (y[i] == 0) continue;
            ++kept;
            EXPECT_EQ(y[i], static_cast<float>(static_cast<float>(x[i]) * scale)) << i;
        }
        // Binomial(4000, 0.75): mean 3000, sd 27; 6 sd either way.
        EXPECT_NEAR(static_cast<double>(kept), 3000.0, 165.0)
            << (outputs == &r.original ? "operator" : "rewrite");
    }
}

// --- CheckNonFinite ------------------------------------------------------------------------

// The FBS rewrite keeps the operator and makes its pass-through outputs volatile.
// MegEngine cannot load such a file back (engine/loader_limits.cpp), so dump
// refuses it; the rewritten graph itself still computes the same flag.
TEST(CheckNonFiniteRewrite, TheRewrittenGraphComputesTheSameFlag) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {4});
    ir::VarId y = b.input("y", kF32, {3});
    ir::OpOptions three;
    three.outputs = 3;
    ir::VarId first = b.op("CheckNonFinite", {x, y}, {{"scale", 0.5f}}, three);
    b.output(b.graph().output_var(b.graph().vars.owner[first.value], 2), "flag");
    const ir::Graph g = b.finish();

    ir::Graph rewritten = g;
    const engine::RewriteStats stats = engine::apply_compat_rewrites(rewritten, DumpFormat::FBS);
    EXPECT_EQ(stats.marked_volatile, 1u);
    const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases{
        {{1, -2, 3e38, 0}, {1e-40, 5, 6}},
        {{1, kInf, 3, 4}, {0, 0, 0}},
        {{1, 2, 3, 4}, {-kInf, 0, 0}},
        {{kNaN, 2, 3, 4}, {0, 0, 0}},
    };
    for (const auto& [xs, ys] : cases) {
        const Feeds feeds{{"x", tensor_of(kF32, xs)}, {"y", tensor_of(kF32, ys)}};
        const auto want = engine::eval::evaluate(g, feeds);
        const auto got = engine::eval::evaluate(rewritten, feeds);
        EXPECT_EQ(compare_exact(got[0].value, want[0].value), "");
    }

    try {
        dump_and_reload(g, DumpFormat::FBS);
        FAIL() << "expected the FBS dump to be refused";
    } catch (const OptionError& e) {
        EXPECT_NE(std::string(e.what()).find("CheckNonFinite"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mgedump::test
