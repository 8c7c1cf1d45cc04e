// The Elemwise compatibility rewrites (spec §9.1, engine/passes/rules_elemwise.cpp)
// keep the numbers of the mode they replace: a one-operator graph is evaluated as
// given (the evaluator's kernel for the mode, MegDNN's kern_defs.cuh definition)
// and as the dump that rewrites it loads back, in both formats, on inputs that
// reach the edge cases: ±0, subnormals, values around the branch points (±1, ±3,
// ±6), arguments where a naive formula cancels or overflows (x ≤ −17, |x| ≥ 4096,
// |x| ≥ 1e19), the ends of the float range, ±inf and NaN.
//
// Tolerance: 4 units in the last place of the operator's value per element (the
// operator rounds once in libm, ≤ 1 ulp; a rewrite chains 2–12 operations, each
// rounding once, arranged so that nothing cancels: measured ≤ 3 ulps); NaN
// exactly where the operator gives NaN, the same infinity where it gives one;
// integer dtypes exactly. Float16: each operation of a rewrite rounds to half, so
// 4 half ulps.
//
// Known limits of the rewrites, pinned in KnownLimits below (README, "Deliberate
// differences"): SQRT(−inf) is +inf (POW(−inf, 0.5) = +inf); COSH and SINH
// overflow to ±inf for 88.72 < |x| < 89.42, where coshf/sinhf are still finite
// (> 1.7e38); ASINH and ACOSH overflow for |x| > 1.7e38.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/eval/rewrite_test_util.h"

namespace mgedump::test {
namespace {

using engine::DumpFormat;
using engine::eval::Feeds;

constexpr DumpFormat kFormats[] = {DumpFormat::FBS_V2, DumpFormat::FBS};

// Every value where one of the rewritten modes changes behaviour, both signs,
// plus a log-spaced sweep from 1e-6 to 1e6.
std::vector<double> edge_values() {
    const float magnitudes[] = {0.0f,   1e-40f,      1e-30f, 1e-8f,      6e-8f,   1e-4f, 0.1f,   0.5f,
                                0.999f, 0.99999994f, 1.0f,   1.0000001f, 1.5f,    2.0f,  3.0f,   6.0f,
                                7.0f,   17.5f,       20.0f,  50.0f,      88.0f,   89.5f, 100.0f, 4096.0f,
                                1e4f,   1e10f,       1e20f,  1e30f,      1.5e38f, kInf};
    std::vector<double> v;
    for (float m : magnitudes) {
        v.push_back(m);
        v.push_back(-m);
    }
    for (int k = -24; k <= 24; ++k) {
        const float m = static_cast<float>(std::pow(10.0, k / 4.0));
        v.push_back(m);
        v.push_back(-m);
    }
    v.push_back(kNaN);
    return v;
}

// The documented limits (see the header), per dtype: values excluded from the
// keeps-the-numbers tests and pinned in KnownLimits instead.
bool known_limit(std::string_view mode, ir::DTypeEnum dtype, double x) {
    const bool half = dtype == ir::DTypeEnum::Float16;
    const double a = std::fabs(x);
    if (mode == "SQRT") return x == -kInf;
    // Where exp(|x|) overflows but cosh(x) does not: ln(max) < |x| < ln(2·max).
    if (mode == "COSH" || mode == "SINH") return half ? a > 11.08 && a < 11.79 : a > 88.72 && a < 89.42;
    // Where 2|x| overflows.
    if (mode == "ASINH" || mode == "ACOSH") return half ? a > 32752 : a > 1.7e38;
    return false;
}

std::vector<double> inputs_for(std::string_view mode, const engine::eval::Tensor& x) {
    std::vector<double> kept;
    for (double v : storage_values(x))
        if (!known_limit(mode, x.dtype().type, v)) kept.push_back(v);
    return kept;
}

ir::Graph unary_graph(std::string_view mode, ir::DType dtype, size_t n) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", dtype, {static_cast<uint32_t>(n)});
    b.output(b.op("Elemwise", {x}, {{"mode", std::string(mode)}}), "y");
    return b.finish();
}

// The mode runs and is gone from the dump; every output within `ulps` of the
// operator's. Returns the largest difference seen (in ulps).
double expect_rewrite_keeps_numbers(const ir::Graph& g, const Feeds& feeds, std::string_view mode,
                                    double ulps, const std::vector<double>& xs) {
    double worst = 0;
    for (DumpFormat format : kFormats) {
        SCOPED_TRACE(engine::format_name(format));
        const RewriteRun r = run_rewritten(g, feeds, format);
        EXPECT_FALSE(has_operator(r.reloaded.model.graph, fmt::format("Elemwise({})", mode)))
            << "the dump still has the mode: no rewrite was applied";
        EXPECT_EQ(r.rewritten.size(), r.original.size());
        for (size_t i = 0; i < std::min(r.original.size(), r.rewritten.size()); ++i) {
            const UlpReport rep = compare_ulps(r.rewritten[i].value, r.original[i].value, ulps, xs);
            EXPECT_EQ(rep.problem, "") << mode;
            worst = std::max(worst, rep.max_ulps);
        }
    }
    return worst;
}

class UnaryRewrite : public testing::TestWithParam<const char*> {};

TEST_P(UnaryRewrite, KeepsTheNumbersOfTheModeInFloat32) {
    const char* mode = GetParam();
    const std::vector<double> xs = inputs_for(mode, tensor_of(kF32, edge_values()));
    const double worst = expect_rewrite_keeps_numbers(unary_graph(mode, kF32, xs.size()),
                                                      {{"x", tensor_of(kF32, xs)}}, mode, 4, xs);
    RecordProperty("max_ulps", fmt::format("{:.2f}", worst));
}

TEST_P(UnaryRewrite, KeepsTheNumbersOfTheModeInFloat16) {
    const char* mode = GetParam();
    // The same values rounded to half (beyond 65504 they become ±inf).
    const std::vector<double> xs = inputs_for(mode, tensor_of(kF16, edge_values()));
    const double worst = expect_rewrite_keeps_numbers(unary_graph(mode, kF16, xs.size()),
                                                      {{"x", tensor_of(kF16, xs)}}, mode, 4, xs);
    RecordProperty("max_ulps", fmt::format("{:.2f}", worst));
}

INSTANTIATE_TEST_SUITE_P(EveryRewrittenUnaryMode, UnaryRewrite,
                         testing::Values("SQRT", "SQUARE", "TAN", "COSH", "SINH", "ASINH", "ACOSH", "ATANH",
                                         "SIGN", "HSIGMOID", "RELU6", "SOFTPLUS", "LOGSIGMOID"),
                         [](const testing::TestParamInfo<const char*>& info) {
                             return std::string(info.param);
                         });

// ATANH between −1 and 1, densely: MegEngine's log1p(2x/(1−x))/2 is off by up to
// ~5e-6 relative (40 ulps) near −1; ours must stay within rounding everywhere.
TEST(ElemwiseRewrite, AtanhKeepsTheNumbersAcrossItsWholeDomain) {
    std::vector<double> xs;
    for (int i = -2000; i <= 2000; ++i) xs.push_back(static_cast<float>(i / 2000.0));
    for (int k = 1; k <= 23; ++k) {
        xs.push_back(1.0f - std::ldexp(1.0f, -k));
        xs.push_back(-(1.0f - std::ldexp(1.0f, -k)));
    }
    expect_rewrite_keeps_numbers(unary_graph("ATANH", kF32, xs.size()), {{"x", tensor_of(kF32, xs)}}, "ATANH",
                                 4, xs);
}

// ACOSH just above 1, where x² − 1 would cancel (MegEngine's spelling: 2e-5
// relative off at 1.000001).
TEST(ElemwiseRewrite, AcoshKeepsTheNumbersJustAboveOne) {
    std::vector<double> xs;
    for (int k = 1; k <= 200; ++k) xs.push_back(std::nextafter(1.0f, 2.0f) + k * 1e-7f);
    expect_rewrite_keeps_numbers(unary_graph("ACOSH", kF32, xs.size()), {{"x", tensor_of(kF32, xs)}}, "ACOSH",
                                 4, xs);
}

TEST(ElemwiseRewrite, SignIsOneForPositiveMinusOneForNegativeAndZeroForZeroAndNaN) {
    // MegEngine's LT(x,0) − LT(0,x) gives the opposite sign; the values here are
    // the definition (kern_defs.cuh: x < 0 ? −1 : (x > 0 ? 1 : 0)), written out.
    const std::vector<double> xs{-kInf, -3.5, -1e-40, -0.0, 0.0, 1e-40, 2.0, kInf, kNaN};
    const std::vector<double> sign{-1, -1, -1, 0, 0, 1, 1, 1, 0};
    for (DumpFormat format : kFormats) {
        const Reloaded r = dump_and_reload(unary_graph("SIGN", kF32, xs.size()), format);
        const auto out = engine::eval::evaluate(r.model.graph, {{"x", tensor_of(kF32, xs)}});
        EXPECT_EQ(compare_exact(out[0].value, tensor_of(kF32, sign)), "") << engine::format_name(format);
    }
}

// Integer modes: exact.
TEST(ElemwiseRewrite, IntegerSignAndRelu6KeepTheNumbersExactly) {
    const std::vector<double> xs{-2147483647.0, -7, -6, -1, 0, 1, 5, 6, 7, 2147483647.0};
    for (const char* mode : {"SIGN", "RELU6"}) {
        const ir::Graph g = unary_graph(mode, kI32, xs.size());
        for (DumpFormat format : kFormats) {
            const RewriteRun r = run_rewritten(g, {{"x", tensor_of(kI32, xs)}}, format);
            EXPECT_FALSE(has_operator(r.reloaded.model.graph, fmt::format("Elemwise({})", mode)));
            EXPECT_EQ(compare_exact(r.rewritten[0].value, r.original[0].value), "")
                << mode << " " << engine::format_name(format);
        }
    }
}

// --- modes with more inputs --------------------------------------------------------

TEST(ElemwiseRewrite, ClipKeepsTheNumbersForEveryXIncludingNaN) {
    // CLIP(x, lo, hi) = x <= lo ? lo : (x <= hi ? x : hi): NaN gives hi.
    const std::vector<double> xs = edge_values();
    for (auto [lo, hi] : {std::pair{-2.5, 6.0}, std::pair{0.0, 0.0}, std::pair<double, double>{-kInf, kInf},
                          std::pair{-1e-40, 1e30}}) {
        ir::GraphBuilder b;
        ir::VarId x = b.input("x", kF32, {static_cast<uint32_t>(xs.size())});
        ir::VarId l = b.input("lo", kF32, {1});
        ir::VarId h = b.input("hi", kF32, {1});
        b.output(b.op("Elemwise", {x, l, h}, {{"mode", "CLIP"}}), "y");
        const Feeds feeds{
            {"x", tensor_of(kF32, xs)}, {"lo", tensor_of(kF32, {lo})}, {"hi", tensor_of(kF32, {hi})}};
        SCOPED_TRACE(fmt::format("lo {} hi {}", lo, hi));
        expect_rewrite_keeps_numbers(b.finish(), feeds, "CLIP", 0, xs);
    }
}

TEST(ElemwiseRewrite, ClipWithPerElementBoundsKeepsTheNumbers) {
    const std::vector<double> xs{-5, -1, 0, 1, 5, kNaN, kInf, -kInf};
    const std::vector<double> lo{-1, -1, 0, 2, -6, -1, -1, -1};
    const std::vector<double> hi{1, -1, 0, 3, 4, 1, 1, 1};
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {8});
    ir::VarId l = b.input("lo", kF32, {8});
    ir::VarId h = b.input("hi", kF32, {8});
    b.output(b.op("Elemwise", {x, l, h}, {{"mode", "CLIP"}}), "y");
    const Feeds feeds{{"x", tensor_of(kF32, xs)}, {"lo", tensor_of(kF32, lo)}, {"hi", tensor_of(kF32, hi)}};
    expect_rewrite_keeps_numbers(b.finish(), feeds, "CLIP", 0, xs);
}

TEST(ElemwiseRewrite, IntegerClipKeepsTheNumbersExactly) {
    const std::vector<double> xs{-2147483647.0, -7, -3, 0, 2, 9, 2147483647.0};
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kI32, {7});
    ir::VarId l = b.input("lo", kI32, {1});
    ir::VarId h = b.input("hi", kI32, {1});
    b.output(b.op("Elemwise", {x, l, h}, {{"mode", "CLIP"}}), "y");
    const Feeds feeds{
        {"x", tensor_of(kI32, xs)}, {"lo", tensor_of(kI32, {-3})}, {"hi", tensor_of(kI32, {2})}};
    for (DumpFormat format : kFormats) {
        const RewriteRun r = run_rewritten(b.graph(), feeds, format);
        EXPECT_EQ(compare_exact(r.rewritten[0].value, r.original[0].value), "")
            << engine::format_name(format);
    }
}

TEST(ElemwiseRewrite, PreluKeepsTheNumbersForEveryXAndFiniteWeights) {
    // PRELU(x, w) = x > 0 ? x : x·w. Weights are finite (a non-finite weight
    // times the 0 of MIN(0, x) is NaN where PRELU gives x: a known limit).
    const std::vector<double> base = edge_values();
    const double weights[] = {0.25, -2.0, 0.0, 1e10, 3e-3, 1.0};
    std::vector<double> xs, ws;
    for (double w : weights)
        for (double x : base) {
            xs.push_back(x);
            ws.push_back(w);
        }
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {static_cast<uint32_t>(xs.size())});
    ir::VarId w = b.input("w", kF32, {static_cast<uint32_t>(xs.size())});
    b.output(b.op("Elemwise", {x, w}, {{"mode", "PRELU"}}), "y");
    expect_rewrite_keeps_numbers(b.finish(), {{"x", tensor_of(kF32, xs)}, {"w", tensor_of(kF32, ws)}},
                                 "PRELU", 0, xs);
}

TEST(ElemwiseRewrite, PreluWithAChannelWeightBroadcastKeepsTheNumbers) {
    // The usual layout: x (N, C, H, W), w (1, C, 1, 1).
    std::vector<double> xs, ws{0.1, -0.5, 2.0};
    for (int i = 0; i < 2 * 3 * 2 * 2; ++i) xs.push_back(i == 5 ? kNaN : (i % 7) - 3.5);
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {2, 3, 2, 2});
    ir::VarId w = b.input("w", kF32, {1, 3, 1, 1});
    b.output(b.op("Elemwise", {x, w}, {{"mode", "PRELU"}}), "y");
    expect_rewrite_keeps_numbers(
        b.finish(), {{"x", tensor_of(kF32, {2, 3, 2, 2}, xs)}, {"w", tensor_of(kF32, {1, 3, 1, 1}, ws)}},
        "PRELU", 0, xs);
}

// --- what the rewrites do not keep, exactly ------------------------------------------

// Each is a value where the rewrite and the mode disagree; the test pins what the
// rewrite gives, so that a change shows (README, "Deliberate differences").
TEST(ElemwiseRewrite, KnownLimits) {
    struct Limit {
        const char* mode;
        ir::DType dtype;
        double x;
        double rewritten;  // what the rewrite computes
        bool mode_is_finite;
    };
    const Limit limits[] = {
        {"SQRT", kF32, -kInf, kInf, false},  // sqrtf(−inf) is NaN
        {"COSH", kF32, 89.0, kInf, true},    // coshf(89) = 2.24e38
        {"COSH", kF32, -88.8, kInf, true},   {"SINH", kF32, 89.0, kInf, true},
        {"SINH", kF32, -88.8, -kInf, true},  {"ASINH", kF32, 3e38, kInf, true},  // asinhf(3e38) = 89.3
        {"ASINH", kF32, -3e38, -kInf, true}, {"ACOSH", kF32, 3e38, kInf, true},
        {"COSH", kF16, 11.5, kInf, true},  // cosh(11.5) = 49370 in half
        {"ASINH", kF16, 60000, kInf, true},
    };
    for (const Limit& l : limits) {
        SCOPED_TRACE(fmt::format("{}({}) {}", l.mode, l.x, ir::dtype_name(l.dtype.type)));
        EXPECT_TRUE(known_limit(l.mode, l.dtype.type, l.x));
        const ir::Graph g = unary_graph(l.mode, l.dtype, 1);
        const RewriteRun r = run_rewritten(g, {{"x", tensor_of(l.dtype, {l.x})}}, DumpFormat::FBS_V2);
        const double got = storage_values(r.rewritten[0].value)[0];
        const double want = storage_values(r.original[0].value)[0];
        EXPECT_EQ(got, l.rewritten);
        EXPECT_EQ(std::isfinite(want), l.mode_is_finite) << want;
        if (!l.mode_is_finite) {
            EXPECT_TRUE(std::isnan(want)) << want;
        }
    }
}

}  // namespace
}  // namespace mgedump::test
