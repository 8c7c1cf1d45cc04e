// The indexing family's inference rules against MegEngine's
// (src/opr/impl/internal/indexing_helper.cpp, tensor_manip.cpp, indexing.cpp,
// dnn/src/common/indexing_multi_axis_vec.cpp, mesh_indexing.cpp, indexing_one_hot.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "tests/infer/infer_test_util.h"
#include "tests/infer/raw_op.h"

namespace mgedump::test {
namespace {

using ir::IndexDescMaskItem;
using Items = std::vector<IndexDescMaskItem>;
using Dims = std::vector<uint32_t>;
using Vals = std::vector<double>;

IndexDescMaskItem slice(int8_t axis, bool begin, bool end, bool step) { return {axis, begin, end, step, false}; }
IndexDescMaskItem index(int8_t axis) { return {axis, false, false, false, true}; }

TEST(InferIndexing, SubtensorSlicesAndIndices) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5});
    // x[1:4:2, -2]: tensor.cpp Slice::apply gives (4-1+1)/2 = 2; the index removes axis 1.
    VarId y = b.op("Subtensor", {x, scalar(b, 1), scalar(b, 4), scalar(b, 2), scalar(b, -2)},
                   {{"items", Items{slice(0, true, true, true), index(1)}}});
    EXPECT_EQ(shape_of(b, y), (Dims{2}));
    // An end past the axis is clamped; a negative step walks back from the end.
    EXPECT_EQ(shape_of(b, b.op("Subtensor", {x, scalar(b, 100)}, {{"items", Items{slice(1, false, true, false)}}})),
              (Dims{4, 5}));
    EXPECT_EQ(shape_of(b, b.op("Subtensor", {x, scalar(b, -1)}, {{"items", Items{slice(1, false, false, true)}}})),
              (Dims{4, 5}));
    // Every axis indexed: [1] (indexing_helper.cpp:209).
    EXPECT_EQ(shape_of(b, b.op("Subtensor", {x, scalar(b, 0), scalar(b, 0)}, {{"items", Items{index(0), index(1)}}})),
              (Dims{1}));
    // The shape needs only the slice values (a dynamic index reads as 0).
    VarId i = b.input("i", I32, {1});
    EXPECT_EQ(shape_of(b, b.op("Subtensor", {x, i}, {{"items", Items{index(0)}}})), (Dims{5}));
    // A dynamic slice bound: unknown shape.
    EXPECT_EQ(shape_of(b, b.op("Subtensor", {x, i}, {{"items", Items{slice(0, true, false, false)}}})), Dims{});
}

TEST(InferIndexing, SubtensorOfAKnownShapeValue) {
    GraphBuilder b;
    // The exporters' Shape -> Gather: GetVarShape then Subtensor keep a value.
    VarId x = b.input("x", F32, {2, 3, 4});
    VarId s = b.op("GetVarShape", {x});
    VarId d1 = b.op("Subtensor", {s, scalar(b, 1)}, {{"items", Items{index(0)}}});
    EXPECT_EQ(value_of(b, d1), (Vals{3}));
    VarId tail = b.op("Subtensor", {s, scalar(b, -2)}, {{"items", Items{slice(0, true, false, false)}}});
    EXPECT_EQ(value_of(b, tail), (Vals{3, 4}));
    VarId rev = b.op("Subtensor", {s, scalar(b, -1)}, {{"items", Items{slice(0, false, false, true)}}});
    EXPECT_EQ(value_of(b, rev), (Vals{4, 3, 2}));
    VarId c = b.constant<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
    VarId col = b.op("Subtensor", {c, scalar(b, 1), scalar(b, 1)}, {{"items", Items{slice(1, true, false, false), index(0)}}});
    EXPECT_EQ(value_of(b, col), (Vals{5, 6}));
}

TEST(InferIndexing, SubtensorRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5});
    // Slice::apply: a negative begin wraps once, then must be in range.
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, -9)}, {{"items", Items{slice(0, true, false, false)}}}); },
                   "axis 0: slice begin=-9 end=None step=None is out of bound for an axis of 4");
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, 4)}, {{"items", Items{index(0)}}}); }, "index 4 is out of bound");
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, 0)}, {{"items", Items{slice(0, false, false, true)}}}); },
                   "step can not be zero");
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, 0)}, {{"items", Items{index(2)}}}); }, "out of range");
    // indexing_helper.cpp:104/112: no duplicated axes; an item is a slice or an index.
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, 0), scalar(b, 0)}, {{"items", Items{index(1), index(1)}}}); },
                   "twice");
    // The same for slices (with their bounds known, the common case), whether
    // the axes are written alike or only name one axis (1 and -1 of 2 dims).
    expect_refused([&] {
        b.op("Subtensor", {x, scalar(b, 0), scalar(b, 1)},
             {{"items", Items{slice(1, true, false, false), slice(1, false, true, false)}}});
    }, "twice");
    expect_refused([&] {
        b.op("Subtensor", {x, scalar(b, 0), scalar(b, 1)},
             {{"items", Items{slice(1, true, false, false), slice(-1, false, true, false)}}});
    }, "two index items name axis 1");
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, 0)}, {{"items", Items{{0, true, false, false, true}}}}); },
                   "either an index or a slice");
    expect_refused([&] { b.op("Subtensor", {x}, {{"items", Items{{0, false, false, false, false}}}}); },
                   "either an index or a slice");
    expect_refused([&] { b.op("Subtensor", {x, scalar(b, 0)}, {{"items", Items{index(0), index(1)}}}); },
                   "take 2 index inputs");
    // indexing_helper_sereg.h:43: the loader takes fewer than 7 items.
    VarId x7 = b.input("x7", F32, {1, 1, 1, 1, 1, 1, 1});
    std::vector<VarId> in7{x7};
    Items items7;
    for (int8_t a = 0; a < 7; ++a) {
        in7.push_back(scalar(b, 0));
        items7.push_back(index(a));
    }
    expect_refused([&] { b.op("Subtensor", in7, {{"items", items7}}); }, "at most 6");
    // do_make_sub_spec next_iv: indices are scalars.
    expect_refused([&] { b.op("Subtensor", {x, b.constant<int32_t>({2}, {0, 1})}, {{"items", Items{index(0)}}}); },
                   "must be a scalar");
    // static_cast_dtype_safe: a float index must hold a whole number; 2.0 reads as 2.
    expect_refused([&] { b.op("Subtensor", {x, b.constant<float>({1}, {1.5f})}, {{"items", Items{index(0)}}}); },
                   "holds 1.5, not an integer");
    expect_refused([&] { b.op("Subtensor", {x, b.constant<float>({1}, {-0.25f})}, {{"items", Items{index(1)}}}); },
                   "holds -0.25, not an integer");
    EXPECT_EQ(shape_of(b, b.op("Subtensor", {x, b.constant<float>({1}, {2.0f})}, {{"items", Items{slice(1, true, false, false)}}})),
              (Dims{4, 3}));
}

TEST(InferIndexing, SetAndIncrSubtensor) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5});
    VarId v = b.input("v", F32, {2, 5});
    VarId y = b.op("SetSubtensor", {x, v, scalar(b, 1), scalar(b, 3)}, {{"items", Items{slice(0, true, true, false)}}});
    EXPECT_EQ(shape_of(b, y), (Dims{4, 5}));
    // tensor_manip.cpp:730: the value's shape must equal the indexed part.
    expect_refused([&] { b.op("IncrSubtensor", {x, v, scalar(b, 1)}, {{"items", Items{slice(0, true, false, false)}}}); },
                   "the indexed part of input 0 has [3,5]");
    // FancyIndexingHelper: data and value of one dtype.
    VarId vi = b.input("vi", I32, {2, 5});
    expect_refused([&] { b.op("SetSubtensor", {x, vi, scalar(b, 0), scalar(b, 2)}, {{"items", Items{slice(0, true, true, false)}}}); },
                   "one dtype");
    // Known values: the modified copy.
    VarId c = b.constant<int32_t>({3}, {1, 2, 3});
    VarId z = b.op("IncrSubtensor", {c, scalar(b, 10), scalar(b, 1)}, {{"items", Items{index(0)}}});
    EXPECT_EQ(value_of(b, z), (Vals{1, 12, 3}));
    VarId w = b.op("SetSubtensor", {c, scalar(b, 7), scalar(b, -1)}, {{"items", Items{index(0)}}});
    EXPECT_EQ(value_of(b, w), (Vals{1, 2, 7}));
}

TEST(InferIndexing, MultiAxisVecShapes) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5, 6});
    VarId i3 = b.input("i3", I32, {3});
    VarId i31 = b.input("i31", I32, {3, 1});
    VarId i2 = b.input("i2", I32, {2});
    // indexing_multi_axis_vec.cpp deduce_layout_fwd: one index on axis 1 → [4,3,6].
    EXPECT_EQ(shape_of(b, b.op("IndexingMultiAxisVec", {x, i3}, {{"items", Items{index(1)}}})), (Dims{4, 3, 6}));
    // Consecutive axes 0,1 broadcast [3,1]x[2] = [3,2] in place.
    EXPECT_EQ(shape_of(b, b.op("IndexingMultiAxisVec", {x, i31, i2}, {{"items", Items{index(0), index(1)}}})),
              (Dims{3, 2, 6}));
    // Axes 0 and 2 (not consecutive): the index shape goes to the front.
    EXPECT_EQ(shape_of(b, b.op("IndexingMultiAxisVec", {x, i3, i3}, {{"items", Items{index(0), index(2)}}})),
              (Dims{3, 5}));
    // A slice with a vector index.
    EXPECT_EQ(shape_of(b, b.op("IndexingMultiAxisVec", {x, scalar(b, 2), i3}, {{"items", Items{slice(0, true, false, false), index(2)}}})),
              (Dims{2, 5, 3}));
    // No static value (MegEngine registers none for this operator).
    VarId s = b.op("GetVarShape", {x});
    VarId g = b.op("IndexingMultiAxisVec", {s, b.constant<int32_t>({1}, {0})}, {{"items", Items{index(0)}}});
    EXPECT_EQ(shape_of(b, g), (Dims{1}));
    EXPECT_EQ(b.inferred().value(g), nullptr);
}

TEST(InferIndexing, MultiAxisVecRefusals) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5});
    // indexing_helper.cpp:115: vector indices are Int32.
    VarId f = b.input("f", F32, {3});
    expect_refused([&] { b.op("IndexingMultiAxisVec", {x, f}, {{"items", Items{index(0)}}}); }, "must be Int32");
    expect_refused([&] { b.op("IndexingMultiAxisVec", {x, b.input("a", I32, {3}), b.input("c", I32, {2})},
                              {{"items", Items{index(0), index(1)}}}); },
                   "do not broadcast");
    VarId v = b.input("v", F32, {4, 2});
    VarId i3 = b.input("i3", I32, {3});
    EXPECT_EQ(shape_of(b, b.op("IndexingSetMultiAxisVec", {x, b.input("v3", F32, {4, 3}), i3}, {{"items", Items{index(1)}}})),
              (Dims{4, 5}));
    expect_refused([&] { b.op("IndexingIncrMultiAxisVec", {x, v, i3}, {{"items", Items{index(1)}}}); },
                   "indexing input 0 gives [4,3]");
}

TEST(InferIndexing, MeshIndexing) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {4, 5});
    VarId i0 = b.input("i0", I32, {2});
    VarId i1 = b.input("i1", I32, {3});
    // mesh_indexing.cpp: each indexed axis takes the index length.
    EXPECT_EQ(shape_of(b, b.op("MeshIndexing", {x, i0, i1}, {{"items", Items{index(0), index(1)}}})), (Dims{2, 3}));
    EXPECT_EQ(shape_of(b, b.op("SetMeshIndexing", {x, b.input("v", F32, {2, 3}), i0, i1}, {{"items", Items{index(0), index(1)}}})),
              (Dims{4, 5}));
    expect_refused([&] { b.op("MeshIndexing", {x, b.input("m", I32, {2, 2})}, {{"items", Items{index(0)}}}); },
                   "a 1-dim vector");
    expect_refused([&] { b.op("IncrMeshIndexing", {x, b.input("w", F32, {2, 4}), i0, i1}, {{"items", Items{index(0), index(1)}}}); },
                   "has 4 at axis 1");
}

TEST(InferIndexing, BatchedMeshIndexing) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {2, 4, 5});
    VarId i1 = b.input("i1", I32, {2, 2});
    VarId i2 = b.input("i2", I32, {2, 3});
    // mesh_indexing.cpp: a [batch, n] index per axis; axis gets n.
    EXPECT_EQ(shape_of(b, b.op("BatchedMeshIndexing", {x, i1, i2}, {{"items", Items{index(1), index(2)}}})),
              (Dims{2, 2, 3}));
    EXPECT_EQ(shape_of(b, b.op("BatchedSetMeshIndexing", {x, b.input("v", F32, {2, 2, 3}), i1, i2},
                                {{"items", Items{index(1), index(2)}}})),
              (Dims{2, 4, 5}));
    expect_refused([&] { b.op("BatchedMeshIndexing", {x, i1}, {{"items", Items{index(0)}}}); }, "axis 0");
    expect_refused([&] { b.op("BatchedMeshIndexing", {x, b.input("i3", I32, {3, 2})}, {{"items", Items{index(1)}}}); },
                   "3 batches");
    expect_refused([&] { b.op("BatchedIncrMeshIndexing", {x, b.input("w", F32, {3, 2, 5}), i1}, {{"items", Items{index(1)}}}); },
                   "batch");
}

TEST(InferIndexing, OneHot) {
    GraphBuilder b;
    VarId x = b.input("x", F32, {3, 4});
    VarId i = b.input("i", I32, {3});
    // indexing_one_hot.cpp deduce_layout_fwd: the axis becomes 1.
    EXPECT_EQ(shape_of(b, b.op("IndexingOneHot", {x, i}, {{"axis", 1}})), (Dims{3, 1}));
    EXPECT_EQ(shape_of(b, b.op("IndexingSetOneHot", {x, i, b.input("v", F32, {3, 1})}, {{"axis", 1}})), (Dims{3, 4}));
    // check_layout_fwd: index shape = data without the axis; Int32; ndim >= 2.
    expect_refused([&] { b.op("IndexingOneHot", {x, b.input("j", I32, {4})}, {{"axis", 1}}); }, "it must be [3]");
    // A file's graph must have an Int32 index; the builder converts one, as
    // indexing.cpp check_index_dtype does.
    expect_refused([&] { raw_op(b, "IndexingOneHot", {x, b.input("k", F32, {3})}, {{"axis", 1}}); }, "must be Int32");
    {
        const ir::VarId y = b.op("IndexingOneHot", {x, b.input("k2", F32, {3})}, {{"axis", 1}});
        const ir::Graph& g = b.graph();
        const ir::VarId index = g.inputs_of(g.vars.owner[y.value])[1];
        EXPECT_EQ(ir::op_def(g.oprs.type[g.vars.owner[index.value].value]).name, "TypeCvt");
        EXPECT_EQ(g.vars.dtype[index.value], I32);
    }
    expect_refused([&] { b.op("IndexingOneHot", {x, i}, {{"axis", 2}}); }, "axis 2 is out of range");
    expect_refused([&] { b.op("IndexingOneHot", {b.input("s", F32, {3}), i}, {{"axis", 0}}); }, "at least 2 dims");
    expect_refused([&] { b.op("IndexingSetOneHot", {x, i, b.input("u", F32, {3, 2})}, {{"axis", 1}}); },
                   "it must be [3,1]");
}

}  // namespace
}  // namespace mgedump::test
