// ScatterElements (opset 11+, reduction none / add, and mul / max / min of
// constant indices) and Scatter (opset 9, 10): the GatherElements indexing
// written with IndexingSetMultiAxisVec, or IndexingIncrMultiAxisVec for add;
// ScatterND's mul against ONNX's own test data; MaxUnpool, a write of X at I into zeros; and
// GatherElements over more axes than an indexing takes. Expected values are the
// examples of ONNX's operator spec (onnx/backend/test/case/node/scatterelements.py,
// maxunpool.py), worked by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/eval/onnx_test_data.h"
#include "formats/onnx/onnx_proto.h"
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

// mul, max and min of constant indices (opsets 16, 18): each write combined in
// the indices' order, element 1 written three times (−4 counts from the end).
TEST(OnnxScatter, MulMaxAndMinOfConstantIndicesCombineEveryWrite) {
    for (const auto& [reduction, want] : {std::pair{"mul", D{1, -7, 3, -4, 5}}, std::pair{"max", D{1, 7, 3, 4, 5}},
                                          std::pair{"min", D{1, -1, 3, -1, 5}}}) {
        SCOPED_TRACE(reduction);
        OnnxModel m(18);
        m.input("data", {1, 5}).input("updates", {1, 4}).output("y");
        m.initializer_i64("indices", {1, 4}, {1, -4, 3, 1});
        auto& n = m.node("ScatterElements", {"data", "indices", "updates"}, {"y"}, "s");
        set_attr(n, "axis", int64_t{1});
        set_attr(n, "reduction", reduction);
        const ir::Graph g = m.import();
        EXPECT_EQ(count_ops(g, "IndexingSetMultiAxisVec"), 3u);  // three rounds
        expect_round_trip(g);
        EXPECT_EQ(evaluate_values(g, {{"data", {1, 2, 3, 4, 5}}, {"updates", {0.5, 7, -1, -1}}}), want);
    }
}

// ONNX's test_scatternd_multiply (indices [[0], [0]]: slice 0 multiplied twice)
// gives its indices as a graph input; made an initializer holding the data set's
// values it converts, and must match output_0.
TEST(OnnxScatter, OnnxsScatterNDMultiplyWithConstantIndicesMatchesItsOutput) {
    const std::filesystem::path dir = "/usr/share/libonnx-testdata/data/node/test_scatternd_multiply";
    if (!std::filesystem::exists(dir)) GTEST_SKIP() << "libonnx-testdata is not installed";
    onnx::ModelProto model;
    {
        std::ifstream in(dir / "model.onnx", std::ios::binary);
        ASSERT_TRUE(model.ParseFromIstream(&in));
    }
    auto* g = model.mutable_graph();
    ASSERT_EQ(g->input_size(), 3);
    ASSERT_EQ(g->input(1).name(), "indices");
    onnx::TensorProto indices;
    {
        std::ifstream in(dir / "test_data_set_0" / "input_1.pb", std::ios::binary);
        ASSERT_TRUE(indices.ParseFromIstream(&in));
    }
    indices.set_name("indices");
    *g->add_initializer() = indices;
    g->mutable_input()->DeleteSubrange(1, 1);
    const std::string bytes = model.SerializeAsString();
    const ir::Graph graph = formats::import_onnx_bytes(
        ir::Bytes(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), "scatternd_multiply", ".");
    EXPECT_EQ(count_ops(graph, "IndexingSetMultiAxisVec"), 2u);  // slice 0 twice: two rounds
    auto sets = engine::eval::read_onnx_test_sets(dir / "test_data_set_0");
    ASSERT_EQ(sets.size(), 1u);
    sets[0].inputs.erase(sets[0].inputs.begin() + 1);
    const auto outputs = engine::eval::evaluate(graph, engine::eval::onnx_feeds(graph, sets[0], {"data", "updates"}));
    const auto check = engine::eval::check_against_onnx(outputs.at(0).value, sets[0].outputs.at(0).value, "y");
    EXPECT_TRUE(check.ok()) << check.problem << " " << check.mismatched << " mismatched, max abs " << check.max_abs;
}

TEST(OnnxScatter, RefusesAReductionOfRuntimeIndicesAnUnknownOneAndUpdatesOfAnotherShape) {
    EXPECT_NE(import_error(scatter_model(16, "ScatterElements", {1, 5}, {1, 2}, 1, "mul"))
                  .find("node 's' (ScatterElements): reduction 'mul' with indices known only at run time is not "
                        "supported (MegEngine writes through indexing by setting or adding only"),
              std::string::npos);
    EXPECT_NE(import_error(scatter_model(16, "ScatterElements", {1, 5}, {1, 2}, 1, "mean"))
                  .find("node 's' (ScatterElements): reduction 'mean' is not one of ONNX's"),
              std::string::npos);
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
