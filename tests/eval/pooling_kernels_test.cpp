// Pooling and AdaptivePooling (engine/eval/kernels_pooling.cpp) against MegDNN's
// definitions in dnn/src/naive/pooling/opr_impl.cpp (pooling_forward_impl with
// MaxPooler, MeanIncludePooler, MeanExcludePooler and their integer
// specialisations) and dnn/src/common/adaptive_pooling.cpp. Float expectations
// were computed with numpy float32 loops that feed each window in (fh, fw) order
// exactly as pooling_forward_impl does; integer ones by hand from the poolers'
// formulas, shown in the comments.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>

#include "engine/eval/half.h"
#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

ParamArgs window(const char* mode, int f, int s, int p) {
    return {{"mode", mode},  {"window_h", f}, {"window_w", f}, {"stride_h", s},
            {"stride_w", s}, {"pad_h", p},    {"pad_w", p}};
}

TEST(PoolingKernels, MaxKeepsMegDNNsComparisonWithNaNAndInfinity) {
    // [1,1,3,4], window 2, stride 2, pad 1. `answer > x ? answer : x` from
    // −FLT_MAX: a NaN is taken but replaced by the next element (window (1,1):
    // NaN, −inf, −4, 5 → 5); a NaN fed last stays (window (1,2)); a window of −inf
    // gives −FLT_MAX, not −inf (window (0,2)).
    GraphBuilder b;
    VarId x = constant<float>(b, F32, {1, 1, 3, 4},
                              {kNaN, 1, -kInf, -kInf, 2, kNaN, -kInf, -kInf, -3, -4, 5, kNaN});
    VarId y = b.op("Pooling", {x}, window("MAX_", 2, 2, 1));
    expect_values(run1(b, y), {1, 1, 2, 3}, {NAN, 1, -FLT_MAX, 2, 5, NAN});
}

TEST(PoolingKernels, AverageCountsThePaddingAndExcludingAverageDoesNot) {
    // x = [-2, -0.5, 1, 2.5, 4, 5.5, 7, 8.5, 10] [1,1,3,3], window 3, stride 2,
    // pad 1: each window holds 4 of the 9 inputs. AVERAGE divides by 9,
    // AVERAGE_COUNT_EXCLUDE_PADDING by 4 (numpy float32).
    const std::vector<float> xs = {-2, -0.5, 1, 2.5, 4, 5.5, 7, 8.5, 10};
    GraphBuilder b;
    VarId x = constant<float>(b, F32, {1, 1, 3, 3}, xs);
    VarId y = b.op("Pooling", {x}, window("AVERAGE", 3, 2, 1));
    expect_values(run1(b, y), {1, 1, 2, 2},
                  {0.4444444477558136, 1.1111111640930176, 2.444444417953491, 3.1111111640930176});

    GraphBuilder b2;
    VarId x2 = constant<float>(b2, F32, {1, 1, 3, 3}, xs);
    VarId y2 = b2.op("Pooling", {x2}, window("AVERAGE_COUNT_EXCLUDE_PADDING", 3, 2, 1));
    expect_values(run1(b2, y2), {1, 1, 2, 2}, {1.0, 2.5, 5.5, 7.0});
}

TEST(PoolingKernels, AWindowEntirelyInThePaddingAveragesToZeroButIsRefusedForMax) {
    // window 1, pad 1: the border outputs see only padding. MeanIncludePooler
    // gives 0/1; MaxPooler throws "The pooling window lies outside completely".
    GraphBuilder b;
    VarId x = constant<float>(b, F32, {1, 1, 2, 2}, {1, 2, 3, 4});
    VarId y = b.op("Pooling", {x}, window("AVERAGE", 1, 1, 1));
    expect_values(run1(b, y), {1, 1, 4, 4}, {0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0});

    for (const char* mode : {"MAX_", "AVERAGE_COUNT_EXCLUDE_PADDING"}) {
        GraphBuilder b2;
        VarId x2 = constant<float>(b2, F32, {1, 1, 2, 2}, {1, 2, 3, 4});
        VarId y2 = b2.op("Pooling", {x2}, window(mode, 1, 1, 1));
        const std::string e = error_of(b2, y2);
        EXPECT_NE(e.find("(Pooling)"), std::string::npos) << e;
        EXPECT_NE(e.find("lies entirely in the padding"), std::string::npos) << e;
    }
}

TEST(PoolingKernels, Int8AverageTruncatesWhereTheExcludingAverageRounds) {
    // Int8 [1,1,2,4], window 2, stride 2. Windows {-3,-4,-1,1} (sum −7) and
    // {5,5,5,-5} (sum 10). MeanIncludePooler<int8_t>: sum / 4 in int32,
    // truncated: −1, 2. MeanExcludePooler<int8_t>: round(sum / 4.f) half away
    // from zero: round(−1.75) = −2, round(2.5) = 3.
    const std::vector<int8_t> xs = {-3, -4, 5, 5, -1, 1, 5, -5};
    const DType i8 = DType::of(DTypeEnum::Int8);
    GraphBuilder b;
    VarId y = b.op("Pooling", {constant<int8_t>(b, i8, {1, 1, 2, 4}, xs)}, window("AVERAGE", 2, 2, 0));
    expect_values(run1(b, y), {1, 1, 1, 2}, {-1, 2});
    GraphBuilder b2;
    VarId y2 = b2.op("Pooling", {constant<int8_t>(b2, i8, {1, 1, 2, 4}, xs)},
                     window("AVERAGE_COUNT_EXCLUDE_PADDING", 2, 2, 0));
    expect_values(run1(b2, y2), {1, 1, 1, 2}, {-2, 3});
}

TEST(PoolingKernels, QuantizedS8AverageRoundsHalfAwayFromZero) {
    // MeanIncludeRoundedPooler<dt_qint8>: round(float(sum) / count) on the stored
    // integers; the same windows as above: round(−1.75) = −2, round(2.5) = 3.
    // MAX compares the stored integers.
    const std::vector<int8_t> xs = {-3, -4, 5, 5, -1, 1, 5, -5};
    const DType q = DType::quantized(DTypeEnum::QuantizedS8, 0.25f);
    GraphBuilder b;
    VarId y = b.op("Pooling", {constant<int8_t>(b, q, {1, 1, 2, 4}, xs)}, window("AVERAGE", 2, 2, 0));
    const auto avg = run1(b, y);
    EXPECT_EQ(avg.dtype(), q);
    expect_values(avg, {1, 1, 1, 2}, {-2, 3});
    GraphBuilder b2;
    VarId y2 = b2.op("Pooling", {constant<int8_t>(b2, q, {1, 1, 2, 4}, xs)}, window("MAX_", 2, 2, 0));
    expect_values(run1(b2, y2), {1, 1, 1, 2}, {1, 5});
}

TEST(PoolingKernels, Quantized8AsymmAverageCountsThePaddingAsTheZeroPoint) {
    // Stored [130, 140] [1,1,1,2], zero point 128, window 2, pad 1, stride 1:
    // 2×3 windows holding 1, 2, 1 inputs. MeanIncludePooler<dt_quint8>:
    // round((sum + (4 − fed)·128) / 4): (130+384)/4 = 128.5 → 129, (270+256)/4 =
    // 131.5 → 132, (140+384)/4 = 131; the excluding average: 130, 135, 140.
    const DType q = DType::quantized(DTypeEnum::Quantized8Asymm, 0.5f, 128);
    GraphBuilder b;
    VarId y =
        b.op("Pooling", {constant<uint8_t>(b, q, {1, 1, 1, 2}, {130, 140})}, window("AVERAGE", 2, 1, 1));
    expect_values(run1(b, y), {1, 1, 2, 3}, {129, 132, 131, 129, 132, 131});
    GraphBuilder b2;
    VarId y2 = b2.op("Pooling", {constant<uint8_t>(b2, q, {1, 1, 1, 2}, {130, 140})},
                     window("AVERAGE_COUNT_EXCLUDE_PADDING", 2, 1, 1));
    expect_values(run1(b2, y2), {1, 1, 2, 3}, {130, 135, 140, 130, 135, 140});
}

TEST(PoolingKernels, Float16AveragesInFloatAndRoundsOnce) {
    // Halves 0.0999755859375, 0.199951171875, 0.300048828125, 0.7001953125 (the
    // nearest halves of 0.1, 0.2, 0.3, 0.7): float32 sum / 4 = 0.32509...,
    // nearest half 0.324951171875.
    const DType f16 = DType::of(DTypeEnum::Float16);
    std::vector<uint16_t> h;
    for (float v : {0.0999755859375f, 0.199951171875f, 0.300048828125f, 0.7001953125f})
        h.push_back(engine::eval::float_to_half(v));
    GraphBuilder b;
    VarId y = b.op("Pooling", {constant<uint16_t>(b, f16, {1, 1, 2, 2}, h)}, window("AVERAGE", 2, 2, 0));
    const auto t = run1(b, y);
    EXPECT_EQ(t.dtype().type, DTypeEnum::Float16);
    expect_values(t, {1, 1, 1, 1}, {0.324951171875});
}

TEST(PoolingKernels, NHWCPoolsEachChannelOfThePixel) {
    // [1,3,3,2] NHWC: channel 0 = 0..8, channel 1 = −(0..8); MAX window 2 stride 1
    // → channel 0 {4,5,7,8}, channel 1 {0,−1,−3,−4}, interleaved per pixel.
    std::vector<float> xs;
    for (int i = 0; i < 9; ++i) {
        xs.push_back(static_cast<float>(i));
        xs.push_back(static_cast<float>(-i));
    }
    GraphBuilder b;
    VarId x = constant<float>(b, F32, {1, 3, 3, 2}, xs);
    ParamArgs p = window("MAX_", 2, 1, 0);
    p.emplace_back("format", "NHWC");
    VarId y = b.op("Pooling", {x}, p);
    expect_values(run1(b, y), {1, 2, 2, 2}, {4, 0, 5, -1, 7, -3, 8, -4});
}

TEST(PoolingKernels, ChannelPackedFormatsAreRefusedNamingTheFormat) {
    GraphBuilder b;
    VarId x = constant<float>(b, F32, {1, 1, 2, 2, 4}, std::vector<float>(16, 1.0f));
    ParamArgs p = window("MAX_", 2, 2, 0);
    p.emplace_back("format", "NCHW4");
    VarId y = b.op("Pooling", {x}, p);
    const std::string e = error_of(b, y);
    EXPECT_NE(e.find("format NCHW4 is not implemented"), std::string::npos) << e;
}

TEST(PoolingKernels, AdaptivePoolingDerivesStrideAndWindowFromTheSizes) {
    // x = 0..34 [1,1,5,7] to 2×3: stride ⌊5/2⌋ = 2, ⌊7/3⌋ = 2; window
    // 5 − 1·2 = 3, 7 − 2·2 = 3. MAX takes each window's bottom-right
    // (2oh+2)·7 + 2ow+2; AVERAGE its centre (2oh+1)·7 + 2ow+1 (a linear ramp).
    std::vector<float> xs(35);
    for (int i = 0; i < 35; ++i) xs[i] = static_cast<float>(i);
    for (const char* mode : {"MAX_", "AVERAGE"}) {
        GraphBuilder b;
        VarId x = constant<float>(b, F32, {1, 1, 5, 7}, xs);
        VarId y = b.op("AdaptivePooling", {x, b.constant<int32_t>({2}, {2, 3})}, {{"mode", mode}});
        if (std::string(mode) == "MAX_")
            expect_values(run1(b, y), {1, 1, 2, 3}, {16, 18, 20, 30, 32, 34});
        else
            expect_values(run1(b, y), {1, 1, 2, 3}, {8, 10, 12, 22, 24, 26});
    }
}

}  // namespace
}  // namespace mgedump::test
