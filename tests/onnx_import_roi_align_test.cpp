// RoiAlign (opsets 10 and 16) onto MegEngine's ROIAlign behind one replicated pixel
// of padding. Expected values worked by hand from ONNX's definition as onnxruntime
// computes it (pre_calc_for_bilinear_interpolate, whose outputs are ONNX's test
// data): a sample point in [−1, 0] is clamped to 0, one at or past size − 1 to
// size − 1; output_half_pixel makes a roi at least 1 pixel wide; half_pixel shifts
// by −0.5. X = [[1, 2], [3, 4]] interpolates to 1 + x + 2y inside.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

OnnxModel roi_model(int64_t opset, int64_t batch, int64_t rois, int64_t ratio) {
    OnnxModel m(opset);
    m.input("x", {batch, 1, 2, 2}).input("rois", {rois, 4}).input("idx", {rois}, OnnxType::INT64).output("y");
    auto& n = m.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
    set_attr(n, "output_height", int64_t{1});
    set_attr(n, "output_width", int64_t{1});
    set_attr(n, "sampling_ratio", ratio);
    return m;
}

TEST(OnnxRoiAlign, OutputHalfPixelClampsAtTheBordersAndToOnePixel) {
    ir::Graph g = roi_model(10, 1, 3, 1).import();
    EXPECT_EQ(compute_ops(g), (std::vector<std::string>{"Padding", "TypeCvt", "Reshape", "Elemwise", "Subtensor",
                                                        "Reshape", "Subtensor", "Reshape", "Subtensor", "Reshape",
                                                        "Subtensor", "Reshape", "Elemwise", "Elemwise", "Elemwise",
                                                        "Elemwise", "Concat", "ROIAlign"}));
    // (−1, −1)–(0, 0): one sample at (−.5, −.5), clamped to (0, 0): 1 (MegEngine alone
    // would blend in zeros: .25). (1, 1)–(2, 2): (1.5, 1.5) clamped to (1, 1): 4.
    // (.25, .25)–(.25, .25): widened to 1 pixel, the sample at (.75, .75): 1 + .75 + 1.5.
    const D got = evaluate_values(g, {{"x", {1, 2, 3, 4}},
                                      {"rois", {-1, -1, 0, 0, 1, 1, 2, 2, .25, .25, .25, .25}},
                                      {"idx", {0, 0, 0}}});
    expect_near_all(got, D{1, 4, 3.25}, 1e-6);
    const ir::OprId ra = find_opr(g, "ROIAlign");
    EXPECT_EQ(enum_field(g, ra, "mode"), "AVERAGE");
    EXPECT_EQ(int_field(g, ra, "sample_height"), 1);
}

// The rois a selection kept (torchvision's MultiScaleRoIAlign takes the boxes
// its proposal filtering kept, through an Identity): a count only the run time
// knows, for the rois and their batch indices. The rows are those of the first
// test, each selected by a mask; the dims the import knows of the selection
// (Shape of it, then Gather of dim 1: 4) are a constant, as torchvision's
// `x.shape[1] == 1` test needs to be resolved at import.
TEST(OnnxRoiAlign, RoisASelectionKeptComeInACountOnlyTheRunTimeKnows) {
    OnnxModel m(10);
    m.input("x", {1, 1, 2, 2}).input("all_rois", {3, 4}).input("all_idx", {3}, OnnxType::INT64);
    m.input("mask", {3}, OnnxType::BOOL).output("y").output("width", OnnxType::INT64);
    m.node("NonZero", {"mask"}, {"coords"});
    m.node("Transpose", {"coords"}, {"tuples"});
    m.node("GatherND", {"all_rois", "tuples"}, {"kept"});
    m.node("GatherND", {"all_idx", "tuples"}, {"idx"});
    m.node("Identity", {"kept"}, {"rois"}, "identity");
    m.node("Shape", {"rois"}, {"rois_shape"});
    m.initializer_i64("one", {}, {1});
    m.node("Gather", {"rois_shape", "one"}, {"width"}, "width");
    auto& n = m.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
    set_attr(n, "output_height", int64_t{1});
    set_attr(n, "output_width", int64_t{1});
    set_attr(n, "sampling_ratio", int64_t{1});
    const ir::Graph g = m.import();
    EXPECT_EQ(count_ops(g, "ROIAlign"), 1u);
    EXPECT_TRUE(g.var_shape(g.outputs.at(0)).empty());  // its count is known only at run time
    const ir::VarId width = g.outputs.at(1);
    EXPECT_EQ(ir::op_def(g.oprs.type[g.vars.owner[width.value].value]).name, "ImmutableTensor");
    const D rois{-1, -1, 0, 0, 1, 1, 2, 2, .25, .25, .25, .25};
    // As imported, and as a MegEngine loader rebuilds it from each format (the
    // dump leaves out what the constant width made unused: the GetVarShape).
    const formats::LoadedModel v1 = dumped_and_loaded(g, engine::DumpFormat::FBS),
                               v2 = dumped_and_loaded(g, engine::DumpFormat::FBS_V2);
    for (const ir::Graph* graph : {&g, &v1.graph, &v2.graph}) {
        auto out = evaluate(
            *graph, {{"x", {1, 2, 3, 4}}, {"all_rois", rois}, {"all_idx", {0, 0, 0}}, {"mask", {1, 0, 1}}});
        EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 1, 1, 1}));
        expect_near_all(engine::eval::to_doubles(out[0].value), D{1, 3.25}, 1e-6);
        EXPECT_EQ(engine::eval::to_doubles(out[1].value), D{4});
    }
    auto out =
        evaluate(g, {{"x", {1, 2, 3, 4}}, {"all_rois", rois}, {"all_idx", {0, 0, 0}}, {"mask", {0, 1, 0}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{1, 1, 1, 1}));
    expect_near_all(engine::eval::to_doubles(out[0].value), D{4}, 1e-6);
}

TEST(OnnxRoiAlign, HalfPixelShiftsByHalfAPixelAndReadsTheBatchIndex) {
    // Opset 16's default mode. (.5, .5)–(1.5, 1.5) shifted to (0, 0)–(1, 1): the sample
    // at (.5, .5) of batch 1 (X + 10): 2.5 + 10.
    ir::Graph g = roi_model(16, 2, 1, 1).import();
    EXPECT_EQ(compute_ops(g), (std::vector<std::string>{"Padding", "TypeCvt", "Reshape", "Concat", "ROIAlign"}));
    const D got =
        evaluate_values(g, {{"x", {1, 2, 3, 4, 11, 12, 13, 14}}, {"rois", {.5, .5, 1.5, 1.5}}, {"idx", {1}}});
    expect_near_all(got, D{12.5}, 1e-6);
}

TEST(OnnxRoiAlign, AdaptiveSamplingTakesTheCountOfConstantRois) {
    // sampling_ratio 0: ⌈3 / 1⌉ = 3 samples per side at .5, 1.5, 2.5 of X[r][c] = 4r + c:
    // the mean 4·1.5 + 1.5.
    OnnxModel m(10);
    m.input("x", {1, 1, 4, 4}).output("y");
    m.initializer("rois", {1, 4}, std::vector<float>{0, 0, 3, 3});
    m.initializer_i64("idx", {1}, {0});
    auto& n = m.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
    set_attr(n, "sampling_ratio", int64_t{0});
    ir::Graph g = m.import();
    // Constant rois: the (R, 5) table is made at import, (0, 0, 0, 3, 3).
    EXPECT_EQ(compute_ops(g), (std::vector<std::string>{"Padding", "ROIAlign"}));
    const ir::OprId ra = find_opr(g, "ROIAlign");
    EXPECT_EQ(input_floats(g, ra, 1), (std::vector<float>{0, 0, 0, 3, 3}));
    EXPECT_EQ(int_field(g, ra, "sample_height"), 3);
    EXPECT_EQ(int_field(g, ra, "sample_width"), 3);
    D x(16);
    for (size_t i = 0; i < 16; ++i) x[i] = static_cast<double>(i);
    expect_near_all(evaluate_values(g, {{"x", x}}), D{7.5}, 1e-6);
}

TEST(OnnxRoiAlign, AdaptiveSamplingRefusesRoisThatGiveNoSampleCount) {
    // The counts were converted to integers unchecked: undefined for NaN and past int64.
    struct Case {
        float corner;
        const char* error;
    };
    for (const Case& t : {Case{std::nanf(""), "roi 0 is empty, inverted or not a number; adaptive sampling gives it "
                                              "nanxnan samples"},
                          Case{1e30f, "roi 0 is too large; adaptive sampling gives it 1e+30x1e+30 samples"}}) {
        OnnxModel m(10);
        m.input("x", {1, 1, 4, 4}).output("y");
        m.initializer("rois", {1, 4}, std::vector<float>{0, 0, t.corner, t.corner});
        m.initializer_i64("idx", {1}, {0});
        set_attr(m.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra"), "sampling_ratio", int64_t{0});
        const std::string error = import_error(m);
        EXPECT_NE(error.find(std::string("node 'ra' (RoiAlign): ") + t.error), std::string::npos) << error;
    }
}

TEST(OnnxRoiAlign, RefusesWhatMegEnginesROIAlignCannotCompute) {
    OnnxModel max = roi_model(16, 1, 1, 1);
    set_attr(*max.proto().mutable_graph()->mutable_node(0), "mode", "max");
    EXPECT_NE(import_error(max).find("mode 'max' is not supported"), std::string::npos) << import_error(max);

    const std::string runtime = import_error(roi_model(16, 1, 1, 0));
    EXPECT_NE(runtime.find("sampling_ratio 0 (adaptive"), std::string::npos) << runtime;
    EXPECT_NE(runtime.find("needs rois known at conversion"), std::string::npos) << runtime;

    OnnxModel mixed(10);
    mixed.input("x", {1, 1, 4, 4}).output("y");
    mixed.initializer("rois", {2, 4}, std::vector<float>{0, 0, 3, 3, 0, 0, 1, 1});
    mixed.initializer_i64("idx", {2}, {0, 0});
    mixed.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
    EXPECT_EQ(import_error(mixed),
              "test.onnx: node 'ra' (RoiAlign): sampling_ratio 0 gives roi 0 3x3 samples and roi 1 1x1; "
              "MegEngine's ROIAlign takes one sample count for every roi");

    // A constant batch index outside X's batch: MegEngine would read outside the map.
    for (int64_t bad : {int64_t{2}, int64_t{-1}}) {
        OnnxModel outside(10);
        outside.input("x", {2, 1, 4, 4}).output("y");
        outside.initializer("rois", {2, 4}, std::vector<float>{0, 0, 1, 1, 0, 0, 1, 1});
        outside.initializer_i64("idx", {2}, {1, bad});
        outside.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
        EXPECT_EQ(import_error(outside), fmt::format("test.onnx: node 'ra' (RoiAlign): batch_indices[1] = {} is not "
                                                     "an image of X's batch of 2",
                                                     bad));
    }

    OnnxModel dbl(16);
    dbl.input("x", {1, 1, 2, 2}, OnnxType::DOUBLE).input("rois", {1, 4}, OnnxType::DOUBLE);
    dbl.input("idx", {1}, OnnxType::INT64).output("y", OnnxType::DOUBLE);
    dbl.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
    EXPECT_NE(import_error(dbl).find("X and rois must be FLOAT"), std::string::npos) << import_error(dbl);
}

}  // namespace
}  // namespace mgedump::test
