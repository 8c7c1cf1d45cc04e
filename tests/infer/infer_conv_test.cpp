// The conv family's inference rules (ir/infer/rules_conv.cpp) against MegDNN's
// deduce_layout / deduce_dtype / check_exec (dnn/src/common/*.cpp) and MegBrain's
// init_output_dtype (src/opr/impl/dnn/convolution.cpp).
#include <gtest/gtest.h>

#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

using U = std::vector<uint32_t>;

TEST(InferConv, DenseNchw) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 5, 5});
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    // dnn/src/common/utils.cpp infer_conv_shape: (5 + 2*1 - 3) / 2 + 1 = 3.
    VarId y = b.op("Convolution", {x, w}, {{"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}});
    EXPECT_EQ(shape_of(b, y), (U{1, 3, 3, 3}));
    EXPECT_EQ(dtype_of(b, y), F32);
}

TEST(InferConv, DilationAndFlipMode) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 5, 5});
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    // convolution.cpp: dilated = (3-1)*2+1 = 5; oh = (5+4-5)/1+1 = 5, ow = (5+2-3)+1 = 5.
    VarId y = b.op("Convolution", {x, w},
                   {{"mode", "CONVOLUTION"}, {"pad_h", 2}, {"pad_w", 1}, {"dilate_h", 2}, {"dilate_w", 1}});
    EXPECT_EQ(shape_of(b, y), (U{1, 3, 5, 5}));
}

TEST(InferConv, GroupAndNhwc) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 4, 5, 5});
    VarId w = b.input("w", F32, {2, 3, 2, 3, 3});  // [g, ocpg, icpg, fh, fw]
    VarId y = b.op("Convolution", {x, w}, {{"sparse", "GROUP"}, {"pad_h", 1}, {"pad_w", 1}});
    EXPECT_EQ(shape_of(b, y), (U{1, 6, 5, 5}));
    // NHWC: filter [oc, fh, fw, ic], output [n, oh, ow, oc].
    VarId xn = b.input("xn", F32, {1, 5, 5, 2});
    VarId wn = b.input("wn", F32, {3, 3, 3, 2});
    EXPECT_EQ(shape_of(b, b.op("Convolution", {xn, wn}, {{"format", "NHWC"}})), (U{1, 3, 3, 3}));
}

TEST(InferConv, Nchw4) {
    GraphBuilder b;
    VarId x = b.input("x", qs8(0.5f), {1, 2, 5, 5, 4});
    VarId w = b.input("w", qs8(0.25f), {8, 2, 3, 3, 4});  // [oc, ic/4, fh, fw, 4]
    VarId y = b.op("Convolution", {x, w}, {{"format", "NCHW4"}});
    EXPECT_EQ(shape_of(b, y), (U{1, 2, 3, 3, 4}));
}

TEST(InferConv, Refusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 3, 5, 5});
    VarId w = b.input("w", F32, {16, 4, 3, 3});
    expect_refused(
        [&] {
            b.op("Convolution", {x, w});
        },
        "weight [16,4,3,3] needs 4 input channels (group 1), input 0 has 3");
    VarId w3 = b.input("w3", F32, {2, 3, 3, 3});
    // MegEngine divides by the stride: SIGFPE.
    expect_refused([&] { b.op("Convolution", {x, w3}, {{"stride_h", 0}}); }, "stride of 0");
    expect_refused([&] { b.op("Convolution", {x, w3}, {{"dilate_w", 0}}); }, "dilation must be positive");
    // convolution.cpp make_canonized_filter_meta_nchw_nhwc: GROUP needs a 5-dim filter.
    expect_refused(
        [&] {
            b.op("Convolution", {x, w3}, {{"sparse", "GROUP"}});
        },
        "GROUP convolution needs a 5-dim filter");
    VarId big = b.input("big", F32, {2, 3, 9, 9});
    expect_refused([&] { b.op("Convolution", {x, big}); }, "the window spans 9");
    expect_refused(
        [&] {
            b.op("Convolution", {x, w3}, {{"format", "NCHW88"}});
        },
        "format NCHW88 is not supported");
    VarId wi = b.input("wi", DType::of(DTypeEnum::Int8), {2, 3, 3, 3});
    expect_refused([&] { b.op("Convolution", {x, wi}); }, "their dtypes must match");
    // check_or_deduce_dtype_fwd: ComputeMode::FLOAT32 only for Float16/BFloat16.
    expect_refused(
        [&] {
            b.op("Convolution", {x, w3}, {{"compute_mode", "FLOAT32"}});
        },
        "compute_mode FLOAT32");
}

TEST(InferConv, QuantizedDtypes) {
    GraphBuilder b;
    VarId x = b.input("x", qs8(0.5f), {1, 4, 4, 4});
    VarId w = b.input("w", qs8(0.25f), {2, 4, 1, 1});
    // check_or_deduce_dtype_fwd: QuantizedS8 x QuantizedS8 -> QuantizedS32(scale product).
    EXPECT_EQ(dtype_of(b, b.op("Convolution", {x, w})), qs32(0.125f));
    OpOptions to_qs8;
    to_qs8.output_dtype = qs8(2.0f);
    EXPECT_EQ(dtype_of(b, b.op("Convolution", {x, w}, {}, to_qs8)), qs8(2.0f));
    OpOptions to_i16;
    to_i16.output_dtype = DType::of(DTypeEnum::Int16);
    expect_refused([&] { b.op("Convolution", {x, w}, {}, to_i16); }, "cannot give Int16");
    VarId xi = b.input("xi", DType::of(DTypeEnum::Int8), {1, 4, 4, 4});
    VarId wi = b.input("wi", DType::of(DTypeEnum::Int8), {2, 4, 1, 1});
    EXPECT_EQ(dtype_of(b, b.op("Convolution", {xi, wi})), I32);
}

TEST(InferConv, UnknownStaysUnknown) {
    GraphBuilder b;
    VarId img = b.input("img", F32, {1, 2, 9, 9});
    VarId dyn = b.input("dyn", I32, {2});
    // An output size known only at run time: the pooled shape is unknown.
    VarId x = b.op("AdaptivePooling", {img, dyn}, {{"mode", "AVERAGE"}});
    ASSERT_TRUE(shape_of(b, x).empty());
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    VarId y = b.op("Convolution", {x, w});
    EXPECT_TRUE(shape_of(b, y).empty());
    EXPECT_EQ(dtype_of(b, y), F32);
}

TEST(InferConv, BackwardData) {
    GraphBuilder b;
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    VarId dy = b.input("dy", F32, {1, 3, 3, 3});
    // convolution.cpp deduce_layout: (3-1)*2 + 3 - 2*1 = 5.
    VarId y = b.op("ConvolutionBackwardData", {w, dy},
                   {{"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}});
    EXPECT_EQ(shape_of(b, y), (U{1, 2, 5, 5}));
    // With a third input, the output has its shape (convolution.cpp, make_identity(input(2))).
    VarId like = b.input("like", F32, {1, 2, 6, 6});
    VarId y3 = b.op("ConvolutionBackwardData", {w, dy, like},
                    {{"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}});
    EXPECT_EQ(shape_of(b, y3), (U{1, 2, 6, 6}));
    VarId bad = b.input("bad", F32, {1, 2, 9, 9});
    expect_refused(
        [&] {
            b.op("ConvolutionBackwardData", {w, dy, bad}, {{"stride_h", 2}, {"stride_w", 2}});
        },
        "the forward convolution gives [1,3,4,4]");
    VarId dy4 = b.input("dy4", F32, {1, 4, 3, 3});
    expect_refused([&] { b.op("ConvolutionBackwardData", {w, dy4}); }, "gives 3 output channels");
    // deduce_dtype: QuantizedS8 x QuantizedS8 -> QuantizedS32.
    VarId wq = b.input("wq", qs8(0.5f), {3, 2, 3, 3});
    VarId dq = b.input("dq", qs8(0.5f), {1, 3, 3, 3});
    EXPECT_EQ(dtype_of(b, b.op("ConvolutionBackwardData", {wq, dq})), qs32(0.25f));
}

TEST(InferConv, BackwardFilter) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 5, 5});
    VarId dy = b.input("dy", F32, {1, 3, 3, 3});
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    // MegDNNOprWrapperBwd: shape and dtype of input 2.
    VarId g = b.op("ConvolutionBackwardFilter", {x, dy, w},
                   {{"pad_h", 1}, {"pad_w", 1}, {"stride_h", 2}, {"stride_w", 2}});
    EXPECT_EQ(shape_of(b, g), (U{3, 2, 3, 3}));
    expect_refused(
        [&] {
            b.op("ConvolutionBackwardFilter", {x, dy, w}, {{"stride_h", 2}, {"stride_w", 2}});
        },
        "the forward convolution gives [1,3,2,2]");
    VarId xi = b.input("xi", DType::of(DTypeEnum::Int8), {1, 2, 5, 5});
    expect_refused([&] { b.op("ConvolutionBackwardFilter", {xi, dy, w}); }, "only float dtypes");
}

TEST(InferConv, ConvBias) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 5, 5});
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    VarId bias = b.input("b", F32, {1, 3, 1, 1});
    VarId z = b.input("z", F32, {1, 3, 5, 5});
    VarId y = b.op("ConvBias", {x, w, bias, z}, {{"nonlineMode", "RELU"}, {"pad_h", 1}, {"pad_w", 1}});
    EXPECT_EQ(shape_of(b, y), (U{1, 3, 5, 5}));
    // conv_bias.cpp do_check_exec_common: bias [1, oc, 1, 1] or the output's shape.
    VarId bad_bias = b.input("bb", F32, {1, 4, 1, 1});
    expect_refused(
        [&] {
            b.op("ConvBias", {x, w, bad_bias}, {{"pad_h", 1}, {"pad_w", 1}});
        },
        "the bias (input 2) must be");
    VarId bad_z = b.input("bz", F32, {1, 3, 4, 4});
    expect_refused(
        [&] {
            b.op("ConvBias", {x, w, bias, bad_z}, {{"pad_h", 1}, {"pad_w", 1}});
        },
        "z (input 3) must have the output's shape");
}

TEST(InferConv, ConvBiasQuantized) {
    GraphBuilder b;
    VarId x = b.input("x", qs8(0.5f), {1, 4, 4, 4});
    VarId w = b.input("w", qs8(0.25f), {2, 4, 1, 1});
    VarId bias = b.input("b", qs32(0.125f), {1, 2, 1, 1});
    OpOptions o;
    o.output_dtype = qs8(2.0f);
    VarId y = b.op("ConvBias", {x, w, bias}, {}, o);
    EXPECT_EQ(dtype_of(b, y), qs8(2.0f));
    EXPECT_EQ(shape_of(b, y), (U{1, 2, 4, 4}));
    // The bias scale must be src scale * filter scale (conv_bias.cpp do_check_exec_common).
    VarId bad = b.input("bad", qs32(1.0f), {1, 2, 1, 1});
    expect_refused([&] { b.op("ConvBias", {x, w, bad}, {}, o); }, "the bias scale must be");
    expect_refused([&] { b.op("ConvBias", {x, w, bias}, {{"nonlineMode", "SIGMOID"}}, o); }, "SIGMOID");
}

TEST(InferConv, BatchConvBias) {
    GraphBuilder b;
    VarId x = b.input("x", qs8(0.5f), {2, 2, 3, 3});
    VarId w = b.input("w", qs8(0.25f), {2, 3, 2, 1, 1});  // [batch, oc, ic, fh, fw]
    VarId bias = b.input("b", qs32(0.125f), {1, 3, 1, 1});
    VarId y = b.op("BatchConvBias", {x, w, bias});
    EXPECT_EQ(shape_of(b, y), (U{2, 3, 3, 3}));
    EXPECT_EQ(dtype_of(b, y), qs32(0.125f));
    // batch_conv_bias.cpp check_exec: "batch conv only support qint8".
    VarId xf = b.input("xf", F32, {2, 2, 3, 3});
    VarId wf = b.input("wf", F32, {2, 3, 2, 1, 1});
    expect_refused([&] { b.op("BatchConvBias", {xf, wf}); }, "only supports QuantizedS8");
}

TEST(InferConv, Convolution3D) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 4, 4, 4});
    VarId w = b.input("w", F32, {3, 2, 2, 2, 2});
    // convolution3d.cpp: od = (4+2-2)/2+1 = 3, oh = 3, ow = (4+2-2)+1 = 5.
    VarId y = b.op("Convolution3D", {x, w}, {{"pad_d", 1}, {"stride_d", 2}, {"pad_w", 1}});
    EXPECT_EQ(shape_of(b, y), (U{1, 3, 3, 3, 5}));
    // Convolution3DForward::init_output_dtype asserts Float16 for FLOAT_IO16xC32.
    expect_refused(
        [&] {
            b.op("Convolution3D", {x, w}, {{"data_type", "FLOAT_IO16xC32"}});
        },
        "FLOAT_IO16xC32 needs Float16");
    expect_refused([&] { b.op("Convolution3D", {x, w}, {{"stride_h", 0}}); }, "stride_h is 0");
    VarId dy = b.input("dy", F32, {1, 3, 3, 3, 5});
    VarId g = b.op("Convolution3DBackwardData", {w, dy}, {{"pad_d", 1}, {"stride_d", 2}, {"pad_w", 1}});
    EXPECT_EQ(shape_of(b, g), (U{1, 2, 4, 4, 4}));
    VarId gw = b.op("Convolution3DBackwardFilter", {x, dy, w}, {{"pad_d", 1}, {"stride_d", 2}, {"pad_w", 1}});
    EXPECT_EQ(shape_of(b, gw), (U{3, 2, 2, 2, 2}));
    expect_refused([&] { b.op("Convolution3DBackwardFilter", {x, dy, w}); }, "the forward convolution gives");
}

TEST(InferConv, LocalShare) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 4, 4});
    VarId w = b.input("w", F32, {2, 2, 2, 3, 3, 4});  // [sgh, sgw, ci, fh, fw, co]
    const ir::ParamArgs p = {{"spatial_groups_h", 2}, {"spatial_groups_w", 2}, {"pad_h", 1}, {"pad_w", 1}};
    VarId y = b.op("LocalShare", {x, w}, p);
    EXPECT_EQ(shape_of(b, y), (U{1, 4, 4, 4}));
    VarId dy = b.input("dy", F32, {1, 4, 4, 4});
    EXPECT_EQ(shape_of(b, b.op("LocalShareBackwardData", {w, dy, x}, p)), (U{1, 2, 4, 4}));
    EXPECT_EQ(shape_of(b, b.op("LocalShareBackwardFilter", {x, dy, w}, p)), (U{2, 2, 2, 3, 3, 4}));
    // local_share/opr_impl.cpp: spatial groups in the filter must match the params.
    expect_refused(
        [&] {
            b.op("LocalShare", {x, w}, {{"pad_h", 1}, {"pad_w", 1}});
        },
        "has spatial groups 2x2");
    expect_refused(
        [&] {
            b.op("LocalShare", {x, w}, {{"spatial_groups_h", 2}, {"spatial_groups_w", 2}, {"dilate_h", 2}});
        },
        "dilated local share");
    VarId xh = b.input("xh", DType::of(DTypeEnum::Float16), {1, 2, 4, 4});
    expect_refused([&] { b.op("LocalShare", {xh, w}, p); }, "only supports Float32");
}

TEST(InferConv, DeformableConv) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 2, 4, 4});
    VarId w = b.input("w", F32, {3, 2, 3, 3});
    VarId off = b.input("off", F32, {1, 18, 4, 4});
    VarId mask = b.input("mask", F32, {1, 9, 4, 4});
    const ir::ParamArgs p = {{"pad_h", 1}, {"pad_w", 1}};
    EXPECT_EQ(shape_of(b, b.op("DeformableConv", {x, w, off, mask}, p)), (U{1, 3, 4, 4}));
    VarId dy = b.input("dy", F32, {1, 3, 4, 4});
    OpOptions three;
    three.outputs = 3;
    VarId gx = b.op("DeformableConvBackwardData", {x, w, off, mask, dy}, p, three);
    EXPECT_EQ(shape_of(b, gx), (U{1, 2, 4, 4}));
    EXPECT_EQ(shape_of(b, VarId(gx.value + 1)), (U{1, 18, 4, 4}));
    EXPECT_EQ(shape_of(b, b.op("DeformableConvBackwardFilter", {x, w, off, mask, dy}, p)), (U{3, 2, 3, 3}));
    // deformable_conv.cpp deduce_layout_fwd: oh must equal the offset's.
    expect_refused([&] { b.op("DeformableConv", {x, w, off, mask}); }, "the output is 2x2 but the offset");
    VarId mask2 = b.input("mask2", F32, {1, 18, 4, 4});
    expect_refused([&] { b.op("DeformableConv", {x, w, off, mask2}, p); }, "channels per deformable group");
    VarId xi = b.input("xi", I32, {1, 2, 4, 4});
    expect_refused([&] { b.op("DeformableConv", {xi, w, off, mask}, p); }, "only supports Float32");
}

}  // namespace
}  // namespace mgedump::test
