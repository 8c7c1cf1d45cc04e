// The image family's kernels (engine/eval/kernels_image.cpp, image_warp.cpp,
// image_relayout.cpp) against MegDNN's definitions. Float expectations were
// computed with numpy float32 re-implementations of the naive kernels, one
// rounding per C++ operation in the kernels' own order:
//   Resize: dnn/src/naive/resize/opr_impl.cpp kern_nchw / kern_naive_nhwc with
//     ResizeBase::get_nearest_linear_coord / get_nearest_src / get_cubic_coord
//     (src/common/resize.cpp) and interpolate_cubic (resize.cuh);
//   WarpPerspective / WarpAffine (NCHW): naive kern_naive with get_real_coord
//     (src/common/warp_perspective.cpp);
//   WarpAffine (NHWC, ≤ 3 channels): warp_affine_cv.cpp's fixed-point points
//     (AB_BITS 10, INTER_BITS 5, cvRound = round half to even) and
//     warp_common.h remapBilinear / remapNearest with the 32×32 float table of
//     interp_helper.cpp;
//   Remap: dnn/src/naive/remap/opr_impl.cpp remap_LINEAR / remap_NEAREST with
//     megcv::border_interpolate;
//   LRN: dnn/src/naive/lrn; Padding: numpy.pad ('reflect' is MegDNN's REFLECT,
//     'edge' its REPLICATE).
// Integer and layout expectations are worked by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

std::vector<float> ramp(size_t n, float mul, float off) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * mul + off;
    return v;
}

// Refused with an EvalError naming the operator `op` and saying `why`.
void expect_refused(GraphBuilder& b, VarId y, const char* op, const char* why) {
    const std::string e = error_of(b, y);
    EXPECT_NE(e.find(std::string("(") + op + ")"), std::string::npos) << e;
    EXPECT_NE(e.find(why), std::string::npos) << e;
}

// ---------------------------------------------------------------- Padding

TEST(ImageKernels, PaddingReflectsAndReplicatesEachDim) {
    // [[1,2,3],[4,5,6]] padded by (1,1) rows and (2,1) columns.
    for (const char* mode : {"REFLECT", "REPLICATE"}) {
        GraphBuilder b;
        VarId x = floats(b, {2, 3}, {1, 2, 3, 4, 5, 6});
        VarId y = b.op("Padding", {x},
                       {{"padding_mode", mode},
                        {"front_offset_dim0", 1},
                        {"back_offset_dim0", 1},
                        {"front_offset_dim1", 2},
                        {"back_offset_dim1", 1}});
        if (std::string(mode) == "REFLECT")
            expect_values(run1(b, y), {4, 6}, {6.0, 5.0, 4.0, 5.0, 6.0, 5.0, 3.0, 2.0, 1.0, 2.0, 3.0, 2.0,
                                               6.0, 5.0, 4.0, 5.0, 6.0, 5.0, 3.0, 2.0, 1.0, 2.0, 3.0, 2.0});
        else
            expect_values(run1(b, y), {4, 6}, {1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 1.0, 1.0, 1.0, 2.0, 3.0, 3.0,
                                               4.0, 4.0, 4.0, 5.0, 6.0, 6.0, 4.0, 4.0, 4.0, 5.0, 6.0, 6.0});
    }
}

TEST(ImageKernels, PaddingValueOfAQuantizedTensorIsAStoredInteger) {
    // T(padding_val) with T = dt_qint8: a C++ cast, truncating 2.7 to 2 and −2.7
    // to −2 (not 2.7 / scale).
    for (float v : {2.7f, -2.7f}) {
        GraphBuilder b;
        VarId x = constant<int8_t>(b, DType::quantized(DTypeEnum::QuantizedS8, 0.5f), {3}, {-5, 0, 9});
        VarId y =
            b.op("Padding", {x}, {{"front_offset_dim0", 1}, {"back_offset_dim0", 2}, {"padding_val", v}});
        const double p = v > 0 ? 2 : -2;
        expect_values(run1(b, y), {6}, {p, -5, 0, 9, p, p});
    }
}

TEST(ImageKernels, PaddingRefusesAReflectionWiderThanTheDim) {
    // PaddingBase::check_exec: REFLECT offsets must be below the dim's size.
    GraphBuilder b;
    VarId x = floats(b, {2, 3}, {1, 2, 3, 4, 5, 6});
    VarId y = b.op("Padding", {x}, {{"padding_mode", "REFLECT"}, {"front_offset_dim1", 3}});
    expect_refused(b, y, "Padding", "needs offsets below its size");
}

// ---------------------------------------------------------------- Resize

TEST(ImageKernels, ResizeNCHWLinearNearestAndCubic) {
    // x [1,1,2,3] to 3×5: scale 1.5 and 5/3, sample points (o + 0.5)/scale − 0.5
    // clamped at the edges (LINEAR), ⌊o/scale⌋ (NEAREST).
    const std::vector<float> xs = {1, 2, 4, -3, 0.5, 8};
    GraphBuilder b;
    VarId y = b.op("Resize", {floats(b, {1, 1, 2, 3}, xs), b.constant<int32_t>({2}, {3, 5})},
                   {{"imode", "LINEAR"}, {"format", "NCHW"}});
    expect_values(run1(b, y), {1, 1, 3, 5},
                  {1.0, 1.4000000953674316, 2.0, 3.200000286102295, 4.0, -1.0, -0.09999991953372955, 1.25,
                   4.100000381469727, 6.0, -3.0, -1.5999999046325684, 0.5, 5.000000953674316, 8.0});
    GraphBuilder b2;
    VarId y2 = b2.op("Resize", {floats(b2, {1, 1, 2, 3}, xs), b2.constant<int32_t>({2}, {3, 5})},
                     {{"imode", "NEAREST"}, {"format", "NCHW"}});
    expect_values(run1(b2, y2), {1, 1, 3, 5},
                  {1.0, 1.0, 2.0, 2.0, 4.0, 1.0, 1.0, 2.0, 2.0, 4.0, -3.0, -3.0, 0.5, 0.5, 8.0});
    // CUBIC: x [1,1,3,3] to 4×5, Keys A = −0.75, taps clamped to the image.
    GraphBuilder b3;
    VarId y3 =
        b3.op("Resize",
              {floats(b3, {1, 1, 3, 3}, {1, 2, 4, -3, 0.5, 8, 2, -1, 0}), b3.constant<int32_t>({2}, {4, 5})},
              {{"imode", "CUBIC"}, {"format", "NCHW"}});
    expect_values(run1(b3, y3), {1, 1, 4, 5},
                  {1.2083356380462646, 1.4899098873138428,  2.107666015625,      3.1491425037384033,
                   3.866992235183716,  -2.4259815216064453, -1.271090030670166,  1.205322265625,
                   5.257964134216309,  8.035789489746094,   -1.7752032279968262, -1.4967937469482422,
                   -0.205322265625,    3.4241275787353516,  6.109788417816162,   2.691676616668701,
                   0.9754552245140076, -1.107666015625,     -1.0307866334915161, -0.5230078101158142});
}

TEST(ImageKernels, ResizeOfInt8RoundsHalfAwayFromZero) {
    // RoundingConverter<int8_t>: round(); the float results include −1.625,
    // −15.5 and −78.875 (→ −2, −16, −79) and 1.375 (→ 1).
    GraphBuilder b;
    VarId x = constant<int8_t>(b, DType::of(DTypeEnum::Int8), {1, 1, 2, 3}, {-1, -2, 7, 3, -128, 127});
    VarId y =
        b.op("Resize", {x, b.constant<int32_t>({2}, {3, 4})}, {{"imode", "LINEAR"}, {"format", "NCHW"}});
    expect_values(run1(b, y), {1, 1, 3, 4},
                  {-1.0, -2.0, 1.0, 7.0, 1.0, -40.0, -16.0, 67.0, 3.0, -79.0, -32.0, 127.0});
}

TEST(ImageKernels, ResizeNHWCNearestIsTheLinearFormulaUnlessOpenCVTakesIt) {
    // Two channels: kern_naive_nhwc computes NEAREST as the LINEAR sum with a
    // zero weight, so an inf beside the chosen pixel makes NaN (inf·0): pixels
    // (1, 2), (inf, 3) → [NaN,2, NaN,2, NaN,3].
    GraphBuilder b;
    VarId y = b.op("Resize", {floats(b, {1, 1, 2, 2}, {1, 2, kInf, 3}), b.constant<int32_t>({2}, {1, 3})},
                   {{"imode", "NEAREST"}, {"format", "NHWC"}});
    expect_values(run1(b, y), {1, 1, 3, 2}, {NAN, 2, NAN, 2, NAN, 3});
    // Three channels go to resize_nearest_32f, which copies: columns
    // ⌊o · (1/1.5)⌋ = 0, 0, 1.
    GraphBuilder b2;
    VarId y2 =
        b2.op("Resize", {floats(b2, {1, 1, 2, 3}, {1, 2, 5, kInf, 3, 6}), b2.constant<int32_t>({2}, {1, 3})},
              {{"imode", "NEAREST"}, {"format", "NHWC"}});
    expect_values(run1(b2, y2), {1, 1, 3, 3}, {1, 2, 5, 1, 2, 5, INFINITY, 3, 6});
}

TEST(ImageKernels, ResizeRefusesWhatItDoesNotCompute) {
    GraphBuilder b;
    VarId x =
        constant<uint16_t>(b, DType::of(DTypeEnum::BFloat16), {1, 1, 2, 2}, {0x3f80, 0x4000, 0x4040, 0x4080});
    VarId y =
        b.op("Resize", {x, b.constant<int32_t>({2}, {3, 3})}, {{"imode", "LINEAR"}, {"format", "NCHW"}});
    expect_refused(b, y, "Resize", "BFloat16");
    GraphBuilder b2;
    VarId y2 =
        b2.op("Resize", {floats(b2, {1, 1, 2, 2, 4}, ramp(16, 1, 0)), b2.constant<int32_t>({2}, {3, 3})},
              {{"imode", "LINEAR"}, {"format", "NCHW44"}});
    expect_refused(b2, y2, "Resize", "format NCHW44 is not implemented");
    GraphBuilder b3;
    VarId y3 = b3.op("Resize", {floats(b3, {1, 2, 2, 3}, ramp(12, 1, 0)), b3.constant<int32_t>({2}, {3, 3})},
                     {{"imode", "CUBIC"}, {"format", "NHWC"}});
    expect_refused(b3, y3, "Resize", "imode CUBIC of a 3-channel NHWC image");
}

// ---------------------------------------------------------------- WarpPerspective

// src = 2·i − 5 [1,1,3,4]; a mildly perspective matrix; out 3×5; border_val 0.5.
engine::eval::Tensor perspective(const char* bmode) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 3, 4}, ramp(12, 2, -5));
    VarId m = floats(b, {1, 3, 3}, {1.1f, 0.1f, 0.5f, 0.05f, 0.9f, -0.75f, 0.01f, 0.02f, 1});
    VarId y = b.op("WarpPerspective", {x, m, b.constant<int32_t>({2}, {3, 5})},
                   {{"imode", "LINEAR"}, {"bmode", bmode}, {"border_val", 0.5f}, {"format", "NCHW"}});
    return run1(b, y);
}

TEST(ImageKernels, WarpPerspectiveMapsOutsidePointsByEachBorderMode) {
    expect_values(
        perspective("CONSTANT"), {1, 1, 3, 5},
        {-0.625, -0.21566519141197205, 0.42531728744506836, 0.5648505687713623, 0.5, -2.6470589637756348,
         -0.1456308364868164, 2.307692289352417, 1.295917272567749, 0.4999999701976776, 4.42307710647583,
         6.809523582458496, 9.150944709777832, 2.978646993637085, 0.5});
    expect_values(
        perspective("REPLICATE"), {1, 1, 3, 5},
        {-4.0, -1.8316831588745117, 0.29411792755126953, 1.0, 1.0, -2.6470589637756348, -0.1456308364868164,
         2.307692289352417, 3.2857136726379395, 3.641509771347046, 4.42307710647583, 6.809523582458496,
         9.150944709777832, 9.971961975097656, 10.259259223937988});
    expect_values(
        perspective("REFLECT"), {1, 1, 3, 5},
        {-4.0, -1.8316831588745117, 0.29411792755126953, 1.0, -0.4230775833129883, -2.6470589637756348,
         -0.1456308364868164, 2.307692289352417, 3.2857136726379395, 2.2075469493865967, 4.42307710647583,
         6.809523582458496, 9.150944709777832, 9.971961975097656, 8.814815521240234});
    expect_values(
        perspective("REFLECT_101"), {1, 1, 3, 5},
        {2.0, 3.7128713130950928, 5.392157077789307, 4.281553268432617, 1.8076919317245483,
         -2.6470589637756348, -0.1456308364868164, 2.307692289352417, 1.8571418523788452, 0.207547128200531,
         4.42307710647583, 6.809523582458496, 9.150944709777832, 8.49532699584961, 6.814815521240234});
    expect_values(perspective("WRAP"), {1, 1, 3, 5},
                  {8.0, 9.257425308227539, 10.490196228027344, 6.184465408325195, 4.884616851806641,
                   -2.6470589637756348, -0.1456308364868164, 2.307692289352417, -1.0000026226043701,
                   -0.9245272874832153, 4.42307710647583, 6.809523582458496, 9.150944709777832,
                   5.542057037353516, 5.703702926635742});
}

TEST(ImageKernels, WarpPerspectiveMatIdxPicksTheSourceOfEachMatrix) {
    // Sources [1..6] and [10..60] (2×3); matrices identity, x + 1, y + 0.5 with
    // mat_idx [1, 0, 1]; REPLICATE.
    GraphBuilder b;
    VarId x = floats(b, {2, 1, 2, 3}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60});
    VarId m = floats(b, {3, 3, 3},
                     {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0.5f, 0, 0, 1});
    VarId idx = b.constant<int32_t>({3}, {1, 0, 1});
    VarId y = b.op("WarpPerspective", {x, m, idx, b.constant<int32_t>({2}, {2, 3})},
                   {{"imode", "LINEAR"}, {"bmode", "REPLICATE"}, {"format", "NCHW"}});
    expect_values(run1(b, y), {3, 1, 2, 3},
                  {10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 2.0, 3.0, 3.0, 5.0, 6.0, 6.0, 25.0, 35.0, 45.0, 40.0,
                   50.0, 60.0});
}

TEST(ImageKernels, WarpPerspectiveOfADegenerateMatrix) {
    // Denominator 0: the points are NaN (0/0) and inf; floor(±inf or NaN) converts
    // to INT32_MIN on x86 and the weights are NaN. CONSTANT replaces the
    // non-finite result by border_val; REPLICATE reads pixel 0 with NaN weights;
    // REFLECT_101 of INT32_MIN never terminates in MegDNN and is refused.
    auto build = [](GraphBuilder& b, const char* bmode) {
        VarId x = floats(b, {1, 1, 2, 2}, {1, 2, 3, 4});
        VarId m = floats(b, {1, 3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 0});
        return b.op("WarpPerspective", {x, m, b.constant<int32_t>({2}, {1, 2})},
                    {{"imode", "LINEAR"}, {"bmode", bmode}, {"border_val", 0.5f}, {"format", "NCHW"}});
    };
    GraphBuilder b;
    expect_values(run1(b, build(b, "CONSTANT")), {1, 1, 1, 2}, {0.5, 0.5});
    GraphBuilder b2;
    expect_values(run1(b2, build(b2, "REPLICATE")), {1, 1, 1, 2}, {NAN, NAN});
    GraphBuilder b3;
    expect_refused(b3, build(b3, "REFLECT_101"), "WarpPerspective", "does not terminate");
    GraphBuilder b4;
    expect_refused(b4, build(b4, "WRAP"), "WarpPerspective", "overflows");
}

// ---------------------------------------------------------------- WarpAffine

// src = 0.5·i − 3 as [1,4,4,2] NHWC; m = [[1,0,0.3],[0,1,−0.6]]; out 3×5.
engine::eval::Tensor affine_nhwc(const char* imode, const char* border) {
    GraphBuilder b;
    VarId x = floats(b, {1, 4, 4, 2}, ramp(32, 0.5f, -3));
    VarId m = floats(b, {1, 2, 3}, {1, 0, 0.3f, 0, 1, -0.6f});
    VarId y = b.op("WarpAffine", {x, m, b.constant<int32_t>({2}, {3, 5})},
                   {{"imode", imode}, {"border_mode", border}, {"border_val", 0.5f}, {"format", "NHWC"}});
    return run1(b, y);
}

TEST(ImageKernels, WarpAffineOfAFewChannelNHWCImageIsOpenCVsFixedPointWarp) {
    // The OpenCV port rounds the point to 1/32 pixel: x + 0.3 weighs its taps
    // 22/32 and 10/32 (not 0.7 / 0.3), y − 0.6 → 13/32.
    expect_values(affine_nhwc("LINEAR", "CONSTANT"), {1, 3, 5, 2},
                  {-0.794921875, -0.591796875, -0.388671875, -0.185546875, 0.017578125, 0.220703125,
                   0.3603515625, 0.5,          0.5,          0.5,          -1.0625,     -0.5625,
                   -0.0625,      0.4375,       0.9375,       1.4375,       1.2734375,   1.6171875,
                   0.5,          0.5,          2.9375,       3.4375,       3.9375,      4.4375,
                   4.9375,       5.4375,       4.0234375,    4.3671875,    0.5,         0.5});
    expect_values(affine_nhwc("LINEAR", "REPLICATE"), {1, 3, 5, 2},
                  {-2.6875, -2.1875, -1.6875, -1.1875, -0.6875, -0.1875, 0.0,   0.5,   0.0,   0.5,
                   -1.0625, -0.5625, -0.0625, 0.4375,  0.9375,  1.4375,  1.625, 2.125, 1.625, 2.125,
                   2.9375,  3.4375,  3.9375,  4.4375,  4.9375,  5.4375,  5.625, 6.125, 5.625, 6.125});
    expect_values(affine_nhwc("LINEAR", "REFLECT_101"), {1, 3, 5, 2},
                  {-0.3125, 0.1875,  0.6875,  1.1875, 1.6875, 2.1875, 2.0625, 2.5625, 1.0625, 1.5625,
                   -1.0625, -0.5625, -0.0625, 0.4375, 0.9375, 1.4375, 1.3125, 1.8125, 0.3125, 0.8125,
                   2.9375,  3.4375,  3.9375,  4.4375, 4.9375, 5.4375, 5.3125, 5.8125, 4.3125, 4.8125});
    expect_values(affine_nhwc("LINEAR", "WRAP"), {1, 3, 5, 2},
                  {4.4375,  4.9375,  5.4375,  5.9375, 6.4375, 6.9375, 6.1875, 6.6875, 4.4375,  4.9375,
                   -1.0625, -0.5625, -0.0625, 0.4375, 0.9375, 1.4375, 0.6875, 1.1875, -1.0625, -0.5625,
                   2.9375,  3.4375,  3.9375,  4.4375, 4.9375, 5.4375, 4.6875, 5.1875, 2.9375,  3.4375});
    expect_values(affine_nhwc("NEAREST", "CONSTANT"), {1, 3, 5, 2},
                  {0.5,  0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, -3.0, -2.5, -2.0, -1.5, -1.0,
                   -0.5, 0.0, 0.5, 0.5, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5,  4.0,  4.5,  0.5,  0.5});
}

TEST(ImageKernels, WarpAffineOpenCVPortRoundsTheXDeltaAndTheRowStartSeparately) {
    // m = [[0.9, 0.05, 0.26], [0.1, 1.1, −0.6]]: the column delta round(M0·x·1024)
    // and the row start round((M1·y + M2)·1024) + 16 are rounded apart; 0.26 lands
    // below half a table step (266 mod 32 = 10), so the +16 matters.
    for (const char* imode : {"LINEAR", "NEAREST"}) {
        GraphBuilder b;
        VarId x = floats(b, {1, 4, 4, 2}, ramp(32, 0.5f, -3));
        VarId m = floats(b, {1, 2, 3}, {0.9f, 0.05f, 0.26f, 0.1f, 1.1f, -0.6f});
        const bool linear = std::string(imode) == "LINEAR";
        VarId y =
            b.op("WarpAffine", {x, m, b.constant<int32_t>({2}, {3, 5})},
                 {{"imode", imode}, {"border_mode", linear ? "REFLECT" : "REPLICATE"}, {"format", "NHWC"}});
        if (linear)
            expect_values(
                run1(b, y), {1, 3, 5, 2},
                {-2.75,   -2.25,   -1.84375, -1.34375, -0.9375, -0.4375, -0.03125, 0.46875, 0.0,   0.5,
                 -0.6875, -0.1875, 0.59375,  1.09375,  1.875,   2.375,   3.25,     3.75,    3.625, 4.125,
                 3.75,    4.25,    5.0,      5.5,      6.40625, 6.90625, 7.625,    8.125,   8.0,   8.5});
        else
            expect_values(run1(b, y), {1, 3, 5, 2},
                          {-3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0,
                           3.5,  4.0,  4.5,  4.0,  4.5,  5.0,  5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 8.0, 8.5});
    }
}

TEST(ImageKernels, WarpPerspectiveOfAFewChannelNHWCImageIsOpenCVsFixedPointWarp) {
    // warp_perspective_cv.cpp: the point in double, scaled by 32/W and rounded
    // half to even; LINEAR with CONSTANT 0.5, NEAREST with WRAP.
    for (const char* imode : {"LINEAR", "NEAREST"}) {
        GraphBuilder b;
        VarId x = floats(b, {1, 4, 4, 2}, ramp(32, 0.5f, -3));
        VarId m = floats(b, {1, 3, 3}, {1.1f, 0.1f, 0.26f, 0.05f, 0.9f, -0.6f, 0.01f, 0.02f, 1});
        const bool linear = std::string(imode) == "LINEAR";
        VarId y = b.op("WarpPerspective", {x, m, b.constant<int32_t>({2}, {3, 5})},
                       {{"imode", imode},
                        {"bmode", linear ? "CONSTANT" : "WRAP"},
                        {"border_val", 0.5f},
                        {"format", "NHWC"}});
        if (linear)
            expect_values(run1(b, y), {1, 3, 5, 2},
                          {-0.8203125,   -0.6171875, -0.5107421875, -0.2763671875, -0.046875, 0.203125,
                           0.3505859375, 0.5,        0.5,           0.5,           -1.53125,  -1.03125,
                           -0.21875,     0.28125,    0.96875,       1.46875,       1.125,     1.375,
                           0.5,          0.5,        2.0625,        2.5625,        3.25,      3.75,
                           4.375,        4.875,      2.75,          3.0,           0.5,       0.5});
        else
            expect_values(
                run1(b, y), {1, 3, 5, 2},
                {9.0,  9.5, 10.0, 10.5, -1.0, -0.5, 0.0, 0.5, -3.0, -2.5, -3.0, -2.5, -2.0, -1.5, -1.0,
                 -0.5, 0.0, 0.5,  -3.0, -2.5, 1.0,  1.5, 2.0, 2.5,  4.0,  4.5,  1.0,  1.5,  2.0,  2.5});
    }
}

TEST(ImageKernels, WarpAffineNCHWIsTheNaiveFloatWarp) {
    // The same image as NCHW [1,2,4,4]: weights 0.7 / 0.3 in float.
    std::vector<float> nchw(32);
    const std::vector<float> nhwc = ramp(32, 0.5f, -3);
    for (int c = 0; c < 2; ++c)
        for (int p = 0; p < 16; ++p) nchw[c * 16 + p] = nhwc[p * 2 + c];
    GraphBuilder b;
    VarId m = floats(b, {1, 2, 3}, {1, 0, 0.3f, 0, 1, -0.6f});
    VarId y =
        b.op("WarpAffine", {floats(b, {1, 2, 4, 4}, nchw), m, b.constant<int32_t>({2}, {3, 5})},
             {{"imode", "LINEAR"}, {"border_mode", "CONSTANT"}, {"border_val", 0.5f}, {"format", "NCHW"}});
    expect_values(run1(b, y), {1, 2, 3, 5},
                  {-0.7799999117851257,
                   -0.37999996542930603,
                   0.02000001072883606,
                   0.36000001430511475,
                   0.5,
                   -1.100000023841858,
                   -0.10000017285346985,
                   0.8999998569488525,
                   1.2699999809265137,
                   0.5,
                   2.8999998569488525,
                   3.9000000953674316,
                   4.899999618530273,
                   4.070000171661377,
                   0.5,
                   -0.5799999237060547,
                   -0.17999999225139618,
                   0.2199999988079071,
                   0.5,
                   0.5,
                   -0.6000001430511475,
                   0.39999985694885254,
                   1.3999998569488525,
                   1.619999885559082,
                   0.5,
                   3.3999998569488525,
                   4.399999618530273,
                   5.400000095367432,
                   4.420000076293945,
                   0.5});
}

TEST(ImageKernels, WarpAffineRefusesOpenCVModesItDoesNotImplement) {
    GraphBuilder b;
    VarId m = floats(b, {1, 2, 3}, {1, 0, 0.3f, 0, 1, -0.6f});
    VarId y =
        b.op("WarpAffine", {floats(b, {1, 4, 4, 2}, ramp(32, 1, 0)), m, b.constant<int32_t>({2}, {3, 5})},
             {{"imode", "CUBIC"}, {"format", "NHWC"}});
    expect_refused(b, y, "WarpAffine", "imode CUBIC of MegDNN's OpenCV port");
}

// ---------------------------------------------------------------- Remap

// src = 0..11 [1,1,3,4]; map_xy [1,2,4,2]; scalar −7.5.
engine::eval::Tensor remap(const char* imode, const char* border, const std::vector<float>& map) {
    GraphBuilder b;
    VarId y = b.op("Remap", {floats(b, {1, 1, 3, 4}, ramp(12, 1, 0)), floats(b, {1, 2, 4, 2}, map)},
                   {{"imode", imode}, {"border_type", border}, {"format", "NCHW"}, {"scalar", -7.5f}});
    return run1(b, y);
}

TEST(ImageKernels, RemapNearestRoundsHalfToEvenAndMapsByTheBorderMode) {
    // (x, y) = (−2,0) (−1,1) (0.5,2) (1.5,−1) (2.5,3) (4,0) (5.4,1) (9,2):
    // 0.5 → 0, 1.5 → 2, 2.5 → 2.
    const std::vector<float> map = {-2, 0, -1, 1, 0.5, 2, 1.5, -1, 2.5, 3, 4, 0, 5.4f, 1, 9, 2};
    expect_values(remap("NEAREST", "CONSTANT", map), {1, 1, 2, 4},
                  {-7.5, -7.5, 8.0, -7.5, -7.5, -7.5, -7.5, -7.5});
    expect_values(remap("NEAREST", "REPLICATE", map), {1, 1, 2, 4},
                  {0.0, 4.0, 8.0, 2.0, 10.0, 3.0, 7.0, 11.0});
    expect_values(remap("NEAREST", "REFLECT", map), {1, 1, 2, 4}, {1.0, 4.0, 8.0, 2.0, 10.0, 3.0, 6.0, 9.0});
    expect_values(remap("NEAREST", "REFLECT_101", map), {1, 1, 2, 4},
                  {2.0, 5.0, 8.0, 6.0, 6.0, 2.0, 5.0, 11.0});
    expect_values(remap("NEAREST", "WRAP", map), {1, 1, 2, 4}, {2.0, 7.0, 8.0, 10.0, 2.0, 0.0, 5.0, 9.0});
}

TEST(ImageKernels, RemapLinearMixesFourSamplesOfTheBorderedImage) {
    const std::vector<float> map = {-0.5, 0.25, 3.5,   1.75, 1.25, -0.5, 2.0, 2.5,
                                    0.75, 0.75, -1.25, 3.25, 4.5,  -2.0, 1.0, 1.0};
    expect_values(remap("LINEAR", "CONSTANT", map), {1, 1, 2, 4},
                  {-3.25, 1.25, -3.125, 1.25, 3.75, -7.5, -7.5, 5.0});
    expect_values(remap("LINEAR", "REPLICATE", map), {1, 1, 2, 4},
                  {1.0, 10.0, 1.25, 10.0, 3.75, 8.0, 3.0, 5.0});
    expect_values(remap("LINEAR", "REFLECT", map), {1, 1, 2, 4},
                  {1.0, 10.0, 1.25, 10.0, 3.75, 7.25, 6.5, 5.0});
    expect_values(remap("LINEAR", "REFLECT_101", map), {1, 1, 2, 4},
                  {1.5, 9.5, 3.25, 8.0, 3.75, 4.25, 9.5, 5.0});
    expect_values(remap("LINEAR", "WRAP", map), {1, 1, 2, 4}, {2.5, 8.5, 5.25, 6.0, 3.75, 3.75, 4.5, 5.0});
}

TEST(ImageKernels, RemapOfANaNCoordinate) {
    // A NaN converts to INT32_MIN: REPLICATE reads column 0; REFLECT's mirror of
    // it (through INT32_MAX, period 8) is column 0 too; REFLECT_101's does not
    // terminate in MegDNN.
    std::vector<float> map(16, 1.0f);
    map[0] = kNaN;  // pixel (0,0): x = NaN, y = 1
    expect_values(remap("NEAREST", "REPLICATE", map), {1, 1, 2, 4}, {4, 5, 5, 5, 5, 5, 5, 5});
    expect_values(remap("NEAREST", "REFLECT", map), {1, 1, 2, 4}, {4, 5, 5, 5, 5, 5, 5, 5});
    GraphBuilder b;
    VarId y = b.op("Remap", {floats(b, {1, 1, 3, 4}, ramp(12, 1, 0)), floats(b, {1, 2, 4, 2}, map)},
                   {{"imode", "NEAREST"}, {"border_type", "REFLECT_101"}, {"format", "NCHW"}});
    expect_refused(b, y, "Remap", "does not terminate");
}

// ---------------------------------------------------------------- LRN

TEST(ImageKernels, LRNNormalisesByTheChannelWindow) {
    // x [1,3,1,2] = (0.5, −1 | 2, 0.25 | −3, 1.5), n 3, k 2, α 0.1, β 0.75:
    // x · (k + α Σ x²)^−β over channels c−1..c+1 cut at the ends.
    GraphBuilder b;
    VarId x = floats(b, {1, 3, 1, 2}, {0.5, -1, 2, 0.25, -3, 1.5});
    VarId y = b.op("LRN", {x}, {{"n", 3}, {"k", 2.0f}, {"alpha", 0.1f}, {"beta", 0.75f}});
    expect_values(run1(b, y), {1, 3, 1, 2},
                  {0.2572978734970093, -0.5719624757766724, 0.8122435212135315, 0.13250991702079773,
                   -1.2252812385559082, 0.8216371536254883});
}

// ---------------------------------------------------------------- RelayoutFormat

TEST(ImageKernels, RelayoutFormatPacksChannelsPaddingEachGroup) {
    // NCHW_NCHW4, 3 channels [1,3,1,2] = (1,2 | 3,4 | 5,6): per pixel
    // [c0, c1, c2, 0] → [1,3,5,0, 2,4,6,0].
    GraphBuilder b;
    VarId y = b.op("RelayoutFormat", {floats(b, {1, 3, 1, 2}, {1, 2, 3, 4, 5, 6})}, {{"mode", "NCHW_NCHW4"}});
    expect_values(run1(b, y), {1, 1, 1, 2, 4}, {1, 3, 5, 0, 2, 4, 6, 0});
    // group 2 of 3 channels each: each group padded to 4 → [1,2,3,0, 4,5,6,0];
    // NCHW4_NCHW with oc 6, group 2 drops each group's padding again.
    GraphBuilder b2;
    VarId p = b2.op("RelayoutFormat", {floats(b2, {1, 6, 1, 1}, {1, 2, 3, 4, 5, 6})},
                    {{"mode", "NCHW_NCHW4"}, {"group", 2}});
    b2.output(p, "packed");
    VarId u = b2.op("RelayoutFormat", {p}, {{"mode", "NCHW4_NCHW"}, {"group", 2}, {"oc", 6}});
    b2.output(u, "unpacked");
    ir::Graph g = b2.finish();
    const auto out = evaluate(g, {});
    expect_values(out.at(0).value, {1, 2, 1, 1, 4}, {1, 2, 3, 0, 4, 5, 6, 0});
    expect_values(out.at(1).value, {1, 6, 1, 1}, {1, 2, 3, 4, 5, 6});
}

TEST(ImageKernels, RelayoutFormatPadsQuantized8AsymmWithItsZeroPoint) {
    GraphBuilder b;
    VarId x =
        constant<uint8_t>(b, DType::quantized(DTypeEnum::Quantized8Asymm, 0.1f, 7), {1, 3, 1, 1}, {1, 2, 3});
    VarId y = b.op("RelayoutFormat", {x}, {{"mode", "NCHW_NCHW4"}});
    expect_values(run1(b, y), {1, 1, 1, 1, 4}, {1, 2, 3, 7});
}

TEST(ImageKernels, RelayoutFormatMovesChannelsLast) {
    // NHWC_NCHW of [1,1,2,3] = pixels (1,2,3), (4,5,6) → planes (1,4), (2,5), (3,6).
    GraphBuilder b;
    VarId y = b.op("RelayoutFormat", {floats(b, {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})}, {{"mode", "NHWC_NCHW"}});
    expect_values(run1(b, y), {1, 3, 1, 2}, {1, 4, 2, 5, 3, 6});
}

TEST(ImageKernels, RelayoutFormatRefusesPaddingItCannotFill) {
    // padding_to_workspace handles no Float16 tensors.
    GraphBuilder b;
    VarId x = constant<uint16_t>(b, DType::of(DTypeEnum::Float16), {1, 3, 1, 1}, {0x3c00, 0x4000, 0x4200});
    VarId y = b.op("RelayoutFormat", {x}, {{"mode", "NCHW_NCHW4"}});
    expect_refused(b, y, "RelayoutFormat", "padding Float16 channels");
}

}  // namespace
}  // namespace mgedump::test
