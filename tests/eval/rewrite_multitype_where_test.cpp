// The ElemwiseMultiType comparison rewrites and the Where rewrite (spec §9.1,
// engine/passes/rules_multitype_where.cpp) keep the numbers of the operator they
// replace: evaluated as given and as the dump that rewrites it loads back, in both
// formats. Comparisons give Bool, compared exactly; Where selects, so its result
// is exact too (a selected value plus 0).
#include <gtest/gtest.h>

#include "tests/eval/rewrite_test_util.h"

namespace mgedump::test {
namespace {

using engine::DumpFormat;
using engine::eval::Feeds;

constexpr DumpFormat kFormats[] = {DumpFormat::FBS_V2, DumpFormat::FBS};

ir::Graph multi_type_graph(std::string_view mode, ir::DType dtype, size_t n) {
    ir::GraphBuilder b;
    const auto len = static_cast<uint32_t>(n);
    std::vector<ir::VarId> inputs{b.input("a", dtype, {len})};
    if (mode != "ISNAN" && mode != "ISINF") inputs.push_back(b.input("b", dtype, {len}));
    b.output(b.op("ElemwiseMultiType", inputs, {{"mode", std::string(mode)}},
                  ir::OpOptions{.output_dtype = kBool}),
             "m");
    return b.finish();
}

void expect_exact_after_rewrite(const ir::Graph& g, const Feeds& feeds, const std::string& rewritten_label) {
    for (DumpFormat format : kFormats) {
        SCOPED_TRACE(engine::format_name(format));
        const RewriteRun r = run_rewritten(g, feeds, format);
        EXPECT_FALSE(has_operator(r.reloaded.model.graph, rewritten_label)) << "no rewrite was applied";
        ASSERT_EQ(r.rewritten.size(), r.original.size());
        for (size_t i = 0; i < r.original.size(); ++i)
            EXPECT_EQ(compare_exact(r.rewritten[i].value, r.original[i].value), "");
    }
}

// Pairs that reach every outcome of a comparison: equal, ordered both ways, ±0,
// subnormals, infinities, NaN on either side.
struct Pairs {
    std::vector<double> a, b;
};
Pairs comparison_pairs() {
    const double values[] = {0.0, -0.0, 1e-40, -1e-40, 1.0, -1.0, 2.5, 3.4e38, -3.4e38, kInf, -kInf, kNaN};
    Pairs p;
    for (double x : values)
        for (double y : values) {
            p.a.push_back(x);
            p.b.push_back(y);
        }
    return p;
}

class ComparisonRewrite : public testing::TestWithParam<const char*> {};

TEST_P(ComparisonRewrite, KeepsTheResultOfEveryPair) {
    const Pairs p = comparison_pairs();
    for (ir::DType dtype : {kF32, kF16}) {
        SCOPED_TRACE(ir::dtype_name(dtype.type));
        const ir::Graph g = multi_type_graph(GetParam(), dtype, p.a.size());
        expect_exact_after_rewrite(g, {{"a", tensor_of(dtype, p.a)}, {"b", tensor_of(dtype, p.b)}},
                                   fmt::format("ElemwiseMultiType({})", GetParam()));
    }
}

TEST_P(ComparisonRewrite, KeepsTheResultOnIntegers) {
    const std::vector<double> a{-2147483647.0, -1, 0, 0, 5, 2147483647.0, 7};
    const std::vector<double> b{-2147483647.0, 0, 0, -1, 5, -2147483647.0, 8};
    const ir::Graph g = multi_type_graph(GetParam(), kI32, a.size());
    expect_exact_after_rewrite(g, {{"a", tensor_of(kI32, a)}, {"b", tensor_of(kI32, b)}},
                               fmt::format("ElemwiseMultiType({})", GetParam()));
}

INSTANTIATE_TEST_SUITE_P(EveryRewrittenComparison, ComparisonRewrite,
                         testing::Values("EQ", "NEQ", "LT", "LEQ"),
                         [](const testing::TestParamInfo<const char*>& info) {
                             return std::string(info.param);
                         });

std::vector<double> special_values() {
    return {0.0, -0.0, 1e-40, -1e-40, 1.0, -2.0, 65504.0, 3.4e38, -3.4e38, kInf, -kInf, kNaN, -kNaN};
}

TEST(MultiTypeRewrite, IsnanKeepsTheResult) {
    for (ir::DType dtype : {kF32, kF16}) {
        SCOPED_TRACE(ir::dtype_name(dtype.type));
        const auto v = special_values();
        expect_exact_after_rewrite(multi_type_graph("ISNAN", dtype, v.size()), {{"a", tensor_of(dtype, v)}},
                                   "ElemwiseMultiType(ISNAN)");
    }
}

TEST(MultiTypeRewrite, IsinfKeepsTheResultForBothInfinities) {
    for (ir::DType dtype : {kF32, kF16}) {
        SCOPED_TRACE(ir::dtype_name(dtype.type));
        const auto v = special_values();
        expect_exact_after_rewrite(multi_type_graph("ISINF", dtype, v.size()), {{"a", tensor_of(dtype, v)}},
                                   "ElemwiseMultiType(ISINF)");
    }
}

TEST(MultiTypeRewrite, IsinfIsTrueForMinusInfinity) {
    // ISINF is isinf(float(x)) (kern_defs.cuh); MegEngine's rewrite compares x
    // with +inf only and gives false here. Expected values written from the
    // definition.
    const std::vector<double> v{-kInf, kInf, -3.4e38, 0.0, kNaN};
    const std::vector<double> want{1, 1, 0, 0, 0};
    for (DumpFormat format : kFormats) {
        const Reloaded r = dump_and_reload(multi_type_graph("ISINF", kF32, v.size()), format);
        const auto out = engine::eval::evaluate(r.model.graph, {{"a", tensor_of(kF32, v)}});
        EXPECT_EQ(compare_exact(out[0].value, tensor_of(kBool, want)), "") << engine::format_name(format);
    }
}

// --- Where ---------------------------------------------------------------------------------

ir::Graph where_graph(ir::DType dtype, std::vector<uint32_t> mask_shape, std::vector<uint32_t> shape) {
    ir::GraphBuilder b;
    ir::VarId mask = b.input("mask", kBool, std::move(mask_shape));
    ir::VarId x = b.input("x", dtype, shape);
    ir::VarId y = b.input("y", dtype, shape);
    b.output(b.op("Where", {mask, x, y}), "w");
    return b.finish();
}

TEST(WhereRewrite, KeepsTheSelectedValueEvenWhereTheOtherIsNotFinite) {
    // Each special value of x against each of y, both mask values: a NaN or an
    // infinity on the side not taken must not leak into the result.
    const auto specials = special_values();
    std::vector<double> m, x, y;
    for (double a : specials)
        for (double c : specials)
            for (int take_x = 0; take_x < 2; ++take_x) {
                m.push_back(take_x);
                x.push_back(a);
                y.push_back(c);
            }
    const auto n = static_cast<uint32_t>(m.size());
    for (ir::DType dtype : {kF32, kF16}) {
        SCOPED_TRACE(ir::dtype_name(dtype.type));
        expect_exact_after_rewrite(
            where_graph(dtype, {n}, {n}),
            {{"mask", tensor_of(kBool, m)}, {"x", tensor_of(dtype, x)}, {"y", tensor_of(dtype, y)}}, "Where");
    }
}

TEST(WhereRewrite, KeepsTheNumbersOnIntegers) {
    const std::vector<double> m{1, 0, 1, 0}, x{-2147483647.0, 3, 0, 7}, y{5, -2147483647.0, 9, 0};
    expect_exact_after_rewrite(
        where_graph(kI32, {4}, {4}),
        {{"mask", tensor_of(kBool, m)}, {"x", tensor_of(kI32, x)}, {"y", tensor_of(kI32, y)}}, "Where");
}

}  // namespace
}  // namespace mgedump::test
