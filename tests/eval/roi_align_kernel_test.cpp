// ROIAlign's kernel (engine/eval/image_roi_align.cpp) against MegDNN's definition:
// dnn/src/naive/roi_align/opr_impl.cpp forward_impl with bilinear_interp and the
// poolers of dnn/src/common/roi_align_helper.h. The expectations are worked by
// hand below. On the ramp X[r][c] = 4r + c, bilinear interpolation between four
// neighbours inside the input is exact (4h + w), so a bin's average is 4·(mean h)
// + (mean w); every number involved is a small dyadic fraction, exact in float.
#include <gtest/gtest.h>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

D ramp16(double add = 0) {
    D v(16);
    for (size_t i = 0; i < 16; ++i) v[i] = static_cast<double>(i) + add;
    return v;
}

VarId roi_align(GraphBuilder& b, VarId x, VarId rois, const char* mode, int pooled, int samples,
                float scale = 1, float offset = 0) {
    return b.op("ROIAlign", {x, rois},
                {{"mode", mode},
                 {"pooled_height", pooled},
                 {"pooled_width", pooled},
                 {"sample_height", samples},
                 {"sample_width", samples},
                 {"spatial_scale", scale},
                 {"offset", offset}});
}

TEST(RoiAlignKernel, AverageOfTheSubGridCentres) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    // roi (0.5, 0.5)–(2.5, 2.5): 2×2 bins of 1 pixel; bin (0, 0) samples h, w ∈
    // {0.75, 1.25} (mean 1): 4 + 1 = 5; the others are 1 pixel further.
    VarId rois = floats(b, {1, 5}, {0, 0.5f, 0.5f, 2.5f, 2.5f});
    VarId y = roi_align(b, x, rois, "AVERAGE", 2, 2);
    expect_values(run1(b, y), {1, 1, 2, 2}, {5, 6, 9, 10});
}

TEST(RoiAlignKernel, MaxKeepsTheLargestSampleAndItsIndex) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    // One bin of 2 pixels, samples at h, w ∈ {1, 2}: 5, 6, 9, 10; the largest is
    // sample (1, 1), index 1·2 + 1 = 3.
    VarId y = roi_align(b, x, floats(b, {1, 5}, {0, 0.5f, 0.5f, 2.5f, 2.5f}), "MAX_", 1, 2);
    const auto out = run(b, {y, nth(y, 1)});
    expect_values(out.at(0), {1, 1, 1, 1}, {10});
    expect_values(out.at(1), {1, 1, 1, 1}, {3});
}

TEST(RoiAlignKernel, ScaleOffsetAndBatchIndexPickTheRegion) {
    GraphBuilder b;
    D both = ramp16();
    const D second = ramp16(100);
    both.insert(both.end(), second.begin(), second.end());
    VarId x = floats(b, {2, 1, 4, 4}, std::vector<float>(both.begin(), both.end()));
    // Batch 1; x0 = 1·0.5 − 0.5 = 0, x1 = 5·0.5 − 0.5 = 2: one sample at (1, 1), 100 + 5.
    VarId y = roi_align(b, x, floats(b, {1, 5}, {1, 1, 1, 5, 5}), "AVERAGE", 1, 1, 0.5f, 0.5f);
    expect_values(run1(b, y), {1, 1, 1, 1}, {105});
}

TEST(RoiAlignKernel, NeighboursOutsideTheInputReadZero) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 2, 2}, {1, 2, 3, 4});
    // One sample at (−0.5, −0.5): only X[0][0] = 1 is inside, weight 0.5·0.5. (ONNX's
    // RoiAlign clamps such a point to (0, 0) and reads 1; the importer pads for it.)
    VarId y = roi_align(b, x, floats(b, {1, 5}, {0, -1, -1, 0, 0}), "AVERAGE", 1, 1);
    expect_values(run1(b, y), {1, 1, 1, 1}, {0.25});
}

TEST(RoiAlignKernel, AnInvertedRoiHasZeroSizeAndSamplesItsStart) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    // x1 < x0 and y1 < y0: max(end − start, 0) = 0, every sample at (h 1, w 2): 6.
    VarId y = roi_align(b, x, floats(b, {1, 5}, {0, 2, 1, 0, 0}), "AVERAGE", 2, 2);
    expect_values(run1(b, y), {1, 1, 2, 2}, {6, 6, 6, 6});
}

TEST(RoiAlignKernel, RefusesABatchIndexOutsideTheInput) {
    GraphBuilder b;
    VarId x = floats(b, {1, 1, 2, 2}, {1, 2, 3, 4});
    // MegDNN would read past the feature map.
    VarId y = roi_align(b, x, floats(b, {1, 5}, {1, 0, 0, 1, 1}), "AVERAGE", 1, 1);
    const std::string e = error_of(b, y);
    EXPECT_NE(e.find("(ROIAlign)"), std::string::npos) << e;
    EXPECT_NE(e.find("batch index 1"), std::string::npos) << e;
    EXPECT_NE(e.find("batch of 1"), std::string::npos) << e;
}

}  // namespace
}  // namespace mgedump::test
