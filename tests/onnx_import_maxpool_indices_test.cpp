// MaxPool with its Indices output: the maximum and its flat index over N, C and the
// spatial axes (row-major, or each plane column-major for storage_order 1), from one
// pass over the window offsets. Expected values follow ONNX's spec examples
// (onnx/backend/test/case/node/maxpool.py), worked by hand.
#include <gtest/gtest.h>

#include <utility>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

OnnxModel pool_model(int64_t channels, int64_t storage_order, std::vector<int64_t> pads = {}) {
    OnnxModel m(12);
    m.input("x", {1, channels, 5, 5}).output("y").output("z", OnnxType::INT64);
    auto& n = m.node("MaxPool", {"x"}, {"y", "z"}, "pool");
    if (pads.empty()) {
        set_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
        set_attr(n, "strides", std::vector<int64_t>{2, 2});
    } else {
        set_attr(n, "kernel_shape", std::vector<int64_t>{5, 5});
        set_attr(n, "pads", pads);
    }
    if (storage_order) set_attr(n, "storage_order", storage_order);
    return m;
}

D iota_from(double first, size_t n) {
    D v(n);
    for (size_t k = 0; k < n; ++k) v[k] = first + static_cast<double>(k);
    return v;
}

TEST(OnnxMaxPoolIndices, StridedWindowsGiveTheMaximumAndItsFlatIndex) {
    ir::Graph g = pool_model(2, 0).import();
    EXPECT_EQ(count_ops(g, "Pooling"), 0u);
    // x = 1..25 in channel 0 and 26..50 in channel 1: each 2×2 window's maximum is its
    // bottom-right element, at (1, 1), (1, 3), (3, 1), (3, 3): 6, 8, 16, 18, plus 25 in channel 1.
    const auto out = evaluate(g, {{"x", iota_from(1, 50)}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{7, 9, 17, 19, 32, 34, 42, 44}));
    EXPECT_EQ(out.at(1).value.dtype().type, ir::DTypeEnum::Int32);
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{6, 8, 16, 18, 31, 33, 41, 43}));
}

TEST(OnnxMaxPoolIndices, StorageOrder1NumbersThePlaneColumnMajor) {
    // test_maxpool_with_argmax_2d_precomputed_strides: (h, w) is w·5 + h.
    const auto out = evaluate(pool_model(1, 1).import(), {{"x", iota_from(1, 25)}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{6, 16, 8, 18}));
}

TEST(OnnxMaxPoolIndices, PaddedWindowsNeverPickThePadding) {
    // test_maxpool_with_argmax_2d_precomputed_pads: 5×5 windows over pads of 2; the
    // maximum of window (i, j) is x[min(i+2, 4)][min(j+2, 4)].
    const auto out = evaluate(pool_model(1, 0, {2, 2, 2, 2}).import(), {{"x", iota_from(1, 25)}});
    D y, z;
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            const int r = std::min(i + 2, 4), col = std::min(j + 2, 4);
            z.push_back(r * 5 + col);
            y.push_back(r * 5 + col + 1);
        }
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), y);
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), z);
    // All −inf: the index still names an element of the input.
    const double inf = std::numeric_limits<double>::infinity();
    const auto neg = evaluate(pool_model(1, 0, {2, 2, 2, 2}).import(), {{"x", D(25, -inf)}});
    for (double i : engine::eval::to_doubles(neg.at(1).value)) EXPECT_TRUE(i >= 0 && i < 25) << i;
}

TEST(OnnxMaxPoolIndices, AWindowOfMoreThan256OffsetsIsRefused) {
    // One round per offset: 16×17 = 272 would be 272 rounds (fuzz_onnx's 28×37 made
    // 6,575 operators); 16×16 = 256 is the largest taken.
    for (auto [kernel, refused] : {std::pair{std::vector<int64_t>{16, 17}, true}, {{16, 16}, false}}) {
        OnnxModel m(12);
        m.input("x", {1, 1, 20, 20}).output("y").output("z", OnnxType::INT64);
        set_attr(m.node("MaxPool", {"x"}, {"y", "z"}, "pool"), "kernel_shape", kernel);
        if (refused)
            EXPECT_EQ(import_error(m), "test.onnx: node 'pool' (MaxPool): MaxPool with the Indices output (#1): a "
                                       "window of [16,17] is unrolled one round per offset, up to 256 offsets");
        else
            EXPECT_EQ(count_ops(m.import(), "Subtensor"), 256u);
    }
}

TEST(OnnxMaxPoolIndices, CeilModeIsRefused) {
    OnnxModel m = pool_model(1, 0);
    set_attr(*m.proto().mutable_graph()->mutable_node(0), "ceil_mode", int64_t{1});
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'pool' (MaxPool): MaxPool with the Indices output (#1): ceil_mode is not supported");
}

}  // namespace
}  // namespace mgedump::test
