// Models of opsets 1..6: the operator versions in force there are accepted when
// they mean what the handlers implement, upgraded where they differ (legacy
// broadcasting, is_test, Concat-1's default axis, TopK-1's k attribute), and
// refused by name and version otherwise (formats/onnx/op_versions.cpp).
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

// Add-6 with broadcast=1, axis=0: B (2) runs along A's axis 0.
TEST(OnnxLegacy, AddOfOpset6BroadcastsBAtTheGivenAxis) {
    OnnxModel m(6);
    m.input("a", {2, 3}).input("b", {2}).output("y").output("z");
    auto& n = m.node("Add", {"a", "b"}, {"y"});
    set_attr(n, "broadcast", int64_t{1});
    set_attr(n, "axis", int64_t{0});
    m.initializer("c", {3}, {100, 200, 300});
    set_attr(m.node("Mul", {"a", "c"}, {"z"}), "broadcast", int64_t{1});  // no axis: B matches A's last axes
    auto out = evaluate(m.import(), {{"a", {1, 2, 3, 4, 5, 6}}, {"b", {10, 20}}});
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{11, 12, 13, 24, 25, 26}));
    EXPECT_EQ(engine::eval::to_doubles(out[1].value), (D{100, 400, 900, 400, 1000, 1800}));
}

TEST(OnnxLegacy, LegacyBroadcastRefusesWhatItDoesNotAllow) {
    OnnxModel off(6);
    off.input("a", {2, 3}).input("b", {3}).output("y");
    off.node("Add", {"a", "b"}, {"y"}, "add");  // broadcast defaults to 0: shapes must be equal
    EXPECT_EQ(import_error(off),
              "test.onnx: node 'add' (Add): broadcast is 0 (opset 6) but the shapes differ: [2,3] and [3]");
    OnnxModel bad(6);
    bad.input("a", {2, 3}).input("b", {2}).output("y");
    set_attr(bad.node("Add", {"a", "b"}, {"y"}, "add"), "broadcast", int64_t{1});  // (2) is not A's last axis
    EXPECT_NE(import_error(bad).find("legacy broadcast: B [2] at axis 1 does not match A [2,3]"), std::string::npos);
}

TEST(OnnxLegacy, BatchNormalizationAndDropoutOfOpset6NeedIsTest) {
    auto model = [](bool is_test) {
        OnnxModel m(6);
        m.input("x", {1, 2, 1, 1}).output("y");
        m.initializer("s", {2}, {2, 3});
        m.initializer("b", {2}, {1, 1});
        m.initializer("mean", {2}, {0, 1});
        m.initializer("var", {2}, {1, 4});
        auto& bn = m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"t"}, "bn");
        set_attr(bn, "epsilon", 0.f);
        auto& d = m.node("Dropout", {"t"}, {"y"}, "drop");
        if (is_test) {
            set_attr(bn, "is_test", int64_t{1});
            set_attr(d, "is_test", int64_t{1});
        }
        return m;
    };
    // y = s·(x − mean)/√var + b
    EXPECT_EQ(evaluate_values(model(true).import(), {{"x", {1, 3}}}), (D{3, 4}));
    EXPECT_EQ(import_error(model(false)),
              "test.onnx: node 'bn' (BatchNormalization): is_test is 0 (training mode, the default at opset 6); only "
              "is_test=1 (inference) is supported");
}

TEST(OnnxLegacy, OperatorVersionsThatDifferAreRefusedByVersion) {
    OnnxModel prelu(5);  // PRelu-1 has consumed_inputs
    prelu.input("x", {1, 2}).output("y");
    prelu.initializer("slope", {2}, {0.1f, 0.2f});
    prelu.node("PRelu", {"x", "slope"}, {"y"}, "p");
    prelu.node("Erf", {"y"}, {"z"}, "e");
    EXPECT_EQ(import_error(prelu),
              "test.onnx: 2 operator types cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported ones): "
              "PRelu (1 node, first 'p': PRelu-1, the version in force at opset 5, is not supported); Erf (1 node, "
              "first 'e': Erf does not exist at opset 5)");
    OnnxModel reshape1(4);  // Reshape-1 takes the shape as an attribute
    reshape1.input("x", {2, 2}).output("y");
    set_attr(reshape1.node("Reshape", {"x"}, {"y"}, "r"), "shape", std::vector<int64_t>{4});
    EXPECT_NE(import_error(reshape1).find("Reshape-1, the version in force at opset 4, is not supported"),
              std::string::npos);
}

TEST(OnnxLegacy, ConcatOfOpset3DefaultsToAxis1AndGemmBroadcastIsChecked) {
    OnnxModel m(3);
    m.input("a", {2, 1}).input("b", {2, 2}).output("y");
    m.node("Concat", {"a", "b"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(int_field(g, find_opr(g, "Concat"), "axis"), 1);
    EXPECT_EQ(evaluate_values(g, {{"a", {1, 2}}, {"b", {3, 4, 5, 6}}}), (D{1, 3, 4, 2, 5, 6}));

    OnnxModel gemm(6);
    gemm.input("a", {2, 2}).input("b", {2, 2}).output("y");
    gemm.initializer("c", {2}, {10, 20});
    gemm.node("Gemm", {"a", "b", "c"}, {"y"}, "g");  // broadcast = 0: C must be (M, N)
    EXPECT_NE(import_error(gemm).find("broadcast is 0 (opset 6) but C has shape [2], not [2,2]"), std::string::npos);
    set_attr(*gemm.proto().mutable_graph()->mutable_node(0), "broadcast", int64_t{1});
    EXPECT_EQ(evaluate_values(gemm.import(), {{"a", {1, 0, 0, 1}}, {"b", {1, 2, 3, 4}}}), (D{11, 22, 13, 24}));
}

// PRelu-6: a slope of one element is shared; one of C elements is per channel
// (X's axis 1), where PRelu-7's numpy rule would align it with the last axis.
TEST(OnnxLegacy, PRelu6TakesASharedOrAPerChannelSlope) {
    OnnxModel m(6);
    m.input("x", {1, 3, 2}).output("y");
    m.initializer("slope", {3}, {0.5f, 0.25f, 2.0f});
    m.node("PRelu", {"x", "slope"}, {"y"});
    // y = x for x >= 0, slope[c]·x otherwise.
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {-2, 4, -4, 1, -1, -3}}}), (D{-1, 4, -1, 1, -2, -6}));

    OnnxModel shared(6);
    shared.input("x", {2, 2}).input("slope", {1}).output("y");
    shared.node("PRelu", {"x", "slope"}, {"y"});
    EXPECT_EQ(evaluate_values(shared.import(), {{"x", {-2, 2, -4, 0}}, {"slope", {0.5}}}), (D{-1, 2, -2, 0}));

    OnnxModel last(6);  // a slope of X's last dim, not its channels: no meaning at opset 6
    last.input("x", {1, 3, 2}).output("y");
    last.initializer("slope", {2}, {0.5f, 0.25f});
    last.node("PRelu", {"x", "slope"}, {"y"}, "p");
    EXPECT_EQ(import_error(last),
              "test.onnx: node 'p' (PRelu): PRelu-6 slope of shape [2] for X [1,3,2]: it must have one element "
              "(shared), one per channel (X's axis 1) or X's shape");
}

}  // namespace
}  // namespace mgedump::test
