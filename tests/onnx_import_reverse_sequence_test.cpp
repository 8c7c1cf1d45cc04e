// ReverseSequence: one IndexingMultiAxisVec over the batch and time axes, the time
// index t + LT(t, L)·(L − 1 − 2t) computed from sequence_lens at run time. Expected
// values are the examples of ONNX's operator spec (reversesequence.py), worked by hand.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

OnnxModel reverse_model(int64_t batch_axis, int64_t time_axis) {
    OnnxModel m(10);
    m.input("x", {4, 4}).input("lens", {4}, OnnxType::INT64).output("y");
    auto& n = m.node("ReverseSequence", {"x", "lens"}, {"y"}, "rev");
    set_attr(n, "batch_axis", batch_axis);
    set_attr(n, "time_axis", time_axis);
    return m;
}

TEST(OnnxReverseSequence, ReversesTheFirstLenStepsOfEachBatchEntry) {
    // Time along axis 0, batch along axis 1: column b has its first lens[b] rows reversed.
    ir::Graph g = reverse_model(1, 0).import();
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 1u);
    expect_round_trip(g);
    const D x{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"lens", {4, 3, 2, 1}}}),
              (D{3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
}

TEST(OnnxReverseSequence, BatchAlongAxis0) {
    ir::Graph g = reverse_model(0, 1).import();
    const D x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    EXPECT_EQ(evaluate_values(g, {{"x", x}, {"lens", {1, 2, 3, 4}}}),
              (D{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
}

TEST(OnnxReverseSequence, RefusesAxesOtherThan0And1) {
    OnnxModel m(10);
    m.input("x", {2, 2, 2}).input("lens", {2}, OnnxType::INT64).output("y");
    auto& n = m.node("ReverseSequence", {"x", "lens"}, {"y"}, "rev");
    set_attr(n, "batch_axis", int64_t{0});
    set_attr(n, "time_axis", int64_t{2});
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'rev' (ReverseSequence): batch_axis 0 and time_axis 2 must be 0 and 1 in some order");
}

}  // namespace
}  // namespace mgedump::test
