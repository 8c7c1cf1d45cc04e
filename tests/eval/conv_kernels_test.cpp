// The conv family's kernels (engine/eval/kernels_conv.cpp, conv_gemm.cpp) against
// MegDNN's definitions. Expected values were computed from the definitions of
// dnn/src/naive/convolution/helper.h (compute2d: direct loops over the window,
// CONVOLUTION mode as the mirrored window offsets, backward data / filter as the
// same loop with the other strategy) and naive/conv_bias/opr_impl.cpp (bias, z,
// nonlinearity, TypeCvt), re-implemented as plain numpy loops; each case's
// comment gives its inputs' generator: "vals(n, mul, mod, off)" is
// [(i·mul) % mod − off for i in 0..n).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

size_t count(const U& shape) {
    size_t n = 1;
    for (uint32_t d : shape) n *= d;
    return n;
}

// [(i·mul) % mod − off for i in 0..n)
std::vector<float> vals(size_t n, int mul, int mod, int off) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>((i * mul) % mod) - off);
    return v;
}

// Within rel·|want| (and 1e-7), NaN where NaN.
void expect_near_rel(const Tensor& t, const D& want, double rel) {
    const D got = storage_values(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
        else
            EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i]) + 1e-7) << "element " << i;
    }
}

TEST(ConvKernels, DenseConvolutionWithPaddingStrideAndDilation) {
    // x = vals(50, 7, 11, 5) [1,2,5,5], w = vals(54, 5, 7, 3) [3,2,3,3]; pad 1,
    // stride 2, dilation 2: a 5×5 window, out (5 + 2 − 5) / 2 + 1 = 2.
    GraphBuilder b;
    VarId x = floats(b, {1, 2, 5, 5}, vals(50, 7, 11, 5));
    VarId w = floats(b, {3, 2, 3, 3}, vals(54, 5, 7, 3));
    VarId y = b.op(
        "Convolution", {x, w},
        {{"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}, {"dilate_h", 2}, {"dilate_w", 2}});
    expect_values(run1(b, y), {1, 3, 2, 2}, {31, -17, -15, -7, -15, -7, -12, 31, -12, 31, 19, -15});
}

TEST(ConvKernels, ConvolutionModeFlipsTheWindowPerGroup) {
    // x = vals(64, 3, 13, 6) [1,4,4,4], w = vals(72, 7, 5, 2) [2,2,2,3,3] (GROUP);
    // pad (1, 0), stride (1, 2), mode CONVOLUTION (ih = sh·oh − fh·dh − ph + kh − 1).
    GraphBuilder b;
    VarId x = floats(b, {1, 4, 4, 4}, vals(64, 3, 13, 6));
    VarId w = floats(b, {2, 2, 2, 3, 3}, vals(72, 7, 5, 2));
    VarId y = b.op("Convolution", {x, w},
                   {{"mode", "CONVOLUTION"}, {"sparse", "GROUP"}, {"pad_h", 1}, {"stride_w", 2}});
    expect_values(run1(b, y), {1, 4, 4, 1},
                  {-3, -14, -14, -3, -14, -18, 10, -12, 0, 36, 9, -20, 19, -14, -26, -19});
}

TEST(ConvKernels, PointwiseGroupConvolutionOverABatch) {
    // 1×1, stride 1, no padding: the GEMM reads the input directly. x = vals(32, 5,
    // 9, 4) [2,4,2,2], w = vals(12, 3, 7, 3) [2,3,2,1,1].
    GraphBuilder b;
    VarId x = floats(b, {2, 4, 2, 2}, vals(32, 5, 9, 4));
    VarId w = floats(b, {2, 3, 2, 1, 1}, vals(12, 3, 7, 3));
    VarId y = b.op("Convolution", {x, w}, {{"sparse", "GROUP"}});
    expect_values(
        run1(b, y), {2, 6, 2, 2},
        {12,  -3, 9,  -6, -10, 0,  -8,  2, -4, -4, -4, -4, -6, 2,  -8, 0, 6, -6, 9, -3, 4, 0,   5, 1,
         -12, 0,  12, -3, 15,  -2, -10, 0, 14, -4, -4, -4, -4, 13, -6, 2, 3, -9, 6, -6, 3, -10, 4, 0});
}

TEST(ConvKernels, BackwardDataIsTheAdjointWithGroupsAndStride) {
    // w = vals(36, 5, 7, 3) [2,2,1,3,3] (GROUP), dy = vals(16, 3, 5, 2) [1,4,2,2];
    // stride 2, pad 1: grad is (2−1)·2 + 3 − 2 = 3 wide.
    GraphBuilder b;
    VarId w = floats(b, {2, 2, 1, 3, 3}, vals(36, 5, 7, 3));
    VarId dy = floats(b, {1, 4, 2, 2}, vals(16, 3, 5, 2));
    VarId y = b.op("ConvolutionBackwardData", {w, dy},
                   {{"sparse", "GROUP"}, {"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}});
    expect_values(run1(b, y), {1, 2, 3, 3},
                  {-6, -6, 5, 2, -12, 3, -4, -9, 7, 6, -3, -4, 5, 14, 5, -4, -3, 6});
}

TEST(ConvKernels, BackwardFilterInConvolutionModeIsFlippedBack) {
    // x = vals(32, 7, 9, 4) [1,2,4,4], dy = vals(8, 5, 7, 3) [1,2,2,2], filter
    // [2,2,3,3]; stride 2, pad 1, mode CONVOLUTION.
    GraphBuilder b;
    VarId x = floats(b, {1, 2, 4, 4}, vals(32, 7, 9, 4));
    VarId dy = floats(b, {1, 2, 2, 2}, vals(8, 5, 7, 3));
    VarId w = floats(b, {2, 2, 3, 3}, std::vector<float>(36));
    VarId y = b.op("ConvolutionBackwardFilter", {x, dy, w},
                   {{"mode", "CONVOLUTION"}, {"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}});
    expect_values(run1(b, y), {2, 2, 3, 3},
                  {-16, 5,   14, -13, 8,   14, 0,  -4, -8,  17, -7, -4, 20, -4, -4, -8,  6, 2,
                   9,   -18, 13, 9,   -18, 15, -4, -3, -12, 9,  0,  -4, 9,  0,  -2, -11, 8, 3});
}

TEST(ConvKernels, Convolution3DWithDepthPaddingAndStride) {
    // x = vals(27, 5, 7, 3) [1,1,3,3,3], w = vals(16, 3, 5, 2) [2,1,2,2,2]; pad_d 1, stride_d 2.
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 3, 3, 3}, vals(27, 5, 7, 3));
    VarId w = floats(b, {2, 1, 2, 2, 2}, vals(16, 3, 5, 2));
    VarId y = b.op("Convolution3D", {x, w}, {{"pad_d", 1}, {"stride_d", 2}});
    expect_values(run1(b, y), {1, 2, 2, 2, 2},
                  {-9, 2, -4, -7, -12, 6, -14, -3, 1, -4, 14, -5, -8, -8, -1, -8});
}

// ConvBias on floats: x [1,1,3,3] with a NaN at (2,2), w [2,1,2,2], bias per
// channel, z; conv + bias + z = [11.375, −5, 1.25, nan, −7, 9.5, 6.375, nan] in
// float32, then kern_defs.cuh's RELU (x <= 0 ? 0 : x), SIGMOID (1 / (exp(−x) + 1)),
// H_SWISH (x · min(max(x + 3, 0), 6) / 6).
struct NonlineCase {
    const char* mode;
    D want;
};
class ConvBiasNonline : public ::testing::TestWithParam<NonlineCase> {};

TEST_P(ConvBiasNonline, AddsBiasAndZThenAppliesTheNonlinearity) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 3, 3}, {1, -2, 3, 0.5f, 4, -1, 2, 1.5f, nan});
    VarId w = floats(b, {2, 1, 2, 2}, {0.5f, -1, 0.25f, 2, -0.5f, 1.5f, 1, -0.25f});
    VarId bias = floats(b, {1, 2, 1, 1}, {0.5f, -1});
    VarId z = floats(b, {1, 2, 2, 2}, {0.25f, -0.5f, 1, 0, -2, 0.75f, 0, 1});
    VarId y = b.op("ConvBias", {x, w, bias, z}, {{"nonlineMode", GetParam().mode}});
    expect_near_rel(run1(b, y), GetParam().want, 4e-7);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ConvBiasNonline,
    ::testing::Values(NonlineCase{"IDENTITY", {11.375, -5, 1.25, kNaN, -7, 9.5, 6.375, kNaN}},
                      NonlineCase{"RELU", {11.375, 0, 1.25, kNaN, 0, 9.5, 6.375, kNaN}},
                      NonlineCase{"SIGMOID",
                                  {0.9999885559082031, 0.006692850962281227, 0.7772998809814453, kNaN,
                                   0.0009110511746257544, 0.9999251365661621, 0.9982993006706238, kNaN}},
                      NonlineCase{"H_SWISH",
                                  {11.375, -0.0, 0.8854166865348816, kNaN, -0.0, 9.5, 6.375, kNaN}}),
    [](const auto& info) { return std::string(info.param.mode); });

// Quantized: x QuantizedS8(0.5) [1,2,3,3], w QuantizedS8(0.25) [2,2,2,2], bias
// QuantizedS32(0.125) [3, −100]. The raw int sums are [4883, −613, 915, −6095, 15,
// 208, 99, 203]; the output QuantizedS8(0.25) is round_half_away((sum + bias) ·
// 0.125 / 0.25) saturated: channel 0 saturates, channel 1 has the ties −42.5,
// −0.5, 51.5.
struct Quantized {
    GraphBuilder b;
    VarId x, w, bias;
    Quantized() {
        x = constant<int8_t>(b, qs8(0.5f), {1, 2, 3, 3},
                             {100, -37, 5, 12, -128, 77, 3, 0, -9, 64, 1, -1, 127, 33, -50, 8, 2, -77});
        w = constant<int8_t>(b, qs8(0.25f), {2, 2, 2, 2},
                             {50, -3, 1, 7, -2, 4, 9, -11, 1, 1, -1, 2, 3, -5, 0, 1});
        bias = constant<int32_t>(b, qs32(0.125f), {1, 2, 1, 1}, {3, -100});
    }
};

TEST(ConvKernels, QuantizedConvBiasRequantizesRoundingHalfAwayAndSaturating) {
    Quantized q;
    VarId y = q.b.op("ConvBias", {q.x, q.w, q.bias}, {}, to(qs8(0.25f)));
    const auto t = run1(q.b, y);
    EXPECT_EQ(t.dtype(), qs8(0.25f));
    expect_values(t, {1, 2, 2, 2}, {127, -128, 127, -128, -43, 54, -1, 52});
}

TEST(ConvKernels, QuantizedConvBiasReluGoesThroughTheRealValues) {
    Quantized q;
    VarId y = q.b.op("ConvBias", {q.x, q.w, q.bias}, {{"nonlineMode", "RELU"}}, to(qs8(0.25f)));
    expect_values(run1(q.b, y), {1, 2, 2, 2}, {127, 0, 127, 0, 0, 54, 0, 52});
}

TEST(ConvKernels, QuantizedConvBiasAddsZInFloat) {
    // z QuantizedS8(0.5) [10, −10, 3, −3, 100, −100, 1, −1]: (sum + bias)·0.125 + z·0.5.
    Quantized q;
    VarId z = constant<int8_t>(q.b, qs8(0.5f), {1, 2, 2, 2}, {10, -10, 3, -3, 100, -100, 1, -1});
    VarId y = q.b.op("ConvBias", {q.x, q.w, q.bias, z}, {}, to(qs8(0.25f)));
    expect_values(run1(q.b, y), {1, 2, 2, 2}, {127, -128, 127, -128, 127, -128, 2, 50});
}

TEST(ConvKernels, QuantizedConvBiasWithoutBiasKeepsMegEnginesUnscaledSums) {
    // src/opr/impl/dnn/convolution.cpp gives a missing bias QuantizedS32 at the
    // output's scale, so the raw sums are converted at 0.25 / 0.25: saturate(sum).
    Quantized q;
    VarId y = q.b.op("ConvBias", {q.x, q.w}, {}, to(qs8(0.25f)));
    expect_values(run1(q.b, y), {1, 2, 2, 2}, {127, -128, 127, -128, 15, 127, 99, 127});
}

TEST(ConvKernels, QuantizedConvolutionToQuantizedS32KeepsTheExactSums) {
    Quantized q;
    VarId y = q.b.op("Convolution", {q.x, q.w});
    const auto t = run1(q.b, y);
    EXPECT_EQ(t.dtype(), qs32(0.125f));
    expect_values(t, {1, 2, 2, 2}, {4883, -613, 915, -6095, 15, 208, 99, 203});
}

TEST(ConvKernels, QuantizedConvolutionToQuantizedS8CastsTheSumsLikeMegDNN) {
    // naive/convolution/opr_impl.cpp DISPATCH(QuantizedS8, QuantizedS8, dt_int8,
    // dt_int8, dt_int32): the int32 sum is cast to int8 (wraps), unscaled.
    Quantized q;
    VarId y = q.b.op("Convolution", {q.x, q.w}, {}, to(qs8(3.0f)));
    expect_values(run1(q.b, y), {1, 2, 2, 2}, {19, -101, -109, 49, 15, -48, 99, -53});
}

TEST(ConvKernels, Int8ConvolutionIntoInt16Wraps) {
    // 3·127·127 = 48387 and 3·127·(−128) = −48768 wrap to −17149 and 16768 in the
    // int16 accumulator of DISPATCH(Int8, Int16).
    GraphBuilder b;
    VarId x = constant<int8_t>(b, DType::of(DTypeEnum::Int8), {1, 3, 1, 1}, {127, 127, 127});
    VarId w =
        constant<int8_t>(b, DType::of(DTypeEnum::Int8), {2, 3, 1, 1}, {127, 127, 127, -128, -128, -128});
    OpOptions o;
    o.output_dtype = DType::of(DTypeEnum::Int16);
    VarId y = b.op("Convolution", {x, w}, {}, o);
    expect_values(run1(b, y), {1, 2, 1, 1}, {-17149, 16768});
}

TEST(ConvKernels, QuantizedBackwardDataIntoQuantizedS8GoesThroughQuantizedS32) {
    // w QuantizedS8(0.5) [1,1,1,2] = [3, −5], dy QuantizedS8(0.25) [1,1,1,2] = [7, 1]:
    // grad sums [21, −35+3, −5] = [21, −32, −5] at scale 0.125, requantized to
    // 0.25: [10.5, −16, −2.5] → [11, −16, −3].
    GraphBuilder b;
    VarId w = constant<int8_t>(b, qs8(0.5f), {1, 1, 1, 2}, {3, -5});
    VarId dy = constant<int8_t>(b, qs8(0.25f), {1, 1, 1, 2}, {7, 1});
    OpOptions o;
    o.output_dtype = qs8(0.25f);
    VarId y = b.op("ConvolutionBackwardData", {w, dy}, {}, o);
    expect_values(run1(b, y), {1, 1, 1, 3}, {11, -16, -3});
}

TEST(ConvKernels, Float16IsComputedInFloatAndRoundedOnce) {
    // 1 + 2^-11 + 2^-11 = 1 + 2^-10, representable in half; summing in half
    // would stop at 1 (each 1 + 2^-11 ties to even).
    GraphBuilder b;
    const DType f16 = DType::of(DTypeEnum::Float16);
    VarId x = constant<uint16_t>(b, f16, {1, 3, 1, 1}, {0x3c00, 0x1000, 0x1000});  // 1, 2^-11, 2^-11
    VarId w = constant<uint16_t>(b, f16, {1, 3, 1, 1}, {0x3c00, 0x3c00, 0x3c00});
    VarId y = b.op("Convolution", {x, w});
    const auto t = run1(b, y);
    EXPECT_EQ(t.dtype(), f16);
    expect_values(t, {1, 1, 1, 1}, {1.0 + 1.0 / 1024});
}

TEST(ConvKernels, OtherFormatsAreRefusedNamingTheFormat) {
    GraphBuilder b;
    VarId x = floats(b, {1, 5, 5, 2}, std::vector<float>(50));
    VarId w = floats(b, {3, 3, 3, 2}, std::vector<float>(54));
    VarId y = b.op("Convolution", {x, w}, {{"format", "NHWC"}});
    try {
        run1(b, y);
        ADD_FAILURE() << "NHWC was not refused";
    } catch (const EvalError& e) {
        EXPECT_NE(std::string(e.what()).find("format NHWC is not implemented"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("Convolution"), std::string::npos) << e.what();
    }
}

// Larger random convolutions on two threads (im2col, column blocks of the GEMM,
// groups in parallel) against the direct loops of compute2d, evaluated here.
std::vector<float> direct_conv(const std::vector<float>& x, const U& xs, const std::vector<float>& w,
                               size_t group, size_t ocpg, size_t fh, size_t fw, size_t pad, size_t stride,
                               const U& ys) {
    std::vector<float> y(count(ys));
    const size_t icpg = xs[1] / group;
    for (size_t n = 0; n < ys[0]; ++n)
        for (size_t oc = 0; oc < ys[1]; ++oc)
            for (size_t oh = 0; oh < ys[2]; ++oh)
                for (size_t ow = 0; ow < ys[3]; ++ow) {
                    double s = 0;
                    const size_t g = oc / ocpg;
                    for (size_t kh = 0; kh < fh; ++kh)
                        for (size_t kw = 0; kw < fw; ++kw) {
                            const long ih = long(oh * stride + kh) - long(pad),
                                       iw = long(ow * stride + kw) - long(pad);
                            if (ih < 0 || iw < 0 || ih >= long(xs[2]) || iw >= long(xs[3])) continue;
                            for (size_t c = 0; c < icpg; ++c)
                                s += double(x[((n * xs[1] + g * icpg + c) * xs[2] + ih) * xs[3] + iw]) *
                                     w[((oc * icpg + c) * fh + kh) * fw + kw];
                        }
                    y[((n * ys[1] + oc) * ys[2] + oh) * ys[3] + ow] = float(s);
                }
    return y;
}

struct RandomCase {
    U x, w;
    size_t group, pad, stride;
    U y;
};
class ConvRandom : public ::testing::TestWithParam<RandomCase> {};

TEST_P(ConvRandom, MatchesTheDirectDefinitionOnTwoThreads) {
    const RandomCase& c = GetParam();
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(count(c.x)), w(count(c.w));
    for (float& v : x) v = u(rng);
    for (float& v : w) v = u(rng);
    GraphBuilder b;
    const bool grouped = c.group > 1;
    VarId y = b.op("Convolution", {floats(b, c.x, x), floats(b, c.w, w)},
                   {{"sparse", grouped ? "GROUP" : "DENSE"},
                    {"pad_h", int(c.pad)},
                    {"pad_w", int(c.pad)},
                    {"stride_h", int(c.stride)},
                    {"stride_w", int(c.stride)}});
    const size_t s = grouped ? 1 : 0;
    const std::vector<float> want =
        direct_conv(x, c.x, w, c.group, c.w[s], c.w[s + 2], c.w[s + 3], c.pad, c.stride, c.y);
    const auto got = run1(b, y, 2);
    ASSERT_EQ(got.shape(), ir::Shape::of(std::span<const uint32_t>(c.y)));
    engine::eval::Tensor expected(F32, got.shape());
    std::copy(want.begin(), want.end(), expected.mutable_data<float>().begin());
    EXPECT_EQ(compare_tensors(got, expected, Tolerance{1e-5, 1e-5}), "");
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvRandom,
    ::testing::Values(RandomCase{{2, 8, 17, 19}, {12, 8, 3, 3}, 1, 1, 1, {2, 12, 17, 19}},
                      RandomCase{{1, 6, 33, 31}, {3, 4, 2, 5, 5}, 3, 2, 2, {1, 12, 17, 16}},
                      RandomCase{{1, 64, 30, 30}, {96, 64, 1, 1}, 1, 0, 1, {1, 96, 30, 30}},
                      RandomCase{{1, 16, 20, 20}, {16, 1, 1, 3, 3}, 16, 1, 1, {1, 16, 20, 20}}));

}  // namespace
}  // namespace mgedump::test
