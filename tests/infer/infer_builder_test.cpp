// How the builder uses inference: a refused operator is taken out again, and a
// graph the builder goes on with (a loaded one, in Python) is inferred from what
// its tables say, constants' values included.
#include <gtest/gtest.h>

#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

TEST(InferBuilder, ARefusedOperatorIsNotLeftInTheGraph) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", F32, {1, 3, 8, 8});
    ir::VarId i = b.input("i", I32, {1, 3, 8, 8});
    const size_t oprs = b.graph().oprs.size(), vars = b.graph().vars.size(), params = b.graph().params.size();
    // RELU takes 1 input (elemwise/opr_impl.cpp ModeTrait arity); the Int32 input
    // first gets the TypeCvt Elemwise::make would add, which goes too.
    EXPECT_THROW(b.op("Elemwise", {x, i}, {{"mode", "RELU"}}), GraphError);
    EXPECT_EQ(b.graph().oprs.size(), oprs);
    EXPECT_EQ(b.graph().vars.size(), vars);
    EXPECT_EQ(b.graph().params.size(), params);
    // Building goes on, and the next operator infers from the same state.
    ir::VarId y = b.op("Elemwise", {x}, {{"mode", "RELU"}});
    EXPECT_EQ(shape_of(b, y), (std::vector<uint32_t>{1, 3, 8, 8}));
    b.output(y, "y");
    EXPECT_NO_THROW(b.finish());
}

TEST(InferBuilder, ARefusedTensorOperatorIsTakenOutWithItsTensor) {
    ir::GraphBuilder b;
    b.input("x", F32, {2});
    const size_t oprs = b.graph().oprs.size(), tensors = b.graph().tensors.size();
    // An input tensor must be named (validate: "input tensor must have a name").
    EXPECT_THROW(b.input("", F32, {2}), GraphError);
    EXPECT_EQ(b.graph().oprs.size(), oprs);
    EXPECT_EQ(b.graph().tensors.size(), tensors);
}

TEST(InferBuilder, AGraphTheBuilderGoesOnWithKnowsItsConstantsValues) {
    ir::GraphBuilder first;
    ir::VarId x = first.input("x", F32, {2, 8});
    ir::VarId target = first.constant<int32_t>({2}, {4, 4});
    first.output(x, "x");
    ir::Graph g = first.finish();

    ir::GraphBuilder next;
    next.graph() = std::move(g);
    // Reshape's output shape is its target's value (tensor_manip.cpp Reshape).
    ir::VarId y = next.op("Reshape", {x, target});
    EXPECT_EQ(shape_of(next, y), (std::vector<uint32_t>{4, 4}));
}

}  // namespace
}  // namespace mgedump::test
