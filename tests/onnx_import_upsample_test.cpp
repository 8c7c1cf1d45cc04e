// Upsample (opsets 7 and 9) converted as Resize-10: asymmetric coordinates (source
// x / scale), nearest floors, linear taps clamped to the last pixel, output
// ⌊in · scale⌋. The nearest case is ONNX's own test (test_upsample_nearest: scales
// 1, 1, 2, 3 on [[1, 2], [3, 4]], onnx/backend/test/case/node/upsample.py) with its
// scales made a constant; the linear one is worked by hand below.
#include <gtest/gtest.h>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxUpsample, Opset9NearestIsOnnxsTestCase) {
    OnnxModel m(9);
    m.input("x", {1, 1, 2, 2}).output("y");
    m.initializer("scales", {4}, {1, 1, 2, 3});
    set_attr(m.node("Upsample", {"x", "scales"}, {"y"}, "up"), "mode", "nearest");
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), (std::vector<std::string>{"Resize"}));  // ⌊dst · in/out⌋ is ⌊dst / scale⌋ here
    expect_near_all(evaluate_values(g, {{"x", {1, 2, 3, 4}}}),
                    D{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}, 0);
}

TEST(OnnxUpsample, Opset7TakesTheScalesAttribute) {
    OnnxModel m(7);
    m.input("x", {1, 1, 2, 2}).output("y");
    auto& n = m.node("Upsample", {"x"}, {"y"}, "up");
    set_attr(n, "mode", "linear");
    auto* scales = n.add_attribute();
    scales->set_name("scales");
    scales->set_type(onnx::AttributeProto::FLOATS);
    for (float s : {1.f, 1.f, 2.f, 2.f}) scales->add_floats(s);
    ir::Graph g = m.import();
    // Sources 0, .5, 1, 1.5 on each axis; 1.5 clamps to the last pixel. Rows 0 and .5
    // of [[1, 2], [3, 4]]: 1, 1.5, 2, 2 and 2, 2.5, 3, 3; rows 1 and 1.5: 3, 3.5, 4, 4.
    expect_near_all(evaluate_values(g, {{"x", {1, 2, 3, 4}}}),
                    D{1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4}, 1e-6);
}

// Scales known only at run time: linear is computed from the scale fed (the
// attribute test's numbers above); nearest is refused, since whether it
// downsamples, which Upsample leaves ambiguous, is known only when it runs.
TEST(OnnxUpsample, RuntimeScalesAreLinearOnlyAndOtherOpsetsAreRefused) {
    OnnxModel runtime(9);
    runtime.input("x", {1, 1, 2, 2}).input("scales", {4}).output("y");
    set_attr(runtime.node("Upsample", {"x", "scales"}, {"y"}, "up"), "mode", "linear");
    expect_near_all(evaluate_values(runtime.import(), {{"x", {1, 2, 3, 4}}, {"scales", {1, 1, 2, 2}}}),
                    D{1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4}, 1e-6);
    OnnxModel nearest(9);
    nearest.input("x", {1, 1, 2, 2}).input("scales", {4}).output("y");
    nearest.node("Upsample", {"x", "scales"}, {"y"}, "up");
    EXPECT_NE(import_error(nearest).find("node 'up' (Upsample): opset 9 nearest resize with scales known only at run "
                                         "time is not supported"),
              std::string::npos)
        << import_error(nearest);

    OnnxModel late(13);
    late.input("x", {1, 1, 2, 2}).output("y");
    late.initializer("scales", {4}, {1, 1, 2, 2});
    late.node("Upsample", {"x", "scales"}, {"y"}, "up");
    EXPECT_EQ(import_error(late),
              "test.onnx: node 'up' (Upsample): Upsample was deprecated in opset 10; a model of opset 13 must use "
              "Resize");
}

}  // namespace
}  // namespace mgedump::test
