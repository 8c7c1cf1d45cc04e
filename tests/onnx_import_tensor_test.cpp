// Expand, Tile, ConstantOfShape, Range, Size, NonZero, Trilu, OneHot, TopK,
// DepthToSpace/SpaceToDepth, Gather with index tensors, GatherElements, GatherND and
// ScatterND: the MegEngine operators they map to and their values on the reference
// evaluator (expected values from the ONNX operator spec's examples or derived
// from its definitions by hand).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxTensor, ExpandIsABroadcastToTheNumpyShape) {
    OnnxModel m;
    m.input("x", {3, 1}).output("y");
    m.initializer_i64("shape", {3}, {2, 1, 2});
    m.node("Expand", {"x", "shape"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"Broadcast"});
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3}}}), (D{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
}

TEST(OnnxTensor, TileRepeatsTheWholeTensorPerAxis) {
    OnnxModel m;
    m.input("x", {2, 2}).output("y");
    m.initializer_i64("repeats", {2}, {2, 3});
    m.node("Tile", {"x", "repeats"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Broadcast"), 1u);
    // np.tile([[1, 2], [3, 4]], (2, 3))
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}}),
              (D{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
}

TEST(OnnxTensor, TileOfRankFourGoesAxisByAxisWithinSevenAxes) {
    OnnxModel m;
    m.input("x", {1, 1, 1, 2}).output("y");
    m.initializer_i64("repeats", {4}, {2, 2, 2, 2});
    m.node("Tile", {"x", "repeats"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Broadcast"), 4u);  // 4 + 4 repeated axes > 7: one pass per repeated axis
    D want;
    for (int k = 0; k < 16; ++k) want.insert(want.end(), {5, 6});
    EXPECT_EQ(evaluate_values(g, {{"x", {5, 6}}}), want);
}

TEST(OnnxTensor, RangeSizeAndConstantOfShapeAreImportTimeConstants) {
    OnnxModel m(13);
    m.input("x", {3}).output("y").output("z");
    m.initializer("start", {}, {0.5f});
    m.initializer("limit", {}, {3.f});
    m.initializer("delta", {}, {1.f});
    m.node("Range", {"start", "limit", "delta"}, {"r"});  // [0.5, 1.5, 2.5]
    m.node("Add", {"x", "r"}, {"y"});
    m.node("Size", {"x"}, {"n"});                         // 3
    m.initializer_i64("zero", {1}, {0});
    m.node("Unsqueeze", {"n", "zero"}, {"n1"});
    m.node("ConstantOfShape", {"n1"}, {"zeros"});         // [0, 0, 0]
    m.node("Add", {"x", "zeros"}, {"z"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Elemwise"), 2u);
    auto out = evaluate(g, {{"x", {10, 20, 30}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{10.5, 21.5, 32.5}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{10, 20, 30}));
}

TEST(OnnxTensor, TriluIsAMaskedFillExactEvenForInfinityAndNaN) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    OnnxModel m(14);
    m.input("x", {2, 3}).output("y");
    set_attr(m.node("Trilu", {"x"}, {"y"}), "upper", int64_t{0});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"MaskedFill"});
    EXPECT_EQ(evaluate_values(g, {{"x", {1, inf, nan, 4, 5, 6}}}), (D{1, 0, 0, 4, 5, 0}));
}

TEST(OnnxTensor, TriluUpperWithKOnABatch) {
    OnnxModel m(14);
    m.input("x", {2, 2, 3}).output("y");
    m.initializer_i64("k", {}, {1});
    m.node("Trilu", {"x", "k"}, {"y"});
    ir::Graph g = m.import();
    // np.triu(x, 1) per matrix
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}}),
              (D{0, 2, 3, 0, 0, 6, 0, 8, 9, 0, 0, 12}));
}

TEST(OnnxTensor, OneHotComparesWithThePositionsAndCountsNegativeIndicesFromDepth) {
    OnnxModel m(11);
    m.input("i", {4}, OnnxType::INT64).output("y");
    m.initializer_i64("depth", {}, {4});
    m.initializer("values", {2}, {0.5f, 2.f});
    m.node("OneHot", {"i", "depth", "values"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(evaluate_values(g, {{"i", {0, -1, 3, 5}}}),
              (D{2, .5, .5, .5, .5, .5, .5, 2, .5, .5, .5, 2, .5, .5, .5, .5}));
}

// An empty axis: refused, with K constant (out of range) and with K known only
// at run time, which skips that check (the division by the axis's length
// trapped: fuzz_onnx's tests/fuzz/regressions/fuzz_onnx/topk-of-runtime-k-on-an-empty-axis).
TEST(OnnxTensor, TopKOfAnEmptyAxisIsRefused) {
    OnnxModel m(11);
    m.input("x", {3, 0}).input("k", {1}, OnnxType::INT64).output("v").output("i", OnnxType::INT64);
    m.node("TopK", {"x", "k"}, {"v", "i"}, "top");
    EXPECT_NE(import_error(m).find("node 'top' (TopK): axis 1 of the input [3,0] has no elements"),
              std::string::npos)
        << import_error(m);
}

TEST(OnnxTensor, TopKLargestAndSmallestAlongAnAxis) {
    OnnxModel m(11);
    m.input("x", {2, 3}).output("v").output("i", OnnxType::INT64).output("sv").output("si", OnnxType::INT64);
    m.initializer_i64("k2", {1}, {2});
    m.initializer_i64("k1", {1}, {1});
    m.node("TopK", {"x", "k2"}, {"v", "i"});
    auto& s = m.node("TopK", {"x", "k1"}, {"sv", "si"});
    set_attr(s, "axis", int64_t{0});
    set_attr(s, "largest", int64_t{0});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "TopK"), 2u);
    auto out = evaluate(g, {{"x", {1, 3, 2, 6, 4, 5}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{3, 2, 6, 5}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 2, 0, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{1, 3, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[3].value), (D{0, 0, 0}));
}

// TopK-11: "If two elements are equal, the element with the lower index will
// appear first." MegEngine's largest-k kernel sorts (value, index) pairs
// descending, which puts the higher index first; the smallest k do not.
TEST(OnnxTensor, TopKLargestPutsTheLowerIndexOfEqualValuesFirst) {
    struct Case {
        int32_t type;
        D x, values;
        D indices;
    };
    // Row [1,3,3,2]: the two 3s, indices 1 then 2. Integer types at their
    // limits too: the order is reversed as -1 - x (INT8 -128 ↔ 127, no wrap)
    // and 255 - x (UINT8).
    const Case cases[] = {
        {OnnxType::FLOAT, {1, 3, 3, 2, 0, -0.0, 0, -1}, {3, 3, 0, -0.0}, {1, 2, 0, 1}},
        {OnnxType::INT32, {1, 3, 3, 2, 5, 5, 5, 5}, {3, 3, 5, 5}, {1, 2, 0, 1}},
        {OnnxType::INT8, {-128, 127, -128, 127, -128, -128, 0, -128}, {127, 127, 0, -128}, {1, 3, 2, 0}},
        {OnnxType::UINT8, {0, 255, 255, 0, 0, 0, 1, 0}, {255, 255, 1, 0}, {1, 2, 2, 0}},
    };
    for (const Case& t : cases) {
        OnnxModel m(11);
        m.input("x", {2, 4}, t.type).output("v", t.type).output("i", OnnxType::INT64);
        m.initializer_i64("k", {1}, {2});
        m.node("TopK", {"x", "k"}, {"v", "i"});
        auto out = evaluate(m.import(), {{"x", t.x}});
        EXPECT_EQ(engine::eval::to_doubles(out[0].value), t.values) << "ONNX type " << t.type;
        EXPECT_EQ(engine::eval::to_doubles(out[1].value), t.indices) << "ONNX type " << t.type;
        // The values mapped back exactly: -(-0.0) is -0.0 again.
        if (t.type == OnnxType::FLOAT) {
            EXPECT_TRUE(std::signbit(engine::eval::to_doubles(out[0].value)[3]));
        }
    }
}

TEST(OnnxTensor, TopKRefusesAFloatKThatIsNoWholeNumber) {
    // ONNX's K is INT64; a float one was converted unchecked (NaN: undefined).
    for (float k : {2.5f, std::nanf("")}) {
        OnnxModel m(11);
        m.input("x", {4}).output("v").output("i", OnnxType::INT64);
        m.initializer("k", {1}, {k});
        m.node("TopK", {"x", "k"}, {"v", "i"}, "top");
        const std::string error = import_error(m);
        EXPECT_NE(error.find(fmt::format("node 'top' (TopK): K (input #1) is {}, not a whole number", k)),
                  std::string::npos)
            << error;
    }
}

TEST(OnnxTensor, TopKOfOpset1TakesKAsAnAttribute) {
    OnnxModel m(6);
    m.input("x", {4}).output("v").output("i", OnnxType::INT64);
    set_attr(m.node("TopK", {"x"}, {"v", "i"}), "k", int64_t{2});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 4, 3, 2}}}), (D{4, 3}));
}

// y[c', i, j] = x[(i·b + j)·C' + c'] (DCR), x[c'·b² + i·b + j] (CRD).
TEST(OnnxTensor, DepthToSpaceInBothModesAndSpaceToDepthUndoingIt) {
    for (const char* mode : {"DCR", "CRD"}) {
        OnnxModel m(13);
        m.input("x", {1, 8, 1, 1}).output("y").output("back");
        auto& n = m.node("DepthToSpace", {"x"}, {"y"});
        set_attr(n, "blocksize", int64_t{2});
        set_attr(n, "mode", mode);
        set_attr(m.node("SpaceToDepth", {"y"}, {"back"}), "blocksize", int64_t{2});
        ir::Graph g = m.import();
        auto out = evaluate(g, {{"x", {0, 1, 2, 3, 4, 5, 6, 7}}});
        EXPECT_EQ(engine::eval::to_doubles(out[0].value),
                  std::string(mode) == "DCR" ? (D{0, 2, 4, 6, 1, 3, 5, 7}) : (D{0, 1, 2, 3, 4, 5, 6, 7}))
            << mode;
        // SpaceToDepth is DepthToSpace-DCR's inverse.
        if (std::string(mode) == "DCR") {
            EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 1, 2, 3, 4, 5, 6, 7}));
        }
    }
}

TEST(OnnxGather, GatherWithATwoDimensionalIndexTensor) {
    OnnxModel m;
    m.input("x", {3, 2}).output("y");
    m.initializer_i64("i", {2, 2}, {0, 1, 1, 2});
    m.node("Gather", {"x", "i"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"IndexingMultiAxisVec"});
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 6}}}), (D{1, 2, 3, 4, 3, 4, 5, 6}));
}

TEST(OnnxGather, GatherElementsSpecExampleWithRuntimeIndices) {
    OnnxModel m;
    m.input("x", {2, 2}).input("i", {2, 2}, OnnxType::INT64).output("y");
    set_attr(m.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{1});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"IndexingMultiAxisVec"});
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}, {"i", {0, 0, 1, 0}}}), (D{1, 1, 4, 3}));
    // A negative index counts from the end of the axis.
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4}}, {"i", {-1, 0, -2, -1}}}), (D{2, 1, 3, 4}));
}

TEST(OnnxGather, GatherNDSpecExamplesWithAndWithoutBatchDims) {
    OnnxModel m(13);
    m.input("x", {2, 2}).input("x3", {2, 2, 2}).output("y").output("yb");
    m.initializer_i64("i", {2, 2}, {0, 0, 1, 1});
    m.initializer_i64("ib", {2, 1}, {1, 0});
    m.node("GatherND", {"x", "i"}, {"y"});
    set_attr(m.node("GatherND", {"x3", "ib"}, {"yb"}), "batch_dims", int64_t{1});
    auto out = evaluate(m.import(), {{"x", {0, 1, 2, 3}}, {"x3", {0, 1, 2, 3, 4, 5, 6, 7}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{2, 3, 4, 5}));
}

TEST(OnnxGather, ScatterNDSetsAddsAndMultiplies) {
    OnnxModel m(16);
    m.input("x", {8}).input("u", {4}).output("y");
    m.initializer_i64("i", {4, 1}, {4, 3, 1, 7});
    m.node("ScatterND", {"x", "i", "u"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"IndexingSetMultiAxisVec"});
    EXPECT_EQ(evaluate_values(g, {{"x", {1, 2, 3, 4, 5, 6, 7, 8}}, {"u", {9, 10, 11, 12}}}),
              (D{1, 11, 3, 10, 9, 6, 7, 12}));

    OnnxModel add(16);
    add.input("x", {4}).input("u", {2}).output("y");
    add.initializer_i64("i", {2, 1}, {0, 0});
    set_attr(add.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", "add");
    EXPECT_EQ(evaluate_values(add.import(), {{"x", {1, 2, 3, 4}}, {"u", {5, 6}}}), (D{12, 2, 3, 4}));

    // mul writes element 0 twice: two rounds, 1 · 5 · 6.
    OnnxModel mul(16);
    mul.input("x", {4}).input("u", {2}).output("y");
    mul.initializer_i64("i", {2, 1}, {0, 0});
    set_attr(mul.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", "mul");
    const ir::Graph mg = mul.import();
    EXPECT_EQ(count_ops(mg, "IndexingSetMultiAxisVec"), 2u);
    expect_round_trip(mg);
    EXPECT_EQ(evaluate_values(mg, {{"x", {1, 2, 3, 4}}, {"u", {5, 6}}}), (D{30, 2, 3, 4}));
}

// max (opset 18) of slices: rows 1, 0, 1 of [[1, 2, 3], [4, 5, 6]], row 1 twice.
TEST(OnnxGather, ScatterNDMaxAndMinCombineEachWriteOfASlice) {
    for (const auto& [reduction, want] :
         {std::pair{"max", D{7, 2, 3, 4, 9, 8}}, std::pair{"min", D{1, 0, 0, 0, 0, 0}}}) {
        SCOPED_TRACE(reduction);
        OnnxModel m(18);
        m.input("x", {2, 3}).input("u", {3, 3}).output("y");
        m.initializer_i64("i", {3, 1}, {1, 0, -1});  // -1: row 1
        set_attr(m.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", reduction);
        EXPECT_EQ(evaluate_values(m.import(), {{"x", {1, 2, 3, 4, 5, 6}}, {"u", {0, 9, 0, 7, 0, 0, 0, 0, 8}}}), want);
    }
}

TEST(OnnxGather, ScatterNDMulOfRuntimeOrOutOfRangeIndicesIsRefused) {
    OnnxModel runtime(16);
    runtime.input("x", {4}).input("i", {2, 1}, OnnxType::INT64).input("u", {2}).output("y");
    set_attr(runtime.node("ScatterND", {"x", "i", "u"}, {"y"}, "s"), "reduction", "mul");
    EXPECT_NE(import_error(runtime).find("node 's' (ScatterND): reduction 'mul' with indices known only at run time "
                                         "is not supported"),
              std::string::npos)
        << import_error(runtime);
    OnnxModel outside(16);
    outside.input("x", {4}).input("u", {1}).output("y");
    outside.initializer_i64("i", {1, 1}, {4});
    set_attr(outside.node("ScatterND", {"x", "i", "u"}, {"y"}, "s"), "reduction", "mul");
    EXPECT_NE(import_error(outside).find("node 's' (ScatterND): index 4 of axis 0 is outside [-4, 4)"),
              std::string::npos)
        << import_error(outside);
}

}  // namespace
}  // namespace mgedump::test
