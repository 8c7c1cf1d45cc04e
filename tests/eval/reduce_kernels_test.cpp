// The reduce family's kernels (engine/eval/kernels_reduce.cpp, reduce_naive.cpp)
// on small graphs, for what the MegEngine oracle graphs do not cover: the naive
// kernel's pairwise summation order, integer wrapping and truncation, NaN,
// Float16 rounding per data_type, quantized accumulators, reductions over
// several axes, no-op and empty reductions, ties in Argmax/Argsort/TopK.
//
// Expected values are worked from MegDNN's definitions by hand (the arithmetic
// is in the comments) or, for float rounding, with numpy float32/float16 scalar
// arithmetic in the order the definition gives (dnn/src/naive/reduce: a range is
// halved recursively and the halves are combined).
#include <gtest/gtest.h>

#include <string>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

template <class T>
std::vector<int64_t> stored(const Tensor& t) {
    std::vector<int64_t> out;
    for (T v : t.data<T>()) out.push_back(v);
    return out;
}

// One input "x" fed `v`, one Reduce with `params`. With `shape_at_run_time` the
// input declares no shape, so that only the evaluator sees the one fed (as with a
// shape a graph computes), not inference.
Tensor reduce_of(DType d, std::vector<uint32_t> shape, std::vector<double> v, const ir::ParamArgs& params,
                 std::vector<int32_t> target = {}, bool shape_at_run_time = false) {
    GraphBuilder b;
    VarId x = b.input("x", d, shape_at_run_time ? std::vector<uint32_t>{} : shape);
    std::vector<VarId> in{x};
    if (!target.empty()) in.push_back(constant(b, I32, {static_cast<uint32_t>(target.size())}, target));
    VarId y = b.op("Reduce", in, params);
    return run(b, {y}, {{"x", tensor(d, shape, v)}})[0];
}

// ---------------------------------------------------------------- Reduce

TEST(ReduceKernels, SumAddsInTheNaiveKernelsHalvingOrder) {
    // [1e8, 1, -1e8, 1]: (1e8 + 1) + (-1e8 + 1) = 1e8 + -1e8 = 0 in float32 (each
    // +1 is lost to rounding); left to right would give 1.
    // [1, 1e8, -1e8]: halves [0,1) and [1,3): 1 + (1e8 + -1e8) = 1 (left to right: 0).
    const Tensor a = reduce_of(F32, {1, 4}, {1e8, 1, -1e8, 1}, {{"mode", "SUM"}, {"axis", 1}});
    const Tensor b = reduce_of(F32, {1, 3}, {1, 1e8, -1e8}, {{"mode", "SUM"}, {"axis", 1}});
    EXPECT_EQ(dims(a), (std::vector<uint32_t>{1, 1}));
    EXPECT_EQ(values(a), (std::vector<double>{0}));
    EXPECT_EQ(values(b), (std::vector<double>{1}));
}

TEST(ReduceKernels, IntegerMeanTruncatesAndNarrowIntegersWrap) {
    // Int32 MEAN: -7 / 2 = -3 (C++ division truncates), 7 / 2 = 3.
    const Tensor m = reduce_of(I32, {2, 2}, {-7, 0, 7, 0}, {{"mode", "MEAN"}, {"axis", 1}});
    EXPECT_EQ(values(m), (std::vector<double>{-3, 3}));
    // Int8 SUM of 100·3: 100 + (100 + 100 → 200 wraps to -56) = 44; MEAN of
    // [100, 100]: the sum wraps to -56, / 2 = -28.
    EXPECT_EQ(values(reduce_of(I8, {1, 3}, {100, 100, 100}, {{"mode", "SUM"}, {"axis", 1}})),
              (std::vector<double>{44}));
    EXPECT_EQ(values(reduce_of(I8, {1, 2}, {100, 100}, {{"mode", "MEAN"}, {"axis", 1}})),
              (std::vector<double>{-28}));
    // Int32 PRODUCT and MIN.
    EXPECT_EQ(values(reduce_of(I32, {3}, {-2, 3, 7}, {{"mode", "PRODUCT"}, {"axis", 0}})),
              (std::vector<double>{-42}));
    EXPECT_EQ(values(reduce_of(I32, {3}, {-2, 3, 7}, {{"mode", "MIN_"}, {"axis", 0}})),
              (std::vector<double>{-2}));
}

TEST(ReduceKernels, Float32MinAndMaxPropagateNaN) {
    // Trait<MIN/MAX, dt_float32>: (isnan(x) || x < y) ? x : y keeps a NaN from either side.
    const Tensor mx = reduce_of(F32, {2, 3}, {1, kNaN, 3, kNaN, 5, 4}, {{"mode", "MAX_"}, {"axis", 1}});
    const Tensor mn = reduce_of(F32, {2, 3}, {1, 2, kNaN, -1, 5, 4}, {{"mode", "MIN_"}, {"axis", 1}});
    EXPECT_TRUE(std::isnan(values(mx)[0]));
    EXPECT_TRUE(std::isnan(values(mx)[1]));
    EXPECT_TRUE(std::isnan(values(mn)[0]));
    EXPECT_EQ(values(mn)[1], -1);
    EXPECT_EQ(values(reduce_of(F32, {3}, {2, -3, 0.5}, {{"mode", "PRODUCT"}, {"axis", 0}})),
              (std::vector<double>{-3}));
}

TEST(ReduceKernels, Float16RoundsPerStepOrOnceByDataType) {
    // MegDNN's half rounds to nearest with ties away from zero (half.hpp
    // HALF_ROUND_TIES_TO_EVEN 0); at 2048 half values are 2 apart.
    const std::vector<double> x{2048, 1, -1, 0.5};
    // DEFAULT computes in half: (2048 + 1 → 2049, a tie, → 2050) + (-1 + 0.5)
    // = 2049.5 → 2050.
    const Tensor h = reduce_of(F16, {4}, x, {{"mode", "SUM"}, {"axis", 0}});
    EXPECT_EQ(h.dtype().type, DTypeEnum::Float16);
    EXPECT_EQ(values(h), (std::vector<double>{2050}));
    // FLOAT_O16xC32 sums in float (2048.5) and rounds once, to 2048;
    // FLOAT_O32xC32 keeps the float 2048.5.
    EXPECT_EQ(values(reduce_of(F16, {4}, x, {{"mode", "SUM"}, {"axis", 0}, {"data_type", "FLOAT_O16xC32"}})),
              (std::vector<double>{2048}));
    const Tensor f = reduce_of(F16, {4}, x, {{"mode", "SUM"}, {"axis", 0}, {"data_type", "FLOAT_O32xC32"}});
    EXPECT_EQ(f.dtype().type, DTypeEnum::Float32);
    EXPECT_EQ(values(f), (std::vector<double>{2048.5}));
}

TEST(ReduceKernels, QuantizedSumsAndMeansAccumulateInQuantizedS32) {
    const DType q = DType::quantized(DTypeEnum::QuantizedS8, 0.5f);
    // Storage [100, 100] (real 50, 50): SUM is QuantizedS32 200, requantized to
    // QuantizedS8 at the same scale: 200 saturates to 127.
    const Tensor s = reduce_of(q, {2}, {50, 50}, {{"mode", "SUM"}, {"axis", 0}});
    EXPECT_EQ(s.dtype(), q);
    EXPECT_EQ(stored<int8_t>(s), (std::vector<int64_t>{127}));
    // QINT_I8xO32 keeps the QuantizedS32 sum.
    const Tensor s32 =
        reduce_of(q, {2}, {50, 50}, {{"mode", "SUM"}, {"axis", 0}, {"data_type", "QINT_I8xO32"}});
    EXPECT_EQ(s32.dtype(), DType::quantized(DTypeEnum::QuantizedS32, 0.5f));
    EXPECT_EQ(stored<int32_t>(s32), (std::vector<int64_t>{200}));
    // MEAN of storage [3, 4]: dt_qint32's division rounds 7 / 2 = 3.5 away from
    // zero to 4 (an Int32 MEAN would truncate to 3).
    EXPECT_EQ(stored<int8_t>(reduce_of(q, {2}, {1.5, 2}, {{"mode", "MEAN"}, {"axis", 0}})),
              (std::vector<int64_t>{4}));
    // Quantized8Asymm (scale 1, zero point 10), storage [10, 13]: the QuantizedS32
    // values are 0 and 3, the mean rounds 1.5 to 2, stored as 2 + 10 = 12.
    const DType qa = DType::quantized(DTypeEnum::Quantized8Asymm, 1.0f, 10);
    EXPECT_EQ(stored<uint8_t>(reduce_of(qa, {2}, {0, 3}, {{"mode", "MEAN"}, {"axis", 0}})),
              (std::vector<int64_t>{12}));
    // MAX compares the storage integers.
    EXPECT_EQ(stored<int8_t>(reduce_of(q, {3}, {-2, 1.5, 0.5}, {{"mode", "MAX_"}, {"axis", 0}})),
              (std::vector<int64_t>{3}));
}

TEST(ReduceKernels, TargetShapeReducesSeparateAxesOneAfterAnother) {
    // x = arange(12) - 5 as [2,3,2] to [1,3,1]: the first reduction squares,
    // the second sums the squares. Channel 0 holds -5, -4, 1, 2: 25+16+1+4 = 46.
    const Tensor y = reduce_of(F32, {2, 3, 2}, {-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6},
                               {{"mode", "SUM_SQR"}}, {1, 3, 1});
    EXPECT_EQ(dims(y), (std::vector<uint32_t>{1, 3, 1}));
    EXPECT_EQ(values(y), (std::vector<double>{46, 38, 62}));
    // A shorter target gains leading 1s: [3] of [2,3] sums the rows.
    const Tensor r = reduce_of(I32, {2, 3}, {1, 2, 3, 10, 20, 30}, {{"mode", "SUM"}}, {3});
    EXPECT_EQ(dims(r), (std::vector<uint32_t>{3}));
    EXPECT_EQ(values(r), (std::vector<double>{11, 22, 33}));
    // The scalar target [1] reduces everything.
    const Tensor all = reduce_of(I32, {2, 3}, {1, 2, 3, 10, 20, 30}, {{"mode", "MAX_"}}, {1});
    EXPECT_EQ(dims(all), (std::vector<uint32_t>{1}));
    EXPECT_EQ(values(all), (std::vector<double>{30}));
    // Means over two separate axes are means of means: [2,2,2] to [1,2,1].
    const Tensor mean = reduce_of(F32, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, {{"mode", "MEAN"}}, {1, 2, 1});
    EXPECT_EQ(values(mean), (std::vector<double>{3.5, 5.5}));
}

TEST(ReduceKernels, NothingToReduceSquaresOrConvertsAsMegEngineDoes) {
    // The axis already has length 1: SUM_SQR still squares, SUM forwards the
    // input, FLOAT_O32xC32 converts it.
    EXPECT_EQ(values(reduce_of(F32, {3, 1}, {-2, 0.5, 3}, {{"mode", "SUM_SQR"}, {"axis", 1}})),
              (std::vector<double>{4, 0.25, 9}));
    EXPECT_EQ(values(reduce_of(I32, {2, 1}, {-2, 7}, {{"mode", "SUM"}, {"axis", 1}})),
              (std::vector<double>{-2, 7}));
    const Tensor f =
        reduce_of(I32, {2, 1}, {-2, 7}, {{"mode", "MEAN"}, {"axis", -1}, {"data_type", "FLOAT_O32xC32"}});
    EXPECT_EQ(f.dtype().type, DTypeEnum::Float32);
    EXPECT_EQ(values(f), (std::vector<double>{-2, 7}));
    // FLOAT_O32xC32 on Int32 over a real axis: the integers are summed as floats,
    // and the MEAN is a float mean.
    EXPECT_EQ(values(reduce_of(I32, {1, 3}, {1, 2, 4},
                               {{"mode", "MEAN"}, {"axis", 1}, {"data_type", "FLOAT_O32xC32"}})),
              (std::vector<double>{7.0f / 3.0f}));
}

TEST(ReduceKernels, EmptyInputsFillOrAreRefused) {
    // KernScheduler::execute: PRODUCT of nothing is 1, SUM 0; MIN is refused
    // where there is an output to fill.
    EXPECT_EQ(values(reduce_of(F32, {2, 0}, {}, {{"mode", "PRODUCT"}, {"axis", 1}})),
              (std::vector<double>{1, 1}));
    EXPECT_EQ(values(reduce_of(F32, {2, 0}, {}, {{"mode", "SUM"}, {"axis", 1}})),
              (std::vector<double>{0, 0}));
    // Known only at run time; a shape known statically is refused by inference
    // (InferNn.ReduceMinOrMaxOfAnEmptyInputIsRefusedWhereItFillsAnOutput).
    const std::string e = eval_error_of([] {
        reduce_of(F32, {2, 0}, {}, {{"mode", "MIN_"}, {"axis", 1}}, {}, true);
    });
    EXPECT_NE(e.find("Reduce"), std::string::npos) << e;
    EXPECT_NE(e.find("empty"), std::string::npos) << e;
    // An empty output is returned before the mode is looked at
    // (basic_arith.cpp, Reduce::scn_do_execute: "if (dest.empty()) return;"), so
    // MAX of no rows along the columns is no rows; across the rows it is refused.
    const Tensor rows = reduce_of(F32, {0, 3}, {}, {{"mode", "MAX_"}, {"axis", 1}});
    EXPECT_EQ(dims(rows), (std::vector<uint32_t>{0, 1}));
    const std::string across = eval_error_of([] {
        reduce_of(F32, {0, 3}, {}, {{"mode", "MAX_"}, {"axis", 0}}, {}, true);
    });
    EXPECT_NE(across.find("MAX of an empty input"), std::string::npos) << across;
}

TEST(ReduceKernels, WhatMegEngineCannotComputeIsRefused) {
    // An Int8 MEAN over 256 elements divides by (int8)256 = 0.
    std::vector<double> x(256, 1);
    std::string e = eval_error_of([&] { reduce_of(I8, {256}, x, {{"mode", "MEAN"}, {"axis", 0}}); });
    EXPECT_NE(e.find("Reduce"), std::string::npos) << e;
    EXPECT_NE(e.find("divides by"), std::string::npos) << e;
    // QuantizedS8 PRODUCT in DEFAULT data_type throws in MegDNN.
    const DType q = DType::quantized(DTypeEnum::QuantizedS8, 0.5f);
    e = eval_error_of([&] { reduce_of(q, {2}, {1, 2}, {{"mode", "PRODUCT"}, {"axis", 0}}); });
    EXPECT_NE(e.find("PRODUCT"), std::string::npos) << e;
    // QINT_I8xO32 over two separate axes: MegEngine chains them in DEFAULT only.
    e = eval_error_of([&] {
        reduce_of(q, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}, {{"mode", "SUM"}, {"data_type", "QINT_I8xO32"}},
                  {1, 2, 1});
    });
    EXPECT_NE(e.find("QINT_I8xO32"), std::string::npos) << e;
}

// ---------------------------------------------------------------- Argmax / Argmin

TEST(ReduceKernels, ArgmxxTakesTheFirstBestAndTheLastNaN) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4});
    VarId mx = b.op("Argmax", {x}, {{"axis", 1}});
    VarId mn = b.op("Argmin", {x}, {{"axis", 1}});
    VarId col = b.op("Argmax", {x}, {{"axis", 0}});
    // Row 0 [1, 3, 3, 2]: max first at 1, min at 0. Row 1 [NaN, 0, NaN, 5]: a NaN
    // beats everything, so the last NaN (2) wins both.
    const auto out = run(b, {mx, mn, col}, {{"x", tensor(F32, {2, 4}, {1, 3, 3, 2, kNaN, 0, kNaN, 5})}});
    EXPECT_EQ(out[0].dtype().type, DTypeEnum::Int32);
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 1}));
    EXPECT_EQ(values(out[0]), (std::vector<double>{1, 2}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{0, 2}));
    // Columns: [1, NaN] → 1, [3, 0] → 0, [3, NaN] → 1, [2, 5] → 1.
    EXPECT_EQ(dims(out[2]), (std::vector<uint32_t>{1, 4}));
    EXPECT_EQ(values(out[2]), (std::vector<double>{1, 0, 1, 1}));
}

// ---------------------------------------------------------------- Cumsum

TEST(ReduceKernels, CumsumEveryDirection) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4});
    auto cs = [&](bool excl, bool rev) {
        return b.op("Cumsum", {x}, {{"axis", -1}, {"exclusive", ParamArg{excl}}, {"reverse", ParamArg{rev}}});
    };
    const auto out = run(b, {cs(true, true), cs(true, false), cs(false, true), cs(false, false)},
                         {{"x", tensor(F32, {2, 4}, {1, 2, 3, 4, -1, 0.5, 0, 2})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{9, 7, 4, 0, 2.5, 2, 2, 0}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{0, 1, 3, 6, 0, -1, -0.5, -0.5}));
    EXPECT_EQ(values(out[2]), (std::vector<double>{10, 9, 7, 4, 1.5, 2.5, 2, 2}));
    EXPECT_EQ(values(out[3]), (std::vector<double>{1, 3, 6, 10, -1, -0.5, -0.5, 1.5}));
}

TEST(ReduceKernels, CumsumSumIsTheInputsCtype) {
    // Int8: 100 + 100 wraps to -56. Float16: each sum is rounded to half, ties
    // away from zero: 2048 + 1 → 2050, 2050 + 1 → 2052.
    GraphBuilder b;
    VarId i = b.input("i", I8, {3});
    VarId h = b.input("h", F16, {3});
    VarId ci = b.op("Cumsum", {i}, {{"axis", 0}, {"exclusive", ParamArg{false}}});
    VarId ch = b.op("Cumsum", {h}, {{"axis", 0}, {"exclusive", ParamArg{false}}});
    const auto out =
        run(b, {ci, ch}, {{"i", tensor(I8, {3}, {100, 100, 1})}, {"h", tensor(F16, {3}, {2048, 1, 1})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{100, -56, -55}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{2048, 2050, 2052}));
}

// ---------------------------------------------------------------- Argsort / TopK

TEST(ReduceKernels, ArgsortBreaksTiesByIndexAscendingAndReversedDescending) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4});
    VarId up = b.op("Argsort", {x}, {{"order", "ASCENDING"}});
    VarId down = b.op("Argsort", {x}, {{"order", "DESCENDING"}});
    // std::pair<value, index> order: equal values by index; std::greater reverses that.
    // Row 1 holds 0 and -0, which compare equal: their order is by index, and the
    // values keep their signs.
    const auto out = run(b, {up, nth(up, 1), down, nth(down, 1)},
                         {{"x", tensor(F32, {2, 4}, {3, 1, 3, 1, 0.0, -0.0, -2, 7})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{1, 1, 3, 3, -2, 0, 0, 7}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{1, 3, 0, 2, 2, 0, 1, 3}));
    EXPECT_FALSE(std::signbit(out[0].data<float>()[5]));
    EXPECT_TRUE(std::signbit(out[0].data<float>()[6]));
    EXPECT_EQ(values(out[2]), (std::vector<double>{3, 3, 1, 1, 7, 0, 0, -2}));
    EXPECT_EQ(values(out[3]), (std::vector<double>{2, 0, 3, 1, 3, 1, 0, 2}));
    EXPECT_EQ(out[3].dtype().type, DTypeEnum::Int32);
}

TEST(ReduceKernels, ArgsortOfNaNIsRefused) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 3});
    VarId y = b.op("Argsort", {x});
    const std::string e = eval_error_of([&] { run(b, {y}, {{"x", tensor(F32, {1, 3}, {1, kNaN, 0})}}); });
    EXPECT_NE(e.find("Argsort"), std::string::npos) << e;
    EXPECT_NE(e.find("NaN"), std::string::npos) << e;
}

TEST(ReduceKernels, TopKNegativeKTakesTheLargestAndKIsClampedToTheRow) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4});
    auto k = [&](int32_t v) { return b.constant<int32_t>({1}, {v}); };
    VarId largest = b.op("TopK", {x, k(-2)}, {{"mode", "VALUE_IDX_SORTED"}}, OpOptions{.outputs = 2});
    VarId smallest = b.op("TopK", {x, k(2)}, {{"mode", "VALUE_IDX_SORTED"}}, OpOptions{.outputs = 2});
    VarId whole = b.op("TopK", {x, k(10)}, {{"mode", "VALUE_IDX_SORTED"}}, OpOptions{.outputs = 2});
    VarId kmax = b.op("TopK", {x, k(-1)}, {{"mode", "KTH_ONLY"}}, OpOptions{.outputs = 1});
    VarId k3 = b.op("TopK", {x, k(3)}, {{"mode", "KTH_ONLY"}}, OpOptions{.outputs = 1});
    VarId kfar = b.op("TopK", {x, k(-9)}, {{"mode", "KTH_ONLY"}}, OpOptions{.outputs = 1});
    const auto out =
        run(b, {largest, nth(largest, 1), smallest, nth(smallest, 1), whole, nth(whole, 1), kmax, k3, kfar},
            {{"x", tensor(F32, {2, 4}, {1, 5, 3, 5, -1, -4, 2, 0})}});
    // Row 0 [1, 5, 3, 5]: the two largest are the 5s, the later index first
    // (greater pairs); the two smallest 1 and 3.
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(values(out[0]), (std::vector<double>{5, 5, 2, 0}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{3, 1, 2, 3}));
    EXPECT_EQ(values(out[2]), (std::vector<double>{1, 3, -4, -1}));
    EXPECT_EQ(values(out[3]), (std::vector<double>{0, 2, 1, 0}));
    // k = 10 > 4 takes the whole row, sorted.
    EXPECT_EQ(dims(out[4]), (std::vector<uint32_t>{2, 4}));
    EXPECT_EQ(values(out[4]), (std::vector<double>{1, 3, 5, 5, -4, -1, 0, 2}));
    EXPECT_EQ(values(out[5]), (std::vector<double>{0, 2, 1, 3, 1, 0, 3, 2}));
    // KTH_ONLY: k = -1 the largest, k = 3 the third smallest, k = -9 (clamped
    // to -4) the fourth largest, i.e. the smallest.
    EXPECT_EQ(dims(out[6]), (std::vector<uint32_t>{2}));
    EXPECT_EQ(values(out[6]), (std::vector<double>{5, 2}));
    EXPECT_EQ(values(out[7]), (std::vector<double>{5, 0}));
    EXPECT_EQ(values(out[8]), (std::vector<double>{1, -4}));
}

TEST(ReduceKernels, TopKNoSortHoldsTheKSmallestWithTheirIndices) {
    GraphBuilder b;
    VarId x = b.input("x", I32, {1, 6});
    VarId t = b.op("TopK", {x, b.constant<int32_t>({1}, {3})}, {{"mode", "VALUE_IDX_NOSORT"}},
                   OpOptions{.outputs = 2});
    const std::vector<double> in{9, -3, 4, 0, 8, -7};
    const auto out = run(b, {t, nth(t, 1)}, {{"x", tensor(I32, {1, 6}, in)}});
    // The three smallest are -7, -3, 0 in some order; each index points at its value.
    std::vector<double> v = values(out[0]);
    const std::vector<double> idx = values(out[1]);
    ASSERT_EQ(v.size(), 3u);
    for (size_t j = 0; j < 3; ++j) EXPECT_EQ(in[static_cast<size_t>(idx[j])], v[j]);
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, (std::vector<double>{-7, -3, 0}));
}

}  // namespace
}  // namespace mgedump::test
