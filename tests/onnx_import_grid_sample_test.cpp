// GridSample (opset 16) written out as Float32 Elemwise on the grid and one
// IndexingMultiAxisVec per tap. Expected values derived by hand from the definition
// (PyTorch's grid_sampler_2d, whose outputs are ONNX's test data): X = [[1, 2], [3, 4]],
// x = ((g + 1)/2)·(W − 1) with align_corners, else ((g + 1)·W − 1)/2.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

OnnxModel grid_model(int64_t points, const char* mode, const char* padding, int64_t align_corners) {
    OnnxModel m(16);
    m.input("x", {1, 1, 2, 2}).input("grid", {1, 1, points, 2}).output("y");
    auto& n = m.node("GridSample", {"x", "grid"}, {"y"}, "gs");
    set_attr(n, "mode", mode);
    set_attr(n, "padding_mode", padding);
    set_attr(n, "align_corners", align_corners);
    return m;
}

const D kX{1, 2, 3, 4};

TEST(OnnxGridSample, BilinearWithAlignedCorners) {
    ir::Graph g = grid_model(3, "bilinear", "zeros", 1).import();
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 4u);  // one per tap
    // (−1, −1) → pixel (0, 0); (0, 0) → (.5, .5), the mean; (1, −1) → x 1, y 0.
    expect_near_all(evaluate_values(g, {{"x", kX}, {"grid", {-1, -1, 0, 0, 1, -1}}}), D{1, 2.5, 2}, 1e-6);
}

TEST(OnnxGridSample, PaddingModesOutsideTheInput) {
    // (−2, −1) without align_corners: x = ((−1)·2 − 1)/2 = −1.5, y = −.5.
    const std::map<std::string, D> feeds{{"x", kX}, {"grid", {-2, -1}}};
    // zeros: the taps x ∈ {−2, −1} are all outside: 0.
    EXPECT_EQ(evaluate_values(grid_model(1, "bilinear", "zeros", 0).import(), feeds), (D{0}));
    // border: x, y clip to 0: X[0][0].
    EXPECT_EQ(evaluate_values(grid_model(1, "bilinear", "border", 0).import(), feeds), (D{1}));
    // reflection at −.5: x = −1.5 → .5, y = −.5 → −.5, clipped to 0: between 1 and 2.
    expect_near_all(evaluate_values(grid_model(1, "bilinear", "reflection", 0).import(), feeds), D{1.5}, 1e-6);
}

TEST(OnnxGridSample, NearestRoundsHalfToEven) {
    // align_corners: (.2, .6) → (.6, .8) → pixel (1, 1); (0, 1) → x .5 rounds to 0, y 1.
    EXPECT_EQ(evaluate_values(grid_model(2, "nearest", "zeros", 1).import(), {{"x", kX}, {"grid", {0.2, 0.6, 0, 1}}}),
              (D{4, 3}));
}

TEST(OnnxGridSample, BicubicWithPyTorchsCoefficients) {
    // align_corners: (1, 1) is pixel (1, 1), t = 0 (coefficients 0, 1, 0, 0); (0, −1) is
    // x .5, y 0: the x coefficients at t = .5 are −.09375, .59375, .59375, −.09375 on the
    // taps x = −1..2 of row 0: zeros [0, 1, 2, 0], border [1, 1, 2, 2].
    const std::map<std::string, D> feeds{{"x", kX}, {"grid", {1, 1, 0, -1}}};
    expect_near_all(evaluate_values(grid_model(2, "bicubic", "zeros", 1).import(), feeds), D{4, 1.78125}, 1e-6);
    expect_near_all(evaluate_values(grid_model(2, "bicubic", "border", 1).import(), feeds), D{4, 1.5}, 1e-6);
}

TEST(OnnxGridSample, RefusesVolumetricData) {
    OnnxModel m(16);
    m.input("x", {1, 1, 2, 2, 2}).input("grid", {1, 1, 1, 1, 3}).output("y");
    m.node("GridSample", {"x", "grid"}, {"y"}, "gs");
    EXPECT_EQ(import_error(m), "test.onnx: node 'gs' (GridSample): X has rank 5; only 4-D (N, C, H, W) data is supported");
}

}  // namespace
}  // namespace mgedump::test
