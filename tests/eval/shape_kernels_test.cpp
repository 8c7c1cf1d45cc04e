// The shape family's kernels (engine/eval/kernels_shape.cpp) on small graphs.
// Expected values are numpy's for the same operation on the same arrays
// (np.transpose, np.broadcast_to, np.concatenate, np.split), written out as
// literals; the operation each one stands for is in the comment above it.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

TEST(ShapeKernels, ReshapeSharesTheInputsStorage) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 6});
    VarId y =
        b.op("Reshape", {x, b.constant<int32_t>({3}, {3, 1, 2})}, {{"axis", 1}});  // axis 1 unspecified: 2
    const Tensor in = tensor(F32, {2, 6}, iota(12));
    const auto out = run(b, {y}, {{"x", in}});
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{3, 2, 2}));
    EXPECT_EQ(values(out[0]), iota(12));
    EXPECT_EQ(out[0].bytes().data(), in.bytes().data());
}

TEST(ShapeKernels, BroadcastRepeatsDimsOfOneAndMissingLeadingDims) {
    GraphBuilder b;
    VarId x = b.input("x", I32, {3, 1});
    VarId y = b.op("Broadcast", {x, b.constant<int32_t>({3}, {2, 3, 4})});
    // A [1] input broadcasts to any shape.
    VarId s = b.input("s", F32, {1});
    VarId z = b.op("Broadcast", {s, b.constant<int32_t>({2}, {2, 2})});
    const auto out =
        run(b, {y, z}, {{"x", tensor(I32, {3, 1}, {10, 20, 30})}, {"s", tensor(F32, {1}, {-2.5})}});
    // np.broadcast_to([[10],[20],[30]], (2,3,4))
    EXPECT_EQ(values(out[0]), (std::vector<double>{10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30,
                                                   10, 10, 10, 10, 20, 20, 20, 20, 30, 30, 30, 30}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{-2.5, -2.5, -2.5, -2.5}));
}

TEST(ShapeKernels, DimshufflePermutesAddsAndDropsAxes) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId y = b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{2, 0, 1}}, {"ndim", 3}});
    VarId u = b.input("u", I8, {2, 1, 3});
    // Output [3, 1, 2]: input axis 2, a new axis, input axis 0; the axis of 1 goes.
    VarId z = b.op("Dimshuffle", {u}, {{"pattern", std::vector<int32_t>{2, -1, 0}}, {"ndim", 3}});
    const auto out =
        run(b, {y, z}, {{"x", tensor(F32, {2, 3, 4}, iota(24))}, {"u", tensor(I8, {2, 1, 3}, iota(6, -3))}});
    // np.arange(24).reshape(2,3,4).transpose(2,0,1)
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{4, 2, 3}));
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                                                   2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
    // (np.arange(6) - 3).reshape(2,1,3).transpose(2,1,0)
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{3, 1, 2}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{-3, 0, -2, 1, -1, 2}));
}

TEST(ShapeKernels, DimshuffleThatKeepsTheOrderSharesStorage) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 1, 3});
    VarId y = b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{-1, 0, 2, -1}}, {"ndim", 3}});
    const Tensor in = tensor(F32, {2, 1, 3}, iota(6));
    const auto out = run(b, {y}, {{"x", in}});
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{1, 2, 3, 1}));
    EXPECT_EQ(out[0].bytes().data(), in.bytes().data());
}

TEST(ShapeKernels, Float16ElementsMoveAsBits) {
    // A transposed NaN with a payload and -0 keep their exact bits.
    GraphBuilder b;
    VarId x = b.input("x", F16, {2, 2});
    VarId y = b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{1, 0}}, {"ndim", 2}});
    Tensor in(F16, ir::Shape::of({2, 2}));
    const uint16_t bits[4] = {0x7E01, 0x8000, 0x3C00, 0xFBFF};
    std::memcpy(in.mutable_bytes().data(), bits, sizeof bits);
    const auto out = run(b, {y}, {{"x", in}});
    const auto got = out[0].data<uint16_t>();
    EXPECT_EQ((std::vector<uint16_t>(got.begin(), got.end())),
              (std::vector<uint16_t>{0x7E01, 0x3C00, 0x8000, 0xFBFF}));
}

TEST(ShapeKernels, LargeTransposeRunsInParallelBlocksAndStaysExact) {
    // 64·128·40 elements, over the parallel threshold: y[j,i,k] = x[i,j,k].
    GraphBuilder b;
    VarId x = b.input("x", I32, {64, 128, 40});
    VarId y = b.op("Dimshuffle", {x}, {{"pattern", std::vector<int32_t>{1, 0, 2}}, {"ndim", 3}});
    const auto out = run(b, {y}, {{"x", tensor(I32, {64, 128, 40}, iota(64 * 128 * 40))}});
    const auto got = out[0].data<int32_t>();
    size_t bad = 0;
    for (uint32_t j = 0; j < 128; ++j)
        for (uint32_t i = 0; i < 64; ++i)
            for (uint32_t k = 0; k < 40; ++k)
                bad += got[(j * 64 + i) * 40 + k] != static_cast<int32_t>((i * 128 + j) * 40 + k);
    EXPECT_EQ(bad, 0u);
}

TEST(ShapeKernels, AxisAddRemoveReshapesInDescOrder) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 1, 3});
    VarId y = b.op("AxisAddRemove", {x},
                   {{"desc", std::vector<ir::AxisDesc>{{ir::AxisDescMethod::REMOVE, 1},
                                                       {ir::AxisDescMethod::ADD_1, -1}}}});
    const auto out = run(b, {y}, {{"x", tensor(F32, {2, 1, 3}, iota(6))}});
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 3, 1}));
    EXPECT_EQ(values(out[0]), iota(6));
}

TEST(ShapeKernels, ConcatOnANegativeAxisWithAnEmptyInput) {
    GraphBuilder b;
    VarId a = b.input("a", F32, {2, 3}), e = b.input("e", F32, {2, 0}), c = b.input("c", F32, {2, 1});
    VarId y = b.op("Concat", {a, e, c}, {{"axis", -1}});
    VarId p = b.input("p", I8, {1, 2}), q = b.input("q", I8, {2, 2});
    VarId z = b.op("Concat", {p, q}, {{"axis", 0}});
    const auto out = run(b, {y, z},
                         {{"a", tensor(F32, {2, 3}, iota(6))},
                          {"e", Tensor(F32, ir::Shape::of({2, 0}))},
                          {"c", tensor(F32, {2, 1}, {100, 101})},
                          {"p", tensor(I8, {1, 2}, {-128, 127})},
                          {"q", tensor(I8, {2, 2}, {1, 2, 3, 4})}});
    // np.concatenate([arange(6).reshape(2,3), zeros((2,0)), [[100],[101]]], axis=-1)
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 1, 2, 100, 3, 4, 5, 101}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{-128, 127, 1, 2, 3, 4}));
}

TEST(ShapeKernels, SplitGivesEachPartItsBlockOfTheAxis) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 5});
    ir::OpOptions three;
    three.outputs = 3;
    VarId s =
        b.op("Split",
             {x, b.constant<int32_t>({1}, {2}), b.constant<int32_t>({1}, {0}), b.constant<int32_t>({1}, {3})},
             {{"axis", -1}}, three);
    const auto out =
        run(b, {s, VarId(s.value + 1), VarId(s.value + 2)}, {{"x", tensor(F32, {2, 5}, iota(10))}});
    // np.split(arange(10).reshape(2,5), [2, 2], axis=-1)
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 1, 5, 6}));
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{2, 0}));
    EXPECT_EQ(values(out[2]), (std::vector<double>{2, 3, 4, 7, 8, 9}));
}

TEST(ShapeKernels, GetVarShapeOfSeveralInputsIsTheirBroadcastShape) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 1, 4}), y = b.input("y", F32, {3, 1});
    VarId all = b.op("GetVarShape", {x, y});
    VarId last = b.op("GetVarShape", {x, y}, {{"axis", -1}});
    const auto out =
        run(b, {all, last},
            {{"x", Tensor(F32, ir::Shape::of({2, 1, 4}))}, {"y", Tensor(F32, ir::Shape::of({3, 1}))}});
    EXPECT_EQ(out[0].dtype().type, DTypeEnum::Int32);
    EXPECT_EQ(values(out[0]), (std::vector<double>{2, 3, 4}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{4}));
}

TEST(ShapeKernels, VirtualDepAndPersistentOutputStorageGiveInputZero) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3}), d = b.input("d", I32, {2});
    VarId y = b.op("VirtualDep", {x, d});
    VarId z = b.op("PersistentOutputStorage", {x}, {{"share_key", 3}});
    const auto out =
        run(b, {y, z}, {{"x", tensor(F32, {3}, {1.5, -0.0, 7})}, {"d", tensor(I32, {2}, {9, 9})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{1.5, -0.0, 7}));
    EXPECT_EQ(values(out[1]), (std::vector<double>{1.5, -0.0, 7}));
}

}  // namespace
}  // namespace mgedump::test
