// Boolean-mask indexing as torch.onnx.export writes `x[mask]` (opset >= 11):
// NonZero of the mask, Transpose of its (rank, count) coordinates into (count,
// rank) index tuples, GatherND of the data by them. The count is known only at
// run time, so Transpose and GatherND take a value whose dims the run time
// decides (NonZero's rank is known, the tuple length GatherND needs), and Shape
// of such a value reads the dims it does not know with GetVarShape. Expected
// values are numpy's boolean indexing (x[mask] takes the selected elements, or
// the selected rows of the trailing axes, in row-major order), worked by hand.
#include <gtest/gtest.h>

#include <optional>

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

TEST(OnnxMaskIndex, RefusesBatchDimsAndDataOfRuntimeDims) {
    OnnxModel batched = mask_index_model({2, 3}, {2, 3});
    set_attr(*batched.proto().mutable_graph()->mutable_node(2), "batch_dims", int64_t{1});
    const std::string batch = import_error(batched);
    EXPECT_NE(batch.find("node 'pick' (GatherND): batch_dims with indices whose shape is known only at run time is "
                         "not supported"),
              std::string::npos)
        << batch;
    // The data's dims known only at run time too: GatherND by tuples of the
    // coordinates themselves.
    OnnxModel both(13);
    both.input("mask", {2, 3}, OnnxType::BOOL).output("y", OnnxType::INT64);
    both.node("NonZero", {"mask"}, {"coords"}, "nz");
    both.node("Transpose", {"coords"}, {"tuples"}, "tr");
    both.node("GatherND", {"coords", "tuples"}, {"y"}, "pick");
    const std::string data = import_error(both);
    EXPECT_NE(data.find("node 'pick' (GatherND): input #0 ('coords') has a shape known only at run time"),
              std::string::npos)
        << data;
}

}  // namespace
}  // namespace mgedump::test
