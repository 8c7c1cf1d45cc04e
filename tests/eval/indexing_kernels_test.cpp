// The indexing family's kernels (engine/eval/kernels_indexing.cpp) on small
// graphs. Expected values are numpy's for the same indexing written the numpy
// way (the expression is in the comment above each check): basic slices for the
// Subtensor family, advanced indexing for IndexingMultiAxisVec (non-adjacent
// index axes go to the front, as in numpy), np.ix_ for MeshIndexing, np.add.at
// for the increments with repeated indices.
#include <gtest/gtest.h>

#include "tests/eval/kernel_test_util.h"

namespace mgedump::test {
namespace {

using ir::IndexDescMaskItem;
using Items = std::vector<IndexDescMaskItem>;

IndexDescMaskItem slice(int8_t axis, bool begin, bool end, bool step) {
    return {axis, begin, end, step, false};
}
IndexDescMaskItem index(int8_t axis) { return {axis, false, false, false, true}; }

VarId scalar(GraphBuilder& b, int32_t v) { return b.constant<int32_t>({1}, {v}); }

TEST(IndexingKernels, SubtensorNegativeStepsAndClampedEnds) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {10});
    VarId rev = b.op("Subtensor", {x, scalar(b, -2)}, {{"items", Items{slice(0, false, false, true)}}});
    VarId back = b.op("Subtensor", {x, scalar(b, 8), scalar(b, 1), scalar(b, -3)},
                      {{"items", Items{slice(0, true, true, true)}}});
    VarId tail = b.op("Subtensor", {x, scalar(b, -3), scalar(b, 100)},
                      {{"items", Items{slice(0, true, true, false)}}});
    const auto out = run(b, {rev, back, tail}, {{"x", tensor(F32, {10}, iota(10))}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{9, 7, 5, 3, 1}));  // x[::-2]
    EXPECT_EQ(values(out[1]), (std::vector<double>{8, 5, 2}));        // x[8:1:-3]
    EXPECT_EQ(values(out[2]), (std::vector<double>{7, 8, 9}));        // x[-3:100]
}

TEST(IndexingKernels, SubtensorScalarIndicesRemoveTheirAxes) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 4});
    VarId row = b.op("Subtensor", {x, scalar(b, -1)}, {{"items", Items{index(0)}}});
    VarId one = b.op("Subtensor", {x, scalar(b, 1), scalar(b, -2)}, {{"items", Items{index(0), index(1)}}});
    const auto out = run(b, {row, one}, {{"x", tensor(F32, {3, 4}, iota(12))}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{8, 9, 10, 11}));  // x[-1]
    EXPECT_EQ(dims(out[1]), (std::vector<uint32_t>{1}));             // x[1, -2], kept as [1]
    EXPECT_EQ(values(out[1]), (std::vector<double>{6}));
}

TEST(IndexingKernels, SetSubtensorWithAStepAndIncrSubtensorWrapsIntegers) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 5}), v = b.input("v", F32, {2, 2});
    VarId set = b.op("SetSubtensor", {x, v, scalar(b, 1), scalar(b, 2)},
                     {{"items", Items{slice(1, true, false, true)}}});
    VarId q = b.input("q", I8, {2}), w = b.input("w", I8, {2});
    VarId inc = b.op("IncrSubtensor", {q, w, scalar(b, 0)}, {{"items", Items{slice(0, true, false, false)}}});
    const auto out = run(b, {set, inc},
                         {{"x", tensor(F32, {2, 5}, std::vector<double>(10, 0))},
                          {"v", tensor(F32, {2, 2}, {1, 2, 3, 4})},
                          {"q", tensor(I8, {2}, {100, 50})},
                          {"w", tensor(I8, {2}, {100, -100})}});
    // a = zeros((2,5)); a[:, 1::2] = [[1,2],[3,4]]
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 1, 0, 2, 0, 0, 3, 0, 4, 0}));
    // AddUpdate in int8: 100 + 100 = 200 wraps to -56.
    EXPECT_EQ(values(out[1]), (std::vector<double>{-56, -50}));
}

TEST(IndexingKernels, MultiAxisVecNonAdjacentIndicesGoToTheFront) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId i0 = b.input("i0", I32, {2}), i2 = b.input("i2", I32, {2});
    VarId y = b.op("IndexingMultiAxisVec", {x, i0, i2}, {{"items", Items{index(0), index(2)}}});
    const auto out = run(b, {y},
                         {{"x", tensor(F32, {2, 3, 4}, iota(24))},
                          {"i0", tensor(I32, {2}, {1, 0})},
                          {"i2", tensor(I32, {2}, {3, -1})}});
    // x[[1,0], :, [3,-1]]: shape (2, 3)
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(values(out[0]), (std::vector<double>{15, 19, 23, 3, 7, 11}));
}

TEST(IndexingKernels, MultiAxisVecAdjacentIndicesBroadcastInPlace) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId i1 = b.input("i1", I32, {2, 1}), i2 = b.input("i2", I32, {3});
    // Items in reverse axis order: MegEngine sorts them.
    VarId y = b.op("IndexingMultiAxisVec", {x, i2, i1}, {{"items", Items{index(2), index(1)}}});
    const auto out = run(b, {y},
                         {{"x", tensor(F32, {2, 3, 4}, iota(24))},
                          {"i1", tensor(I32, {2, 1}, {2, 0})},
                          {"i2", tensor(I32, {3}, {1, -1, 0})}});
    // x[:, [[2],[0]], [1,-1,0]]: shape (2, 2, 3)
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{2, 2, 3}));
    EXPECT_EQ(values(out[0]), (std::vector<double>{9, 11, 8, 1, 3, 0, 21, 23, 20, 13, 15, 12}));
}

TEST(IndexingKernels, MultiAxisVecAfterASlice) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId i = b.input("i", I32, {2});
    VarId y = b.op("IndexingMultiAxisVec", {x, scalar(b, 1), i},
                   {{"items", Items{slice(0, true, false, false), index(1)}}});
    const auto out = run(b, {y}, {{"x", tensor(F32, {2, 3, 4}, iota(24))}, {"i", tensor(I32, {2}, {2, 0})}});
    // x[1:, [2, 0]]: shape (1, 2, 4)
    EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{1, 2, 4}));
    EXPECT_EQ(values(out[0]), (std::vector<double>{20, 21, 22, 23, 12, 13, 14, 15}));
}

TEST(IndexingKernels, RepeatedIndicesSetLastAndIncrementAddUp) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {5}), v = b.input("v", F32, {3}), i = b.input("i", I32, {3});
    VarId set = b.op("IndexingSetMultiAxisVec", {x, v, i}, {{"items", Items{index(0)}}});
    VarId inc = b.op("IndexingIncrMultiAxisVec", {x, v, i}, {{"items", Items{index(0)}}});
    const auto out = run(b, {set, inc},
                         {{"x", tensor(F32, {5}, {0, 0, 0, 0, 0})},
                          {"v", tensor(F32, {3}, {7, 8, 9})},
                          {"i", tensor(I32, {3}, {1, 1, -2})}});
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 8, 0, 9, 0}));   // d[[1,1,3]] = [7,8,9]
    EXPECT_EQ(values(out[1]), (std::vector<double>{0, 15, 0, 9, 0}));  // np.add.at(d, [1,1,3], [7,8,9])
}

TEST(IndexingKernels, IndexOutOfRangeIsRefused) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4}), i = b.input("i", I32, {2});
    VarId y = b.op("IndexingMultiAxisVec", {x, i}, {{"items", Items{index(1)}}});
    expect_refused(b, y, {{"x", tensor(F32, {2, 4}, iota(8))}, {"i", tensor(I32, {2}, {0, -5})}},
                   "out of bounds");
}

TEST(IndexingKernels, QuantizedDataIsRefusedByTheMultiAxisKernels) {
    GraphBuilder b;
    const DType q = DType::quantized(DTypeEnum::QuantizedS8, 0.5f);
    VarId x = b.input("x", q, {4}), i = b.input("i", I32, {1});
    VarId y = b.op("IndexingMultiAxisVec", {x, i}, {{"items", Items{index(0)}}});
    expect_refused(b, y, {{"x", tensor(q, {4}, {0, 0.5, 1, 1.5})}, {"i", tensor(I32, {1}, {0})}},
                   "IndexingMultiAxisVec kernel does not take QuantizedS8");
}

TEST(IndexingKernels, MeshIndexingTakesTheOuterProductOfTheIndices) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5});
    VarId i0 = b.input("i0", I32, {2}), i1 = b.input("i1", I32, {3});
    VarId y = b.op("MeshIndexing", {x, i0, i1}, {{"items", Items{index(0), index(1)}}});
    const auto out = run(b, {y},
                         {{"x", tensor(F32, {4, 5}, iota(20))},
                          {"i0", tensor(I32, {2}, {3, -1})},
                          {"i1", tensor(I32, {3}, {0, 4, 2})}});
    // x[np.ix_([3,-1], [0,4,2])]
    EXPECT_EQ(values(out[0]), (std::vector<double>{15, 19, 17, 15, 19, 17}));
}

TEST(IndexingKernels, BatchedMeshIndexingUsesOneIndexRowPerBatch) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4, 5});
    VarId i1 = b.input("i1", I32, {2, 2}), i2 = b.input("i2", I32, {2, 3});
    VarId y = b.op("BatchedMeshIndexing", {x, i1, i2}, {{"items", Items{index(1), index(2)}}});
    const auto out = run(b, {y},
                         {{"x", tensor(F32, {2, 4, 5}, iota(40))},
                          {"i1", tensor(I32, {2, 2}, {0, 3, -1, 1})},
                          {"i2", tensor(I32, {2, 3}, {4, 0, 1, 2, 2, -5})}});
    // np.stack([x[b][np.ix_(i1[b], i2[b])] for b in range(2)])
    EXPECT_EQ(values(out[0]), (std::vector<double>{4, 0, 1, 19, 15, 16, 37, 37, 35, 27, 27, 25}));
}

TEST(IndexingKernels, IncrMeshIndexingAddsRepeatedPositionsUp) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 3}), v = b.input("v", F32, {3, 2});
    VarId i0 = b.input("i0", I32, {3}), i1 = b.input("i1", I32, {2});
    VarId y = b.op("IncrMeshIndexing", {x, v, i0, i1}, {{"items", Items{index(0), index(1)}}});
    const auto out = run(b, {y},
                         {{"x", tensor(F32, {3, 3}, std::vector<double>(9, 0))},
                          {"v", tensor(F32, {3, 2}, {1, 2, 3, 4, 5, 6})},
                          {"i0", tensor(I32, {3}, {0, 0, 2})},
                          {"i1", tensor(I32, {2}, {1, 1})}});
    // d[i0[a], i1[b]] += v[a, b] for every a, b
    EXPECT_EQ(values(out[0]), (std::vector<double>{0, 10, 0, 0, 0, 0, 0, 11, 0}));
}

TEST(IndexingKernels, OneHotPicksAlongTheAxisAndRefusesNegativeIndices) {
    {
        GraphBuilder b;
        VarId x = b.input("x", F32, {3, 4}), i = b.input("i", I32, {4}), v = b.input("v", F32, {1, 4});
        VarId get = b.op("IndexingOneHot", {x, i}, {{"axis", 0}});
        VarId set = b.op("IndexingSetOneHot", {x, i, v}, {{"axis", 0}});
        const auto out = run(b, {get, set},
                             {{"x", tensor(F32, {3, 4}, iota(12))},
                              {"i", tensor(I32, {4}, {2, 0, 1, 2})},
                              {"v", tensor(F32, {1, 4}, {-1, -2, -3, -4})}});
        // x[i, arange(4)], kept as (1, 4); then that position set to v
        EXPECT_EQ(dims(out[0]), (std::vector<uint32_t>{1, 4}));
        EXPECT_EQ(values(out[0]), (std::vector<double>{8, 1, 6, 11}));
        EXPECT_EQ(values(out[1]), (std::vector<double>{0, -2, 2, 3, 4, 5, -3, 7, -1, 9, 10, -4}));
    }
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 4}), i = b.input("i", I32, {3});
    VarId y = b.op("IndexingOneHot", {x, i}, {{"axis", 1}});
    // MegDNN's one-hot does not wrap negative indices.
    expect_refused(b, y, {{"x", tensor(F32, {3, 4}, iota(12))}, {"i", tensor(I32, {3}, {0, -1, 1})}},
                   "out of range");
}

}  // namespace
}  // namespace mgedump::test
