// The nn family's inference rules (ir/infer/rules_nn.cpp, nn_norm.cpp,
// nn_mha.cpp) against MegEngine's: each expectation cites the MegEngine source
// it comes from.
#include <gtest/gtest.h>

#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

using ir::ParamArg;

// ------------------------------------------------------------------ Reduce

TEST(InferNn, ReduceKeepsTheAxisAsOne) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    // basic_arith.cpp:1520 infer_shape: dest.shape[real_axis] = 1.
    EXPECT_EQ(shape_of(b, b.op("Reduce", {x}, {{"mode", "SUM"}, {"axis", 1}})), (std::vector<uint32_t>{2, 1, 4}));
    EXPECT_EQ(shape_of(b, b.op("Reduce", {x}, {{"mode", "MEAN"}, {"axis", -1}})), (std::vector<uint32_t>{2, 3, 1}));
}

TEST(InferNn, ReduceRefusesBadAxesAndInputCounts) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId t = b.constant<int32_t>({3}, {2, 1, 1});
    // basic_arith.sereg.h:402: one input needs an axis in [-7, 7); the default is INT_MAX.
    expect_refused([&] { b.op("Reduce", {x}, {{"mode", "SUM"}}); }, "needs an axis");
    // basic_arith.cpp:1458: not both an axis and a target shape.
    expect_refused([&] { b.op("Reduce", {x, t}, {{"axis", 1}}); }, "both axis");
    // basic_arith.cpp:1516: axis in [-ndim, ndim).
    expect_refused([&] { b.op("Reduce", {x}, {{"axis", 3}}); }, "invalid axis 3");
}

TEST(InferNn, ReduceToTargetShape) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    // outshape_by_symvar: the output shape is the target's value.
    VarId y = b.op("Reduce", {x, b.constant<int32_t>({3}, {2, 1, 1})}, {{"mode", "SUM"}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 1, 1}));
    // OutTensorShapeExtender pads a shorter target with leading 1s.
    EXPECT_EQ(shape_of(b, b.op("Reduce", {x, b.constant<int32_t>({1}, {4})})), (std::vector<uint32_t>{4}));
    // KernScheduler::init_shapes: every dim equal or 1.
    expect_refused([&] { b.op("Reduce", {x, b.constant<int32_t>({3}, {2, 2, 1})}); }, "can not reduce");
    expect_refused([&] { b.op("Reduce", {x, b.constant<int32_t>({4}, {1, 2, 1, 1})}); }, "more dims");
    // An unknown target value leaves the shape unknown.
    VarId tin = b.input("t", I32, {3});
    EXPECT_TRUE(shape_of(b, b.op("Reduce", {x, tin})).empty());
}

TEST(InferNn, ReduceDataTypeSetsTheOutputDtype) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3});
    // basic_arith.cpp:1430: FLOAT_O16xC32 -> Float16, FLOAT_O32xC32 -> Float32.
    EXPECT_EQ(dtype_of(b, b.op("Reduce", {x}, {{"axis", 0}, {"data_type", "FLOAT_O16xC32"}})).type,
              DTypeEnum::Float16);
    VarId q = b.input("q", qs8(0.5f), {2, 3});
    // QINT_I8xO32: QuantizedS32 with the input's scale.
    EXPECT_EQ(dtype_of(b, b.op("Reduce", {q}, {{"axis", 0}, {"data_type", "QINT_I8xO32"}})),
              qs32(0.5f));
    expect_refused([&] { b.op("Reduce", {x}, {{"axis", 0}, {"data_type", "QINT_I8xO32"}}); }, "QuantizedS8 input");
    // basic_arith.cpp:1416: no SUM over Quantized8Asymm.
    VarId u = b.input("u", DType::quantized(DTypeEnum::Quantized8Asymm, 0.5f, 3), {2, 3});
    expect_refused([&] { b.op("Reduce", {u}, {{"axis", 0}, {"mode", "SUM"}}); }, "Quantized8Asymm");
}

TEST(InferNn, ReduceInfersSmallValues) {
    GraphBuilder b;
    VarId c = b.constant<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    // basic_arith.cpp:1554 register_value_infer.
    VarId s = b.op("Reduce", {c}, {{"mode", "SUM"}, {"axis", 1}});
    ASSERT_NE(b.inferred().value(s), nullptr);
    EXPECT_EQ(b.inferred().value(s)->elems, (std::vector<double>{6, 15}));
    VarId p = b.op("Reduce", {c}, {{"mode", "PRODUCT"}, {"axis", 0}});
    EXPECT_EQ(b.inferred().value(p)->elems, (std::vector<double>{4, 10, 18}));
    // reduce_helper.h MeanOp divides in the Int32 work type.
    VarId m = b.op("Reduce", {c}, {{"mode", "MEAN"}, {"axis", 0}});
    EXPECT_EQ(b.inferred().value(m)->elems, (std::vector<double>{2, 3, 4}));
    VarId all = b.op("Reduce", {c, b.constant<int32_t>({1}, {1})}, {{"mode", "MAX_"}});
    EXPECT_EQ(b.inferred().value(all)->elems, (std::vector<double>{6}));
}

TEST(InferNn, ReduceOfAnEmptyValueToALargeTargetKnowsTheShapeNotTheValue) {
    // An empty [0,65536,65536] constant reduced to [1,65536,65536]: 2^32 output
    // elements, far past the tracked values' size. Found by fuzz_read_v1, which
    // timed out allocating and filling them.
    GraphBuilder b;
    VarId c = b.constant(I32, {0, 65536, 65536}, {});
    VarId s = b.op("Reduce", {c, b.constant<int32_t>({3}, {1, 65536, 65536})}, {{"mode", "SUM"}});
    EXPECT_EQ(shape_of(b, s), (std::vector<uint32_t>{1, 65536, 65536}));
    EXPECT_FALSE(has_value(b, s));
}

TEST(InferNn, ReduceMinOrMaxOfAnEmptyInputIsRefusedWhereItFillsAnOutput) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 0});
    // basic_arith.cpp Reduce::KernScheduler::execute: an empty output returns
    // first; SUM, SUM_SQR, PRODUCT and MEAN fill a non-empty one (0, 0, 1, NaN);
    // MIN and MAX throw "empty input is not allowed for reduce mode".
    expect_refused(
        [&] {
            b.op("Reduce", {x}, {{"mode", "MAX_"}, {"axis", 1}});
        },
        "MAX of an empty input [2,0] into a non-empty output [2,1]");
    expect_refused([&] { b.op("Reduce", {x}, {{"mode", "MIN_"}, {"axis", 1}}); }, "MIN of an empty input");
    expect_refused(
        [&] {
            b.op("Reduce", {x, b.constant<int32_t>({2}, {2, 1})}, {{"mode", "MAX_"}});
        },
        "MAX of an empty input");
    for (const char* mode : {"SUM", "SUM_SQR", "PRODUCT", "MEAN"})
        EXPECT_EQ(shape_of(b, b.op("Reduce", {x}, {{"mode", mode}, {"axis", 1}})),
                  (std::vector<uint32_t>{2, 1}))
            << mode;
    // Reduced along its non-empty axis, [0,3] gives an empty [0,1]: nothing to fill.
    VarId rows = b.input("rows", F32, {0, 3});
    EXPECT_EQ(shape_of(b, b.op("Reduce", {rows}, {{"mode", "MAX_"}, {"axis", 1}})),
              (std::vector<uint32_t>{0, 1}));
    // A shape known only at run time stays unknown (the evaluator refuses then).
    VarId unknown = b.input("unknown", F32, {});
    EXPECT_TRUE(shape_of(b, b.op("Reduce", {unknown}, {{"mode", "MAX_"}, {"axis", 1}})).empty());
}

// ------------------------------------------------------------------ Softmax

TEST(InferNn, Softmax) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4, 5});
    // softmax.cpp:7 deduce_layout_fwd: dst = src; axis in [-ndim, ndim).
    EXPECT_EQ(shape_of(b, b.op("Softmax", {x}, {{"axis", -1}})), (std::vector<uint32_t>{2, 3, 4, 5}));
    expect_refused([&] { b.op("Softmax", {x}, {{"axis", 5}}); }, "axis 5");
    VarId i = b.input("i", I32, {2, 3});
    expect_refused([&] { b.op("Softmax", {i}, {{"axis", 1}}); }, "float");
}

// ------------------------------------------------------------------ BatchNorm

TEST(InferNn, BatchNormOutputs) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4, 4});
    VarId s = b.input("s", F32, {1, 3, 1, 1}), bias = b.input("b", F32, {1, 3, 1, 1});
    VarId m = b.input("m", F32, {1, 3, 1, 1}), v = b.input("v", F32, {1, 3, 1, 1});
    // batch_norm.cpp:207 get_output_var_shape: stats as scale, reserve [0] (naive), y as x.
    VarId o = b.op("BatchNorm", {x, s, bias, m, v}, {{"param_dim", "DIM_1C11"}}, OpOptions{.outputs = 6});
    EXPECT_EQ(shape_of(b, nth(o, 0)), (std::vector<uint32_t>{1, 3, 1, 1}));
    EXPECT_EQ(shape_of(b, nth(o, 4)), (std::vector<uint32_t>{0}));
    EXPECT_EQ(dtype_of(b, nth(o, 4)).type, DTypeEnum::Byte);
    EXPECT_EQ(shape_of(b, nth(o, 5)), (std::vector<uint32_t>{2, 3, 4, 4}));
    // With 3 inputs the running statistics are empty ({0}); a file numbers 4 outputs.
    VarId o4 = b.op("BatchNorm", {x, s, bias}, {{"param_dim", "DIM_1C11"}}, OpOptions{.outputs = 4});
    EXPECT_EQ(shape_of(b, nth(o4, 0)), (std::vector<uint32_t>{1, 3, 1, 1}));
    EXPECT_EQ(shape_of(b, nth(o4, 3)), (std::vector<uint32_t>{2, 3, 4, 4}));
    VarId o6 = b.op("BatchNorm", {x, s, bias}, {{"param_dim", "DIM_1C11"}}, OpOptions{.outputs = 6});
    EXPECT_EQ(shape_of(b, nth(o6, 0)), (std::vector<uint32_t>{0}));
}

TEST(InferNn, BatchNormRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4, 4});
    VarId s = b.input("s", F32, {1, 3, 1, 1}), bias = b.input("b", F32, {1, 3, 1, 1});
    VarId s4 = b.input("s4", F32, {1, 4, 1, 1});
    // dnn.sereg.h:471: 3 or 5 inputs.
    expect_refused([&] { b.op("BatchNorm", {x, s, bias, s}, {}, OpOptions{.outputs = 6}); }, "takes 3 inputs");
    // batch_norm.cpp:201: one channel count.
    expect_refused([&] { b.op("BatchNorm", {x, s4, s4}, {}, OpOptions{.outputs = 6}); }, "inconsistent channel");
    // batch_norm.cpp:193: 4-dim tensors.
    VarId x3 = b.input("x3", F32, {2, 3, 4});
    expect_refused([&] { b.op("BatchNorm", {x3, s, bias}, {}, OpOptions{.outputs = 6}); }, "4-dim");
    // Training with running statistics has 6 outputs.
    expect_refused([&] { b.op("BatchNorm", {x, s, bias, s, s}, {}, OpOptions{.outputs = 4}); }, "has 4 outputs");
}

// ------------------------------------------------------------------ LayerNorm / GroupNorm / InstanceNorm

TEST(InferNn, LayerNorm) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId w = b.input("w", F32, {4}), bias = b.input("b", F32, {4});
    // layer_norm.cpp:73 get_output_var_shape: mean/rstd are the leading ndim - normalized_dim dims, Float32.
    VarId y = b.op("LayerNorm", {x, w, bias}, {{"normalized_dim", 1}, {"normalized_size", 4}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 3, 4}));
    EXPECT_EQ(shape_of(b, nth(y, 1)), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(dtype_of(b, nth(y, 2)), F32);
    VarId y1 = b.op("LayerNorm", {x}, {{"affine", ParamArg{false}}, {"normalized_dim", 2}});
    EXPECT_EQ(shape_of(b, nth(y1, 1)), (std::vector<uint32_t>{2}));
    // dnn.sereg.h:501: 1 or 3 inputs.
    expect_refused([&] { b.op("LayerNorm", {x, w}); }, "takes 1 input");
    expect_refused([&] { b.op("LayerNorm", {x}); }, "affine=true needs");
    // layer_norm.cpp check_layout_fwd: normalized_dim < ndim; weight fits the trailing dims.
    expect_refused([&] { b.op("LayerNorm", {x}, {{"affine", ParamArg{false}}, {"normalized_dim", 3}}); },
                   "normalized_dim 3");
    VarId w3 = b.input("w3", F32, {3});
    expect_refused([&] { b.op("LayerNorm", {x, w3, w3}); }, "weight [3]");
}

TEST(InferNn, GroupNormAndInstanceNorm) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4, 3, 3});
    // group_norm.cpp:73: mean/rstd [N, group].
    VarId g = b.op("GroupNorm", {x}, {{"affine", ParamArg{false}}, {"group", 2}});
    EXPECT_EQ(shape_of(b, nth(g, 1)), (std::vector<uint32_t>{2, 2}));
    // instance_norm.cpp:75: mean/rstd [N, C].
    VarId in = b.op("InstanceNorm", {x}, {{"affine", ParamArg{false}}});
    EXPECT_EQ(shape_of(b, nth(in, 2)), (std::vector<uint32_t>{2, 4}));
    // dnn/src/common/group_norm.cpp check_layout_fwd: C % group == 0, 4-dim, NCHW.
    expect_refused([&] { b.op("GroupNorm", {x}, {{"affine", ParamArg{false}}, {"group", 3}}); }, "divisible");
    VarId x3 = b.input("x3", F32, {2, 4, 3});
    expect_refused([&] { b.op("GroupNorm", {x3}, {{"affine", ParamArg{false}}}); }, "4-dim");
    expect_refused([&] { b.op("GroupNorm", {x}, {{"affine", ParamArg{false}}, {"format", "NHWC"}}); }, "NCHW");
    expect_refused([&] { b.op("InstanceNorm", {x, x}); }, "takes 1 input");
}

TEST(InferNn, NormBackward) {
    GraphBuilder b;
    VarId dy = b.input("dy", F32, {1, 4, 3, 3}), x = b.input("x", F32, {1, 4, 3, 3});
    VarId w = b.input("w", F32, {1, 4, 1, 1});
    VarId mean = b.input("mean", F32, {1, 2}), rstd = b.input("rstd", F32, {1, 2});
    // group_norm.cpp init_output_static_infer_desc: dx as x, dw/db as weight.
    VarId dx = b.op("GroupNormBackward", {dy, x, w, mean, rstd}, {{"group", 2}});
    EXPECT_EQ(shape_of(b, dx), (std::vector<uint32_t>{1, 4, 3, 3}));
    EXPECT_EQ(shape_of(b, nth(dx, 1)), (std::vector<uint32_t>{1, 4, 1, 1}));
    // Without affine dw and db get no shape at all (make_const of an empty shape).
    VarId dx4 = b.op("InstanceNormBackward", {dy, x, mean, rstd}, {{"affine", ParamArg{false}}});
    EXPECT_TRUE(shape_of(b, nth(dx4, 1)).empty());
    // dnn.sereg.h:781: 4 or 5 inputs.
    expect_refused([&] { b.op("GroupNormBackward", {dy, x, mean}); }, "takes 5 inputs");
    expect_refused([&] { b.op("InstanceNormBackward", {dy, x, mean}); }, "takes 5 inputs");
    expect_refused([&] { b.op("GroupNormBackward", {dy, x, mean, rstd}); }, "affine=true needs");
}

TEST(InferNn, GeneralNorm) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    // general_norm.cpp:73: the dims outside [axis_start, axis_end), [1] when none are left.
    VarId y = b.op("GeneralNorm", {x, b.input("w", F32, {3}), b.input("b", F32, {3})},
                   {{"axis_start", 1}, {"axis_end", 2}});
    EXPECT_EQ(shape_of(b, nth(y, 1)), (std::vector<uint32_t>{2, 4}));
    VarId all = b.op("GeneralNorm", {x}, {{"affine", ParamArg{false}}, {"axis_start", 0}, {"axis_end", 3}});
    EXPECT_EQ(shape_of(b, nth(all, 1)), (std::vector<uint32_t>{1}));
    expect_refused([&] { b.op("GeneralNorm", {x}, {{"affine", ParamArg{false}}, {"axis_end", 4}}); }, "axis_end (4)");
}

// ------------------------------------------------------------------ matrix products

TEST(InferNn, MatrixMulShapes) {
    GraphBuilder b;
    VarId a = b.input("a", F32, {3, 4}), w = b.input("w", F32, {4, 5});
    // matrix_mul.cpp:65: C = [A0, B1] after the transposes.
    EXPECT_EQ(shape_of(b, b.op("MatrixMul", {a, w})), (std::vector<uint32_t>{3, 5}));
    VarId at = b.input("at", F32, {4, 3}), wt = b.input("wt", F32, {5, 4});
    EXPECT_EQ(shape_of(b, b.op("MatrixMul", {at, wt}, {{"transposeA", ParamArg{true}}, {"transposeB", ParamArg{true}}})),
              (std::vector<uint32_t>{3, 5}));
    // matrix_mul.cpp:60: A1 == B0 ("a [31,10] after 32 features").
    VarId x = b.input("x", F32, {2, 32}), bad = b.input("bad", F32, {31, 10});
    expect_refused([&] { b.op("MatrixMul", {x, bad}); }, "K must match");
    VarId x3 = b.input("x3", F32, {2, 3, 4});
    expect_refused([&] { b.op("MatrixMul", {x3, w}); }, "2-dim");
    // MK4: A [M/4, K/4, 4, 4], B [K/4, N, 4] -> [M/4, N, 4].
    VarId a4 = b.input("a4", F32, {2, 3, 4, 4}), b4 = b.input("b4", F32, {3, 5, 4});
    EXPECT_EQ(shape_of(b, b.op("MatrixMul", {a4, b4}, {{"format", "MK4"}})), (std::vector<uint32_t>{2, 5, 4}));
}

TEST(InferNn, MatrixMulDtypes) {
    GraphBuilder b;
    // matrix_mul.cpp:10 deduce_dtype: Int8 -> Int32 (or Int16 when asked).
    VarId a = b.input("a", DType::of(DTypeEnum::Int8), {2, 3}), w = b.input("w", DType::of(DTypeEnum::Int8), {3, 4});
    EXPECT_EQ(dtype_of(b, b.op("MatrixMul", {a, w})), I32);
    EXPECT_EQ(dtype_of(b, b.op("MatrixMul", {a, w}, {}, OpOptions{.output_dtype = DType::of(DTypeEnum::Int16)})).type,
              DTypeEnum::Int16);
    expect_refused([&] { b.op("MatrixMul", {a, w}, {}, OpOptions{.output_dtype = F32}); }, "does not support");
    // QuantizedS8 -> QuantizedS32 with the product of the scales.
    VarId qa = b.input("qa", qs8(0.5f), {2, 3});
    VarId qw = b.input("qw", qs8(0.25f), {3, 4});
    EXPECT_EQ(dtype_of(b, b.op("MatrixMul", {qa, qw})), qs32(0.125f));
    // Int32 has no candidate; A and B share a dtype.
    VarId ia = b.input("ia", I32, {2, 3}), iw = b.input("iw", I32, {3, 4});
    expect_refused([&] { b.op("MatrixMul", {ia, iw}); }, "does not support Int32");
    VarId f = b.input("f", F32, {3, 4});
    expect_refused([&] { b.op("MatrixMul", {a, f}); }, "same dtype");
    // check_exec: ComputeMode FLOAT32 only for Float16/BFloat16.
    VarId fa = b.input("fa", F32, {2, 3});
    expect_refused([&] { b.op("MatrixMul", {fa, f}, {{"compute_mode", "FLOAT32"}}); }, "compute_mode FLOAT32");
}

TEST(InferNn, BatchedMatrixMulAndDot) {
    GraphBuilder b;
    VarId a = b.input("a", F32, {2, 3, 4}), w = b.input("w", F32, {2, 5, 4});
    // batched_matrix_mul.cpp:86: C = [B, A0, B1].
    EXPECT_EQ(shape_of(b, b.op("BatchedMatrixMul", {a, w}, {{"transposeB", ParamArg{true}}})),
              (std::vector<uint32_t>{2, 3, 5}));
    expect_refused([&] { b.op("BatchedMatrixMul", {a, w}); }, "K must match");
    VarId w1 = b.input("w1", F32, {1, 4, 5});
    expect_refused([&] { b.op("BatchedMatrixMul", {a, w1}); }, "batch sizes differ");
    // batched_matrix_mul.cpp deduce_dtype has no Int16 case.
    VarId s = b.input("s", DType::of(DTypeEnum::Int16), {1, 2, 2});
    expect_refused([&] { b.op("BatchedMatrixMul", {s, s}); }, "does not support Int16");
    // blas.cpp:394 Dot: the output shape is the constant [1].
    VarId u = b.input("u", F32, {4}), v = b.input("v", F32, {4});
    EXPECT_EQ(shape_of(b, b.op("Dot", {u, v})), (std::vector<uint32_t>{1}));
    VarId v5 = b.input("v5", F32, {5});
    // Dot::scn_do_execute: the shapes are checked when the graph runs, and an
    // input of length 1 is broadcast.
    expect_refused([&] { b.op("Dot", {u, v5}); }, "different lengths, 4 and 5, and neither is 1");
    expect_refused([&] { b.op("Dot", {u, v5}); }, "refuses it when the graph runs");
    expect_refused([&] { b.op("Dot", {a, a}); }, "1-dim");
    VarId one = b.input("one", F32, {1});
    EXPECT_EQ(shape_of(b, b.op("Dot", {one, v5})), (std::vector<uint32_t>{1}));
    EXPECT_EQ(shape_of(b, b.op("Dot", {v5, one})), (std::vector<uint32_t>{1}));
}

// ------------------------------------------------------------------ MultiHeadAttn

TEST(InferNn, MultiHeadAttn) {
    GraphBuilder b;
    VarId q = b.input("q", F32, {1, 2, 4}), k = b.input("k", F32, {1, 3, 4}), v = b.input("v", F32, {1, 3, 4});
    VarId w = b.input("w", F32, {64});
    const ir::ParamArgs p = {{"num_heads", 2},  {"embeding_size", 4}, {"k_size", 4},     {"v_size", 4},
                             {"qproj_size", 4}, {"kproj_size", 4},    {"vproj_size", 4}, {"oproj_size", 4},
                             {"training", ParamArg{false}}};
    VarId o = b.op("MultiHeadAttn", {q, k, v, w}, p);
    // proxy_forward_base.cpp deduce_layout: out [N, Lq, oproj], attn_weight [N*heads, Lq, Lk];
    // reserve spaces as WorkspaceBundles: no masks outside training, (4 chunks of
    // 8, 12, 12, 8 floats + 1 float of alignment slack) = 41 floats.
    EXPECT_EQ(shape_of(b, o), (std::vector<uint32_t>{1, 2, 4}));
    EXPECT_EQ(shape_of(b, nth(o, 1)), (std::vector<uint32_t>{2, 2, 3}));
    EXPECT_EQ(shape_of(b, nth(o, 2)), (std::vector<uint32_t>{0}));
    EXPECT_EQ(shape_of(b, nth(o, 3)), (std::vector<uint32_t>{41}));
    // rand.sereg.h:62: 4 inputs need tensor_combination_type NONE.
    ir::ParamArgs masked = p;
    masked.push_back({"tensor_combination_type", "ONLY_MASK"});
    expect_refused([&] { b.op("MultiHeadAttn", {q, k, v, w}, masked); }, "must be NONE");
    // multi_head_attn.cpp:186: the packed weights' length.
    VarId w2 = b.input("w2", F32, {60});
    expect_refused([&] { b.op("MultiHeadAttn", {q, k, v, w2}, p); }, "must hold 64 elements");
}

}  // namespace
}  // namespace mgedump::test
