// Einsum (formats/onnx/ops_einsum.cpp): the operators each kind of equation maps
// to and its numbers against sums written out by hand from the equation, and the
// refusals, which name the equation.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using V = std::vector<std::string>;
using D = std::vector<double>;

OnnxModel einsum_model(const char* equation, const std::vector<std::vector<int64_t>>& shapes) {
    OnnxModel m(12);
    std::vector<std::string> names;
    for (size_t k = 0; k < shapes.size(); ++k) {
        names.push_back("x" + std::to_string(k));
        m.input(names.back(), shapes[k]);
    }
    m.output("y");
    set_attr(m.node("Einsum", names, {"y"}), "equation", equation);
    return m;
}

TEST(OnnxEinsum, TransposeIsOneDimshuffle) {
    ir::Graph g = einsum_model("ij->ji", {{2, 3}}).import();
    EXPECT_EQ(compute_ops(g), V{"Dimshuffle"});
    expect_near_all(evaluate_values(g, {{"x0", {1, 2, 3, 4, 5, 6}}}), {1, 4, 2, 5, 3, 6});
}

TEST(OnnxEinsum, SumOverAnAxisIsAReduce) {
    ir::Graph g = einsum_model("ij->i", {{2, 3}}).import();
    EXPECT_EQ(count_ops(g, "Reduce"), 1u);
    expect_near_all(evaluate_values(g, {{"x0", {1, 2, 3, 4, 5, 6}}}), {6, 15});
}

TEST(OnnxEinsum, BatchedContractionIsBatchedMatrixMul) {
    // z[b][i][k] = Σ_j x[b][i][j]·y[b][j][k]; b = 2, i = 1, j = 2, k = 1.
    ir::Graph g = einsum_model("bij, bjk -> bik", {{2, 1, 2}, {2, 2, 1}}).import();
    EXPECT_EQ(count_ops(g, "BatchedMatrixMul"), 1u);
    expect_near_all(evaluate_values(g, {{"x0", {1, 2, 3, 4}}, {"x1", {5, 6, 7, 8}}}),
                    {1 * 5 + 2 * 6, 3 * 7 + 4 * 8});
}

TEST(OnnxEinsum, InnerProductWithTheImplicitOutputIsAScalar) {
    ir::Graph g = einsum_model("i,i", {{3}, {3}}).import();
    EXPECT_EQ(count_ops(g, "MatrixMul"), 1u);
    EXPECT_EQ(evaluate_values(g, {{"x0", {1, 2, 3}}, {"x1", {4, 5, 6}}}), D{32});
}

TEST(OnnxEinsum, ImplicitOutputSortsTheLettersThatOccurOnce) {
    // "kj,ji" is "kj,ji->ik": the transposed product.
    ir::Graph g = einsum_model("kj,ji", {{2, 2}, {2, 2}}).import();
    // (x0·x1)ᵀ with x0 = [[1, 2], [3, 4]], x1 = [[5, 6], [7, 8]]: x0·x1 = [[19, 22], [43, 50]].
    expect_near_all(evaluate_values(g, {{"x0", {1, 2, 3, 4}}, {"x1", {5, 6, 7, 8}}}), {19, 43, 22, 50});
}

TEST(OnnxEinsum, OuterProduct) {
    ir::Graph g = einsum_model("i,j->ij", {{2}, {3}}).import();
    expect_near_all(evaluate_values(g, {{"x0", {1, 2}}, {"x1", {3, 4, 5}}}), {3, 4, 5, 6, 8, 10});
}

TEST(OnnxEinsum, BatchDiagonalUsesVectorIndexing) {
    ir::Graph g = einsum_model("...ii ->...i", {{2, 2, 2}}).import();
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 1u);
    expect_near_all(evaluate_values(g, {{"x0", {1, 2, 3, 4, 5, 6, 7, 8}}}), {1, 4, 5, 8});
}

TEST(OnnxEinsum, TraceIsTheDiagonalSummed) {
    ir::Graph g = einsum_model("ii", {{3, 3}}).import();
    EXPECT_EQ(evaluate_values(g, {{"x0", {1, 2, 3, 4, 5, 6, 7, 8, 9}}}), D{15});
}

TEST(OnnxEinsum, ThreeOperandsFoldLeftToRight) {
    // Σ_j Σ_k a[i][j]·b[j][k]·c[k]: a = I₂, b = [[1, 2], [3, 4]], c = (1, 10) → (21, 43).
    ir::Graph g = einsum_model("ij,jk,k->i", {{2, 2}, {2, 2}, {2}}).import();
    expect_near_all(evaluate_values(g, {{"x0", {1, 0, 0, 1}}, {"x1", {1, 2, 3, 4}}, {"x2", {1, 10}}}), {21, 43});
}

TEST(OnnxEinsum, RefusesLabelsOfDifferentSizes) {
    EXPECT_NE(import_error(einsum_model("ij,jk->ik", {{2, 3}, {2, 2}})).find("equation 'ij,jk->ik': a label has size"),
              std::string::npos);
}

TEST(OnnxEinsum, RefusesMalformedEquations) {
    EXPECT_NE(import_error(einsum_model("i-j", {{2}})).find("equation 'i-j'"), std::string::npos);
    EXPECT_NE(import_error(einsum_model("ij->k", {{2, 2}})).find("an output label is in no input"),
              std::string::npos);
    EXPECT_NE(import_error(einsum_model("ijk->i", {{2, 2}})).find("does not match an operand of rank 2"),
              std::string::npos);
}

}  // namespace
}  // namespace mgedump::test
