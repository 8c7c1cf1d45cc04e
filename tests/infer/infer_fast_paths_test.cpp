// The shortcuts inference takes for speed (ir/infer/context.*, rules_elemwise.cpp):
// each must give what the general path gives. The general paths are the ones the
// rule tests check against MegEngine's source; here they are the reference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/infer/elemwise_util.h"
#include "tests/infer/infer_test_util.h"

namespace mgedump::test {
namespace {

// Every pair of shapes of up to 3 dims drawn from {0, 1, 2, 3}: the Elemwise
// rule's two-input broadcast must agree with elemwise_shape of the pair, output
// shape or refusal alike.
TEST(InferFastPaths, TwoInputBroadcastAgreesWithTheGeneralWalk) {
    std::vector<std::vector<uint32_t>> shapes;
    for (uint32_t ndim = 1; ndim <= 3; ++ndim) {
        std::vector<uint32_t> s(ndim, 0);
        for (;;) {
            shapes.push_back(s);
            size_t i = 0;
            while (i < ndim && ++s[i] == 4) s[i++] = 0;
            if (i == ndim) break;
        }
    }
    size_t compared = 0, refused = 0;
    for (const auto& a : shapes)
        for (const auto& c : shapes) {
            const ir::Shape sa = ir::Shape::of(a), sc = ir::Shape::of(c);
            const std::vector<ir::Shape> pair{sa, sc};
            const std::optional<ir::Shape> expected = ir::elemwise::elemwise_shape(std::span<const ir::Shape>(pair));
            GraphBuilder b;
            const VarId x = b.input("x", F32, a), z = b.input("z", F32, c);
            if (!expected) {
                expect_refused([&] { b.op("Elemwise", {x, z}, {{"mode", "ADD"}}); }, "do not broadcast");
                ++refused;
                continue;
            }
            const VarId y = b.op("Elemwise", {x, z}, {{"mode", "ADD"}});
            ASSERT_EQ(shape_of(b, y), std::vector<uint32_t>(expected->dims().begin(), expected->dims().end()))
                << ir::shape_string(sa) << " + " << ir::shape_string(sc);
            ++compared;
        }
    // 84 shapes: both outcomes occur many times.
    EXPECT_GT(compared, 1000u);
    EXPECT_GT(refused, 1000u);
}

// Field lookups are cached by (param table, name literal): the same literal read
// from operators of different param tables gives each its own field.
TEST(InferFastPaths, OneFieldNameReadFromTwoParamTables) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 3, 4});
    for (int round = 0; round < 3; ++round) {
        // Elemwise.mode and Reduce.mode are both "mode", in different tables.
        const VarId r = b.op("Elemwise", {x}, {{"mode", "RELU"}});
        EXPECT_EQ(shape_of(b, r), (std::vector<uint32_t>{2, 3, 4}));
        const VarId m = b.op("Reduce", {r}, {{"mode", "MAX"}, {"axis", 2}});
        EXPECT_EQ(shape_of(b, m), (std::vector<uint32_t>{2, 3, 1}));
        const VarId s = b.op("Reduce", {r}, {{"mode", "SUM"}, {"axis", 0}});
        EXPECT_EQ(shape_of(b, s), (std::vector<uint32_t>{1, 3, 4}));
    }
}

// The first 64 outputs are tracked in a bit mask, the rest in the state's
// scratch: a Split into 70 parts sets, and checks, all of them.
TEST(InferFastPaths, AnOperatorWithMoreThan64Outputs) {
    GraphBuilder b;
    const VarId x = b.input("x", F32, {2, 70});
    std::vector<VarId> inputs{x};
    for (int k = 0; k < 70; ++k) inputs.push_back(scalar(b, 1));
    const VarId first = b.op("Split", inputs, {{"axis", 1}}, ir::OpOptions{.outputs = 70});
    for (uint32_t k = 0; k < 70; ++k) {
        EXPECT_EQ(shape_of(b, nth(first, k)), (std::vector<uint32_t>{2, 1})) << "output " << k;
        EXPECT_EQ(dtype_of(b, nth(first, k)), F32);
    }
}

}  // namespace
}  // namespace mgedump::test
