// ScatterElements (opset 11+, reduction none / add) and Scatter (opset 9, 10):
// the GatherElements indexing written with IndexingSetMultiAxisVec, or
// IndexingIncrMultiAxisVec for add; MaxUnpool, a write of X at I into zeros; and
// GatherElements over more axes than an indexing takes. Expected values are the
// examples of ONNX's operator spec (onnx/backend/test/case/node/scatterelements.py,
// maxunpool.py), worked by hand.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

OnnxModel scatter_model(int64_t opset, const char* op, std::vector<int64_t> data, std::vector<int64_t> idx,
                        int64_t axis, const char* reduction = nullptr) {
    OnnxModel m(opset);
    m.input("data", data).input("indices", idx, OnnxType::INT64).input("updates", idx).output("y");
    auto& n = m.node(op, {"data", "indices", "updates"}, {"y"}, "s");
    if (axis != 0) set_attr(n, "axis", axis);
    if (reduction) set_attr(n, "reduction", reduction);
    return m;
}

TEST(OnnxScatter, ScatterElementsWritesEachUpdateAtItsIndexAlongTheAxis) {
    ir::Graph g = scatter_model(13, "ScatterElements", {3, 3}, {2, 3}, 0).import();
    EXPECT_EQ(count_ops(g, "IndexingSetMultiAxisVec"), 1u);
    EXPECT_EQ(count_ops(g, "IndexingIncrMultiAxisVec"), 0u);
    expect_round_trip(g);
    // y[indices[i][j]][j] = updates[i][j].
    expect_near_all(evaluate_values(g, {{"data", D(9, 0.0)},
                                        {"indices", {1, 0, 2, 0, 2, 1}},
                                        {"updates", {1.0, 1.1, 1.2, 2.0, 2.1, 2.2}}}),
                    D{2.0, 1.1, 0, 1.0, 0, 2.2, 0, 2.1, 1.2});
}

TEST(OnnxScatter, ScatterElementsAlongAxis1TakesNegativeIndices) {
    ir::Graph g = scatter_model(13, "ScatterElements", {1, 5}, {1, 2}, 1).import();
    // −3 counts from the end: column 2.
    expect_near_all(evaluate_values(g, {{"data", {1, 2, 3, 4, 5}}, {"indices", {1, -3}}, {"updates", {1.1, 2.1}}}),
                    D{1, 1.1, 2.1, 4, 5});
}

TEST(OnnxScatter, ReductionAddAccumulatesDuplicateIndices) {
    ir::Graph g = scatter_model(16, "ScatterElements", {1, 5}, {1, 2}, 1, "add").import();
    EXPECT_EQ(count_ops(g, "IndexingIncrMultiAxisVec"), 1u);
    expect_near_all(evaluate_values(g, {{"data", {1, 2, 3, 4, 5}}, {"indices", {1, 1}}, {"updates", {1.1, 2.1}}}),
                    D{1, 5.2, 3, 4, 5});
}

TEST(OnnxScatter, ScatterOfOpset10IsScatterElements) {
    ir::Graph g = scatter_model(10, "Scatter", {1, 5}, {1, 2}, 1).import();
    EXPECT_EQ(count_ops(g, "IndexingSetMultiAxisVec"), 1u);
    expect_near_all(evaluate_values(g, {{"data", {1, 2, 3, 4, 5}}, {"indices", {1, 3}}, {"updates", {1.1, 2.1}}}),
                    D{1, 1.1, 3, 2.1, 5});
}

TEST(OnnxScatter, RefusesMulMaxMinAndUpdatesOfAnotherShape) {
    EXPECT_EQ(import_error(scatter_model(16, "ScatterElements", {1, 5}, {1, 2}, 1, "mul")),
              "test.onnx: node 's' (ScatterElements): reduction 'mul' is not supported (MegEngine writes through "
              "indexing by setting or adding only)");
    OnnxModel m(13);
    m.input("data", {3, 3}).input("indices", {2, 3}, OnnxType::INT64).input("updates", {3, 2}).output("y");
    m.node("ScatterElements", {"data", "indices", "updates"}, {"y"}, "s");
    EXPECT_EQ(import_error(m), "test.onnx: node 's' (ScatterElements): updates [3,2] must have the indices' shape [2,3]");
}

TEST(OnnxMaxUnpool, WritesXAtItsIndicesIntoZerosOfTheDefaultShape) {
    OnnxModel m(11);
    m.input("x", {1, 1, 2, 2}).input("i", {1, 1, 2, 2}, OnnxType::INT64).output("y");
    auto& n = m.node("MaxUnpool", {"x", "i"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    set_attr(n, "strides", std::vector<int64_t>{2, 2});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "IndexingSetMultiAxisVec"), 1u);
    expect_round_trip(g);
    // (2 − 1)·2 + 2 = 4 per axis; flat indices 5, 7, 13, 15 of the 4×4 output.
    D want(16, 0.0);
    want[5] = 5, want[7] = 6, want[13] = 7, want[15] = 8;
    EXPECT_EQ(evaluate_values(g, {{"x", {5, 6, 7, 8}}, {"i", {5, 7, 13, 15}}}), want);
}

TEST(OnnxMaxUnpool, ALargerOutputShapeKeepsEachElementAtItsCoordinates) {
    OnnxModel m(11);
    m.input("x", {1, 1, 2, 2}).input("i", {1, 1, 2, 2}, OnnxType::INT64).input("shape", {4}, OnnxType::INT64);
    m.output("y");
    auto& n = m.node("MaxUnpool", {"x", "i", "shape"}, {"y"});
    set_attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    set_attr(n, "strides", std::vector<int64_t>{2, 2});
    ir::Graph g = m.import();
    // Index 5 of the default 4×4 is (1, 1): element 1·5 + 1 = 6 of a 5×5 output; 7 is (1, 3) → 8,
    // 13 is (3, 1) → 16, 15 is (3, 3) → 18.
    const auto out = evaluate(g, {{"x", {5, 6, 7, 8}}, {"i", {5, 7, 13, 15}}, {"shape", {1, 1, 5, 5}}});
    auto dims = out.at(0).value.shape().dims();
    EXPECT_EQ(std::vector<uint32_t>(dims.begin(), dims.end()), (std::vector<uint32_t>{1, 1, 5, 5}));
    D want(25, 0.0);
    want[6] = 5, want[8] = 6, want[16] = 7, want[18] = 8;
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), want);
}

TEST(OnnxGather, GatherElementsOfSevenAxesMergesTheWholeOnes) {
    OnnxModel m;
    m.input("x", {2, 3, 2, 1, 1, 1, 2}).input("i", {2, 1, 2, 1, 1, 1, 2}, OnnxType::INT64).output("y");
    set_attr(m.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{1});
    ir::Graph g = m.import();
    const ir::OprId o = find_opr(g, "IndexingMultiAxisVec");
    EXPECT_EQ(std::get<std::vector<ir::IndexDescMaskItem>>(field(g, o, "items")).size(), 3u);  // x seen as (2, 3, 4)
    D x(24);
    for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(k);
    // y[a][0][rest] = x[a][i[a][0][rest]][rest], rest over the 4 trailing elements.
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"i", {0, 1, 2, 0, 2, 2, 1, 0}}}), (D{0, 5, 10, 3, 20, 21, 18, 15}));
}

}  // namespace
}  // namespace mgedump::test
