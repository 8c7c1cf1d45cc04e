// The shape family's inference rules against MegEngine's (src/opr/impl/tensor_manip.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "tests/infer/infer_test_util.h"
#include "tests/infer/raw_op.h"

namespace mgedump::test {
namespace {

using Dims = std::vector<uint32_t>;
using Vals = std::vector<double>;

TEST(InferShape, GetVarShapeGivesTheShapeAsAValue) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    // tensor_manip.cpp:74: output Int32; infer_value copies the shape.
    VarId s = b.op("GetVarShape", {x});
    EXPECT_EQ(b.graph().vars.dtype[s.value], I32);
    EXPECT_EQ(shape_of(b, s), (Dims{3}));
    EXPECT_EQ(value_of(b, s), (Vals{2, 3, 4}));
    // update_cached_shape: with an axis, one dim ([1]).
    VarId a = b.op("GetVarShape", {x}, {{"axis", -1}});
    EXPECT_EQ(shape_of(b, a), (Dims{1}));
    EXPECT_EQ(value_of(b, a), (Vals{4}));
    // Several inputs: the shape of their broadcast.
    VarId y = b.input("y", F32, {3, 1});
    EXPECT_EQ(value_of(b, b.op("GetVarShape", {x, y})), (Vals{2, 3, 4}));
}

TEST(InferShape, GetVarShapeRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3});
    expect_refused([&] { b.op("GetVarShape", {x}, {{"axis", 2}}); }, "axis 2 is out of range");
    expect_refused([&] { b.op("GetVarShape", {x}, {{"axis", 8}}); }, "|axis| <= 7");
    VarId y = b.input("y", F32, {4});
    expect_refused([&] { b.op("GetVarShape", {x, y}); }, "do not broadcast");
}

TEST(InferShape, ReshapeTakesTheTargetValue) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 6});
    VarId t = b.constant<int32_t>({2}, {3, 4});
    EXPECT_EQ(shape_of(b, b.op("Reshape", {x, t})), (Dims{3, 4}));
    // tensor_manip.cpp:364-384: the unspecified axis is total / the others.
    VarId t3 = b.constant<int32_t>({3}, {3, -1, 2});
    EXPECT_EQ(shape_of(b, b.op("Reshape", {x, t3}, {{"axis", 1}})), (Dims{3, 2, 2}));
    // Reshape(x, GetVarShape(y)): a static shape through the value.
    VarId y = b.input("y", F32, {4, 3});
    EXPECT_EQ(shape_of(b, b.op("Reshape", {x, b.op("GetVarShape", {y})})), (Dims{4, 3}));
    // A target of unknown value: unknown shape.
    VarId dyn = b.input("dyn", I32, {2});
    EXPECT_EQ(shape_of(b, b.op("Reshape", {x, dyn})), Dims{});
    // Known values go through.
    VarId c = b.constant<int32_t>({4}, {1, 2, 3, 4});
    VarId t22 = b.constant<int32_t>({2}, {2, 2});
    VarId r = b.op("Reshape", {c, t22});
    EXPECT_EQ(value_of(b, r), (Vals{1, 2, 3, 4}));
}

TEST(InferShape, ReshapeRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 6});
    // basic_types.cpp try_reshape: element counts must match.
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({2}, {5, 2})}); }, "12 elements");
    // Compared when the graph is compiled to run, unless the input is a constant,
    // whose value MegEngine infers (and so compares) when it builds the graph.
    expect_refused(
        [&] {
            b.op("Reshape", {x, b.constant<int32_t>({2}, {5, 2})});
        },
        "refuses it when the graph runs");
    const VarId k = b.constant<float>({6}, {1, 2, 3, 4, 5, 6});
    try {
        b.op("Reshape", {k, b.constant<int32_t>({2}, {2, 2})});
        ADD_FAILURE() << "a constant reshaped to another element count was built";
    } catch (const GraphError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("can not reshape [6] (6 elements) to [2,2] (4 elements)"), std::string::npos)
            << what;
        EXPECT_EQ(what.find("when the graph runs"), std::string::npos) << what;
    }
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({2}, {5, -1})}, {{"axis", 1}}); },
                   "with axis 1 unspecified");
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({2}, {3, 4})}, {{"axis", 2}}); },
                   "unspecified axis 2 is out of range");
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({2}, {-3, -4})}); }, "negative dim");
    // A dim is a whole number, and mgedump's dims are 32 bits.
    expect_refused([&] { b.op("Reshape", {x, b.constant<float>({2}, {2.5f, 4.8f})}); }, "2.5 at 0, not an integer");
    expect_refused([&] { b.op("Reshape", {x, b.constant<float>({2}, {-2.5f, 4})}); }, "-2.5 at 0, not an integer");
    expect_refused([&] { b.op("Reshape", {x, b.constant<float>({2}, {12, 5e9f})}); }, "at 1; mgedump holds dims up to");
    // helper.cpp copy_tensor_value_to_shape: a 1-dim shape tensor.
    expect_refused([&] { b.op("Reshape", {x, b.constant<int32_t>({1, 2}, {3, 4})}); }, "must be 1-dim");
}

TEST(InferShape, BroadcastFollowsTheTarget) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {1, 3});
    // TensorLayout::broadcast: right-aligned, each dim equal or 1.
    EXPECT_EQ(shape_of(b, b.op("Broadcast", {x, b.constant<int32_t>({3}, {4, 2, 3})})), (Dims{4, 2, 3}));
    VarId c = b.constant<int32_t>({2, 1}, {5, 6});
    VarId bc = b.op("Broadcast", {c, b.constant<int32_t>({2}, {2, 3})});
    EXPECT_EQ(value_of(b, bc), (Vals{5, 5, 5, 6, 6, 6}));
}

TEST(InferShape, BroadcastRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3});
    expect_refused([&] { b.op("Broadcast", {x, b.constant<int32_t>({2}, {2, 4})}); }, "neither 4 nor 1");
    expect_refused([&] { b.op("Broadcast", {x, b.constant<int32_t>({1}, {3})}); }, "fewer dims");
}

TEST(InferShape, DimshufflePermutesAndAddsAxes) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    // tensor_manip.cpp:509: -1 is a new axis of 1.
    EXPECT_EQ(shape_of(b, b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{2, 0, -1, 1}}, {"ndim", 3}})),
              (Dims{4, 2, 1, 3}));
    VarId c = b.constant<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    VarId t = b.op("Dimshuffle", {c}, {{"pattern", std::vector<int32_t>{1, 0}}, {"ndim", 2}});
    EXPECT_EQ(value_of(b, t), (Vals{1, 4, 2, 5, 3, 6}));
    // The value through a new axis (-1) and a dropped axis of 1: the same transpose.
    VarId added = b.op("Dimshuffle", {c}, {{"pattern", std::vector<int32_t>{1, -1, 0}}, {"ndim", 2}});
    EXPECT_EQ(shape_of(b, added), (Dims{3, 1, 2}));
    EXPECT_EQ(value_of(b, added), (Vals{1, 4, 2, 5, 3, 6}));
    VarId c3 = b.constant<int32_t>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
    VarId dropped = b.op("Dimshuffle", {c3}, {{"pattern", std::vector<int32_t>{2, 0}}, {"ndim", 3}});
    EXPECT_EQ(shape_of(b, dropped), (Dims{3, 2}));
    EXPECT_EQ(value_of(b, dropped), (Vals{1, 4, 2, 5, 3, 6}));
}

TEST(InferShape, DimshuffleRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    // tensor_manip.cpp:486: every entry in [-1, ndim).
    expect_refused([&] { b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{3, 0, 1}}, {"ndim", 3}}); },
                   "pattern entry 3 is out of range");
    // :507: the input's rank must be ndim.
    expect_refused([&] { b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{1, 0}}, {"ndim", 2}}); },
                   "ndim is 2, the input has 3");
    // :528: only axes of 1 may be dropped.
    expect_refused([&] { b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{0, 1}}, {"ndim", 3}}); },
                   "drops axis 2");
}

TEST(InferShape, AxisAddRemoveAppliesDescsInOrder) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 1, 3});
    using ir::AxisDesc;
    using ir::AxisDescMethod;
    VarId y = b.op("AxisAddRemove", {x},
                   {{"desc", std::vector<AxisDesc>{{AxisDescMethod::REMOVE, 1}, {AxisDescMethod::ADD_1, 0}}}});
    EXPECT_EQ(shape_of(b, y), (Dims{1, 2, 3}));
    // tensor_manip.cpp:580: removing the last dim of [1] keeps [1].
    VarId s = b.input("s", F32, {1});
    EXPECT_EQ(shape_of(b, b.op("AxisAddRemove", {s}, {{"desc", std::vector<AxisDesc>{{AxisDescMethod::REMOVE, 0}}}})),
              (Dims{1}));
    expect_refused([&] { b.op("AxisAddRemove", {x}, {{"desc", std::vector<AxisDesc>{{AxisDescMethod::REMOVE, 0}}}}); },
                   "of size 2");
    expect_refused([&] { b.op("AxisAddRemove", {x}, {{"desc", std::vector<AxisDesc>{}}}); }, "desc is empty");
    expect_refused([&] { b.op("AxisAddRemove", {x}, {{"desc", std::vector<AxisDesc>{{AxisDescMethod::ADD_1, 5}}}}); },
                   "can not add axis 5");
}

TEST(InferShape, ConcatSumsTheAxis) {
    GraphBuilder b;
    VarId a = b.input("a", F32, {2, 3});
    VarId c = b.input("c", F32, {2, 1});
    // tensor_manip.cpp:1227: axis dims add up.
    EXPECT_EQ(shape_of(b, b.op("Concat", {a, c}, {{"axis", 1}})), (Dims{2, 4}));
    EXPECT_EQ(shape_of(b, b.op("Concat", {a, c}, {{"axis", -1}})), (Dims{2, 4}));
    VarId s = b.op("GetVarShape", {a});
    VarId k = b.constant<int32_t>({1}, {7});
    EXPECT_EQ(value_of(b, b.op("Concat", {s, k}, {{"axis", 0}})), (Vals{2, 3, 7}));
    VarId m = b.constant<int32_t>({2, 1}, {1, 2});
    VarId n = b.constant<int32_t>({2, 2}, {3, 4, 5, 6});
    EXPECT_EQ(value_of(b, b.op("Concat", {m, n}, {{"axis", 1}})), (Vals{1, 3, 4, 2, 5, 6}));
}

TEST(InferShape, ConcatRefusals) {
    GraphBuilder b;
    VarId a = b.input("a", F32, {2, 3});
    expect_refused([&] { b.op("Concat", {a, b.input("b", F32, {3, 3})}, {{"axis", 1}}); }, "has 3 at dim 0");
    expect_refused([&] { b.op("Concat", {a, b.input("c", F32, {2})}, {{"axis", 0}}); }, "has 1 dims");
    expect_refused([&] { b.op("Concat", {a, a}, {{"axis", 2}}); }, "axis 2 is out of range");
    // A file's Concat must have one dtype; the builder converts, as Concat::make does
    // (tensor_manip.cpp:1267 BatchedDTypePromotion: Float32 with Int32 is Float32).
    expect_refused([&] { raw_op(b, "Concat", {a, b.input("d", I32, {2, 3})}, {{"axis", 0}}); }, "one dtype");
    EXPECT_EQ(b.graph().vars.dtype[b.op("Concat", {a, b.input("e", I32, {2, 3})}, {{"axis", 0}}).value], F32);
}

TEST(InferShape, SplitOneOutputPerSize) {
    GraphBuilder b;
    VarId x = b.constant<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    VarId s0 = b.constant<int32_t>({1}, {1});
    VarId s1 = b.constant<int32_t>({1}, {2});
    VarId o0 = b.op("Split", {x, s0, s1}, {{"axis", 1}}, ir::OpOptions{.outputs = 2});
    const VarId o1(o0.value + 1);
    EXPECT_EQ(shape_of(b, o0), (Dims{2, 1}));
    EXPECT_EQ(shape_of(b, o1), (Dims{2, 2}));
    EXPECT_EQ(value_of(b, o0), (Vals{1, 4}));
    EXPECT_EQ(value_of(b, o1), (Vals{2, 3, 5, 6}));
    // tensor_manip.cpp:1033: the sizes must sum to the axis.
    expect_refused([&] { b.op("Split", {x, s1, s1}, {{"axis", 1}}, ir::OpOptions{.outputs = 2}); }, "sum to 4");
    // :1011: sizes are scalars.
    VarId v2 = b.constant<int32_t>({2}, {1, 2});
    expect_refused([&] { b.op("Split", {x, v2}, {{"axis", 1}}, ir::OpOptions{.outputs = 1}); }, "must be a scalar");
}

}  // namespace
}  // namespace mgedump::test
