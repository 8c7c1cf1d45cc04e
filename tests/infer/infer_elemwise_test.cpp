// The elemwise family's inference rules (ir/infer/rules_elemwise.cpp,
// elemwise_misc.cpp) against MegEngine's: each expectation cites the rule in
// MegEngine's source it comes from.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "tests/infer/infer_test_util.h"
#include "tests/infer/raw_op.h"

namespace mgedump::test {
namespace {

DType dt(DTypeEnum t) { return DType::of(t); }

VarId output(GraphBuilder& b, VarId first, uint32_t k) {
    return b.graph().output_var(b.graph().vars.owner[first.value], k);
}

// --- Elemwise ---------------------------------------------------------------

TEST(InferElemwise, BroadcastsRightAligned) {
    // dnn/src/common/elemwise/opr_impl.cpp:296 deduce_shape: right-aligned, dims equal or 1.
    GraphBuilder b;
    VarId y = b.op("Elemwise", {b.input("x", F32, {2, 1, 4}), b.input("z", F32, {3, 1})}, {{"mode", "ADD"}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 3, 4}));
    EXPECT_EQ(dtype_of(b, y), F32);
}

TEST(InferElemwise, ZeroDimBroadcastsAgainstAnyDim) {
    // opr_impl.cpp:326: a 0 dim is no error against a dim > 1; the result dim is 0.
    GraphBuilder b;
    VarId y = b.op("Elemwise", {b.input("x", F32, {2, 0}), b.input("z", F32, {2, 3})}, {{"mode", "MUL"}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 0}));
}

TEST(InferElemwise, RefusesShapesThatDoNotBroadcast) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3}), z = b.input("z", F32, {4});
    expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "ADD"}}); }, "do not broadcast");
}

TEST(InferElemwise, ArityPerMode) {
    // basic_arith.cpp:149 Elemwise::make: "%s expects %u inputs"; arities from
    // the ModeTrait lists (each_mode.inl) and FUSE(FUSE_MUL_ADD3, 3), FUSE(FUSE_MUL_ADD4, 4).
    GraphBuilder b;
    VarId x = b.input("x", F32, {4}), z = b.input("z", F32, {4}), w = b.input("w", F32, {4});
    expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "RELU"}}); }, "mode RELU takes 1 input, has 2");
    expect_refused([&] { b.op("Elemwise", {x, z, w}, {{"mode", "ADD"}}); }, "mode ADD takes 2 inputs, has 3");
    expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "CLIP"}}); }, "mode CLIP takes 3 inputs, has 2");
    expect_refused([&] { b.op("Elemwise", {x, z, w}, {{"mode", "FUSE_MUL_ADD4"}}); }, "takes 4 inputs");
    EXPECT_EQ(shape_of(b, b.op("Elemwise", {x, z, w, x}, {{"mode", "FUSE_MUL_ADD4"}})),
              (std::vector<uint32_t>{4}));
}

TEST(InferElemwise, RefusesTheMultiTypeOnlyModes) {
    // opr_impl.cpp:179 ModeTrait::from_mode has no case for NEQ, ISNAN, ISINF
    // ("code issue happened"): only ElemwiseMultiType runs them.
    GraphBuilder b;
    VarId x = b.input("x", F32, {4}), z = b.input("z", F32, {4});
    expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "NEQ"}}); }, "mode NEQ is not an Elemwise mode");
    expect_refused([&] { b.op("Elemwise", {x}, {{"mode", "ISNAN"}}); }, "ISNAN");
    expect_refused([&] { b.op("Elemwise", {x}, {{"mode", "ISINF"}}); }, "ISINF");
}

TEST(InferElemwise, OutputTakesTheInputDtypeEvenForComparisons) {
    // deduce_layout (opr_impl.cpp:360): dst.dtype = the inputs' dtype; MegEngine
    // computed a float32 output for opmatrix.Elemwise.LT, Bool for AND.
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3}), z = b.input("z", F32, {2, 3});
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {x, z}, {{"mode", "LT"}})), F32);
    VarId p = b.input("p", BOOL, {2, 3}), q = b.input("q", BOOL, {2, 3});
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {p, q}, {{"mode", "AND"}})), BOOL);
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {p, q}, {{"mode", "EQ"}})), BOOL);
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {p, q, p}, {{"mode", "FUSE_MUL_ADD3"}})), BOOL);
}

TEST(InferElemwise, RefusesMixedInputDtypes) {
    // opr_impl.cpp:340 deduce_layout: "input dtype not unique" (a file's graph; the
    // builder converts first, as Elemwise::make does: next test).
    GraphBuilder b;
    VarId x = b.input("x", F32, {4}), i = b.input("i", I32, {4});
    expect_refused([&] { raw_op(b, "Elemwise", {x, i}, {{"mode", "ADD"}}); }, "must share one dtype");
}

TEST(InferElemwise, TheBuilderConvertsInputsAsElemwiseMakeDoes) {
    // basic_arith.cpp:146 BatchedDTypePromotion (dtype.cpp:225: Int32 with Float32
    // is Float32; Int16 with Int32 is Int32) and :147: int inputs of a mode without
    // int kernels become Float32.
    GraphBuilder b;
    VarId x = b.input("x", F32, {4}), i = b.input("i", I32, {4}), h = b.input("h", DType::of(DTypeEnum::Int16), {4});
    const ir::Graph& g = b.graph();
    auto owner_type = [&](VarId v) { return std::string(ir::op_def(g.oprs.type[g.vars.owner[v.value].value]).name); };
    VarId sum = b.op("Elemwise", {x, i}, {{"mode", "ADD"}});
    EXPECT_EQ(dtype_of(b, sum), F32);
    EXPECT_EQ(owner_type(g.inputs_of(g.vars.owner[sum.value])[1]), "TypeCvt");
    EXPECT_EQ(g.inputs_of(g.vars.owner[sum.value])[0], x);  // already Float32: no TypeCvt
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {h, i}, {{"mode", "MAX_"}})), I32);
    VarId e = b.op("Elemwise", {i}, {{"mode", "EXP"}});
    EXPECT_EQ(dtype_of(b, e), F32);
    EXPECT_EQ(owner_type(g.inputs_of(g.vars.owner[e.value])[0]), "TypeCvt");
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {i, i}, {{"mode", "TRUE_DIV"}})), F32);
    // dtype.cpp:283: no promotion between signedness kinds.
    expect_refused([&] { b.op("Elemwise", {i, b.input("u", DType::of(DTypeEnum::Uint8), {4})}, {{"mode", "ADD"}}); },
                   "different signedness");
}

TEST(InferElemwise, DtypeCategoriesPerMode) {
    // opr_impl.cpp:380 check_dtype with the allow_float/int/bool lists of each_mode.inl.
    GraphBuilder b;
    VarId f = b.input("f", F32, {4}), i = b.input("i", I32, {4}), p = b.input("p", BOOL, {4});
    expect_refused(
        [&] {
            b.op("Elemwise", {f, f}, {{"mode", "SHL"}});
        },
        "mode SHL does not take float inputs");
    expect_refused([&] { b.op("Elemwise", {f, f}, {{"mode", "RMULH"}}); }, "does not take float");
    expect_refused([&] { raw_op(b, "Elemwise", {i}, {{"mode", "EXP"}}); }, "mode EXP does not take int inputs");
    expect_refused([&] { raw_op(b, "Elemwise", {i, i}, {{"mode", "TRUE_DIV"}}); }, "does not take int");
    expect_refused([&] { b.op("Elemwise", {f}, {{"mode", "NOT"}}); }, "mode NOT does not take float");
    expect_refused([&] { b.op("Elemwise", {p, p}, {{"mode", "ADD"}}); }, "mode ADD does not take bool");
    expect_refused([&] { b.op("Elemwise", {i, i}, {{"mode", "AND"}}); }, "does not take int");
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {i, i}, {{"mode", "SHR"}})), I32);
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {i}, {{"mode", "RELU6"}})), I32);
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {p}, {{"mode", "NOT"}})), BOOL);
}

TEST(InferElemwise, QuantizedOnlyForSixModes) {
    // basic_arith.cpp:128: "Only ADD, SUB, NEGATE, RELU, MAX and MIN ... for quantized DType".
    GraphBuilder b;
    const DType q = qs8(0.5f);
    VarId x = b.input("x", q, {2, 3}), z = b.input("z", q, {2, 3});
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {x, z}, {{"mode", "ADD"}})), q);
    EXPECT_EQ(dtype_of(b, b.op("Elemwise", {x, z}, {{"mode", "MAX_"}})), q);
    expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "MUL"}}); }, "mode MUL does not take quantized");
}

TEST(InferElemwise, IntValuesFollowMegEnginesKernels) {
    // kern_defs.cuh: FLOOR_DIV on ints is dispatch_floordiv_int (toward -inf), MOD
    // is (y + x % y) % y (sign of the divisor), not C's truncation.
    GraphBuilder b;
    VarId x = b.constant<int32_t>({4}, {-7, 7, -7, 6});
    VarId y = b.constant<int32_t>({4}, {2, -3, 3, 4});
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "FLOOR_DIV"}})),
              (std::vector<double>{-4, -3, -3, 1}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "MOD"}})), (std::vector<double>{1, -2, 2, 2}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "MUL"}})),
              (std::vector<double>{-14, -21, -21, 24}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "SUB"}})),
              (std::vector<double>{-9, 10, -10, 2}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "MAX_"}})), (std::vector<double>{2, 7, 3, 6}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x}, {{"mode", "NEGATE"}})), (std::vector<double>{7, -7, 7, -6}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x}, {{"mode", "ABS"}})), (std::vector<double>{7, 7, 7, 6}));
    // LT keeps the input dtype: Int32 1/0.
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "LT"}})), (std::vector<double>{1, 0, 1, 0}));
}

TEST(InferElemwise, ShapeArithmeticWithBroadcastValues) {
    // A shape tensor scaled by a scalar: the value broadcasts like the shape.
    GraphBuilder b;
    VarId shp = b.constant<int32_t>({3}, {2, 3, 4});
    VarId two = b.constant<int32_t>({1}, {2});
    VarId y = b.op("Elemwise", {shp, two}, {{"mode", "MUL"}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{3}));
    EXPECT_EQ(value_of(b, y), (std::vector<double>{4, 6, 8}));
    // Int32 wraps like the kernel's int arithmetic.
    VarId big = b.constant<int32_t>({1}, {2147483647});
    EXPECT_EQ(value_of(b, b.op("Elemwise", {big, two}, {{"mode", "ADD"}})),
              (std::vector<double>{-2147483647.0}));
}

TEST(InferElemwise, NoValueFromARuntimeInputOrDivisionByZero) {
    GraphBuilder b;
    VarId x = b.input("x", I32, {3});
    VarId c = b.constant<int32_t>({3}, {1, 0, 2});
    EXPECT_FALSE(has_value(b, b.op("Elemwise", {x, c}, {{"mode", "ADD"}})));
    EXPECT_FALSE(has_value(b, b.op("Elemwise", {c, c}, {{"mode", "FLOOR_DIV"}})));
}

TEST(InferElemwise, FloatValues) {
    GraphBuilder b;
    VarId x = b.constant<float>({3}, {-1.5f, 0.5f, 2.5f});
    VarId y = b.constant<float>({1}, {2.0f});
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "TRUE_DIV"}})),
              (std::vector<double>{-0.75, 0.25, 1.25}));
    // kern_defs.cuh: float FLOOR_DIV is floorf(x / y), float MOD fmodf (truncating).
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "FLOOR_DIV"}})),
              (std::vector<double>{-1, 0, 1}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x, y}, {{"mode", "MOD"}})),
              (std::vector<double>{-1.5, 0.5, 0.5}));
    EXPECT_EQ(value_of(b, b.op("Elemwise", {x}, {{"mode", "RELU"}})), (std::vector<double>{0, 0.5, 2.5}));
}

TEST(InferElemwise, RefusesBroadcastingAMarkNoBroadcastInput) {
    // basic_arith.cpp:330: "input %zu declared to be non-broadcastable but broacast actually happened".
    GraphBuilder b;
    VarId m = b.op("MarkNoBroadcastElemwise", {b.input("x", F32, {1, 3})});
    VarId z = b.input("z", F32, {2, 3});
    expect_refused([&] { b.op("Elemwise", {m, z}, {{"mode", "ADD"}}); }, "MarkNoBroadcastElemwise");
}

// --- ElemwiseMultiType ----------------------------------------------------------

TEST(InferElemwiseMultiType, QuantizedModesTakeTheConfigDtype) {
    // nn_int.cpp:43: need_specify_out_dtype modes output config().output_dtype;
    // elemwise_multi_type/opr_impl.cpp init_quantized_binary_op: 2 quantized inputs.
    GraphBuilder b;
    VarId x = b.input("a", qs8(0.5f), {2, 5});
    VarId z = b.input("b", qs8(0.25f), {1, 5});
    const DType out = qs8(0.3f);
    VarId y = b.op("ElemwiseMultiType", {x, z}, {{"mode", "QADD"}}, {.output_dtype = out});
    EXPECT_EQ(dtype_of(b, y), out);
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 5}));
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {x}, {{"mode", "QADD"}}, {.output_dtype = out});
        },
        "mode QADD takes 2 inputs, has 1");
    expect_refused([&] { b.op("ElemwiseMultiType", {x, z}, {{"mode", "QADD"}}); }, "needs an output dtype");
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {x, z}, {{"mode", "QMUL"}}, {.output_dtype = F32});
        },
        "needs a quantized output dtype");
    VarId f = b.input("f", F32, {2, 5});
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {f, z}, {{"mode", "QADD"}}, {.output_dtype = out});
        },
        "input 0 to be a quantized dtype");
    EXPECT_EQ(dtype_of(b, b.op("ElemwiseMultiType", {x}, {{"mode", "QRELU"}}, {.output_dtype = out})), out);
    EXPECT_EQ(dtype_of(b, b.op("ElemwiseMultiType", {x, z, x}, {{"mode", "QFUSE_MUL_ADD3"}},
                               {.output_dtype = out})),
              out);
}

TEST(InferElemwiseMultiType, ComparisonsNeedABoolOutputDtype) {
    // opr_impl.cpp init_bool_binary_op / init_bool_unary_op: need_specify_out_dtype,
    // check_out expects Bool; nn_int.cpp:43 mgb_assert(dtype.valid()).
    GraphBuilder b;
    VarId x = b.input("a", F32, {3, 4}), z = b.input("b", F32, {3, 4});
    for (const char* m : {"EQ", "NEQ", "LT", "LEQ"}) {
        VarId y = b.op("ElemwiseMultiType", {x, z}, {{"mode", m}}, {.output_dtype = BOOL});
        EXPECT_EQ(dtype_of(b, y), BOOL) << m;
        EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{3, 4})) << m;
    }
    EXPECT_EQ(dtype_of(b, b.op("ElemwiseMultiType", {x}, {{"mode", "ISNAN"}}, {.output_dtype = BOOL})), BOOL);
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {x, z}, {{"mode", "EQ"}});
        },
        "mode EQ needs an output dtype");
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {x, z}, {{"mode", "LT"}}, {.output_dtype = I32});
        },
        "outputs Bool");
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {x, z}, {{"mode", "ISINF"}}, {.output_dtype = BOOL});
        },
        "takes 1 input, has 2");
    VarId i = b.input("i", I32, {3, 4});
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {i}, {{"mode", "ISINF"}}, {.output_dtype = BOOL});
        },
        "input 0 to be a float dtype");
}

TEST(InferElemwiseMultiType, ComparisonValues) {
    GraphBuilder b;
    VarId x = b.constant<int32_t>({3}, {1, 2, 3}), z = b.constant<int32_t>({3}, {1, 0, 4});
    EXPECT_EQ(value_of(b, b.op("ElemwiseMultiType", {x, z}, {{"mode", "EQ"}}, {.output_dtype = BOOL})),
              (std::vector<double>{1, 0, 0}));
    EXPECT_EQ(value_of(b, b.op("ElemwiseMultiType", {x, z}, {{"mode", "LT"}}, {.output_dtype = BOOL})),
              (std::vector<double>{0, 0, 1}));
}

TEST(InferElemwiseMultiType, FixedOutputDtypes) {
    // opr_impl.cpp init_fma3_int16x32x32x32 (Int16, Int32, Int32 -> Int32),
    // init_rshrs_iXxi8xi8 (int, Int8 -> Int8), init_mul_int16xf32xf32 (-> Float32).
    GraphBuilder b;
    VarId h = b.input("h", dt(DTypeEnum::Int16), {2, 4}), i = b.input("i", I32, {2, 4});
    EXPECT_EQ(dtype_of(b, b.op("ElemwiseMultiType", {h, i, i}, {{"mode", "FUSE_MUL_ADD3_INT16x32x32x32"}})),
              I32);
    VarId s = b.input("s", dt(DTypeEnum::Int8), {1, 1});
    VarId r = b.op("ElemwiseMultiType", {i, s}, {{"mode", "ROUND_SHR_SATURATE_IXxI8xI8"}});
    EXPECT_EQ(dtype_of(b, r), dt(DTypeEnum::Int8));
    EXPECT_EQ(shape_of(b, r), (std::vector<uint32_t>{2, 4}));
    EXPECT_EQ(dtype_of(b, b.op("ElemwiseMultiType", {h, b.input("f", F32, {2, 4})},
                               {{"mode", "MUL_INT16xF32xF32"}})),
              F32);
    expect_refused(
        [&] {
            b.op("ElemwiseMultiType", {i, i, i}, {{"mode", "FUSE_MUL_ADD3_INT16x32x32x32"}});
        },
        "needs input 0 to be Int16, it is Int32");
}

// --- PowC, TypeCvt ----------------------------------------------------------------

TEST(InferPowC, FloatOnlyWithValue) {
    // dnn/src/common/powc.cpp:9: same dtype and shape, float category.
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 5});
    VarId y = b.op("PowC", {x}, {{"exp", 2.5f}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 5}));
    EXPECT_EQ(dtype_of(b, y), F32);
    EXPECT_EQ(value_of(b, b.op("PowC", {b.constant<float>({2}, {2, 3})}, {{"exp", 2.0f}})),
              (std::vector<double>{4, 9}));
    expect_refused(
        [&] {
            b.op("PowC", {b.input("i", I32, {2})}, {{"exp", 2.0f}});
        },
        "PowC takes a float input");
}

TEST(InferTypeCvt, OutputIsTheParamDtype) {
    // basic_arith.cpp:748: output(0)->dtype(dest_type); shape unchanged.
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 5});
    VarId y = b.op("TypeCvt", {x}, {{"dtype", I32}});
    EXPECT_EQ(dtype_of(b, y), I32);
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 5}));
    const DType qa = DType::quantized(DTypeEnum::Quantized8Asymm, 0.1f, 128);
    EXPECT_EQ(dtype_of(b, b.op("TypeCvt", {x}, {{"dtype", qa}})), qa);
    // dnn/src/common/type_cvt.cpp:10: float, int, quantized or Bool on both sides.
    expect_refused([&] { b.op("TypeCvt", {x}, {{"dtype", dt(DTypeEnum::Byte)}}); }, "not Byte");
}

TEST(InferTypeCvt, Values) {
    // naive type_cvt: static_cast for plain dtypes (truncation), quantize =
    // roundf(x / scale) saturated (dnn/include/megdnn/dtype.h DTypeParamImpl<dt_qint8>).
    GraphBuilder b;
    VarId x = b.constant<float>({4}, {2.7f, -2.7f, 1.3f, 100.0f});
    EXPECT_EQ(value_of(b, b.op("TypeCvt", {x}, {{"dtype", I32}})), (std::vector<double>{2, -2, 1, 100}));
    EXPECT_EQ(value_of(b, b.op("TypeCvt", {x}, {{"dtype", qs8(0.5f)}})),
              (std::vector<double>{5, -5, 3, 127}));
    EXPECT_EQ(value_of(b, b.op("TypeCvt", {x}, {{"dtype", BOOL}})), (std::vector<double>{1, 1, 1, 1}));
}

// --- AddUpdate, Where, MaskedFill ---------------------------------------------------

TEST(InferAddUpdate, DestShapeAndBroadcastDelta) {
    // basic_arith.cpp:936: output shape is dest's (make_identity(input(0))).
    GraphBuilder b;
    VarId dest = float_param(b, "dest", {2, 4});
    VarId y = b.op("AddUpdate", {dest, b.input("d", F32, {1, 4})}, {{"alpha", 0.5f}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 4}));
    EXPECT_EQ(dtype_of(b, y), F32);
    // scn_do_execute: delta.broadcast(dest.shape()).
    expect_refused([&] { b.op("AddUpdate", {dest, b.input("e", F32, {3})}); }, "does not broadcast to dest");
    expect_refused([&] { b.op("AddUpdate", {dest, b.input("g", F32, {1, 2, 4})}); }, "does not broadcast");
}

TEST(InferAddUpdate, Refusals) {
    GraphBuilder b;
    // basic_arith.cpp:853: "AddUpdate cannot be applied on ImmutableTensor".
    VarId c = b.constant<float>({2}, {1, 2});
    expect_refused([&] { b.op("AddUpdate", {c, b.input("d", F32, {2})}); }, "ImmutableTensor");
    // add_update.cpp:14: an int dest needs integral alpha, beta, bias.
    VarId idest = b.param("idest", I32, {2}, std::vector<std::byte>(8));
    expect_refused(
        [&] {
            b.op("AddUpdate", {idest, b.input("i", I32, {2})}, {{"alpha", 0.5f}, {"beta", 1.0f}});
        },
        "alpha = 0.5 is not an integer");
}

TEST(InferWhere, MaskShapeAndDataDtype) {
    // dnn/src/common/where.cpp:24 and misc.cpp:684: Bool mask, data1 and data2 of
    // one dtype, all three of one shape; output data1's dtype, the mask's shape.
    GraphBuilder b;
    VarId m = b.input("m", BOOL, {2, 3}), x = b.input("a", F32, {2, 3}), z = b.input("b", F32, {2, 3});
    VarId y = b.op("Where", {m, x, z});
    EXPECT_EQ(dtype_of(b, y), F32);
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 3}));
    expect_refused([&] { b.op("Where", {x, x, z}); }, "mask (input 0) must be Bool");
    expect_refused([&] { b.op("Where", {m, x, b.input("i", I32, {2, 3})}); }, "must share a dtype");
    expect_refused([&] { b.op("Where", {m, x, b.input("w", F32, {1, 3})}); }, "must have one shape");
    // MegEngine registers no value inference for Where.
    VarId cm = bool_const(b, {2}, {1, 0});
    EXPECT_FALSE(
        has_value(b, b.op("Where", {cm, b.constant<float>({2}, {1, 2}), b.constant<float>({2}, {3, 4})})));
}

TEST(InferMaskedFill, InputShapeAndLeadingDimMask) {
    // dnn/src/common/masked_fill.cpp:5 deduce_layout: dst = origin; check_exec: Bool
    // mask whose dims are origin's leading dims.
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId y = b.op("MaskedFill", {x, b.input("m", BOOL, {2, 3})}, {{"value", -3.5f}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{2, 3, 4}));
    EXPECT_EQ(dtype_of(b, y), F32);
    expect_refused([&] { b.op("MaskedFill", {x, b.input("n", BOOL, {3})}); }, "leading dims");
    expect_refused(
        [&] {
            b.op("MaskedFill", {x, b.input("k", I32, {2, 3})});
        },
        "mask (input 1) must be Bool");
}

// --- FakeQuant, TQT, LSQ, CheckNonFinite ----------------------------------------------

TEST(InferFakeQuant, Float32InputsScaleBroadcasts) {
    // dnn/src/common/fake_quant.cpp:13 (tqt.cpp, lsq.cpp alike): Float32 inputs,
    // output the input's layout; the naive kernel broadcasts scale and zero point.
    GraphBuilder b;
    VarId x = b.input("x", F32, {8});
    VarId s = b.constant<float>({1}, {0.1f}), zp = b.constant<float>({1}, {3.0f});
    VarId y = b.op("FakeQuant", {x, s, zp}, {{"qmin", -128}, {"qmax", 127}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{8}));
    EXPECT_EQ(dtype_of(b, y), F32);
    EXPECT_EQ(shape_of(b, b.op("TQT", {x, s})), (std::vector<uint32_t>{8}));
    EXPECT_EQ(shape_of(b, b.op("LSQ", {x, s, zp, s})), (std::vector<uint32_t>{8}));
    expect_refused([&] { b.op("FakeQuant", {x, b.constant<int32_t>({1}, {1}), zp}); }, "input 1 is Int32");
    expect_refused(
        [&] {
            b.op("TQT", {x, b.constant<float>({3}, {1, 2, 3})});
        },
        "does not broadcast to input 0");
    // Built, every input has one dtype (operator_node.cpp:297 init_output_dtype).
    VarId h = b.input("h", dt(DTypeEnum::Float16), {8});
    expect_refused(
        [&] {
            b.op("LSQ", {h, s, zp, s});
        },
        "input 1 is Float32, input 0 is Float16: every input must have one dtype");
    // Float32 is check_layout_fwd's, when the graph runs: refused here too, saying so.
    VarId h1 = b.input("h1", dt(DTypeEnum::Float16), {1});
    expect_refused([&] { b.op("TQT", {h, h1}); }, "input 0 is Float16; TQT takes Float32");
    expect_refused([&] { b.op("TQT", {h, h1}); }, "refuses it when the graph runs");
}

TEST(InferCheckNonFinite, OneFloat32OutputPerInputAndAnInt32Flag) {
    // misc.cpp:589: per input a Float32 output of its shape, then an Int32 [1] flag.
    GraphBuilder b;
    VarId x = b.input("a", F32, {2, 3}), z = b.input("b", F32, {4});
    VarId o = b.op("CheckNonFinite", {x, z}, {{"scale", 0.5f}}, {.outputs = 3});
    EXPECT_EQ(shape_of(b, o), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(shape_of(b, output(b, o, 1)), (std::vector<uint32_t>{4}));
    EXPECT_EQ(dtype_of(b, output(b, o, 1)), F32);
    EXPECT_EQ(shape_of(b, output(b, o, 2)), (std::vector<uint32_t>{1}));
    EXPECT_EQ(dtype_of(b, output(b, o, 2)), I32);
    expect_refused([&] { b.op("CheckNonFinite", {x, z}, {}, {.outputs = 2}); }, "has 3 outputs");
    expect_refused([&] { b.op("CheckNonFinite", {b.input("i", I32, {2})}, {}, {.outputs = 2}); },
                   "must be Float32");
}

}  // namespace
}  // namespace mgedump::test
