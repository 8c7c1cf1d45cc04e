// Upper bounds on dims static inference leaves unknown (ir/dim_bounds.h), worked
// by hand from each operator's MegEngine semantics: a CondTake selects at most
// its data's elements (misc.cpp), Elemwise broadcasts (each dim one of its
// inputs'), Dimshuffle permutes, AxisAddRemove adds or removes unit axes,
// Reshape's unspecified axis takes the elements the others leave, Concat adds
// along its axis, an index along one axis takes the index's length, a slice
// keeps at most the data's dim (and at most its end, when the end is bounded
// and the start and step are not negative), a Split's parts at most their
// input's dims, TopK keeps at most k (a run-time k made of shapes and
// constants: within the interval those give it).
#include "ir/dim_bounds.h"

#include "ir/dim_intervals.h"
#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

using Bounds = std::vector<uint64_t>;
using ir::ParamArg;

// A CondTake of a [rows, cols] Float32 input by itself: a selection whose length
// only the run time knows, at most rows · cols.
VarId selection(GraphBuilder& b, const std::string& name, uint32_t rows, uint32_t cols) {
    const VarId x = b.input(name, F32, {rows, cols});
    return b.op("CondTake", {x, x}, {{"mode", "GT"}, {"val", 0.0f}});
}

// A selection of at most rows · cols as one row ([1, ?]) to take a top-k of, and
// its length read from its shape (GetVarShape, then entry 0): a run-time count
// of at most rows · cols, as torchvision's min(k, len(x)) reads it.
struct RowAndLength {
    VarId row, length;
};
RowAndLength selection_row_and_length(GraphBuilder& b, uint32_t rows, uint32_t cols) {
    const VarId s = selection(b, "x", rows, cols);
    const VarId row =
        b.op("AxisAddRemove", {s}, {{"desc", std::vector<ir::AxisDesc>{{ir::AxisDescMethod::ADD_1, 0}}}});
    const ir::IndexDescMaskItem first_of_shape{0, false, false, false, true};
    const VarId length = b.op("Subtensor", {b.op("GetVarShape", {s}), b.constant<int32_t>({1}, {0})},
                              {{"items", std::vector{first_of_shape}}});
    return {row, length};
}

TEST(DimBounds, AStaticShapeIsItsOwnBoundAndACondTakeHoldsAtMostItsInput) {
    GraphBuilder b;
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.input("x", F32, {2, 3})), (Bounds{2, 3}));
    const VarId taken = selection(b, "y", 4, 5);
    ASSERT_TRUE(shape_of(b, taken).empty());  // unknown to static inference
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), taken), (Bounds{20}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), nth(taken, 1)), (Bounds{20}));  // the Int32 positions
}

TEST(DimBounds, ShapeOperatorsMoveTheBounds) {
    GraphBuilder b;
    const VarId s = selection(b, "x", 3, 4);  // at most 12
    // Elemwise with a [1] constant: the selection's bound; with a [3, 1] input,
    // broadcast right-aligned to [3, 12].
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(),
                                   b.op("Elemwise", {s, b.constant<float>({1}, {2.0f})}, {{"mode", "MUL"}})),
              (Bounds{12}));
    EXPECT_EQ(
        ir::dim_upper_bounds(b.graph(), b.op("Elemwise", {s, b.input("c", F32, {3, 1})}, {{"mode", "ADD"}})),
        (Bounds{3, 12}));
    // Unit axes in front and behind, then a Dimshuffle that swaps them around.
    const VarId row =
        b.op("AxisAddRemove", {s}, {{"desc", std::vector<ir::AxisDesc>{{ir::AxisDescMethod::ADD_1, 0}}}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), row), (Bounds{1, 12}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(),
                                   b.op("Dimshuffle", {row}, {{"pattern", std::vector<int32_t>{1, -1, 0}}})),
              (Bounds{12, 1, 1}));
    // Reshape to [2, ?] (axis 1 unspecified): 12 elements leave at most 6 there.
    const VarId two_rows = b.op("Reshape", {s, b.constant<int32_t>({2}, {2, 1})}, {{"axis", 1}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), two_rows), (Bounds{2, 6}));
    // Concat along axis 1 of [2, ?≤6] and [2, 5]: at most 11 there.
    EXPECT_EQ(
        ir::dim_upper_bounds(b.graph(), b.op("Concat", {two_rows, b.input("d", F32, {2, 5})}, {{"axis", 1}})),
        (Bounds{2, 11}));
    // TopK with k = 4 of the [2, ?≤6] rows: at most 4; with k = 9, still at most 6.
    const VarId four = b.op("TopK", {two_rows, b.constant<int32_t>({1}, {4})}, {{"mode", "VALUE_IDX_SORTED"}},
                            ir::OpOptions{.outputs = 2});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), four), (Bounds{2, 4}));
    const VarId nine = b.op("TopK", {two_rows, b.constant<int32_t>({1}, {9})}, {{"mode", "VALUE_IDX_SORTED"}},
                            ir::OpOptions{.outputs = 2});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), nth(nine, 1)), (Bounds{2, 6}));
}

TEST(DimBounds, IndexingTakesTheIndexLengthAndSlicesKeepTheData) {
    GraphBuilder b;
    const VarId at = b.op("TypeCvt", {selection(b, "m", 2, 5)}, {{"dtype", ir::DType::of(DTypeEnum::Int32)}});
    const VarId data = b.input("data", F32, {7, 4});
    // data[at, :]: at most 10 rows of 4.
    const ir::IndexDescMaskItem along_rows{0, false, false, false, true};
    const VarId rows = b.op("IndexingMultiAxisVec", {data, at}, {{"items", std::vector{along_rows}}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), rows), (Bounds{10, 4}));
    // rows[:, 1] (a scalar index removes axis 1); rows[0:2] keeps at most 2 of
    // the 10, rows[0:20] at most the 10, rows[3:20] at most 10 less 3, rows[2:4]
    // at most 2, rows[12:20] none, and rows[1:] at most 9 (Slice::apply: the
    // count is min(end, dim) less the start, or 0); rows[-3:2] (a start from the
    // end) keeps at most the 10 (nothing is taken off for a start that may be
    // negative).
    const ir::IndexDescMaskItem column{1, false, false, false, true}, first{0, true, true, false, false};
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Subtensor", {rows, b.constant<int32_t>({1}, {1})},
                                                   {{"items", std::vector{column}}})),
              (Bounds{10}));
    auto slice = [&](int32_t begin, int32_t end) {
        return b.op("Subtensor", {rows, b.constant<int32_t>({1}, {begin}), b.constant<int32_t>({1}, {end})},
                    {{"items", std::vector{first}}});
    };
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), slice(0, 2)), (Bounds{2, 4}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), slice(0, 20)), (Bounds{10, 4}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), slice(3, 20)), (Bounds{7, 4}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), slice(2, 4)), (Bounds{2, 4}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), slice(12, 20)), (Bounds{0, 4}));
    const ir::IndexDescMaskItem from{0, true, false, false, false};
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Subtensor", {rows, b.constant<int32_t>({1}, {1})},
                                                   {{"items", std::vector{from}}})),
              (Bounds{9, 4}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), slice(-3, 2)), (Bounds{10, 4}));
}

// torchvision's first k of a top-k by a run-time k, (topk(x, k + 1))[:k] (the
// importer's form for a selection that may be empty): a slice to an end of at
// most 5 keeps at most 5 of the 6 the TopK keeps, by a step of 1 too; by a step
// that may be 0 or less, only the TopK's 6.
TEST(DimBounds, ASliceToARunTimeEndKeepsAtMostTheEndsBound) {
    GraphBuilder b;
    const RowAndLength selected = selection_row_and_length(b, 3, 4);  // at most 12
    const VarId row = selected.row, length = selected.length;
    const VarId k = b.op("Elemwise", {length, b.constant<int32_t>({1}, {5})}, {{"mode", "MIN_"}});  // [0, 5]
    const VarId k_plus_1 = b.op("Elemwise", {k, b.constant<int32_t>({1}, {1})}, {{"mode", "ADD"}});
    const VarId top =
        b.op("TopK", {row, k_plus_1}, {{"mode", "VALUE_IDX_SORTED"}}, ir::OpOptions{.outputs = 2});
    ASSERT_EQ(ir::dim_upper_bounds(b.graph(), top), (Bounds{1, 6}));
    const ir::IndexDescMaskItem to_end{1, false, true, false, false}, to_end_by{1, false, true, true, false};
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Subtensor", {top, k}, {{"items", std::vector{to_end}}})),
              (Bounds{1, 5}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Subtensor", {top, k, b.constant<int32_t>({1}, {1})},
                                                   {{"items", std::vector{to_end_by}}})),
              (Bounds{1, 5}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Subtensor", {top, k, b.constant<int32_t>({1}, {-1})},
                                                   {{"items", std::vector{to_end_by}}})),
              (Bounds{1, 6}));
    // An end the graph is given bounds nothing.
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Subtensor", {top, b.input("end", I32, {1})},
                                                   {{"items", std::vector{to_end}}})),
              (Bounds{1, 6}));
}

// tensor_manip.cpp Split: each part is a piece of its input along the axis, so
// parts of a selection of at most 12, split by sizes only the run time knows
// (torchvision splits the selected positions per pyramid level), hold at most 12.
TEST(DimBounds, EachPartOfASplitHoldsAtMostItsInput) {
    GraphBuilder b;
    const VarId s = selection(b, "x", 3, 4);
    const VarId pairs =
        b.op("AxisAddRemove", {s}, {{"desc", std::vector<ir::AxisDesc>{{ir::AxisDescMethod::ADD_1, 1}}}});
    const VarId parts = b.op("Split", {pairs, b.input("n0", I32, {1}), b.input("n1", I32, {1})},
                             {{"axis", 0}}, ir::OpOptions{.outputs = 2});
    ASSERT_TRUE(shape_of(b, parts).empty());
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), parts), (Bounds{12, 1}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), nth(parts, 1)), (Bounds{12, 1}));
}

// torchvision's top-k count, min(k, len(x)) (ONNX: ReduceMin of Concat of k and
// Shape(x)[0]), is made of a constant and a shape: a TopK by it keeps at most k
// of a row of at most 12, whatever the run time gives. Elemwise MIN of the same
// two bounds it the same way; ADD of them adds the bounds; an input k bounds nothing.
TEST(DimBounds, ARunTimeKMadeOfShapesAndConstantsBoundsTopK) {
    GraphBuilder b;
    const RowAndLength selected = selection_row_and_length(b, 3, 4);  // at most 12
    const VarId row = selected.row,
                length =
                    selected.length;  // not a structured binding: clang 14 refuses a lambda capturing one
    const VarId five = b.constant<int32_t>({1}, {5});
    auto top_k_by = [&](VarId k) {
        return b.op("TopK", {row, k}, {{"mode", "VALUE_IDX_SORTED"}}, ir::OpOptions{.outputs = 2});
    };
    const VarId reduced_min =
        b.op("Reduce", {b.op("Concat", {five, length}, {{"axis", 0}})}, {{"mode", "MIN_"}, {"axis", 0}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), top_k_by(reduced_min)), (Bounds{1, 5}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), top_k_by(b.op("Elemwise", {length, five}, {{"mode", "MIN_"}}))),
              (Bounds{1, 5}));
    // MAX of them may be the length (at most 12); so may 5 + the length, past it.
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), top_k_by(b.op("Elemwise", {length, five}, {{"mode", "MAX_"}}))),
              (Bounds{1, 12}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), top_k_by(b.op("Elemwise", {length, five}, {{"mode", "ADD"}}))),
              (Bounds{1, 12}));
    // A k of -3 (the largest 3) through MIN with the length: at most 3.
    EXPECT_EQ(ir::dim_upper_bounds(
                  b.graph(),
                  top_k_by(b.op("Elemwise", {length, b.constant<int32_t>({1}, {-3})}, {{"mode", "MIN_"}}))),
              (Bounds{1, 3}));
    // A k the graph is given: only the row's length.
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), top_k_by(b.input("k", I32, {1}))), (Bounds{1, 12}));
}

// What Faster R-CNN's box head does with a count of rois only the run time
// knows: matrix_mul.cpp's (m, k)·(k, n), either side transposed; Softmax keeps
// its input's shape; roi_align.cpp's (rois, channels, pooled_height,
// pooled_width) for both outputs.
TEST(DimBounds, MatrixProductsSoftmaxAndRoiAlignTakeTheRows) {
    GraphBuilder b;
    // A selection of at most 15, as rows of 5 (the roi rows): at most 3.
    const VarId rows =
        b.op("Reshape", {selection(b, "x", 3, 5), b.constant<int32_t>({2}, {1, 5})}, {{"axis", 0}});
    ASSERT_EQ(ir::dim_upper_bounds(b.graph(), rows), (Bounds{3, 5}));
    const VarId by_2 = b.op("MatrixMul", {rows, b.input("w", F32, {5, 2})});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), by_2), (Bounds{3, 2}));
    EXPECT_EQ(ir::dim_upper_bounds(
                  b.graph(), b.op("MatrixMul", {rows, b.input("wt", F32, {7, 5})}, {{"transposeB", true}})),
              (Bounds{3, 7}));
    // rowsᵀ·rows: (5, 3)·(3, 5).
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("MatrixMul", {rows, rows}, {{"transposeA", true}})),
              (Bounds{5, 5}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Softmax", {by_2}, {{"axis", 1}})), (Bounds{3, 2}));
    const VarId pooled =
        b.op("ROIAlign", {b.input("features", F32, {1, 4, 8, 8}), rows},
             {{"mode", "AVERAGE"}, {"pooled_height", 2}, {"pooled_width", 3}}, ir::OpOptions{.outputs = 2});
    ASSERT_TRUE(shape_of(b, pooled).empty());
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), pooled), (Bounds{3, 4, 2, 3}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), nth(pooled, 1)), (Bounds{3, 4, 2, 3}));
}

// torchvision's MultiScaleRoIAlign writes each level's pooled rois into zeros
// of (count, C): a Broadcast to a target made of the count and a constant
// takes the target's bounds, and an indexing write keeps the data's shape.
TEST(DimBounds, ABroadcastTakesItsTargetsBoundsAndIndexingWritesKeepTheData) {
    GraphBuilder b;
    const VarId count = selection_row_and_length(b, 3, 4).length;  // at most 12
    const VarId zeros =
        b.op("Broadcast", {b.constant<float>({1}, {0.0f}),
                           b.op("Concat", {count, b.constant<int32_t>({1}, {7})}, {{"axis", 0}})});
    ASSERT_TRUE(shape_of(b, zeros).empty());
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), zeros), (Bounds{12, 7}));
    const ir::IndexDescMaskItem along_rows{0, false, false, false, true};
    const VarId at = b.input("at", I32, {2});
    const VarId added = b.op("IndexingIncrMultiAxisVec", {zeros, b.input("rows", F32, {2, 7}), at},
                             {{"items", std::vector{along_rows}}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), added), (Bounds{12, 7}));
    // The count taken by a 1-D index (ONNX's Gather of a [1] index into a shape)
    // is a 1-D value too, so the target's parts are read one after the other.
    const RowAndLength selected = selection_row_and_length(b, 2, 5);  // at most 10
    const VarId gathered =
        b.op("IndexingMultiAxisVec", {b.op("GetVarShape", {selected.row}), b.constant<int32_t>({1}, {1})},
             {{"items", std::vector{along_rows}}});
    EXPECT_EQ(
        ir::dim_upper_bounds(
            b.graph(),
            b.op("Broadcast", {b.constant<float>({1}, {0.0f}),
                               b.op("Concat", {gathered, b.constant<int32_t>({1}, {3})}, {{"axis", 0}})})),
        (Bounds{10, 3}));
}

// torchvision's decoded boxes are viewed as (count, −1, 4) through a target
// made of the count: each dim is bounded by the whole element count there, and
// a view of them as rows of 4, or a selection of them, holds at most the
// elements the boxes held, not the product of the dims' bounds. An Elemwise of
// them and a constant keeps their count; of two such vars, only the product.
TEST(DimBounds, AReshapeToARunTimeTargetKeepsTheElementCount) {
    GraphBuilder b;
    // At most 24 elements as rows of 8: at most 3 of them.
    const VarId boxes =
        b.op("Reshape", {selection(b, "x", 3, 8), b.constant<int32_t>({2}, {1, 8})}, {{"axis", 0}});
    const ir::IndexDescMaskItem first_of_shape{0, false, false, false, true};
    const VarId count = b.op("Subtensor", {b.op("GetVarShape", {boxes}), b.constant<int32_t>({1}, {0})},
                             {{"items", std::vector{first_of_shape}}});  // within [0, 3]
    const VarId target =
        b.op("Concat", {count, b.constant<int32_t>({1}, {1}), b.constant<int32_t>({1}, {4})}, {{"axis", 0}});
    const VarId cubes = b.op("Reshape", {boxes, target}, {{"axis", 1}});
    ASSERT_TRUE(shape_of(b, cubes).empty());
    // Axis 1 takes what a count of at least 0 (taken as 1) and 4 leave of 24.
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), cubes), (Bounds{3, 6, 4}));
    const VarId clamped = b.op("Elemwise", {cubes, b.constant<float>({1}, {0.0f})}, {{"mode", "MAX_"}});
    const VarId four_wide = b.op("Reshape", {clamped, b.constant<int32_t>({2}, {1, 4})}, {{"axis", 0}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), four_wide), (Bounds{6, 4}));  // 24 / 4, not 3 · 6 · 4 / 4
    const VarId kept = b.op("CondTake", {cubes, cubes}, {{"mode", "GT"}, {"val", 0.0f}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), kept), (Bounds{24}));
    const VarId sum = b.op("Elemwise", {cubes, clamped}, {{"mode", "ADD"}});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("CondTake", {sum, sum}, {{"mode", "GT"}, {"val", 0.0f}})),
              (Bounds{72}));
    // A target given to the graph bounds nothing.
    EXPECT_EQ(
        ir::dim_upper_bounds(b.graph(), b.op("Reshape", {boxes, b.input("t", I32, {3})}, {{"axis", 1}})),
        std::nullopt);
}

// The ONNX importer's Reshape to a shape operand only the run time knows
// (formats/onnx/runtime_ops.cpp), for torchvision's view of its boxes as
// (count, −1, 4): t + EQ(t, 0)·dims copies a 0, and the −1 becomes the element
// count over the others' product (Reduce PRODUCT, MAX with 1, FLOOR_DIV). Where
// each value lies, worked by hand for a count in [0, 3] and x of at most 3 rows
// of 8: t = [0..3, −1, 4], t + EQ(t, 0)·[0..3, 0..8, 0] = [0..6, −1, 4], the
// others' product [0, 24] (at least 1: [1, 24]), the count [0, 24] over it
// [0, 24], so the target is [0..6, 0..24, 4]; the view holds x's 24 elements.
TEST(DimBounds, TheImportersRunTimeReshapeArithmeticIsBounded) {
    GraphBuilder b;
    const VarId x =
        b.op("Reshape", {selection(b, "x", 3, 8), b.constant<int32_t>({2}, {1, 8})}, {{"axis", 0}});
    auto op = [&](const char* mode, VarId p, VarId q) { return b.op("Elemwise", {p, q}, {{"mode", mode}}); };
    auto i32 = [&](std::initializer_list<int32_t> v) {
        return b.constant<int32_t>({static_cast<uint32_t>(v.size())}, v);
    };
    const VarId dims = b.op("GetVarShape", {x});
    const ir::IndexDescMaskItem first_of_shape{0, false, false, false, true};
    const VarId count = b.op("Subtensor", {dims, i32({0})}, {{"items", std::vector{first_of_shape}}});
    VarId t = b.op("Concat", {count, i32({-1, 4})}, {{"axis", 0}});
    const VarId padded_dims = b.op("Concat", {dims, i32({0})}, {{"axis", 0}});
    t = op("ADD", t, op("MUL", op("EQ", t, i32({0})), padded_dims));
    const VarId infer = op("EQ", t, i32({-1}));
    const VarId others =
        op("MAX_",
           b.op("Reduce", {op("ADD", t, op("MUL", infer, i32({2})))}, {{"mode", "PRODUCT"}, {"axis", 0}}),
           i32({1}));
    const VarId total = b.op("Reduce", {dims}, {{"mode", "PRODUCT"}, {"axis", 0}});
    t = op("ADD", t, op("MUL", infer, op("ADD", op("FLOOR_DIV", total, others), i32({1}))));
    const VarId viewed = b.op("Reshape", {x, t});
    ASSERT_TRUE(shape_of(b, viewed).empty());
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), viewed), (Bounds{6, 24, 4}));
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Reshape", {viewed, i32({1, 4})}, {{"axis", 0}})),
              (Bounds{6, 4}));
    // A Reduce along an axis keeps it as 1.
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Reduce", {viewed}, {{"mode", "SUM"}, {"axis", 1}})),
              (Bounds{6, 1, 4}));
    // Broadcasts to values: a mode without a rule bounds nothing (SUM_SQR of
    // the count); 3 − count lies in [0, 3]; LT is decided where the intervals
    // part (count < 4 is 1, so 10 / (1 + 1) is 5; count < 2 may be 0 or 1, and
    // 10 / (0 + 1) is 10).
    auto broadcast_to = [&](VarId n) {
        return ir::dim_upper_bounds(b.graph(), b.op("Broadcast", {i32({1}), n}));
    };
    EXPECT_EQ(broadcast_to(b.op("Reduce", {count}, {{"mode", "SUM_SQR"}, {"axis", 0}})), std::nullopt);
    EXPECT_EQ(broadcast_to(op("SUB", i32({3}), count)), (Bounds{3}));
    EXPECT_EQ(broadcast_to(op("FLOOR_DIV", i32({10}), op("ADD", op("LT", count, i32({4})), i32({1})))),
              (Bounds{5}));
    EXPECT_EQ(broadcast_to(op("FLOOR_DIV", i32({10}), op("ADD", op("LT", count, i32({2})), i32({1})))),
              (Bounds{10}));
}

// A slice of value intervals takes what MegEngine's Subtensor would take
// (Slice::apply, src/core/impl/tensor.cpp): a negative bound counts from the
// end once and must then be in range (no Python clamping to 0), an end past the
// axis is clamped, and an empty part has nothing to bound.
TEST(DimBounds, ASliceOfIntervalsFollowsMegEnginesSliceApply) {
    const ir::ValueIntervals x{{0, 1}, {2, 3}, {4, 5}, {6, 7}};
    auto his = [](const std::optional<ir::ValueIntervals>& part) {
        std::optional<std::vector<int64_t>> out;
        if (part) {
            out.emplace();
            for (const ir::ValueInterval& v : *part) out->push_back(v.hi);
        }
        return out;
    };
    using His = std::optional<std::vector<int64_t>>;
    EXPECT_EQ(his(ir::intervals_between(x, -2, std::nullopt)), (His{{5, 7}}));
    EXPECT_EQ(his(ir::intervals_between(x, 1, 100)), (His{{3, 5, 7}}));
    EXPECT_EQ(his(ir::intervals_between(x, std::nullopt, -3)), (His{{1}}));
    EXPECT_EQ(his(ir::intervals_between(x, -10, std::nullopt)), std::nullopt);  // -6 is out of bound
    EXPECT_EQ(his(ir::intervals_between(x, 3, 1)), std::nullopt);               // empty
}

TEST(DimBounds, AnOperatorWithoutARuleOnTheWayGivesNoBound) {
    GraphBuilder b;
    // A Broadcast to a shape known only at run time: nothing bounds it.
    const VarId n = b.input("n", I32, {1});
    const VarId ones = b.op("Broadcast", {b.constant<float>({1}, {1.0f}), n});
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), ones), std::nullopt);
    EXPECT_EQ(ir::dim_upper_bounds(b.graph(), b.op("Elemwise", {ones}, {{"mode", "RELU"}})), std::nullopt);
}

}  // namespace
}  // namespace mgedump::test
