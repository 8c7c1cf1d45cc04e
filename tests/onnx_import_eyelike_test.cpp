// EyeLike: an import-time constant of the input's static 2-D shape, ones on
// diagonal k, in `dtype` (default the input's type); the input's values are never
// read. Expected values are numpy.eye(rows, cols, k), as ONNX's spec defines it.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxEyeLike, OnesOnTheDiagonalOffsetByKInTheGivenDtype) {
    OnnxModel m;
    m.input("x", {3, 4}, OnnxType::INT32).output("y");
    auto& n = m.node("EyeLike", {"x"}, {"y"});
    set_attr(n, "k", int64_t{1});
    set_attr(n, "dtype", int64_t{OnnxType::FLOAT});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{});  // a constant
    const auto out = evaluate(g, {{"x", D(12, 7.0)}});
    EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Float32);
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
}

TEST(OnnxEyeLike, DefaultsToTheInputsTypeAndTakesANegativeK) {
    OnnxModel m;
    m.input("x", {3, 2}, OnnxType::INT32).output("y", OnnxType::INT32);
    set_attr(m.node("EyeLike", {"x"}, {"y"}), "k", int64_t{-1});
    const auto out = evaluate(m.import(), {{"x", D(6, 3.0)}});
    EXPECT_EQ(out.at(0).value.dtype().type, ir::DTypeEnum::Int32);
    // (1, 0) and (2, 1).
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 0, 1, 0, 0, 1}));
}

TEST(OnnxEyeLike, RefusesAnInputThatIsNot2D) {
    OnnxModel m;
    m.input("x", {2, 2, 2}).output("y");
    m.node("EyeLike", {"x"}, {"y"}, "e");
    EXPECT_EQ(import_error(m), "test.onnx: node 'e' (EyeLike): the input has rank 3; EyeLike takes a 2-D tensor");
}

}  // namespace
}  // namespace mgedump::test
