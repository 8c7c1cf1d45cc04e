// The image family's inference rules (ir/infer/rules_image.cpp) against MegDNN's
// dnn/src/common/*.cpp and MegBrain's src/opr/impl/imgproc.cpp,
// src/opr/impl/dnn/{adaptive_pooling,roi_align}.cpp and tensor_manip.cpp.
#include <gtest/gtest.h>

#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

using U = std::vector<uint32_t>;

TEST(InferImage, Pooling) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 5, 5});
    const ir::ParamArgs p = {{"mode", "AVERAGE"}, {"pad_h", 1},    {"pad_w", 1},   {"window_h", 3},
                             {"window_w", 3},     {"stride_h", 2}, {"stride_w", 2}};
    // pooling.cpp deduce_layout_impl → infer_conv_shape: (5 + 2 - 3) / 2 + 1 = 3.
    VarId y = b.op("Pooling", {x}, p);
    EXPECT_EQ(shape_of(b, y), (U{1, 2, 3, 3}));
    EXPECT_EQ(dtype_of(b, y), F32);
    VarId xn = b.input("xn", F32, {1, 5, 5, 2});
    EXPECT_EQ(shape_of(b, b.op("Pooling", {xn}, {{"format", "NHWC"}})), (U{1, 2, 2, 2}));
}

TEST(InferImage, PoolingRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 5, 5});
    expect_refused([&] { b.op("Pooling", {x}, {{"stride_h", 0}}); }, "stride of 0");
    expect_refused([&] { b.op("Pooling", {x}, {{"window_h", 8}, {"window_w", 8}}); }, "the window spans 8");
    // pooling.cpp check_layout_fwd: float, Int8 or quantized only.
    VarId u = b.input("u", DType::of(DTypeEnum::Uint8), {1, 2, 5, 5});
    expect_refused([&] { b.op("Pooling", {u}); }, "input 0 is Uint8");
    expect_refused([&] { b.op("Pooling", {x}, {{"format", "CHWN4"}}); }, "format CHWN4 is not supported");
    // deduce_layout_impl: an empty input only in NCHW or NHWC.
    VarId e = b.input("e", F32, {0, 1, 4, 4, 4});
    expect_refused(
        [&] {
            b.op("Pooling", {e}, {{"format", "NCHW4"}});
        },
        "an empty input [0,1,4,4,4] is supported only in formats NCHW and NHWC, not NCHW4");
    VarId e4 = b.input("e4", F32, {0, 1, 4, 4});
    EXPECT_EQ(shape_of(b, b.op("Pooling", {e4})), (U{0, 1, 2, 2}));
}

TEST(InferImage, AdaptivePooling) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 6, 6});
    VarId oshp = b.constant<int32_t>({2}, {2, 3});
    // adaptive_pooling.cpp (MegBrain): spatial dims are the shape tensor's value.
    VarId y = b.op("AdaptivePooling", {x, oshp}, {{"mode", "AVERAGE"}});
    EXPECT_EQ(shape_of(b, y), (U{1, 2, 2, 3}));
    VarId one = b.constant<int32_t>({1}, {4});
    EXPECT_EQ(shape_of(b, b.op("AdaptivePooling", {x, one}, {{"mode", "AVERAGE"}})), (U{1, 2, 4, 4}));
    // An output size only known at run time leaves the shape unknown.
    VarId dyn = b.input("dyn", I32, {2});
    EXPECT_TRUE(shape_of(b, b.op("AdaptivePooling", {x, dyn}, {{"mode", "AVERAGE"}})).empty());
    VarId big = b.constant<int32_t>({2}, {7, 3});
    expect_refused(
        [&] {
            b.op("AdaptivePooling", {x, big}, {{"mode", "AVERAGE"}});
        },
        "at most the input's 6x6");
    VarId fl = b.constant<float>({2}, {2, 3});
    expect_refused([&] { b.op("AdaptivePooling", {x, fl}, {{"mode", "AVERAGE"}}); }, "must hold integers");
}

TEST(InferImage, RoiAlign) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 8, 8});
    VarId rois = b.input("rois", F32, {4, 5});
    // roi_align.cpp deduce_layout_fwd: dst (M, C, pooled_height, pooled_width), index
    // the same shape in Int32.
    VarId y = b.op("ROIAlign", {x, rois}, {{"mode", "AVERAGE"}, {"pooled_height", 7}, {"pooled_width", 5}});
    EXPECT_EQ(shape_of(b, y), (U{4, 3, 7, 5}));
    EXPECT_EQ(dtype_of(b, y), F32);
    EXPECT_EQ(shape_of(b, nth(y, 1)), (U{4, 3, 7, 5}));
    EXPECT_EQ(dtype_of(b, nth(y, 1)), I32);
}

TEST(InferImage, RoiAlignRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 8, 8});
    VarId rois = b.input("rois", F32, {4, 5});
    // Rows are (batch index, x0, y0, x1, y1): 4 columns is ONNX's layout, not MegEngine's.
    expect_refused([&] { b.op("ROIAlign", {x, b.input("r4", F32, {4, 4})}); }, "rois of shape (M, 5)");
    expect_refused([&] { b.op("ROIAlign", {b.input("x3", F32, {3, 8, 8}), rois}); }, "4-dim input");
    // MegBrain's ROIAlignForward asserts a Float32 src; MegDNN wants rois of src's dtype.
    VarId h = b.input("h", DType::of(DTypeEnum::Float16), {2, 3, 8, 8});
    expect_refused([&] { b.op("ROIAlign", {h, rois}); }, "Float32 input");
    expect_refused([&] { b.op("ROIAlign", {x, b.input("ri", I32, {4, 5})}); }, "rois of the input's dtype");
    expect_refused([&] { b.op("ROIAlign", {x, rois}, {{"format", "NHWC"}}); }, "NCHW only");
}

TEST(InferImage, Lrn) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 4, 3, 3});
    // lrn.cpp deduce_layout: dst = src.
    EXPECT_EQ(shape_of(b, b.op("LRN", {x}, {{"n", 3}})), (U{1, 4, 3, 3}));
    // lrn.cpp check_param: n & 1.
    expect_refused([&] { b.op("LRN", {x}, {{"n", 4}}); }, "odd window n, got 4");
    VarId i = b.input("i", I32, {1, 4, 3, 3});
    expect_refused([&] { b.op("LRN", {i}); }, "needs a float input");
}

TEST(InferImage, Resize) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 3, 4});
    VarId oshp = b.constant<int32_t>({2}, {5, 6});
    // imgproc.cpp ResizeForward: height_idx 2 for NCHW, 1 for NHWC.
    EXPECT_EQ(shape_of(b, b.op("Resize", {x, oshp}, {{"format", "NCHW"}})), (U{1, 2, 5, 6}));
    EXPECT_EQ(shape_of(b, b.op("Resize", {x, oshp}, {{"format", "NHWC"}})), (U{1, 5, 6, 4}));
    // resize.cpp check_layout_fwd: NCHW takes LINEAR, NEAREST, CUBIC.
    expect_refused(
        [&] {
            b.op("Resize", {x, oshp}, {{"format", "NCHW"}, {"imode", "AREA"}});
        },
        "imode LINEAR, NEAREST, CUBIC");
    VarId three = b.constant<int32_t>({3}, {5, 6, 7});
    expect_refused([&] { b.op("Resize", {x, three}, {{"format", "NCHW"}}); }, "2-element output size");
}

TEST(InferImage, WarpPerspective) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 2, 4, 4});
    VarId m = b.input("m", F32, {3, 3, 3});
    VarId idx = b.input("idx", I32, {3});
    VarId oshp = b.constant<int32_t>({2}, {3, 5});
    // imgproc.cpp: batch from the matrix, spatial from the shape tensor.
    VarId y = b.op("WarpPerspective", {x, m, idx, oshp}, {{"format", "NCHW"}});
    EXPECT_EQ(shape_of(b, y), (U{3, 2, 3, 5}));
    expect_refused(
        [&] {
            b.op("WarpPerspective", {x, m, oshp}, {{"format", "NCHW"}});
        },
        "batch 2 and the matrix batch 3");
    // warp_perspective.cpp check_layout_fwd (NCHW): LINEAR only.
    expect_refused(
        [&] {
            b.op("WarpPerspective", {x, m, idx, oshp}, {{"format", "NCHW"}, {"imode", "NEAREST"}});
        },
        "only supports imode LINEAR");
    VarId m2 = b.input("m2", F32, {3, 2, 3});
    expect_refused(
        [&] {
            b.op("WarpPerspective", {x, m2, idx, oshp}, {{"format", "NCHW"}});
        },
        "[N,3,3] matrix");
    OpOptions to_i32;
    to_i32.output_dtype = I32;
    expect_refused(
        [&] {
            b.op("WarpPerspective", {x, m, idx, oshp}, {{"format", "NCHW"}}, to_i32);
        },
        "only changes the dtype");
}

TEST(InferImage, WarpAffine) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 4, 4, 2});
    VarId m = b.input("m", F32, {1, 2, 3});
    VarId oshp = b.constant<int32_t>({2}, {3, 5});
    VarId y = b.op("WarpAffine", {x, m, oshp}, {{"border_mode", "CONSTANT"}});  // NHWC by default
    EXPECT_EQ(shape_of(b, y), (U{1, 3, 5, 2}));
    // warp_affine.cpp check_layout_fwd: NHWC refuses AREA.
    expect_refused([&] { b.op("WarpAffine", {x, m, oshp}, {{"imode", "AREA"}}); }, "imode AREA");
    VarId m3 = b.input("m3", F32, {1, 3, 3});
    expect_refused([&] { b.op("WarpAffine", {x, m3, oshp}); }, "[1,2,3] matrix");
}

TEST(InferImage, Remap) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 4, 4});
    VarId map = b.input("map", F32, {1, 3, 5, 2});
    // remap.cpp deduce_layout_fwd: NCHW → [n, c, map h, map w].
    EXPECT_EQ(shape_of(b, b.op("Remap", {x, map}, {{"format", "NCHW"}})), (U{1, 2, 3, 5}));
    EXPECT_EQ(shape_of(b, b.op("Remap", {x, map}, {{"format", "NHWC"}})), (U{1, 3, 5, 4}));
    VarId mi = b.input("mi", I32, {1, 3, 5, 2});
    expect_refused([&] { b.op("Remap", {x, mi}, {{"format", "NCHW"}}); }, "map_xy (input 1) must be Float32");
    VarId m3 = b.input("m3", F32, {1, 3, 5, 3});
    expect_refused([&] { b.op("Remap", {x, m3}, {{"format", "NCHW"}}); }, "[1,oh,ow,2] map_xy");
}

TEST(InferImage, RelayoutFormat) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 6, 2, 3});
    // relayout_format.cpp: NCHW_NCHW4 → [n, group*ceil(icpg/4), h, w, 4].
    EXPECT_EQ(shape_of(b, b.op("RelayoutFormat", {x}, {{"mode", "NCHW_NCHW4"}})), (U{1, 2, 2, 3, 4}));
    EXPECT_EQ(shape_of(b, b.op("RelayoutFormat", {x}, {{"mode", "NCHW_NHWC"}})), (U{1, 2, 3, 6}));
    EXPECT_EQ(shape_of(b, b.op("RelayoutFormat", {x}, {{"mode", "NHWC_NCHW"}})), (U{1, 3, 6, 2}));
    VarId x4 = b.input("x4", F32, {1, 2, 2, 3, 4});
    EXPECT_EQ(shape_of(b, b.op("RelayoutFormat", {x4}, {{"mode", "NCHW4_NCHW"}})), (U{1, 8, 2, 3}));
    expect_refused(
        [&] {
            b.op("RelayoutFormat", {x}, {{"mode", "NCHW_NCHW4"}, {"group", 4}});
        },
        "divide into group 4");
    expect_refused(
        [&] {
            b.op("RelayoutFormat", {x}, {{"mode", "INTER_WEIGHT_DENSE"}});
        },
        "mode INTER_WEIGHT_DENSE is not supported");
}

TEST(InferImage, Padding) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 3, 3});
    // padding.cpp deduce_layout_impl: dim i grows by front_offset_dimi + back_offset_dimi.
    VarId y =
        b.op("Padding", {x}, {{"front_offset_dim1", 1}, {"front_offset_dim2", 1}, {"back_offset_dim3", 2}});
    EXPECT_EQ(shape_of(b, y), (U{1, 3, 4, 5}));
    VarId bl = b.input("bl", BOOL, {2});
    expect_refused([&] { b.op("Padding", {bl}); }, "does not support dtype Bool");
}

}  // namespace
}  // namespace mgedump::test
