// The operators whose output length depends on the values, through MegEngine's
// CondTake when those values are known only at run time (its outputs' length is
// known only when it runs): Compress (opset 9, 11), the slices along an axis (of
// the input flattened, without one) where a 1-D BOOL condition holds, and
// NonZero, the coordinates of the nonzero elements. Constants are read at import
// time. Expected values are numpy.compress's and numpy.nonzero's, which ONNX's
// reference calls (onnx/backend/test/case/node/compress.py, nonzero.py), worked
// by hand; ONNX's own test models run in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

// Compress of a float input x of `shape` by a BOOL condition of `length` entries,
// a graph input, or a constant holding `constant` when given.
OnnxModel compress_model(std::vector<int64_t> shape, int64_t length, std::optional<int64_t> axis,
                         const std::vector<uint8_t>* constant = nullptr) {
    OnnxModel m(11);
    m.input("x", shape);
    if (constant)
        m.initializer_bytes("cond", {length}, OnnxType::BOOL, constant->data(), constant->size());
    else
        m.input("cond", {length}, OnnxType::BOOL);
    m.output("y");
    auto& n = m.node("Compress", {"x", "cond"}, {"y"}, "pick");
    if (axis) set_attr(n, "axis", *axis);
    return m;
}

const D kX{1, 2, 3, 4, 5, 6};  // [[1, 2], [3, 4], [5, 6]]

TEST(OnnxCompress, AConditionKnownAtRunTimeSelectsThroughCondTake) {
    const ir::Graph g = compress_model({3, 2}, 3, 0).import();
    EXPECT_EQ(count_ops(g, "CondTake"), 1u);
    EXPECT_TRUE(g.var_shape(g.outputs.at(0)).empty());  // its length is known only at run time
    expect_round_trip(g);
    // np.compress([0, 1, 1], x, axis=0): rows 1 and 2.
    auto out = evaluate(g, {{"x", kX}, {"cond", {0, 1, 1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{3, 4, 5, 6}));
    // The same graph with another condition: one row.
    out = evaluate(g, {{"x", kX}, {"cond", {1, 0, 0}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 2}));
}

TEST(OnnxCompress, AShorterConditionDropsTheSlicesPastItAndNoAxisFlattens) {
    // np.compress([0, 1], x, axis=-1): column 1, the condition shorter than nothing.
    ir::Graph g = compress_model({3, 2}, 2, -1).import();
    EXPECT_EQ(evaluate_values(g, {{"x", kX}, {"cond", {0, 1}}}), (D{2, 4, 6}));
    // np.compress([0, 1, 0, 0, 1], x): of the flattened input, elements 1 and 4;
    // the sixth is past the condition.
    g = compress_model({3, 2}, 5, std::nullopt).import();
    EXPECT_EQ(evaluate_values(g, {{"x", kX}, {"cond", {0, 1, 0, 0, 1}}}), (D{2, 5}));
}

TEST(OnnxCompress, AConstantConditionIsReadAtImportTime) {
    const std::vector<uint8_t> cond{1, 0, 1};
    const ir::Graph g = compress_model({3, 2}, 3, 0, &cond).import();
    EXPECT_EQ(count_ops(g, "CondTake"), 0u);
    const auto dims = g.var_shape(g.outputs.at(0));
    EXPECT_EQ(std::vector<uint32_t>(dims.begin(), dims.end()), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(evaluate_values(g, {{"x", kX}}), (D{1, 2, 5, 6}));
}

TEST(OnnxCompress, RefusesALongerConditionAnotherTypeAndAnEmptySelection) {
    const std::string longer = import_error(compress_model({3, 2}, 4, 0));
    EXPECT_NE(longer.find("node 'pick' (Compress): condition has 4 entries for 3 slices (axis 0 of [3,2])"),
              std::string::npos)
        << longer;
    OnnxModel floats(11);
    floats.input("x", {3}).input("cond", {3}).output("y");
    floats.node("Compress", {"x", "cond"}, {"y"}, "pick");
    EXPECT_NE(import_error(floats).find("condition is FLOAT, must be BOOL"), std::string::npos)
        << import_error(floats);
    const std::vector<uint8_t> none{0, 0, 0};
    const std::string empty = import_error(compress_model({3, 2}, 3, 0, &none));
    EXPECT_NE(empty.find("the condition selects nothing"), std::string::npos) << empty;
}

// NonZero of an input known only at run time, of `shape` and ONNX `type`.
OnnxModel non_zero_model(std::vector<int64_t> shape, int32_t type = OnnxType::FLOAT) {
    OnnxModel m(13);
    m.input("x", shape, type).output("y", OnnxType::INT64);
    m.node("NonZero", {"x"}, {"y"}, "nz");
    return m;
}

TEST(OnnxNonZero, ARuntimeValuesNonzeroCoordinatesComeFromCondTake) {
    const ir::Graph g = non_zero_model({2, 1, 3}).import();
    EXPECT_EQ(count_ops(g, "CondTake"), 1u);
    expect_round_trip(g);
    // Flat positions 1, 3 and 5 of a (2, 1, 3) input: (0, 0, 1), (1, 0, 0), (1, 0, 2).
    auto out = evaluate(g, {{"x", {0, 5, 0, 7, 0, 8}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{3, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 1, 1, 0, 0, 0, 1, 0, 2}));
}

TEST(OnnxNonZero, NanAndTinyValuesAreNonzeroAndMinusZeroIsZero) {
    // numpy: x != 0 exactly. A CondTake on the float values would compare within
    // its eps (1e-6) and drop 1e-30.
    const ir::Graph g = non_zero_model({2, 2}).import();
    auto out = evaluate(g, {{"x", {0, 1e-30, std::nan(""), -0.0}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 1, 1, 0}));
}

TEST(OnnxNonZero, BoolAndIntegerInputs) {
    auto out = evaluate(non_zero_model({3}, OnnxType::BOOL).import(), {{"x", {1, 0, 1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{0, 2}));
    out = evaluate(non_zero_model({3}, OnnxType::INT32).import(), {{"x", {0, -3, 4}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 2}));
}

TEST(OnnxNonZero, AnInputWithoutElementsIsRefused) {
    const std::string error = import_error(non_zero_model({3, 0}));
    EXPECT_NE(error.find("node 'nz' (NonZero): the input [3,0] has no elements"), std::string::npos) << error;
}

}  // namespace
}  // namespace mgedump::test
