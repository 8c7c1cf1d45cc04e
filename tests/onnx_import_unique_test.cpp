// Unique (formats/onnx/ops_unique.cpp): numpy.unique's values, first-occurrence
// indices, inverse indices and counts, sorted or in order of first occurrence,
// of the flattened input or of its slices along an axis. The first expected
// values are those ONNX's generator prints (onnx/backend/test/case/node/unique.py);
// the others are numpy.unique's worked by hand in the comments. ONNX's five test
// models run in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

OnnxModel unique_model(std::vector<int64_t> shape, int32_t type, std::optional<int64_t> sorted,
                       std::optional<int64_t> axis) {
    OnnxModel m(11);
    m.input("x", shape, type).output("y", type).output("indices", OnnxType::INT64);
    m.output("inverse", OnnxType::INT64).output("counts", OnnxType::INT64);
    auto& n = m.node("Unique", {"x"}, {"y", "indices", "inverse", "counts"}, "unique");
    if (sorted) set_attr(n, "sorted", *sorted);
    if (axis) set_attr(n, "axis", *axis);
    return m;
}

std::vector<D> run(const ir::Graph& g, const D& x) {
    std::vector<D> outs;
    for (const auto& o : evaluate(g, {{"x", x}})) outs.push_back(engine::eval::to_doubles(o.value));
    return outs;
}

void expect_dumps_and_loads(const ir::Graph& g) {
    expect_same_ops_after_round_trip(g);
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2})
        EXPECT_FALSE(compute_ops(dumped_and_loaded(g, format, false).graph).empty());
}

TEST(OnnxUnique, SortedValuesWithTheirFirstIndicesInverseAndCounts) {
    const ir::Graph g = unique_model({6}, OnnxType::FLOAT, std::nullopt, std::nullopt).import();
    EXPECT_EQ(count_ops(g, "CondTake"), 1u);
    expect_dumps_and_loads(g);
    // test_unique_sorted_without_axis: np.unique([2, 1, 1, 3, 4, 3], True, True, True).
    EXPECT_EQ(run(g, {2, 1, 1, 3, 4, 3}), (std::vector<D>{{1, 2, 3, 4}, {1, 0, 3, 4}, {1, 0, 0, 2, 3, 2}, {2, 1, 2, 1}}));
    // The same graph, one distinct value: every output's length follows the values.
    EXPECT_EQ(run(g, {5, 5, 5, 5, 5, 5}), (std::vector<D>{{5}, {0}, {0, 0, 0, 0, 0, 0}, {6}}));
}

TEST(OnnxUnique, NotSortedKeepsTheOrderOfFirstOccurrence) {
    const ir::Graph g = unique_model({6}, OnnxType::FLOAT, 0, std::nullopt).import();
    // test_unique_not_sorted_without_axis, as its generator prints them.
    EXPECT_EQ(run(g, {2, 1, 1, 3, 4, 3}), (std::vector<D>{{2, 1, 3, 4}, {0, 1, 3, 4}, {0, 1, 1, 2, 3, 2}, {1, 2, 2, 1}}));
}

// Columns (axis 1) of [[1, 1, 0], [3, 2, 3]]: (1, 3), (1, 2), (0, 3). Sorted
// lexicographically, the first element that differs decides: (0, 3) < (1, 2) <
// (1, 3), the last two tied on their first element. np.unique(x, True, True, True,
// axis=1): Y [[0, 1, 1], [3, 2, 3]], indices [2, 1, 0], inverse [2, 1, 0], counts 1s.
TEST(OnnxUnique, SlicesAlongAnAxisSortLexicographically) {
    const ir::Graph g = unique_model({2, 3}, OnnxType::INT32, std::nullopt, 1).import();
    expect_dumps_and_loads(g);
    const auto out = evaluate(g, {{"x", {1, 1, 0, 3, 2, 3}}});
    EXPECT_EQ(dims_of(out.at(0)), (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 1, 1, 3, 2, 3}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(1).value), (D{2, 1, 0}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(2).value), (D{2, 1, 0}));
    EXPECT_EQ(engine::eval::to_doubles(out.at(3).value), (D{1, 1, 1}));
    // Columns 0 and 2 the same ((1, 3) twice): two distinct, the first kept at 0.
    EXPECT_EQ(run(g, {1, 0, 1, 3, 2, 3}), (std::vector<D>{{0, 1, 2, 3}, {1, 0}, {1, 0, 1}, {1, 2}}));
}

TEST(OnnxUnique, RefusesWhatItCannotCompare) {
    const std::string many = import_error(unique_model({5000}, OnnxType::FLOAT, std::nullopt, std::nullopt));
    EXPECT_NE(many.find("node 'unique' (Unique): 5000 slices of 1 elements: the pairwise comparisons would hold "
                        "25000000 elements, more than 16777216"),
              std::string::npos)
        << many;
    const std::string axis = import_error(unique_model({2, 3}, OnnxType::FLOAT, std::nullopt, 2));
    EXPECT_NE(axis.find("node 'unique' (Unique): axis 2 is out of range for rank 2"), std::string::npos) << axis;
}

}  // namespace
}  // namespace mgedump::test
