// The GroupNorm / InstanceNorm rewrites and those of their Backward operators
// (spec §9.1, engine/passes/rules_norm.cpp) keep the numbers of the operator:
// evaluated as given (the evaluator's kernels, MegDNN's naive definitions) and as
// the dump that rewrites it loads back, in both formats. The cases include the
// ones MegEngine's own rewrite gets wrong or refuses: a (C,)-shaped weight (with
// W = C and without), mean and variance of the (N, G) shape the forward operator
// gives them, N·G > 1 in Backward; and data that reaches the edges: a large
// offset against a small spread, a large scale, a constant group (variance 0),
// NaN and inf in one group.
//
// Tolerance: |Δ| ≤ 1e-6·max|y| + 4.8e-7·|y| (eval_test_util.h, float32: a few
// ulps and a different order of summation) plus, for data with an offset, what the
// input itself carries: x is known to half an ulp of |x|, so y = (x − mean)/σ is
// known only to about ulp(max|x|)/σ; 8 of those (times max|y|) are allowed. For
// comparison, MegEngine's E[x²] − E[x]² is off by 6e-4 at an offset of 100 and by
// 5% at 1000 (spread 1).
// Backward is also checked against the gradient of the forward definition taken
// by central differences in double precision, which neither the evaluator's
// kernel nor the rewrite computes: within 1e-4 of the largest |dx|.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/error.h"
#include "tests/eval/rewrite_test_util.h"

namespace mgedump::test {
namespace {

using engine::DumpFormat;
using engine::eval::Feeds;

constexpr DumpFormat kFormats[] = {DumpFormat::FBS_V2, DumpFormat::FBS};

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

// The tolerance for a normalization of `x` (see the header).
Tolerance norm_tolerance(const std::vector<double>& x, double min_spread) {
    double max_x = 0;
    for (double v : x)
        if (std::isfinite(v)) max_x = std::max(max_x, std::fabs(v));
    return Tolerance{4.8e-7, 1e-6 + 8 * std::ldexp(max_x, -23) / min_spread};
}

void expect_outputs_kept(const ir::Graph& g, const Feeds& feeds, std::string_view op, Tolerance tol) {
    for (DumpFormat format : kFormats) {
        SCOPED_TRACE(engine::format_name(format));
        const RewriteRun r = run_rewritten(g, feeds, format);
        // The operator may stay for its other outputs (mean, rstd, dw, db), but
        // output 0 must come from the rewrite.
        const ir::Graph& lg = r.reloaded.model.graph;
        const ir::OprId producer = lg.vars.owner[lg.outputs[0].value];
        EXPECT_NE(ir::op_def(lg.oprs.type[producer.value]).name, op) << "output 0 was not rewritten";
        ASSERT_EQ(r.rewritten.size(), r.original.size());
        for (size_t i = 0; i < r.original.size(); ++i)
            EXPECT_EQ(compare_tensors(r.rewritten[i].value, r.original[i].value, tol), "") << "output " << i;
        if (!r.original.empty())
            ::testing::Test::RecordProperty(
                std::string("max_rel_diff_") + std::string(engine::format_name(format)),
                fmt::format("{:.3g}", max_relative_difference(r.rewritten[0].value, r.original[0].value)));
    }
}

struct NormCase {
    std::string name;
    std::vector<uint32_t> x_shape;
    uint32_t group;                      // 0: InstanceNorm
    std::vector<uint32_t> weight_shape;  // empty: no weight and bias inputs
    bool affine = true;
    double offset = 0, scale = 1;
};

ir::Graph norm_graph(const NormCase& c) {
    ir::GraphBuilder b;
    std::vector<ir::VarId> in{b.input("x", kF32, c.x_shape)};
    if (!c.weight_shape.empty()) {
        in.push_back(b.input("w", kF32, c.weight_shape));
        in.push_back(b.input("b", kF32, c.weight_shape));
    }
    ir::ParamArgs args{{"eps", 1e-4f}, {"affine", c.affine ? 1 : 0}};
    if (c.group) args.push_back({"group", static_cast<int>(c.group)});
    b.output(b.op(c.group ? "GroupNorm" : "InstanceNorm", in, args), "y");
    return b.finish();
}

Feeds norm_feeds(const NormCase& c, std::vector<double> x) {
    Feeds f{{"x", tensor_of(kF32, c.x_shape, x)}};
    if (!c.weight_shape.empty()) {
        const uint32_t n = product(c.weight_shape);
        std::vector<double> w(n), bias(n);
        for (uint32_t i = 0; i < n; ++i) {
            w[i] = 0.5 + 0.75 * i;  // distinct per channel, so a misplaced channel shows
            bias[i] = -1.0 + 0.5 * i;
        }
        f.emplace("w", tensor_of(kF32, c.weight_shape, w));
        f.emplace("b", tensor_of(kF32, c.weight_shape, bias));
    }
    return f;
}

class NormRewrite : public testing::TestWithParam<NormCase> {};

TEST_P(NormRewrite, KeepsTheNumbersOfTheOperator) {
    const NormCase& c = GetParam();
    const std::vector<double> x = normal_values(product(c.x_shape), c.offset, c.scale, 7);
    expect_outputs_kept(norm_graph(c), norm_feeds(c, x), c.group ? "GroupNorm" : "InstanceNorm",
                        norm_tolerance(x, 0.5 * c.scale));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, NormRewrite,
    testing::Values(NormCase{"GroupNorm_no_affine", {2, 4, 3, 3}, 2, {}, false},
                    NormCase{"GroupNorm_weight_1C11", {2, 4, 3, 3}, 2, {1, 4, 1, 1}},
                    NormCase{"GroupNorm_weight_C11", {2, 4, 3, 3}, 2, {4, 1, 1}},
                    // MegEngine Python's shape; MegEngine's rewrite scales along W when W = C...
                    NormCase{"GroupNorm_weight_C_W_eq_C", {2, 4, 3, 4}, 2, {4}},
                    // ... and is refused otherwise.
                    NormCase{"GroupNorm_weight_C", {2, 4, 3, 3}, 2, {4}},
                    NormCase{"GroupNorm_one_group", {1, 6, 2, 5}, 1, {6}},
                    NormCase{"GroupNorm_group_per_channel", {2, 4, 2, 2}, 4, {1, 4, 1, 1}},
                    // Weight and bias present but affine=false: the operator does not read them.
                    NormCase{"GroupNorm_inputs_without_affine", {2, 4, 3, 3}, 2, {4}, false},
                    NormCase{"GroupNorm_large_offset", {2, 4, 3, 3}, 2, {4}, true, 1000.0, 1.0},
                    NormCase{"GroupNorm_offset_1e4", {2, 4, 3, 3}, 2, {}, false, 1e4, 1.0},
                    NormCase{"GroupNorm_large_scale", {2, 4, 3, 3}, 2, {4}, true, 0.0, 1e4},
                    NormCase{"InstanceNorm_no_affine", {2, 4, 3, 3}, 0, {}, false},
                    NormCase{"InstanceNorm_weight_1C11", {2, 4, 3, 3}, 0, {1, 4, 1, 1}},
                    NormCase{"InstanceNorm_weight_C_W_eq_C", {2, 4, 3, 4}, 0, {4}},
                    NormCase{"InstanceNorm_weight_C", {2, 4, 3, 3}, 0, {4}},
                    NormCase{"InstanceNorm_large_offset", {2, 3, 4, 4}, 0, {3}, true, 1000.0, 1.0}),
    [](const testing::TestParamInfo<NormCase>& info) { return info.param.name; });

TEST(NormRewrite, ConstantGroupNaNAndInfKeepTheOperatorsValues) {
    // Group 0 of sample 0 constant (variance 0: y = 0/sqrt(eps) = 0), group 1 of
    // sample 0 holds a NaN, group 0 of sample 1 an inf (both: the whole group NaN),
    // group 1 of sample 1 ordinary.
    const NormCase c{"special", {2, 4, 3, 3}, 2, {4}};
    std::vector<double> x = normal_values(72, 0, 1, 3);
    for (int i = 0; i < 18; ++i) x[i] = 3.0;
    x[20] = kNaN;
    x[40] = kInf;
    expect_outputs_kept(norm_graph(c), norm_feeds(c, x), "GroupNorm", norm_tolerance(x, 0.5));
    const NormCase inst{"special", {2, 4, 3, 3}, 0, {4}};
    expect_outputs_kept(norm_graph(inst), norm_feeds(inst, x), "InstanceNorm", norm_tolerance(x, 0.5));
}

TEST(NormRewrite, MeanAndRstdOutputsStayTheOperators) {
    // All three outputs requested: y from the rewrite, mean and rstd from the
    // operator, which the dump keeps for them.
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {2, 4, 3, 3});
    ir::VarId y = b.op("GroupNorm", {x}, {{"group", 2}, {"affine", 0}});
    const ir::OprId gn = b.graph().vars.owner[y.value];
    b.output(y, "y");
    b.output(b.graph().output_var(gn, 1), "mean");
    b.output(b.graph().output_var(gn, 2), "rstd");
    const std::vector<double> xs = normal_values(72, 0, 1, 5);
    expect_outputs_kept(b.finish(), {{"x", tensor_of(kF32, {2, 4, 3, 3}, xs)}}, "GroupNorm",
                        norm_tolerance(xs, 0.5));
}

// --- Backward ------------------------------------------------------------------------------

struct BackwardCase {
    std::string name;
    std::vector<uint32_t> x_shape;
    uint32_t group;                      // 0: InstanceNormBackward
    std::vector<uint32_t> weight_shape;  // empty: affine=false, 4 inputs
};

uint32_t groups_of(const BackwardCase& c) { return c.group ? c.group : c.x_shape[1]; }

// The forward statistics of `x` in double: mean and (biased) variance per
// (sample, group), as GroupNorm's outputs 1 and 2 hold them.
void group_stats(const BackwardCase& c, const std::vector<double>& x, std::vector<double>& mean,
                 std::vector<double>& var) {
    const uint32_t n = c.x_shape[0], g = groups_of(c);
    const size_t size = x.size() / (n * g);
    mean.assign(n * g, 0);
    var.assign(n * g, 0);
    for (size_t k = 0; k < n * g; ++k) {
        for (size_t j = 0; j < size; ++j) mean[k] += x[k * size + j];
        mean[k] /= size;
        for (size_t j = 0; j < size; ++j) var[k] += (x[k * size + j] - mean[k]) * (x[k * size + j] - mean[k]);
        var[k] /= size;
    }
}

// Σ dy·y for y = GroupNorm(x) with weight w (per channel) and no bias, in double:
// the function whose gradient GroupNormBackward's dx is.
double forward_dot(const BackwardCase& c, const std::vector<double>& x, const std::vector<double>& dy,
                   const std::vector<double>& w, double eps) {
    std::vector<double> mean, var;
    group_stats(c, x, mean, var);
    const uint32_t n = c.x_shape[0], ch = c.x_shape[1], g = groups_of(c);
    const size_t hw = x.size() / (n * ch), size = x.size() / (n * g);
    double dot = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const size_t k = i / size, channel = (i / hw) % ch;
        const double weight = w.empty() ? 1.0 : w[channel];
        dot += dy[i] * weight * (x[i] - mean[k]) / std::sqrt(var[k] + eps);
    }
    return dot;
}

class BackwardRewrite : public testing::TestWithParam<BackwardCase> {};

TEST_P(BackwardRewrite, GivesTheOperatorsDxAndTheTrueGradient) {
    const BackwardCase& c = GetParam();
    const uint32_t n = c.x_shape[0], g = groups_of(c), elements = product(c.x_shape);
    const bool affine = !c.weight_shape.empty();
    const double eps = 1e-4;
    const std::vector<double> x = normal_values(elements, 0.5, 1.5, 11);
    const std::vector<double> dy = normal_values(elements, 0, 1, 12);
    std::vector<double> w;
    for (uint32_t i = 0; affine && i < product(c.weight_shape); ++i) w.push_back(0.5 + 0.75 * i);
    std::vector<double> mean, var;
    group_stats(c, x, mean, var);
    for (double& v : mean) v = static_cast<float>(v);
    for (double& v : var) v = static_cast<float>(v);

    ir::GraphBuilder b;
    std::vector<ir::VarId> in{b.input("dy", kF32, c.x_shape), b.input("x", kF32, c.x_shape)};
    if (affine) in.push_back(b.input("w", kF32, c.weight_shape));
    in.push_back(b.input("mean", kF32, {n, g}));
    in.push_back(b.input("rstd", kF32, {n, g}));
    ir::ParamArgs args{{"eps", static_cast<float>(eps)}, {"affine", affine ? 1 : 0}};
    if (c.group) args.push_back({"group", static_cast<int>(c.group)});
    const std::string op = c.group ? "GroupNormBackward" : "InstanceNormBackward";
    b.output(b.op(op, in, args), "dx");
    const ir::Graph graph = b.finish();

    Feeds feeds{{"dy", tensor_of(kF32, c.x_shape, dy)},
                {"x", tensor_of(kF32, c.x_shape, x)},
                {"mean", tensor_of(kF32, {n, g}, mean)},
                {"rstd", tensor_of(kF32, {n, g}, var)}};
    if (affine) feeds.emplace("w", tensor_of(kF32, c.weight_shape, w));
    expect_outputs_kept(graph, feeds, op, Tolerance{4.8e-7, 1e-6});

    // The gradient of Σ dy·GroupNorm(x) by central differences, in double.
    std::vector<double> grad(elements);
    double max_grad = 0;
    for (uint32_t i = 0; i < elements; ++i) {
        const double h = 1e-6;
        std::vector<double> up = x, down = x;
        up[i] += h;
        down[i] -= h;
        grad[i] = (forward_dot(c, up, dy, w, eps) - forward_dot(c, down, dy, w, eps)) / (2 * h);
        max_grad = std::max(max_grad, std::fabs(grad[i]));
    }
    const Reloaded r = dump_and_reload(graph, DumpFormat::FBS_V2);
    const auto dx = storage_values(engine::eval::evaluate(r.model.graph, feeds)[0].value);
    double worst = 0;
    for (uint32_t i = 0; i < elements; ++i) worst = std::max(worst, std::fabs(dx[i] - grad[i]));
    EXPECT_LE(worst, 1e-4 * max_grad) << "the rewritten dx is not the gradient of the forward definition";
    RecordProperty("gradient_rel_error", fmt::format("{:.3g}", worst / max_grad));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BackwardRewrite,
    testing::Values(
        // MegEngine's rewrite runs only here (mean and rstd broadcast), with a wrong dx.
        BackwardCase{"GroupNormBackward_N1_G1", {1, 4, 3, 3}, 1, {1, 4, 1, 1}},
        // MegEngine refuses these: (N, G) statistics do not broadcast against its (N, G, S).
        BackwardCase{"GroupNormBackward_N2_G2", {2, 4, 3, 3}, 2, {1, 4, 1, 1}},
        BackwardCase{"GroupNormBackward_weight_C", {2, 4, 3, 3}, 2, {4}},
        BackwardCase{"GroupNormBackward_no_affine", {2, 4, 3, 3}, 2, {}},
        BackwardCase{"InstanceNormBackward_N1", {1, 1, 3, 3}, 0, {1, 1, 1, 1}},
        BackwardCase{"InstanceNormBackward_N2_C3", {2, 3, 2, 3}, 0, {3}},
        BackwardCase{"InstanceNormBackward_no_affine", {2, 3, 2, 3}, 0, {}}),
    [](const testing::TestParamInfo<BackwardCase>& info) { return info.param.name; });

TEST(BackwardRewrite, StatisticsWithTheWrongElementCountAreRefusedNamingTheOperator) {
    ir::GraphBuilder b;
    ir::VarId dy = b.input("dy", kF32, {2, 4, 3, 3});
    ir::VarId x = b.input("x", kF32, {2, 4, 3, 3});
    ir::VarId w = b.input("w", kF32, {4});
    ir::VarId mean = b.input("mean", kF32, {2, 3});
    ir::VarId rstd = b.input("rstd", kF32, {2, 3});
    ir::OpOptions named;
    named.name = "gnb";
    b.output(b.op("GroupNormBackward", {dy, x, w, mean, rstd}, {{"group", 2}}, named), "dx");
    try {
        dump_and_reload(b.finish(), DumpFormat::FBS_V2);
        FAIL() << "expected GraphError";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'gnb' (GroupNormBackward)"), std::string::npos) << what;
        EXPECT_NE(what.find("needs 4 elements"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace mgedump::test
