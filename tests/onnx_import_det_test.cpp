// Det (opset 11) of [..., n, n] for n of 1 to 3: the cofactor expansion in
// Elemwise, one value per matrix of the batch. Expected values are determinants
// worked by hand (the 3×3 is a textbook example whose determinant is 49).
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxDet, EveryMatrixOfABatchUpTo3x3) {
    struct Case {
        std::vector<int64_t> dims;
        D x, det;
    };
    const Case cases[] = {
        {{2, 1, 1}, {-4, 2.5}, {-4, 2.5}},
        // [[1,2],[3,4]] → -2, [[1,2],[2,1]] → -3, [[1,3],[3,1]] → -8.
        {{3, 2, 2}, {1, 2, 3, 4, 1, 2, 2, 1, 1, 3, 3, 1}, {-2, -3, -8}},
        // [[2,-3,1],[2,0,-1],[1,4,5]] → 49, and the identity → 1.
        {{2, 3, 3}, {2, -3, 1, 2, 0, -1, 1, 4, 5, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {49, 1}},
    };
    for (const Case& k : cases) {
        OnnxModel m(13);
        m.input("x", k.dims).output("y");
        m.node("Det", {"x"}, {"y"});
        ir::Graph g = m.import();
        const auto out = evaluate(g, {{"x", k.x}});
        EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), k.det) << k.dims.back() << "x" << k.dims.back();
        EXPECT_EQ(out.at(0).value.shape(), ir::Shape::of({static_cast<uint32_t>(k.det.size())}));
        expect_round_trip(g);
    }
}

// A single matrix gives a scalar (ONNX rank 0, MegEngine's [1]).
TEST(OnnxDet, OfOneMatrixIsAScalar) {
    OnnxModel m(13);
    m.input("x", {2, 2}).output("y");
    m.node("Det", {"x"}, {"y"});
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {0, 1, 2, 3}}}), (D{-2}));
}

TEST(OnnxDet, RefusesLargerOrNonSquareMatrices) {
    OnnxModel four(13);
    four.input("x", {4, 4}).output("y");
    four.node("Det", {"x"}, {"y"}, "d");
    EXPECT_EQ(import_error(four),
              "test.onnx: node 'd' (Det): matrices of 4x4: only n of 1 to 3 are supported (the cofactor "
              "expansion; a "
              "larger n needs LU with pivoting, which depends on the values)");
    OnnxModel oblong(13);
    oblong.input("x", {2, 3}).output("y");
    oblong.node("Det", {"x"}, {"y"}, "d");
    EXPECT_EQ(import_error(oblong),
              "test.onnx: node 'd' (Det): the input must be square matrices [..., n, n], has shape [2,3]");
}

}  // namespace
}  // namespace mgedump::test
