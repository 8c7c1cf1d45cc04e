// The misc family's inference rules (ir/infer/rules_misc.cpp) against
// MegEngine's: each expectation cites the MegEngine source it comes from.
#include <gtest/gtest.h>

#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

using ir::ParamArg;

using Dims = std::vector<uint32_t>;

TEST(InferMisc, ForwardingOperatorsKeepShapeAndValue) {
    GraphBuilder b;
    VarId c = b.constant<int32_t>({2}, {3, 4});
    VarId dep = b.input("dep", F32, {5});
    // identical_fwd.cpp:145 ForwardInputToOutput: input 0's shape and value;
    // io.cpp:773 Copy: the value too.
    for (const char* op : {"Identity", "Copy", "MarkNoBroadcastElemwise"}) {
        VarId y = b.op(op, {c});
        EXPECT_EQ(shape_of(b, y), (Dims{2})) << op;
        EXPECT_EQ(dtype_of(b, y), I32) << op;
        ASSERT_NE(b.inferred().value(y), nullptr) << op;
        EXPECT_EQ(b.inferred().value(y)->elems, (std::vector<double>{3, 4})) << op;
    }
    VarId vd = b.op("VirtualDep", {c, dep});
    EXPECT_EQ(shape_of(b, vd), (Dims{2}));
    EXPECT_NE(b.inferred().value(vd), nullptr);
    // utility.cpp:742 PersistentOutputStorage: same shape, no value inference.
    VarId ps = b.op("PersistentOutputStorage", {c});
    EXPECT_EQ(shape_of(b, ps), (Dims{2}));
    EXPECT_EQ(b.inferred().value(ps), nullptr);
    // utility.cpp:245 MarkDynamicVar registers no static inference.
    EXPECT_TRUE(shape_of(b, b.op("MarkDynamicVar", {c})).empty());
}

TEST(InferMisc, AssertEqual) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3}), y = b.input("y", F32, {2, 3});
    // utility.cpp:424: forwards the expected value; the error is a scalar.
    EXPECT_EQ(shape_of(b, b.op("AssertEqual", {x, y, b.input("e", F32, {1})})), (Dims{2, 3}));
    expect_refused([&] { b.op("AssertEqual", {x, y, x}); }, "must be a scalar");
    expect_refused([&] { b.op("AssertEqual", {x, y, x}); }, "refuses it when the graph runs");
    // operator_node.cpp:303, when built (a real MegEngine refused an Int32
    // expect with a Float32 error: "get different dtypes for input").
    VarId i = b.input("i", DType::of(DTypeEnum::Int32), {2, 3});
    expect_refused(
        [&] {
            b.op("AssertEqual", {i, i, b.input("ef", F32, {1})});
        },
        "input 2 is Float32, input 0 (expect) is Int32: every input must have one dtype");
    expect_refused([&] { b.op("AssertEqual", {x, i}); }, "input 1 is Int32");
}

TEST(InferMisc, DropoutAndRng) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 16});
    // rand.cpp:375: the output as the input, a Byte mask of one byte per element (naive).
    VarId d = b.op("Dropout", {x}, {{"drop_prob", 0.3f}});
    EXPECT_EQ(shape_of(b, d), (Dims{4, 16}));
    EXPECT_EQ(shape_of(b, nth(d, 1)), (Dims{64}));
    EXPECT_EQ(dtype_of(b, nth(d, 1)).type, DTypeEnum::Byte);
    expect_refused([&] { b.op("Dropout", {b.input("i", I32, {3})}); }, "float");
    // rand.cpp:63: the output shape is the shape input's value.
    VarId shp = b.constant<int32_t>({2}, {2, 3});
    EXPECT_EQ(shape_of(b, b.op("UniformRNG", {shp})), (Dims{2, 3}));
    EXPECT_EQ(shape_of(b, b.op("GaussianRNG", {shp}, {{"mean", 1.5f}})), (Dims{2, 3}));
    EXPECT_TRUE(shape_of(b, b.op("UniformRNG", {b.input("s", I32, {2})})).empty());
    // dnn/src/common/rng.cpp:114: float outputs only.
    expect_refused([&] { b.op("UniformRNG", {shp}, {{"dtype", "Int32"}}); }, "float");
    // helper.cpp:399: a shape tensor is 1-dim.
    expect_refused([&] { b.op("UniformRNG", {b.constant<int32_t>({1, 2}, {2, 3})}); }, "1-dim");
}

TEST(InferMisc, ArgmxxAndArgsort) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 5});
    // argmxx/opr_impl.cpp deduce_layout: the axis kept as 1, Int32.
    VarId am = b.op("Argmax", {x}, {{"axis", 1}});
    EXPECT_EQ(shape_of(b, am), (Dims{3, 1}));
    EXPECT_EQ(dtype_of(b, am), I32);
    EXPECT_EQ(shape_of(b, b.op("Argmin", {x}, {{"axis", 0}})), (Dims{1, 5}));
    expect_refused([&] { b.op("Argmax", {x}, {{"axis", 2}}); }, "axis 2");
    // argsort.cpp:6: 2-dim input; values as input, Int32 indices.
    VarId s = b.op("Argsort", {x}, {{"order", "DESCENDING"}});
    EXPECT_EQ(shape_of(b, nth(s, 1)), (Dims{3, 5}));
    EXPECT_EQ(dtype_of(b, nth(s, 1)), I32);
    expect_refused([&] { b.op("Argsort", {b.input("x3", F32, {2, 3, 4})}); }, "2-dim");
}

TEST(InferMisc, TopK) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 5});
    VarId k = b.constant<int32_t>({1}, {2});
    // topk.cpp deduce_layout: KTH_ONLY -> [N]; VALUE_IDX_* -> [N, min(|k|, M)] plus Int32 indices.
    EXPECT_EQ(shape_of(b, b.op("TopK", {x, k})), (Dims{3}));
    VarId v = b.op("TopK", {x, k}, {{"mode", "VALUE_IDX_SORTED"}}, OpOptions{.outputs = 2});
    EXPECT_EQ(shape_of(b, v), (Dims{3, 2}));
    EXPECT_EQ(shape_of(b, nth(v, 1)), (Dims{3, 2}));
    EXPECT_EQ(dtype_of(b, nth(v, 1)), I32);
    VarId big = b.op("TopK", {x, b.constant<int32_t>({1}, {-9})}, {{"mode", "VALUE_IDX_NOSORT"}},
                     OpOptions{.outputs = 2});
    EXPECT_EQ(shape_of(b, big), (Dims{3, 5}));
    // k unknown: the shape is unknown.
    EXPECT_TRUE(shape_of(b, b.op("TopK", {x, b.input("kin", I32, {1})})).empty());
    // misc.cpp:482: k is Int32; topk.cpp: k != 0, 2-dim data.
    expect_refused([&] { b.op("TopK", {x, b.constant<float>({1}, {2.0f})}); }, "must be Int32");
    expect_refused([&] { b.op("TopK", {x, b.constant<int32_t>({1}, {0})}); }, "k must not be 0");
    expect_refused([&] { b.op("TopK", {b.input("x3", F32, {2, 3, 4}), k}); }, "2-dim");
    expect_refused([&] { b.op("TopK", {x, k}, {{"mode", "VALUE_IDX_SORTED"}}); }, "has 1 outputs");
}

TEST(InferMisc, CondTakeHasNoStaticShape) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3}), m = b.input("m", F32, {2, 3});
    // misc.cpp:312 CondTake: data's dtype and Int32 indices, sized only at run time.
    VarId d = b.op("CondTake", {x, m}, {{"mode", "GEQ"}, {"val", 0.5f}});
    EXPECT_TRUE(shape_of(b, d).empty());
    EXPECT_TRUE(shape_of(b, nth(d, 1)).empty());
    EXPECT_EQ(dtype_of(b, nth(d, 1)), I32);
    // cond_take/opr_impl.cpp: same shapes, eps > 0.
    expect_refused([&] { b.op("CondTake", {x, b.input("m2", F32, {3, 2})}); }, "same shape");
    expect_refused([&] { b.op("CondTake", {x, m}, {{"eps", 0.0f}}); }, "eps");
}

TEST(InferMisc, NMSKeepGivesMaxOutputIndicesAndACountPerBatch) {
    GraphBuilder b;
    VarId boxes = b.input("boxes", F32, {2, 10, 4});
    // standalone/nms_opr.cpp get_output_var_shape: indices {batch, max_output},
    // sizes {batch}; both Int32 (the constructor's add_output dtypes).
    VarId kept = b.op("NMSKeep", {boxes}, {{"iou_thresh", 0.5f}, {"max_output", 3}});
    EXPECT_EQ(shape_of(b, kept), (Dims{2, 3}));
    EXPECT_EQ(dtype_of(b, kept), I32);
    EXPECT_EQ(shape_of(b, nth(kept, 1)), (Dims{2}));
    EXPECT_EQ(dtype_of(b, nth(kept, 1)), I32);
    // max_output past the box count is still the column count.
    EXPECT_EQ(shape_of(b, b.op("NMSKeep", {boxes}, {{"max_output", 40}})), (Dims{2, 40}));
    // The constructor asserts Float32; get_output_var_shape asserts ndim 3, last dim 4.
    expect_refused([&] { b.op("NMSKeep", {b.input("i", I32, {2, 10, 4})}, {{"max_output", 3}}); }, "Float32");
    expect_refused(
        [&] {
            b.op("NMSKeep", {b.input("f", F32, {2, 10, 5})}, {{"max_output", 3}});
        },
        "must be [batch, boxes, 4]");
    expect_refused(
        [&] {
            b.op("NMSKeep", {b.input("g", F32, {10, 4})}, {{"max_output", 3}});
        },
        "must be [batch, boxes, 4]");
    // nms_cpu.cpp stops only when the count reaches max_output: 0 would write past the row.
    expect_refused([&] { b.op("NMSKeep", {boxes}); }, "max_output must be at least 1");
}

TEST(InferMisc, Cumsum) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4});
    // misc.cpp:196: the output as the input; misc.cpp:208 and cumsum.cpp: axis in [-ndim, ndim).
    EXPECT_EQ(shape_of(b, b.op("Cumsum", {x}, {{"axis", -1}})), (Dims{2, 4}));
    expect_refused([&] { b.op("Cumsum", {x}); }, "out of range");
}

TEST(InferMisc, Generators) {
    GraphBuilder b;
    VarId start = b.constant<float>({1}, {0.0f}), stop = b.constant<float>({1}, {1.0f});
    // tensor_gen.cpp:66 Linspace: Float32 of shape num's value.
    VarId ls = b.op("Linspace", {start, stop, b.constant<int32_t>({1}, {5})});
    EXPECT_EQ(shape_of(b, ls), (Dims{5}));
    EXPECT_EQ(dtype_of(b, ls), F32);
    EXPECT_TRUE(shape_of(b, b.op("Linspace", {start, stop, b.input("n", I32, {1})})).empty());
    expect_refused([&] { b.op("Linspace", {b.input("s2", F32, {2}), stop, b.constant<int32_t>({1}, {5})}); },
                   "must be a scalar");
    // tensor_gen.cpp:150 Eye: one dim means square; the param's dtype.
    VarId e = b.op("Eye", {b.constant<int32_t>({1}, {3})}, {{"dtype", "Int32"}});
    EXPECT_EQ(shape_of(b, e), (Dims{3, 3}));
    EXPECT_EQ(dtype_of(b, e), I32);
    EXPECT_EQ(shape_of(b, b.op("Eye", {b.constant<int32_t>({2}, {3, 4})}, {{"k", 1}})), (Dims{3, 4}));
    expect_refused([&] { b.op("Eye", {b.constant<int32_t>({3}, {1, 2, 3})}); }, "1 or 2 dims");
    // tensor_gen.cpp:28 Alloc.
    VarId a = b.op("Alloc", {b.constant<int32_t>({2}, {2, 3})}, {{"dtype", "Float32"}});
    EXPECT_EQ(shape_of(b, a), (Dims{2, 3}));
    EXPECT_EQ(dtype_of(b, a), F32);
    expect_refused([&] { b.op("Alloc", {b.constant<int32_t>({2}, {2, -3})}, {{"dtype", "Float32"}}); },
                   "not a valid dim");
}

}  // namespace
}  // namespace mgedump::test
