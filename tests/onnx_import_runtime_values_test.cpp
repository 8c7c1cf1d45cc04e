// Shape-like operands known only at run time (formats/onnx/runtime_values.h):
// Reshape's shape, Slice's starts/ends/axes/steps, Clip's bounds, Expand's and
// ConstantOfShape's shape, Range's operands, TopK's K, Trilu's k, OneHot's depth and
// Split's sizes as graph inputs. Each converted graph leaves the dependent shapes to
// run time (static inference does not know them), dumps in both formats, and is
// run on the reference evaluator with several operand values: one graph, the values
// chosen at run time. Expected values are derived by hand from the ONNX operator
// spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ir/infer.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;
using Feeds = std::map<std::string, std::vector<double>>;

// Output #i has no shape before run time: MegEngine's static inference leaves it unknown.
bool shape_unknown_statically(const ir::Graph& g, size_t i = 0) { return g.var_shape(g.outputs.at(i)).empty(); }

// Dumps in both formats (as is) and loads back: it still has the runtime
// operators (MegEngine's make-time folds, which the dump applies, may merge or fold
// the constant parts of the index arithmetic).
void expect_round_trip_any_order(const ir::Graph& g) {
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        formats::LoadedModel m = dumped_and_loaded(g, format);
        for (const char* op : {"Reshape", "Broadcast", "TopK", "Split", "MaskedFill", "Cumsum"})
            EXPECT_EQ(count_ops(m.graph, op), count_ops(g, op)) << op << " in "
                                                                << (format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2");
        EXPECT_EQ(count_ops(m.graph, "Subtensor") > 0, count_ops(g, "Subtensor") > 0);
    }
}

D iota(int n) {
    D v;
    for (int k = 0; k < n; ++k) v.push_back(k);
    return v;
}

TEST(OnnxRuntimeValues, ReshapeToARuntimeShapeCopiesZerosAndInfersMinusOne) {
    OnnxModel m;
    m.input("x", {2, 3, 4}).input("shape", {2}, OnnxType::INT64).output("y");
    m.node("Reshape", {"x", "shape"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Reshape"), 1u);
    EXPECT_TRUE(shape_unknown_statically(g));
    expect_round_trip_any_order(g);
    // ONNX: 0 copies the input's dim 0 (2), -1 is 24 / 2 = 12. Reshape keeps the order.
    auto out = evaluate(g, {{"x", iota(24)}, {"shape", {0, -1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 12}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), iota(24));
    // The same graph with another shape: -1 first, then 0 copying dim 1 (3): [8, 3].
    out = evaluate(g, {{"x", iota(24)}, {"shape", {-1, 0}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{8, 3}));
}

TEST(OnnxRuntimeValues, ReshapeWithAllowZeroKeepsAZeroAsItIs) {
    OnnxModel m(14);
    m.input("x", {2, 3}).input("shape", {2}, OnnxType::INT64).output("y");
    set_attr(m.node("Reshape", {"x", "shape"}, {"y"}), "allowzero", int64_t{1});
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"x", iota(6)}, {"shape", {3, -1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{3, 2}));
    // allowzero = 1: a 0 is a dim of 0, so [0, 3] does not hold 6 elements: MegEngine refuses at run time.
    EXPECT_THROW(evaluate(g, {{"x", iota(6)}, {"shape", {0, 3}}}), Error);
}

TEST(OnnxRuntimeValues, SliceClampsRuntimeStartsAndEndsAsOnnxSays) {
    OnnxModel m;
    m.input("x", {3, 4});
    for (const char* name : {"starts", "ends", "axes", "steps"}) m.input(name, {2}, OnnxType::INT64);
    m.output("y");
    m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Subtensor"), 1u + 3 * 2);  // the slice, and its 3 index vars per axis
    EXPECT_TRUE(shape_unknown_statically(g));
    expect_round_trip_any_order(g);
    const D x = iota(12);  // [[0,1,2,3],[4,5,6,7],[8,9,10,11]]
    // Axis 1 backwards by 2 from -1 (3) to -1000 (clamped to -1, before index 0): columns 3, 1.
    // Axis -2 (0) from 0 to 2: rows 0, 1.
    auto out = evaluate(g, {{"x", x}, {"starts", {-1, 0}}, {"ends", {-1000, 2}}, {"axes", {1, -2}}, {"steps", {-2, 1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{3, 1, 7, 5}));
    // Out of range: start 1000 clamps to 4 (empty is not asked here), end 1000 to 3 on axis 0.
    out = evaluate(g, {{"x", x}, {"starts", {1, 2}}, {"ends", {1000, 1000}}, {"axes", {0, 1}}, {"steps", {1, 1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{6, 7, 10, 11}));
    // A negative step from a start past the end (clamped to dim − 1 = 2) down to 0 (excluded).
    out = evaluate(g, {{"x", x}, {"starts", {99, 0}}, {"ends", {0, 4}}, {"axes", {0, 1}}, {"steps", {-1, 3}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{8, 11, 4, 7}));
}

TEST(OnnxRuntimeValues, SliceWithConstantAxesAndRuntimeBounds) {
    OnnxModel m;
    m.input("x", {3, 4}).input("starts", {1}, OnnxType::INT64).input("ends", {1}, OnnxType::INT64).output("y");
    m.initializer_i64("axes", {1}, {-1});
    m.node("Slice", {"x", "starts", "ends", "axes"}, {"y"});
    ir::Graph g = m.import();
    // Columns 1 and 2 of every row (the default step 1; axis 0 untouched).
    auto out = evaluate(g, {{"x", iota(12)}, {"starts", {1}}, {"ends", {-1}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 2, 5, 6, 9, 10}));
}

TEST(OnnxRuntimeValues, ClipTakesRuntimeBoundsAndAMinAboveMaxGivesMax) {
    OnnxModel m;
    m.input("x", {5}).input("lo", {}).input("hi", {}).output("y");
    m.node("Clip", {"x", "lo", "hi"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (std::vector<std::string>{"Elemwise", "Elemwise"}));
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise", 0), "mode"), "MAX_");  // MegEngine's names for MAX and MIN
    EXPECT_EQ(enum_field(g, find_opr(g, "Elemwise", 1), "mode"), "MIN_");
    EXPECT_FALSE(shape_unknown_statically(g));  // Clip keeps the input's shape
    const D x{-2, -1, 0, 1, 2};
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"lo", {-1.5}}, {"hi", {0.5}}}), (D{-1.5, -1, 0, 0.5, 0.5}));
    // ONNX: "When 'min' is greater than 'max', the clip operator sets all the 'input' values to the value of 'max'."
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"lo", {1}}, {"hi", {0}}}), (D{0, 0, 0, 0, 0}));
}

TEST(OnnxRuntimeValues, ClipWithOnlyARuntimeMaxOnInt8) {
    OnnxModel m;
    m.input("x", {3}, OnnxType::INT8).input("hi", {}, OnnxType::INT8).output("y", OnnxType::INT8);
    m.node("Clip", {"x", "", "hi"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(evaluate_values(g, {{"x", {-100, 5, 100}}, {"hi", {7}}}), (D{-100, 5, 7}));
}

TEST(OnnxRuntimeValues, ExpandBroadcastsBothWaysToARuntimeShape) {
    OnnxModel m;
    m.input("x", {3, 1}).input("shape", {3}, OnnxType::INT64).output("y");
    m.node("Expand", {"x", "shape"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_TRUE(shape_unknown_statically(g));
    expect_round_trip_any_order(g);
    // [3, 1] with [2, 1, 4]: rank 3, dims max(1, 2), max(3, 1), max(1, 4) = [2, 3, 4].
    auto out = evaluate(g, {{"x", {1, 2, 3}}, {"shape", {2, 1, 4}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 3, 4}));
    D want;
    for (int r = 0; r < 2; ++r)
        for (double v : {1, 2, 3}) want.insert(want.end(), 4, v);
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), want);
}

TEST(OnnxRuntimeValues, ExpandToAShorterRuntimeShapeKeepsTheInputsRank) {
    OnnxModel m;
    m.input("x", {2, 1, 1}).input("shape", {1}, OnnxType::INT64).output("y");
    m.node("Expand", {"x", "shape"}, {"y"});
    ir::Graph g = m.import();
    // [2, 1, 1] with [3]: right-aligned, [2, 1, 3].
    auto out = evaluate(g, {{"x", {5, 6}}, {"shape", {3}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 1, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{5, 5, 5, 6, 6, 6}));
}

TEST(OnnxRuntimeValues, ConstantOfShapeBroadcastsItsValueToTheRuntimeShape) {
    OnnxModel m;
    m.input("shape", {2}, OnnxType::INT64).output("y", OnnxType::INT32);
    auto& n = m.node("ConstantOfShape", {"shape"}, {"y"});
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(OnnxType::INT32);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_int32_data(7);
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{"Broadcast"});
    EXPECT_TRUE(shape_unknown_statically(g));
    expect_round_trip_any_order(g);
    auto out = evaluate(g, {{"shape", {2, 3}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), D(6, 7));
}

TEST(OnnxRuntimeValues, RangeCountsCeilOfSpanOverDelta) {
    OnnxModel m;
    m.input("start", {}, OnnxType::INT32).input("limit", {}, OnnxType::INT32).input("delta", {}, OnnxType::INT32);
    m.output("y", OnnxType::INT32);
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_TRUE(shape_unknown_statically(g));
    expect_round_trip_any_order(g);
    // ONNX: max(ceil((limit − start) / delta), 0) elements start + i·delta: ceil(−6 / −3) = 2 → [10, 7].
    EXPECT_EQ(evaluate_values(g, {{"start", {10}}, {"limit", {4}}, {"delta", {-3}}}), (D{10, 7}));
    // ceil(7 / 3) = 3 → [1, 4, 7].
    EXPECT_EQ(evaluate_values(g, {{"start", {1}}, {"limit", {8}}, {"delta", {3}}}), (D{1, 4, 7}));
}

TEST(OnnxRuntimeValues, FloatRangeWithARuntimeLimit) {
    OnnxModel m;
    m.input("limit", {}).output("y");
    m.initializer("start", {}, {0.5f});
    m.initializer("delta", {}, {0.25f});
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    ir::Graph g = m.import();
    // ceil((1.4 − 0.5) / 0.25) = ceil(3.6) = 4 → 0.5, 0.75, 1, 1.25.
    EXPECT_EQ(evaluate_values(g, {{"limit", {1.4}}}), (D{0.5, 0.75, 1, 1.25}));
}

TEST(OnnxRuntimeValues, TopKWithARuntimeK) {
    OnnxModel m;
    m.input("x", {2, 4}).input("k", {1}, OnnxType::INT64).output("values").output("indices", OnnxType::INT64);
    m.node("TopK", {"x", "k"}, {"values", "indices"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "TopK"), 1u);
    EXPECT_TRUE(shape_unknown_statically(g, 0));
    EXPECT_TRUE(shape_unknown_statically(g, 1));
    expect_round_trip_any_order(g);
    const D x{1, 4, 2, 3, 8, 5, 7, 6};
    // The 2 largest of each row, sorted, and where they were.
    auto out = evaluate(g, {{"x", x}, {"k", {2}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{4, 3, 8, 7}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 3, 0, 2}));
    out = evaluate(g, {{"x", x}, {"k", {3}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{4, 3, 2, 8, 7, 6}));
}

TEST(OnnxRuntimeValues, TopKSmallestOnAnInnerAxisWithARuntimeK) {
    OnnxModel m;
    m.input("x", {3, 2}).input("k", {1}, OnnxType::INT64).output("values").output("indices", OnnxType::INT64);
    auto& n = m.node("TopK", {"x", "k"}, {"values", "indices"});
    set_attr(n, "axis", int64_t{0});
    set_attr(n, "largest", int64_t{0});
    ir::Graph g = m.import();
    // Columns [5, 1, 3] and [0, 4, 2]: the 2 smallest, along axis 0: [[1, 0], [3, 2]].
    auto out = evaluate(g, {{"x", {5, 0, 1, 4, 3, 2}}, {"k", {2}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 0, 3, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 0, 2, 2}));
}

TEST(OnnxRuntimeValues, TriluComparesTheDiagonalGridWithARuntimeK) {
    OnnxModel m(14);
    m.input("x", {3, 3}).input("k", {}, OnnxType::INT64).output("upper").output("lower");
    m.node("Trilu", {"x", "k"}, {"upper"});
    set_attr(m.node("Trilu", {"x", "k"}, {"lower"}), "upper", int64_t{0});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "MaskedFill"), 2u);
    expect_round_trip_any_order(g);
    const D x{1, 2, 3, 4, 5, 6, 7, 8, 9};
    // upper keeps j − i >= k, lower keeps j − i <= k.
    auto out = evaluate(g, {{"x", x}, {"k", {1}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 2, 3, 0, 0, 6, 0, 0, 0}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{1, 2, 0, 4, 5, 6, 7, 8, 9}));
    out = evaluate(g, {{"x", x}, {"k", {-1}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 2, 3, 4, 5, 6, 0, 8, 9}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{0, 0, 0, 4, 0, 0, 7, 8, 0}));
}

TEST(OnnxRuntimeValues, OneHotWithARuntimeDepthCountsNegativeIndicesFromIt) {
    OnnxModel m(11);
    m.input("indices", {3}).input("depth", {}).input("values", {2}).output("y");
    m.node("OneHot", {"indices", "depth", "values"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_TRUE(shape_unknown_statically(g));
    expect_round_trip_any_order(g);
    // depth 3, off 0, on 1: -1 is 3 − 1 = 2.
    auto out = evaluate(g, {{"indices", {0, -1, 1}}, {"depth", {3}}, {"values", {0, 1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{3, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 0, 0, 0, 0, 1, 0, 1, 0}));
    // depth 4, off 5, on 9: -1 is 3.
    out = evaluate(g, {{"indices", {0, -1, 1}}, {"depth", {4}}, {"values", {5, 9}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{9, 5, 5, 5, 5, 5, 5, 9, 5, 9, 5, 5}));
}

TEST(OnnxRuntimeValues, SplitTakesRuntimePartSizes) {
    OnnxModel m;
    m.input("x", {6}).input("split", {3}, OnnxType::INT64).output("a").output("b").output("c");
    m.node("Split", {"x", "split"}, {"a", "b", "c"});
    ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "Split"), 1u);
    expect_round_trip_any_order(g);
    auto out = evaluate(g, {{"x", {1, 2, 3, 4, 5, 6}}, {"split", {1, 2, 3}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[2].value), (D{4, 5, 6}));
}

// Operands MegEngine takes as params (Reduce*'s axes, Squeeze / Unsqueeze's axes,
// CumSum's axis, Pad's pads) are mapped too: tests/onnx_import_runtime_axes_test.cpp.

TEST(OnnxRuntimeValues, AnOperatorNeedingARuntimeShapeAtImportTimeIsRefused) {
    // MatMul's mapping reshapes B by the shape it knows at import time; the Reshape's
    // is not known. (An A whose rows only the run time knows is taken:
    // onnx_import_mask_index_test.cpp. Elementwise operators take such an operand:
    // ops_elementwise.cpp.)
    OnnxModel m;
    m.input("x", {2, 3}).input("shape", {2}, OnnxType::INT64).output("z");
    m.node("Reshape", {"x", "shape"}, {"y"});
    m.node("MatMul", {"x", "y"}, {"z"}, "mm");
    const std::string e = import_error(m);
    EXPECT_NE(e.find("node 'mm' (MatMul): input #1 ('y') has a shape known only at run time"), std::string::npos) << e;
}

TEST(OnnxRuntimeValues, AShapeOperandOfTheWrongRankIsRefused) {
    OnnxModel m;
    m.input("x", {2, 3}).input("shape", {1, 2}, OnnxType::INT64).output("y");
    m.node("Reshape", {"x", "shape"}, {"y"});
    EXPECT_NE(import_error(m).find("shape (input #1) must be a scalar or a 1-D tensor, has rank 2"), std::string::npos);
}

}  // namespace
}  // namespace mgedump::test
