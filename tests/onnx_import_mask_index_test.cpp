// Boolean-mask indexing as torch.onnx.export writes `x[mask]` (opset >= 11):
// NonZero of the mask, Transpose of its (rank, count) coordinates into (count,
// rank) index tuples, GatherND of the data by them; and the ranking of what it
// selects, as detection post-processing does (TopK, Gather, Concat). The count
// is known only at run time, so these operators take values whose dims the run
// time decides (NonZero's rank is known, the tuple length GatherND needs), and
// Shape of such a value reads the dims it does not know with GetVarShape.
// Expected values are numpy's boolean indexing (x[mask] takes the selected
// elements, or the selected rows of the trailing axes, in row-major order) and
// ONNX TopK's order (ties to the lower index), worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;
using U = std::vector<uint32_t>;

// y = x[mask]: `mask` (BOOL, a graph input) covers the leading axes of x.
OnnxModel mask_index_model(std::vector<int64_t> x_shape, std::vector<int64_t> mask_shape) {
    OnnxModel m(13);
    m.input("x", x_shape).input("mask", mask_shape, OnnxType::BOOL).output("y");
    m.node("NonZero", {"mask"}, {"coords"}, "nz");
    m.node("Transpose", {"coords"}, {"tuples"}, "tr");
    m.node("GatherND", {"x", "tuples"}, {"y"}, "pick");
    return m;
}

TEST(OnnxMaskIndex, AMaskOverEveryAxisPicksTheSelectedElementsInOrder) {
    const ir::Graph g = mask_index_model({2, 3}, {2, 3}).import();
    EXPECT_EQ(count_ops(g, "Dimshuffle"), 1u);
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 1u);
    EXPECT_TRUE(g.var_shape(g.outputs.at(0)).empty());  // its length is known only at run time
    expect_round_trip(g);
    // x = [[1, 2, 3], [4, 5, 6]], mask [[1, 0, 1], [0, 1, 0]]: x[0,0], x[0,2], x[1,1].
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {1, 0, 1, 0, 1, 0}}});
    EXPECT_EQ(dims_of(out[0]), (U{3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 3, 5}));
    // The same graph with another mask: one element.
    out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {0, 0, 0, 0, 0, 1}}});
    EXPECT_EQ(dims_of(out[0]), (U{1}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{6}));
}

TEST(OnnxMaskIndex, AMaskOverTheLeadingAxesPicksWholeRows) {
    const ir::Graph g = mask_index_model({2, 2, 3}, {2, 2}).import();
    expect_round_trip(g);
    // x[i, j] = [6i + 3j, +1, +2]; mask [[0, 1], [1, 1]]: rows (0,1), (1,0), (1,1).
    D x;
    for (int k = 0; k < 12; ++k) x.push_back(k);
    auto out = evaluate(g, {{"x", x}, {"mask", {0, 1, 1, 1}}});
    EXPECT_EQ(dims_of(out[0]), (U{3, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(OnnxMaskIndex, TransposeOfRuntimeCoordinatesKeepsThemAsTuples) {
    OnnxModel m(13);
    m.input("mask", {2, 3}, OnnxType::BOOL).output("t", OnnxType::INT64);
    m.node("NonZero", {"mask"}, {"coords"}, "nz");
    set_attr(m.node("Transpose", {"coords"}, {"t"}, "tr"), "perm", std::vector<int64_t>{1, 0});
    const ir::Graph g = m.import();
    // np.argwhere([[0, 1, 1], [1, 0, 0]]): (0, 1), (0, 2), (1, 0).
    auto out = evaluate(g, {{"mask", {0, 1, 1, 1, 0, 0}}});
    EXPECT_EQ(dims_of(out[0]), (U{3, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 1, 0, 2, 1, 0}));
}

// Shape of NonZero's output, sliced to [start, end) when given.
OnnxModel shape_of_coords_model(std::optional<int64_t> start, std::optional<int64_t> end) {
    OnnxModel m(15);
    m.input("x", {2, 2}).output("s", OnnxType::INT64);
    m.node("NonZero", {"x"}, {"coords"}, "nz");
    auto& n = m.node("Shape", {"coords"}, {"s"}, "shape");
    if (start) set_attr(n, "start", *start);
    if (end) set_attr(n, "end", *end);
    return m;
}

TEST(OnnxMaskIndex, ShapeOfRuntimeDimsReadsThemWhenTheGraphRunsAndTheKnownRankAtImport) {
    const ir::Graph whole = shape_of_coords_model(std::nullopt, std::nullopt).import();
    EXPECT_EQ(count_ops(whole, "GetVarShape"), 1u);
    expect_round_trip(whole);
    // Three nonzero elements of a 2-D input: (2, 3).
    EXPECT_EQ(evaluate_values(whole, {{"x", {0, 7, 8, 9}}}), (D{2, 3}));
    EXPECT_EQ(evaluate_values(whole, {{"x", {5, 0, 0, 0}}}), (D{2, 1}));
    // The count alone (start 1): the dim the run time decides.
    const ir::Graph count = shape_of_coords_model(-1, std::nullopt).import();
    EXPECT_EQ(count_ops(count, "Subtensor"), 1u);
    EXPECT_EQ(evaluate_values(count, {{"x", {0, 7, 8, 9}}}), (D{3}));
    // The rank alone (end 1) is known when importing: a constant, no GetVarShape.
    const ir::Graph rank = shape_of_coords_model(std::nullopt, 1).import();
    EXPECT_EQ(count_ops(rank, "GetVarShape"), 0u);
    EXPECT_EQ(evaluate_values(rank, {{"x", {0, 7, 8, 9}}}), (D{2}));
}

TEST(OnnxMaskIndex, GatherNDOfDataWhoseDimsOnlyTheRunTimeKnows) {
    // The coordinates gathered by their own tuples: coords[tuples[j]] for each j.
    OnnxModel both(13);
    both.input("mask", {2, 3}, OnnxType::BOOL).output("y", OnnxType::INT64);
    both.node("NonZero", {"mask"}, {"coords"}, "nz");
    both.node("Transpose", {"coords"}, {"tuples"}, "tr");
    both.node("GatherND", {"coords", "tuples"}, {"y"}, "pick");
    const ir::Graph g = both.import();
    // mask [[0, 1, 1], [1, 0, 0]]: coords [[0, 0, 1], [1, 2, 0]], tuples (0, 1), (0, 2),
    // (1, 0): coords[0][1] = 0, coords[0][2] = 1, coords[1][0] = 1.
    auto out = evaluate(g, {{"mask", {0, 1, 1, 1, 0, 0}}});
    EXPECT_EQ(dims_of(out[0]), (U{3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 1, 1}));
}

TEST(OnnxMaskIndex, RefusesBatchDimsAndOneTupleOfDataWhoseDimsOnlyTheRunTimeKnows) {
    OnnxModel batched = mask_index_model({2, 3}, {2, 3});
    set_attr(*batched.proto().mutable_graph()->mutable_node(2), "batch_dims", int64_t{1});
    const std::string batch = import_error(batched);
    EXPECT_NE(batch.find("node 'pick' (GatherND): batch_dims with indices whose shape is known only at run time is "
                         "not supported"),
              std::string::npos)
        << batch;
    OnnxModel one = mask_index_model({3, 2}, {3});
    one.output("z");
    one.initializer_i64("first", {1}, {0});
    one.node("GatherND", {"y", "first"}, {"z"}, "first_row");
    const std::string tuple = import_error(one);
    EXPECT_NE(tuple.find("node 'first_row' (GatherND): indices of rank 1 (one tuple) with dims known only at run "
                         "time are not supported"),
              std::string::npos)
        << tuple;
}

// Detection post-processing on the selected scores: sel = s[s > 0.3] (1-D, its
// length known at run time), then TopK of sel by K (a constant, or the graph
// input "k" when `runtime_k`), the boxes of the selected rows picked by the TopK
// indices (Gather), and both classes' picks concatenated.
OnnxModel ranked_selection_model(bool largest, bool runtime_k) {
    OnnxModel m(13);
    m.input("s", {5}).input("boxes", {5, 2});
    if (runtime_k) m.input("k", {1}, OnnxType::INT64);
    else m.initializer_i64("k", {1}, {2});
    m.output("top").output("index", OnnxType::INT64).output("picked").output("both");
    m.initializer("thr", {}, {0.3f});
    m.node("Greater", {"s", "thr"}, {"keep"});
    m.node("NonZero", {"keep"}, {"coords"});
    m.node("Transpose", {"coords"}, {"tuples"});
    m.node("GatherND", {"s", "tuples"}, {"sel"});
    m.node("GatherND", {"boxes", "tuples"}, {"sel_boxes"});
    set_attr(m.node("TopK", {"sel", "k"}, {"top", "index"}, "rank"), "largest", int64_t{largest});
    m.node("Gather", {"sel_boxes", "index"}, {"picked"}, "pick");
    m.initializer("none", {1, 2}, {-1.0f, -2.0f});
    set_attr(m.node("Concat", {"picked", "none", "sel_boxes"}, {"both"}, "join"), "axis", int64_t{0});
    return m;
}

// s = [0.5, 0.9, 0.1, 0.7, 0.2]: selected 0.5, 0.9, 0.7 (rows 0, 1, 3).
const D kScores{0.5, 0.9, 0.1, 0.7, 0.2};
const D kBoxes{0, 1, 10, 11, 20, 21, 30, 31, 40, 41};

TEST(OnnxMaskIndex, TopKGatherAndConcatTakeTheSelectionWhoseLengthTheRunTimeKnows) {
    const ir::Graph g = ranked_selection_model(/*largest=*/true, /*runtime_k=*/false).import();
    expect_same_ops_after_round_trip(g);  // the dump's walk takes the boxes' GatherND later
    auto out = evaluate(g, {{"s", kScores}, {"boxes", kBoxes}});
    // The two largest of (0.5, 0.9, 0.7): 0.9 at 1, 0.7 at 2 of the selection.
    EXPECT_EQ(dims_of(out[0]), (U{2}));
    expect_near_all(engine::eval::to_doubles(out[0].value), {0.9, 0.7}, 1e-7);
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 2}));
    // Their boxes: rows 1 and 3 of the input.
    EXPECT_EQ(dims_of(out[2]), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{10, 11, 30, 31}));
    // Picked (2), the constant row (1) and every selected box (3): 6 rows of 2.
    EXPECT_EQ(dims_of(out[3]), (U{6, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), (D{10, 11, 30, 31, -1, -2, 0, 1, 10, 11, 30, 31}));
}

TEST(OnnxMaskIndex, TopKOfTheSmallestByAKnownOnlyAtRunTime) {
    const ir::Graph g = ranked_selection_model(/*largest=*/false, /*runtime_k=*/true).import();
    auto out = evaluate(g, {{"s", kScores}, {"boxes", kBoxes}, {"k", {3}}});
    // All three selected, smallest first: 0.5 (0), 0.7 (2), 0.9 (1).
    EXPECT_EQ(dims_of(out[0]), (U{3}));
    expect_near_all(engine::eval::to_doubles(out[0].value), {0.5, 0.7, 0.9}, 1e-7);
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 2, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{0, 1, 30, 31, 10, 11}));
}

// torchvision ranks what a mask selected by min(k, count), which is 0 when the
// mask selects nothing; MegEngine's TopK takes neither an empty input nor k = 0,
// so a K known only at run time ranks the selection and one sentinel, and keeps
// the first K (ops_tensor.cpp). Each case's expected values are numpy's.
TEST(OnnxMaskIndex, TopKByARunTimeKTakesNoneOfAnEmptySelectionAndAllOfAFullOne) {
    const ir::Graph g = ranked_selection_model(/*largest=*/true, /*runtime_k=*/true).import();
    expect_same_ops_after_round_trip(g);
    // Nothing above 0.3: no top value, index or box; "both" is the constant row alone.
    auto none = evaluate(g, {{"s", {0.1, 0.2, 0.3, 0.0, 0.25}}, {"boxes", kBoxes}, {"k", {0}}});
    EXPECT_EQ(dims_of(none[0]), (U{0}));
    EXPECT_EQ(dims_of(none[1]), (U{0}));
    EXPECT_EQ(dims_of(none[2]), (U{0, 2}));
    EXPECT_EQ(engine::eval::to_doubles(none[3].value), (D{-1, -2}));
    // Three selected and k = 0: none of them.
    EXPECT_EQ(dims_of(evaluate(g, {{"s", kScores}, {"boxes", kBoxes}, {"k", {0}}})[0]), (U{0}));
    // k = 3 of three (the sentinel is the fourth TopK takes): all of them, largest first.
    auto all = evaluate(g, {{"s", kScores}, {"boxes", kBoxes}, {"k", {3}}});
    expect_near_all(engine::eval::to_doubles(all[0].value), {0.9, 0.7, 0.5}, 1e-7);
    EXPECT_EQ(engine::eval::to_doubles(all[1].value), (D{1, 2, 0}));
    EXPECT_EQ(engine::eval::to_doubles(all[2].value), (D{10, 11, 30, 31, 0, 1}));
}

// ReduceMax and ReduceMin over an axis only the run time knows: MegEngine's
// Reduce refuses MAX and MIN of an empty input, so that axis gets one more entry
// of the mode's identity (op_build.cpp), and an empty selection gives ONNX's
// (opset 18) value for no elements: -inf for the max, +inf for the min.
TEST(OnnxMaskIndex, MaxAndMinOverTheCountAreInfiniteForAnEmptySelection) {
    OnnxModel m = mask_index_model({3, 4}, {3});
    m.output("top").output("column_least");
    set_attr(m.node("ReduceMax", {"y"}, {"top"}, "max"), "keepdims", int64_t{0});
    auto& min = m.node("ReduceMin", {"y"}, {"column_least"}, "min");
    set_attr(min, "axes", std::vector<int64_t>{0});
    set_attr(min, "keepdims", int64_t{0});
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    const D x{1, 2, 3, 4, 5, 6, 7, 8, -9, -10, -11, -12};
    // Rows 0 and 2: max 4, column minima -9..-12.
    auto some = evaluate(g, {{"x", x}, {"mask", {1, 0, 1}}});
    EXPECT_EQ(engine::eval::to_doubles(some[1].value), (D{4}));
    EXPECT_EQ(engine::eval::to_doubles(some[2].value), (D{-9, -10, -11, -12}));
    // No row.
    constexpr double kInf = std::numeric_limits<double>::infinity();
    auto none = evaluate(g, {{"x", x}, {"mask", {0, 0, 0}}});
    EXPECT_EQ(dims_of(none[0]), (U{0, 4}));
    EXPECT_EQ(engine::eval::to_doubles(none[1].value), (D{-kInf}));
    EXPECT_EQ(engine::eval::to_doubles(none[2].value), (D{kInf, kInf, kInf, kInf}));
}

TEST(OnnxMaskIndex, RefusesTopKOfMoreThanOneRuntimeAxisAndAConcatOfOtherRowWidths) {
    OnnxModel rows = mask_index_model({2, 3}, {2});
    rows.output("v").output("i", OnnxType::INT64);
    rows.initializer_i64("k", {1}, {1});
    rows.node("TopK", {"y", "k"}, {"v", "i"}, "rank");
    const std::string topk = import_error(rows);
    EXPECT_NE(topk.find("node 'rank' (TopK): an input of rank 2 with dims known only at run time is not supported "
                        "(rank 1 is)"),
              std::string::npos)
        << topk;
    OnnxModel wide = mask_index_model({2, 3}, {2});
    wide.initializer("four", {1, 4}, {1, 2, 3, 4});
    set_attr(wide.node("Concat", {"y", "four"}, {"z"}, "join"), "axis", int64_t{0});
    const std::string concat = import_error(wide);
    EXPECT_NE(concat.find("node 'join' (Concat): input #1 has 4 on axis 1, an earlier input 3"), std::string::npos)
        << concat;
}

// The selected rows y = x[mask] ([count, 4]) reshaped, reduced and given or
// stripped of unit axes, as post-processing does with them (opset 13: ReduceSum,
// Squeeze and Unsqueeze take their axes as inputs, the other reductions as an
// attribute).
OnnxModel selection_arithmetic_model() {
    OnnxModel m = mask_index_model({3, 4}, {3});
    for (const char* out : {"pairs", "sums", "row_max", "back", "least", "row_l1"}) m.output(out);
    m.initializer_i64("to_pairs", {2}, {-1, 2});
    m.node("Reshape", {"y", "to_pairs"}, {"pairs"}, "view");
    m.initializer_i64("axis0", {1}, {0});
    set_attr(m.node("ReduceSum", {"pairs", "axis0"}, {"sums"}, "sum"), "keepdims", int64_t{0});
    auto& max = m.node("ReduceMax", {"y"}, {"row_max"}, "max");
    set_attr(max, "axes", std::vector<int64_t>{1});
    set_attr(max, "keepdims", int64_t{0});
    m.initializer_i64("axis1", {1}, {1});
    m.node("Unsqueeze", {"row_max", "axis1"}, {"column"}, "unsqueeze");
    m.node("Squeeze", {"column", "axis1"}, {"back"}, "squeeze");
    set_attr(m.node("ReduceMin", {"y"}, {"least"}, "min"), "keepdims", int64_t{0});
    auto& l1 = m.node("ReduceL1", {"y"}, {"row_l1"}, "l1");
    set_attr(l1, "axes", std::vector<int64_t>{1});
    set_attr(l1, "keepdims", int64_t{0});
    return m;
}

TEST(OnnxMaskIndex, ReshapeReductionsAndUnitAxesTakeTheSelection) {
    const ir::Graph g = selection_arithmetic_model().import();
    expect_same_ops_after_round_trip(g);
    // x = [[1..4], [5..8], [-9..-12]], mask [1, 0, 1]: y = [[1, 2, 3, 4], [-9, -10, -11, -12]].
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6, 7, 8, -9, -10, -11, -12}}, {"mask", {1, 0, 1}}});
    ASSERT_EQ(out.size(), 7u);
    // As pairs [[1, 2], [3, 4], [-9, -10], [-11, -12]] (a -1 the run time computes).
    EXPECT_EQ(dims_of(out[1]), (U{4, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{-16, -16}));         // column sums
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), (D{4, -9}));            // each row's max
    EXPECT_EQ(engine::eval::to_doubles(out[4].value), (D{4, -9}));            // unsqueezed and squeezed
    EXPECT_EQ(engine::eval::to_doubles(out[5].value), (D{-12}));              // the least of all
    EXPECT_EQ(engine::eval::to_doubles(out[6].value), (D{10, 42}));           // each row's |·| sum
}

TEST(OnnxMaskIndex, RefusesWhatNeedsADimOnlyTheRunTimeKnows) {
    OnnxModel no_axes = mask_index_model({3, 4}, {3});
    no_axes.output("z");
    no_axes.node("Squeeze", {"y"}, {"z"}, "squeeze");
    const std::string squeeze = import_error(no_axes);
    EXPECT_NE(squeeze.find("node 'squeeze' (Squeeze): no axes, and the input's dims are known only at run time"),
              std::string::npos)
        << squeeze;
    OnnxModel copy = mask_index_model({3, 4}, {3});
    copy.output("z");
    copy.initializer_i64("keep", {2}, {0, 4});
    copy.node("Reshape", {"y", "keep"}, {"z"}, "view");
    const std::string reshape = import_error(copy);
    EXPECT_NE(reshape.find("node 'view' (Reshape): shape[0] = 0 copies an axis whose dim is not known at import time"),
              std::string::npos)
        << reshape;
    // y's 4 columns are known, and 3 never broadcasts with them.
    OnnxModel wide = mask_index_model({3, 4}, {3});
    wide.output("z");
    wide.initializer("three", {3}, {1, 2, 3});
    wide.node("Sub", {"y", "three"}, {"z"}, "sub");
    const std::string sub = import_error(wide);
    EXPECT_NE(sub.find("node 'sub' (Sub): input #1 has 3 where another input has 4: they do not broadcast"),
              std::string::npos)
        << sub;
}

// Slice #k of y = x[mask] ([count, 4]): starts, ends, axes and (when given)
// steps as constants.
void add_slice(OnnxModel& m, const std::string& out, std::vector<int64_t> starts, std::vector<int64_t> ends,
               std::vector<int64_t> axes, std::vector<int64_t> steps = {}) {
    const auto n = static_cast<int64_t>(starts.size());
    m.initializer_i64(out + "_starts", {n}, starts);
    m.initializer_i64(out + "_ends", {n}, ends);
    m.initializer_i64(out + "_axes", {n}, axes);
    std::vector<std::string> inputs{"y", out + "_starts", out + "_ends", out + "_axes"};
    if (!steps.empty()) {
        m.initializer_i64(out + "_steps", {n}, steps);
        inputs.push_back(out + "_steps");
    }
    m.node("Slice", inputs, {out}, out);
    m.output(out);
}

TEST(OnnxMaskIndex, SliceAndSplitTakeTheSelectionAlongAnyKnownAxisAndFromTheStartOfTheCount) {
    OnnxModel m = mask_index_model({4, 4}, {4});
    constexpr int64_t kToTheEnd = std::numeric_limits<int64_t>::max();  // torch's open end
    add_slice(m, "xy", {0}, {2}, {1});              // y[:, :2]
    add_slice(m, "tail", {1}, {kToTheEnd}, {0});    // y[1:]
    add_slice(m, "head", {0, 1}, {2, 3}, {0, 1});   // y[:2, 1:3]
    m.initializer_i64("halves", {2}, {2, 2});
    set_attr(m.node("Split", {"y", "halves"}, {"lo", "hi"}, "split"), "axis", int64_t{1});
    m.output("lo").output("hi");
    add_slice(m, "evens", {0}, {kToTheEnd}, {0}, {2});  // y[::2]
    add_slice(m, "odds", {1}, {kToTheEnd}, {0}, {5});   // y[1::5]: a step past the count
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // x[i] = [4i .. 4i+3], mask [1, 1, 0, 1]: y = rows 0, 1, 3.
    D x;
    for (int k = 0; k < 16; ++k) x.push_back(k);
    auto out = evaluate(g, {{"x", x}, {"mask", {1, 1, 0, 1}}});
    ASSERT_EQ(out.size(), 8u);
    EXPECT_EQ(dims_of(out[1]), (U{3, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 1, 4, 5, 12, 13}));
    EXPECT_EQ(dims_of(out[2]), (U{2, 4}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{4, 5, 6, 7, 12, 13, 14, 15}));
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), (D{1, 2, 5, 6}));
    EXPECT_EQ(engine::eval::to_doubles(out[4].value), (D{0, 1, 4, 5, 12, 13}));
    EXPECT_EQ(engine::eval::to_doubles(out[5].value), (D{2, 3, 6, 7, 14, 15}));
    EXPECT_EQ(dims_of(out[6]), (U{2, 4}));  // rows 0 and 3 of x
    EXPECT_EQ(engine::eval::to_doubles(out[6].value), (D{0, 1, 2, 3, 12, 13, 14, 15}));
    EXPECT_EQ(dims_of(out[7]), (U{1, 4}));  // row 1 of x
    EXPECT_EQ(engine::eval::to_doubles(out[7].value), (D{4, 5, 6, 7}));
}

// A negative start or end along the count: ONNX clamps a bound before the axis
// to it, MegEngine's Subtensor refuses one (Slice::apply), and only the run time
// knows the count, so ONNX's max(bound + count, 0) is computed when the graph
// runs. Expected values: numpy's slicing of y.
TEST(OnnxMaskIndex, NegativeBoundsAlongTheCountAreClampedWhenTheGraphRuns) {
    OnnxModel m = mask_index_model({4, 4}, {4});
    constexpr int64_t kToTheEnd = std::numeric_limits<int64_t>::max();
    add_slice(m, "last_two", {-2}, {kToTheEnd}, {0});         // y[-2:]
    add_slice(m, "first_two", {-10}, {2}, {0});               // y[-10:2]
    add_slice(m, "but_last", {0}, {-1}, {0});                 // y[:-1]
    add_slice(m, "inner", {-3, 1}, {-1, 4}, {0, 1}, {1, 2});  // y[-3:-1, 1:4:2]
    add_slice(m, "far", {-kToTheEnd}, {-kToTheEnd}, {0});     // y[-2^63+1:-2^63+1]
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // x[i] = [4i .. 4i+3].
    D x;
    for (int k = 0; k < 16; ++k) x.push_back(k);
    auto rows_of_x = [](std::initializer_list<int> rows) {
        D v;
        for (int r : rows)
            for (int k = 0; k < 4; ++k) v.push_back(4 * r + k);
        return v;
    };
    // mask [1, 1, 0, 1]: y = rows 0, 1, 3.
    auto out = evaluate(g, {{"x", x}, {"mask", {1, 1, 0, 1}}});
    ASSERT_EQ(out.size(), 6u);
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), rows_of_x({1, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), rows_of_x({0, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), rows_of_x({0, 1}));
    EXPECT_EQ(dims_of(out[4]), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[4].value), (D{1, 3, 5, 7}));
    EXPECT_EQ(dims_of(out[5]), (U{0, 4}));
    // mask [0, 0, 1, 0]: y = row 2; y[:-1] and y[-3:-1] are empty.
    out = evaluate(g, {{"x", x}, {"mask", {0, 0, 1, 0}}});
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), rows_of_x({2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), rows_of_x({2}));
    EXPECT_EQ(dims_of(out[3]), (U{0, 4}));
    EXPECT_EQ(dims_of(out[4]), (U{0, 2}));
    // No row: every slice is empty.
    out = evaluate(g, {{"x", x}, {"mask", {0, 0, 0, 0}}});
    for (size_t k = 1; k < 4; ++k) EXPECT_EQ(dims_of(out[k]), (U{0, 4})) << k;
    EXPECT_EQ(dims_of(out[4]), (U{0, 2}));
}

TEST(OnnxMaskIndex, RefusesANegativeStepAlongTheCountAndSplittingIt) {
    // y[::-1]: Slice::apply refuses a negative step on an empty axis, and the
    // count may be 0.
    OnnxModel reversed = mask_index_model({4, 4}, {4});
    add_slice(reversed, "back", {-1}, {-std::numeric_limits<int64_t>::max()}, {0}, {-1});
    const std::string slice = import_error(reversed);
    EXPECT_NE(
        slice.find("node 'back' (Slice): axis 0 has a dim known only at run time: step -1 is not supported "
                   "there (MegEngine's Subtensor refuses a negative step on an empty axis"),
        std::string::npos)
        << slice;
    OnnxModel rows = mask_index_model({4, 4}, {4});
    rows.output("a").output("b");
    rows.node("Split", {"y"}, {"a", "b"}, "split");
    const std::string split = import_error(rows);
    EXPECT_NE(split.find("node 'split' (Split): axis 0 (the split axis) has a dim known only at run time"),
              std::string::npos)
        << split;
}

// The selected rows through a Linear layer (Gemm), a MatMul and a Softmax.
OnnxModel selection_products_model(std::vector<int64_t> bias_shape, std::vector<float> bias) {
    OnnxModel m = mask_index_model({3, 2}, {3});
    m.output("linear").output("product").output("soft");
    m.initializer("w", {2, 2}, {1, 0, 1, 1});
    m.initializer("bias", bias_shape, bias);
    set_attr(m.node("Gemm", {"y", "w", "bias"}, {"linear"}, "fc"), "alpha", 2.0f);
    m.node("MatMul", {"y", "w"}, {"product"}, "mm");
    set_attr(m.node("Softmax", {"y"}, {"soft"}, "soft"), "axis", int64_t{-1});
    return m;
}

TEST(OnnxMaskIndex, MatrixProductsAndSoftmaxTakeRowsOnlyTheRunTimeCounts) {
    const ir::Graph g = selection_products_model({2}, {10, 20}).import();
    expect_same_ops_after_round_trip(g);
    // x = [[1, 2], [3, 4], [5, 6]], mask [1, 0, 1]: y = [[1, 2], [5, 6]]; y·w = [[3, 2], [11, 6]].
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {1, 0, 1}}});
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(dims_of(out[1]), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{16, 24, 32, 32}));  // 2·y·w + [10, 20]
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{3, 2, 11, 6}));
    // Each row [a, a + 1]: 1 / (1 + e), e / (1 + e).
    const double lo = 1 / (1 + std::exp(1.0)), hi = 1 - lo;
    expect_near_all(engine::eval::to_doubles(out[3].value), {lo, hi, lo, hi}, 1e-6);
}

TEST(OnnxMaskIndex, RefusesABiasOfOtherRowsAndAnOldSoftmaxOverSeveralAxes) {
    const std::string bias = import_error(selection_products_model({2, 2}, {1, 2, 3, 4}));
    EXPECT_NE(bias.find("node 'fc' (Gemm): C [2,2] must broadcast along A's rows, known only at run time: at most "
                        "[1, N]"),
              std::string::npos)
        << bias;
    OnnxModel old(11);  // Softmax-11 normalizes over every axis from `axis` on
    old.input("x", {3, 2}).input("mask", {3}, OnnxType::BOOL).output("soft");
    old.node("NonZero", {"mask"}, {"coords"});
    old.node("Transpose", {"coords"}, {"tuples"});
    old.node("GatherND", {"x", "tuples"}, {"y"});
    set_attr(old.node("Softmax", {"y"}, {"soft"}, "soft"), "axis", int64_t{0});
    const std::string soft = import_error(old);
    EXPECT_NE(soft.find("node 'soft' (Softmax): opset 11 normalizes over axes 0 to 1 seen as one, and the input's "
                        "dims are known only at run time"),
              std::string::npos)
        << soft;
}

// A second mask over a selection: comparisons and logic of values whose dims only
// the run time knows, NonZero of the 1-D result, and arithmetic that keeps the
// dims it knows (the Sub's 2 columns, which the Gemm needs as its K).
TEST(OnnxMaskIndex, ASecondMaskOverTheSelectionAndArithmeticThatKeepsTheKnownDims) {
    OnnxModel m(13);
    m.input("x", {5}).input("boxes", {5, 2});
    m.output("s2").output("flags", OnnxType::BOOL).output("linear");
    for (auto [name, v] : {std::pair{"c02", 0.2f}, {"c05", 0.5f}, {"c09", 0.9f}, {"c03", 0.3f}})
        m.initializer(name, {}, {v});
    m.node("Greater", {"x", "c02"}, {"keep"});
    m.node("NonZero", {"keep"}, {"coords"});
    m.node("Transpose", {"coords"}, {"tuples"});
    m.node("GatherND", {"x", "tuples"}, {"s"});
    m.node("GatherND", {"boxes", "tuples"}, {"b"});
    m.node("Greater", {"s", "c05"}, {"above"});
    m.node("Less", {"s", "c09"}, {"below"});
    m.node("And", {"above", "below"}, {"again"}, "both");
    m.node("NonZero", {"again"}, {"coords2"}, "second");
    m.node("Transpose", {"coords2"}, {"tuples2"});
    m.node("GatherND", {"s", "tuples2"}, {"s2"});
    m.node("GatherND", {"b", "tuples2"}, {"b2"});
    m.node("Greater", {"s", "c09"}, {"high"});
    m.node("Equal", {"s", "c03"}, {"exact"});
    m.node("Or", {"high", "exact"}, {"flags"});
    m.initializer("origin", {2}, {1, 2});
    m.node("Sub", {"b2", "origin"}, {"offset"});
    m.initializer("w", {2, 1}, {1, 10});
    m.node("Gemm", {"offset", "w"}, {"linear"}, "fc");
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // x = [0.1, 0.6, 0.95, 0.7, 0.3]: s = [0.6, 0.95, 0.7, 0.3] (rows 1-4), again = [1, 0, 1, 0].
    auto out = evaluate(g, {{"x", {0.1, 0.6, 0.95, 0.7, 0.3}}, {"boxes", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}});
    ASSERT_EQ(out.size(), 3u);
    expect_near_all(engine::eval::to_doubles(out[0].value), {0.6, 0.7}, 1e-7);
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 1, 0, 1}));  // s > 0.9 or s == 0.3
    // b2 = rows 1 and 3 = [[2, 3], [6, 7]], less [1, 2]: [[1, 1], [5, 5]], times [1, 10].
    EXPECT_EQ(dims_of(out[2]), (U{2, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{11, 55}));
}

TEST(OnnxMaskIndex, ClipAndArgExtremesTakeTheSelection) {
    OnnxModel m = mask_index_model({3, 3}, {3});
    m.output("clipped").output("best", OnnxType::INT64).output("worst", OnnxType::INT64);
    m.initializer("lo", {}, {2});
    m.initializer("hi", {}, {6});
    m.node("Clip", {"y", "lo", "hi"}, {"clipped"}, "clip");
    auto& best = m.node("ArgMax", {"y"}, {"best"}, "best");
    set_attr(best, "axis", int64_t{1});
    set_attr(best, "keepdims", int64_t{0});
    set_attr(m.node("ArgMin", {"y"}, {"worst"}, "worst"), "axis", int64_t{1});
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // x = [[1, 5, 3], [0, 0, 0], [7, 2, 9]], mask [1, 0, 1]: y = [[1, 5, 3], [7, 2, 9]].
    auto out = evaluate(g, {{"x", {1, 5, 3, 0, 0, 0, 7, 2, 9}}, {"mask", {1, 0, 1}}});
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{2, 5, 3, 6, 2, 6}));
    EXPECT_EQ(dims_of(out[2]), (U{2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{1, 2}));
    EXPECT_EQ(dims_of(out[3]), (U{2, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), (D{0, 1}));
}

// What torchvision's RetinaNet post-processing does with the selection: integer
// Div and Mod of top-k positions (anchor and class), Not of a mask, Max with a
// constant, Flatten, a Reshape to a shape computed from Shape, and a Split with
// given sizes along the count. Expected values: numpy's (ONNX's integer Div
// truncates, its Mod takes the divisor's sign).
TEST(OnnxMaskIndex, RetinaNetsArithmeticTakesTheSelection) {
    OnnxModel m = mask_index_model({4, 4}, {4});
    m.output("quotient", OnnxType::INT64).output("remainder", OnnxType::INT64).output("odd", OnnxType::BOOL);
    m.output("floored").output("flat").output("viewed").output("head").output("tail");
    // The selected rows' positions less 3, as [count].
    m.initializer_i64("row_axis", {1}, {0});
    m.node("Squeeze", {"coords", "row_axis"}, {"rows"});
    m.initializer_i64("three", {}, {3});
    m.initializer_i64("two", {}, {2});
    m.node("Sub", {"rows", "three"}, {"shifted"});
    m.node("Div", {"shifted", "two"}, {"quotient"}, "div");
    m.node("Mod", {"shifted", "two"}, {"remainder"}, "mod");
    m.initializer_i64("zero", {}, {0});
    m.node("Equal", {"remainder", "zero"}, {"even"});
    m.node("Not", {"even"}, {"odd"}, "not");
    m.initializer("floor", {}, {0.5f});
    m.node("Max", {"y", "floor"}, {"floored"}, "max");
    set_attr(m.node("Flatten", {"y"}, {"flat"}, "flatten"), "axis", int64_t{0});
    // y viewed as [count, -1] through a target computed from its shape.
    m.node("Shape", {"y"}, {"y_shape"});
    m.initializer_i64("first", {1}, {0});
    m.node("Gather", {"y_shape", "first"}, {"count"});
    m.initializer_i64("rest", {1}, {-1});
    set_attr(m.node("Concat", {"count", "rest"}, {"target"}), "axis", int64_t{0});
    m.node("Reshape", {"y", "target"}, {"viewed"}, "view");
    m.initializer_i64("sizes", {2}, {1, 2});
    set_attr(m.node("Split", {"y", "sizes"}, {"head", "tail"}, "split"), "axis", int64_t{0});
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // mask [1, 0, 1, 1]: rows 0, 2, 3; less 3: -3, -1, 0.
    D x(16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i) / 10;  // row r: r·0.4 + 0.1·col
    auto out = evaluate(g, {{"x", x}, {"mask", {1, 0, 1, 1}}});
    ASSERT_EQ(out.size(), 9u);
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{-1, 0, 0}));  // truncated, not floored (-2, -1, 0)
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{1, 1, 0}));   // -3 mod 2 = 1, -1 mod 2 = 1
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), (D{1, 1, 0}));
    expect_near_all(engine::eval::to_doubles(out[4].value),
                    {0.5, 0.5, 0.5, 0.5, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5}, 1e-6);
    EXPECT_EQ(dims_of(out[5]), (U{1, 12}));
    EXPECT_EQ(dims_of(out[6]), (U{3, 4}));
    EXPECT_EQ(dims_of(out[7]), (U{1, 4}));
    EXPECT_EQ(dims_of(out[8]), (U{2, 4}));
    expect_near_all(engine::eval::to_doubles(out[8].value), {0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5}, 1e-6);
    // Split sizes that do not add up to the count fail when the graph runs (MegEngine's Split checks).
    EXPECT_ANY_THROW(evaluate(g, {{"x", x}, {"mask", {1, 0, 0, 1}}}));
}

// Expand of a selection (torchvision's MultiScaleRoIAlign expands each level's
// roi positions, (k, 1, 1, 1), to the pooled features' shape): ONNX's two-way
// broadcast, the selection's dims read when the graph runs. Values: numpy's
// np.broadcast_to of the selected rows.
TEST(OnnxMaskIndex, ExpandBroadcastsASelectionBothWays) {
    OnnxModel m = mask_index_model({3, 1}, {3});
    m.output("wide").output("tall");
    m.initializer_i64("three_columns", {2}, {1, 3});
    m.node("Expand", {"y", "three_columns"}, {"wide"}, "wide");
    // A shape of lower rank, right-aligned: [2, count, 1] from [count, 1] and [2, 1, 1].
    m.initializer_i64("two_of_each", {3}, {2, 1, 1});
    m.node("Expand", {"y", "two_of_each"}, {"tall"}, "tall");
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // x = [[1], [2], [3]], mask [1, 0, 1]: y = [[1], [3]].
    auto out = evaluate(g, {{"x", {1, 2, 3}}, {"mask", {1, 0, 1}}});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(dims_of(out[1]), (U{2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 1, 1, 3, 3, 3}));
    EXPECT_EQ(dims_of(out[2]), (U{2, 2, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{1, 3, 1, 3}));
}

// torchvision's selection count as a shape part: "count_1", [1] holding y's
// first dim, as Shape, Gather of entry 0 (a scalar) and Unsqueeze write it.
void add_count_of_y(OnnxModel& m) {
    m.node("Shape", {"y"}, {"y_shape"});
    m.initializer_i64("first", {}, {0});
    m.node("Gather", {"y_shape", "first"}, {"count"});
    m.initializer_i64("axis0", {1}, {0});
    m.node("Unsqueeze", {"count", "axis0"}, {"count_1"});
}

// "zeros": Float32 zeros of (count of y, 2), as ConstantOfShape of a shape
// Concatenated from the count and a known dim; "at_row_0": Int64 zeros of the
// same shape (indices of row 0).
void add_zeros_of_the_count(OnnxModel& m) {
    add_count_of_y(m);
    m.initializer_i64("columns", {1}, {2});
    set_attr(m.node("Concat", {"count_1", "columns"}, {"zeros_shape"}), "axis", int64_t{0});
    m.node("ConstantOfShape", {"zeros_shape"}, {"zeros"}, "zeros");
    set_attr(m.node("Cast", {"zeros"}, {"at_row_0"}), "to", int64_t{7});  // INT64
}

// torchvision's MultiScaleRoIAlign writes each level's pooled rois into zeros
// of (count, C, 7, 7): ConstantOfShape of a shape put together from the count
// (known only at run time) and dims the import knows, and ScatterElements into
// it along the count. The known dims stay known (a Flatten after it needs the
// inner ones). Here every selected row is added into row 0 (indices all 0,
// reduction add): numpy's np.add.at.
TEST(OnnxMaskIndex, ScatterElementsWritesIntoZerosOfTheCount) {
    OnnxModel m = mask_index_model({3, 2}, {3});
    m.output("flat");
    add_zeros_of_the_count(m);
    auto& scatter = m.node("ScatterElements", {"zeros", "at_row_0", "y"}, {"summed"}, "scatter");
    set_attr(scatter, "axis", int64_t{0});
    set_attr(scatter, "reduction", "add");
    set_attr(m.node("Flatten", {"summed"}, {"flat"}, "flatten"), "axis", int64_t{1});
    const ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "IndexingIncrMultiAxisVec"), 1u);
    expect_same_ops_after_round_trip(g);
    // x = [[1, 2], [3, 4], [5, 6]], mask [1, 0, 1]: y = [[1, 2], [5, 6]], added into row 0.
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {1, 0, 1}}});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(dims_of(out[1]), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{6, 8, 0, 0}));
    out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {1, 1, 1}}});
    EXPECT_EQ(dims_of(out[1]), (U{3, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{9, 12, 0, 0, 0, 0}));

    // Updates of another element type than the data are refused at the node, as
    // for static dims.
    OnnxModel ints = mask_index_model({3, 2}, {3});
    ints.output("written");
    set_attr(ints.node("Cast", {"y"}, {"as_ints"}), "to", int64_t{6});  // INT32
    set_attr(ints.node("Cast", {"y"}, {"at"}), "to", int64_t{7});       // INT64
    ints.node("ScatterElements", {"y", "at", "as_ints"}, {"written"}, "scatter");
    const std::string e = import_error(ints);
    EXPECT_NE(e.find("node 'scatter' (ScatterElements): updates must have the data's element type"),
              std::string::npos)
        << e;
}

// MegEngine stops on a write through indexing into empty zeros (a real
// MegEngine, on torchvision's MultiScaleRoIAlign with no rois: "assertion
// `cur_shape > 0'"), so zeros of the count are written with one row more in
// front, which the indices skip (a negative one, counting from the end, stays),
// and the rows after it are the result; a second write (the next pyramid level)
// goes into the first's padded rows. Here y's rows are added into row 0, then
// the result's rows into its last row (index -1); numpy's np.add.at.
TEST(OnnxMaskIndex, WritesIntoZerosOfAnEmptyCountGoIntoOneRowMore) {
    OnnxModel m = mask_index_model({3, 2}, {3});
    m.output("twice");
    add_zeros_of_the_count(m);
    auto& first = m.node("ScatterElements", {"zeros", "at_row_0", "y"}, {"summed"}, "first");
    set_attr(first, "reduction", "add");
    m.initializer_i64("minus_one", {}, {-1});
    m.node("Add", {"at_row_0", "minus_one"}, {"at_last_row"});
    auto& second = m.node("ScatterElements", {"summed", "at_last_row", "summed"}, {"twice"}, "second");
    set_attr(second, "reduction", "add");
    ir::Graph g = m.import();
    ASSERT_EQ(count_ops(g, "IndexingIncrMultiAxisVec"), 2u);
    const ir::OprId write_1 = find_opr(g, "IndexingIncrMultiAxisVec", 0),
                    write_2 = find_opr(g, "IndexingIncrMultiAxisVec", 1);
    EXPECT_EQ(g.inputs_of(write_2)[0], g.output_var(write_1, 0));
    expect_same_ops_after_round_trip(g);
    // x = [[1, 2], [3, 4], [5, 6]]: mask [1, 0, 1] gives y = [[1, 2], [5, 6]],
    // summed [[6, 8], [0, 0]], then its rows added into the last: [[6, 8], [6, 8]].
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {1, 0, 1}}});
    EXPECT_EQ(dims_of(out.at(1)), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{6, 8, 6, 8}));
    out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {0, 1, 0}}});
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{6, 8}));
    // No row selected: nothing, and each write's data still has its one row.
    g.outputs.push_back(g.inputs_of(write_1)[0]);
    g.outputs.push_back(g.inputs_of(write_2)[0]);
    out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {0, 0, 0}}});
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(dims_of(out[1]), (U{0, 2}));
    EXPECT_EQ(dims_of(out[2]), (U{1, 2}));
    EXPECT_EQ(dims_of(out[3]), (U{1, 2}));
}

// What torchvision's box decoding and per-image split do with the selected
// rows: a Reshape to (count, -1, 3) through a target made from Shape (every dim
// then known only at run time), Flatten at axis 1 of that (unknown dims on both
// sides: their products read when it runs), and a Slice whose end is computed
// from the count (rows 0 to count - 1). Values: numpy's.
TEST(OnnxMaskIndex, FlattenAndARunTimeSliceTakeDimsTheRunTimeKnowsOnEverySide) {
    OnnxModel m = mask_index_model({4, 6}, {4});
    m.output("flat").output("all_but_last");
    add_count_of_y(m);
    m.initializer_i64("rest", {2}, {-1, 3});
    set_attr(m.node("Concat", {"count_1", "rest"}, {"target"}), "axis", int64_t{0});
    m.node("Reshape", {"y", "target"}, {"cubes"}, "cubes");
    set_attr(m.node("Flatten", {"cubes"}, {"flat"}, "flatten"), "axis", int64_t{1});
    m.initializer_i64("one", {1}, {1});
    m.node("Sub", {"count_1", "one"}, {"end"});
    m.initializer_i64("zero", {1}, {0});
    m.node("Slice", {"flat", "zero", "end", "zero"}, {"all_but_last"}, "slice");
    const ir::Graph g = m.import();
    D x(24);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);  // row r: 6r .. 6r + 5
    // As imported, and as a loader rebuilds it from each format (the dump folds
    // what MegEngine's makes fold: some of the bounds arithmetic on constants).
    const formats::LoadedModel v1 = dumped_and_loaded(g, engine::DumpFormat::FBS),
                               v2 = dumped_and_loaded(g, engine::DumpFormat::FBS_V2);
    for (const ir::Graph* graph : {&g, &v1.graph, &v2.graph}) {
        // mask [0, 1, 1, 1]: rows 1, 2, 3; flattened back to them; all but the last: rows 1, 2.
        auto out = evaluate(*graph, {{"x", x}, {"mask", {0, 1, 1, 1}}});
        ASSERT_EQ(out.size(), 3u);
        EXPECT_EQ(dims_of(out[1]), (U{3, 6}));
        EXPECT_EQ(engine::eval::to_doubles(out[1].value), D(x.begin() + 6, x.end()));
        EXPECT_EQ(dims_of(out[2]), (U{2, 6}));
        EXPECT_EQ(engine::eval::to_doubles(out[2].value), D(x.begin() + 6, x.begin() + 18));
    }
}

TEST(OnnxMaskIndex, RefusesTheLastIndexAlongTheCount) {
    // select_last_index reverses the axis and counts from its end, which needs its dim.
    OnnxModel m = mask_index_model({3, 3}, {3});
    m.output("last", OnnxType::INT64);
    auto& n = m.node("ArgMax", {"y"}, {"last"}, "last");
    set_attr(n, "axis", int64_t{0});
    set_attr(n, "select_last_index", int64_t{1});
    const std::string e = import_error(m);
    EXPECT_NE(e.find("node 'last' (ArgMax): select_last_index along axis 0, whose dim is known only at run time"),
              std::string::npos)
        << e;
}

TEST(OnnxMaskIndex, WhereBroadcastsItsOperandsToTheShapeTheRunTimeComputes) {
    OnnxModel m = mask_index_model({3, 2}, {3});
    m.output("kept").output("marked");
    m.initializer("two", {}, {2});
    m.initializer("zero", {}, {0});
    m.initializer("mark", {2}, {-1, -2});
    m.node("Greater", {"y", "two"}, {"big"});
    m.node("Where", {"big", "y", "zero"}, {"kept"}, "keep");
    m.node("Where", {"big", "mark", "y"}, {"marked"}, "mark");
    const ir::Graph g = m.import();
    expect_same_ops_after_round_trip(g);
    // x = [[1, 2], [3, 4], [5, 6]], mask [1, 0, 1]: y = [[1, 2], [5, 6]], y > 2 = [[0, 0], [1, 1]].
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"mask", {1, 0, 1}}});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(dims_of(out[1]), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 0, 5, 6}));
    EXPECT_EQ(dims_of(out[2]), (U{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{1, 2, -1, -2}));
}

}  // namespace
}  // namespace mgedump::test
