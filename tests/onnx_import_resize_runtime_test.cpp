// Resize to `sizes` known only at run time (formats/onnx/resize_runtime.cpp): one
// graph, resized to whatever sizes it is fed. Nearest and linear gather along every
// axis at indices computed on Int32 from ONNX's coordinate formula; cubic is one
// Resize to the runtime (H, W) with N and C broadcast. The numbers are checked by
// hand against ONNX's definition (onnx/backend/test/case/node/resize.py) and, over
// every coordinate mode and rounding, against the same node with the sizes made a
// constant (the static mapping, itself checked against ONNX's test data). Scales
// known only at run time are computed in Float32, checked by hand here and against
// ONNX's thirteen runtime-scales test models in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

D ramp_values(size_t n) {
    D v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % 101) / 7.0;  // not monotone
    return v;
}

// Resize(x, sizes) with `sizes` a graph input (runtime) or an initializer (constant).
OnnxModel resize_model(const std::vector<int64_t>& in, const std::string& mode, const std::string& coord,
                       const std::string& rounding, const std::vector<int64_t>* constant_sizes = nullptr) {
    OnnxModel m(13);
    m.input("x", in);
    if (constant_sizes)
        m.initializer_i64("sizes", {static_cast<int64_t>(in.size())}, *constant_sizes);
    else
        m.input("sizes", {static_cast<int64_t>(in.size())}, OnnxType::INT64);
    m.output("y");
    auto& n = m.node("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
    set_attr(n, "mode", mode.c_str());
    if (!coord.empty()) set_attr(n, "coordinate_transformation_mode", coord.c_str());
    if (!rounding.empty()) set_attr(n, "nearest_mode", rounding.c_str());
    return m;
}

D to_doubles(const std::vector<int64_t>& v) { return D(v.begin(), v.end()); }

// Dumps in both formats (as is) and loads back with the gathers and resizes kept
// (MegEngine's make-time folds, which the dump applies, may fold or reorder the
// constant parts of the index arithmetic).
void expect_round_trip_of_gathers(const ir::Graph& g) {
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        formats::LoadedModel m = dumped_and_loaded(g, format);
        for (const char* op : {"IndexingMultiAxisVec", "Resize"})
            EXPECT_EQ(count_ops(m.graph, op), count_ops(g, op)) << op;
    }
}

TEST(OnnxResizeRuntime, NearestGathersEveryAxisAtIndicesComputedAtRunTime) {
    ir::Graph g = resize_model({1, 1, 2, 2}, "nearest", "", "").import();
    EXPECT_EQ(count_ops(g, "Resize"), 0u);
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 4u);  // one per axis: any of them may be resized
    EXPECT_TRUE(g.var_shape(g.outputs.at(0)).empty());   // the dims are known only at run time
    expect_round_trip_of_gathers(g);
    const D x{1, 2, 3, 4};
    // ONNX's test_resize_upsample_sizes_nearest (half_pixel, round_prefer_floor): 2×2 to 7×8.
    auto out = evaluate(g, {{"x", x}, {"sizes", {1, 1, 7, 8}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{1, 1, 7, 8}));
    D want;
    for (int r = 0; r < 7; ++r)
        for (int c = 0; c < 8; ++c) want.push_back((r < 4 ? 1 : 3) + (c < 4 ? 0 : 1));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), want);
    // The same graph to 1×1: the source coordinate is exactly ½ on both axes, which
    // round_prefer_floor rounds down: element (0, 0).
    out = evaluate(g, {{"x", x}, {"sizes", {1, 1, 1, 1}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{1, 1, 1, 1}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1}));
    // N resized from 1 to 2: coordinates −¼ and ¼ both read the one image.
    out = evaluate(g, {{"x", x}, {"sizes", {2, 1, 2, 2}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 1, 2, 2}));
    EXPECT_EQ(engine::eval::to_doubles(out[0].value), (D{1, 2, 3, 4, 1, 2, 3, 4}));
}

TEST(OnnxResizeRuntime, NearestTiesFollowNearestMode) {
    // 2 to 3 columns, half_pixel: column 1 samples at ((2·1 + 1)·2 − 3)/6 = ½ exactly.
    for (auto [rounding, middle] : {std::pair{"round_prefer_floor", 1.0}, std::pair{"round_prefer_ceil", 2.0},
                                    std::pair{"floor", 1.0}, std::pair{"ceil", 2.0}}) {
        SCOPED_TRACE(rounding);
        ir::Graph g = resize_model({1, 1, 1, 2}, "nearest", "half_pixel", rounding).import();
        // Column 0 at −¼ (floor −1, clamped to 0; ceil 0), column 2 at 1¼ (floor and the
        // roundings 1, ceil 2 clamped to 1).
        EXPECT_EQ(evaluate_values(g, {{"x", {1, 2}}, {"sizes", {1, 1, 1, 3}}}), (D{1, middle, 2}));
    }
}

TEST(OnnxResizeRuntime, LinearWeightsTheTwoTapsOfEveryAxis) {
    ir::Graph g = resize_model({1, 1, 1, 2}, "linear", "align_corners", "").import();
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 8u);  // two taps per axis
    expect_round_trip_of_gathers(g);
    // align_corners, 2 to 5: coordinates x·(2 − 1)/(5 − 1) = 0, ¼, ½, ¾, 1.
    expect_near_all(evaluate_values(g, {{"x", {10, 20}}, {"sizes", {1, 1, 1, 5}}}), D{10, 12.5, 15, 17.5, 20});
    // To 1 column: align_corners samples at 0.
    expect_near_all(evaluate_values(g, {{"x", {10, 20}}, {"sizes", {1, 1, 1, 1}}}), D{10});
    // pytorch_half_pixel to 1 column samples at −½: element 0 (edge-clamped).
    ir::Graph p = resize_model({1, 1, 1, 2}, "linear", "pytorch_half_pixel", "").import();
    expect_near_all(evaluate_values(p, {{"x", {10, 20}}, {"sizes", {1, 1, 1, 1}}}), D{10});
    // half_pixel would sample at ½: the mean.
    ir::Graph h = resize_model({1, 1, 1, 2}, "linear", "half_pixel", "").import();
    expect_near_all(evaluate_values(h, {{"x", {10, 20}}, {"sizes", {1, 1, 1, 1}}}), D{15});
}

// Every coordinate mode and rounding, several sizes for one graph: the runtime mapping
// gives what the static one gives with the same sizes as a constant.
TEST(OnnxResizeRuntime, EveryModeAgreesWithTheConstantSizesMapping) {
    const std::vector<int64_t> in{1, 2, 3, 4};
    const std::vector<std::vector<int64_t>> sizes{{1, 2, 5, 7}, {1, 2, 1, 1}, {1, 2, 2, 3}, {2, 1, 3, 8}, {1, 3, 7, 2}};
    const D x = ramp_values(24);
    auto check = [&](const std::string& mode, const std::string& coord, const std::string& rounding) {
        ir::Graph g = resize_model(in, mode, coord, rounding).import();
        for (const auto& s : sizes) {
            SCOPED_TRACE(mode + " " + coord + " " + rounding + " to " + std::to_string(s[2]) + "x" + std::to_string(s[3]));
            ir::Graph fixed = resize_model(in, mode, coord, rounding, &s).import();
            auto out = evaluate(g, {{"x", x}, {"sizes", to_doubles(s)}});
            EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>(s.begin(), s.end())));
            expect_near_all(engine::eval::to_doubles(out[0].value), evaluate_values(fixed, {{"x", x}}), 1e-6);
        }
    };
    for (std::string coord : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"}) {
        for (std::string rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})
            check("nearest", coord, rounding);
        if (coord != "tf_half_pixel_for_nn") check("linear", coord, "");
    }
}

TEST(OnnxResizeRuntime, CubicIsOneResizeToTheRuntimeHeightAndWidth) {
    ir::Graph g = resize_model({1, 1, 4, 4}, "cubic", "", "").import();
    EXPECT_EQ(count_ops(g, "Resize"), 1u);
    EXPECT_EQ(enum_field(g, find_opr(g, "Resize"), "imode"), "CUBIC");
    EXPECT_EQ(count_ops(g, "Broadcast"), 1u);
    const D x = ramp_values(16);
    for (const std::vector<int64_t>& s : {std::vector<int64_t>{1, 1, 8, 8}, {1, 1, 3, 3}, {1, 1, 5, 2}}) {
        ir::Graph fixed = resize_model({1, 1, 4, 4}, "cubic", "", "", &s).import();
        expect_near_all(evaluate_values(g, {{"x", x}, {"sizes", to_doubles(s)}}), evaluate_values(fixed, {{"x", x}}),
                        1e-6);
    }
    // N from 1 to 2: ONNX's resize of a length-1 axis reads its one element everywhere.
    auto out = evaluate(g, {{"x", x}, {"sizes", {2, 1, 4, 4}}});
    EXPECT_EQ(dims_of(out[0]), (std::vector<uint32_t>{2, 1, 4, 4}));
    const D y = engine::eval::to_doubles(out[0].value);
    expect_near_all(D(y.begin(), y.begin() + 16), D(y.begin() + 16, y.end()), 0);
    // Another N than the input's (or 1) is no Broadcast: refused at run time.
    ir::Graph two = resize_model({2, 1, 4, 4}, "cubic", "", "").import();
    EXPECT_THROW(evaluate(two, {{"x", ramp_values(32)}, {"sizes", {3, 1, 4, 4}}}), Error);
}

TEST(OnnxResizeRuntime, CubicThatResizeDoesNotComputeWithRuntimeSizesIsRefused) {
    EXPECT_NE(import_error(resize_model({1, 1, 4, 4}, "cubic", "align_corners", ""))
                  .find("node 'resize' (Resize): cubic resize to sizes known only at run time is supported only "
                        "where MegEngine's Resize computes it"),
              std::string::npos);
    // ONNX's cubic other than MegEngine's is decomposed with sizes known at import
    // time only.
    OnnxModel excluding = resize_model({1, 1, 4, 4}, "cubic", "", "");
    set_attr(*excluding.proto().mutable_graph()->mutable_node(0), "exclude_outside", int64_t{1});
    EXPECT_NE(import_error(excluding).find("node 'resize' (Resize): exclude_outside=1 with sizes known only at run "
                                           "time is not supported"),
              std::string::npos)
        << import_error(excluding);
    OnnxModel other_a = resize_model({1, 1, 4, 4}, "cubic", "", "");
    set_attr(*other_a.proto().mutable_graph()->mutable_node(0), "cubic_coeff_a", -0.5f);
    EXPECT_NE(import_error(other_a).find("node 'resize' (Resize): cubic_coeff_a -0.5 with sizes known only at run "
                                         "time is not supported"),
              std::string::npos)
        << import_error(other_a);
}

// Resize(x [1, 1, 1, 4], scales) with `scales` a graph input.
OnnxModel scales_model(const std::string& mode, const std::string& coord, int64_t opset = 13,
                       int32_t type = OnnxType::FLOAT) {
    OnnxModel m(opset);
    m.input("x", {1, 1, 1, 4}, type).input("scales", {4}).output("y", type);
    auto& n = opset < 11 ? m.node("Resize", {"x", "scales"}, {"y"}, "resize")
                         : m.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    set_attr(n, "mode", mode.c_str());
    if (!coord.empty()) set_attr(n, "coordinate_transformation_mode", coord.c_str());
    return m;
}

// Scales known only at run time: the length ⌊in · scale⌋ and the source
// coordinates come from the scale fed, not from out/in. Linear half_pixel on
// [10, 20, 30, 40], worked from ONNX's definition:
//   scale 0.7: length 2.8 → 2 positions at (x + ½)/0.7 − ½ = 0.2143, 1.6429: 10·0.7857 +
//     20·0.2143 = 12.143 and 20·0.3571 + 30·0.6429 = 26.429 (out/in = ½ would sample 0.5
//     and 2.5: 15 and 35);
//   scale 2: 8 positions at −0.25, 0.25, …, 3.25, clamped at the edges: 10, 12.5, 17.5,
//     22.5, 27.5, 32.5, 37.5, 40.
TEST(OnnxResizeRuntime, ScalesKnownAtRunTimeGiveTheLengthAndCoordinatesOfTheScaleFed) {
    const ir::Graph g = scales_model("linear", "").import();
    EXPECT_EQ(count_ops(g, "Resize"), 0u);
    EXPECT_TRUE(g.var_shape(g.outputs.at(0)).empty());
    expect_round_trip_of_gathers(g);
    const D x{10, 20, 30, 40};
    auto out = evaluate(g, {{"x", x}, {"scales", {1, 1, 1, 0.7}}});
    EXPECT_EQ(dims_of(out.at(0)), (std::vector<uint32_t>{1, 1, 1, 2}));
    expect_near_all(engine::eval::to_doubles(out.at(0).value), D{12.142857, 26.428571}, 1e-6);
    out = evaluate(g, {{"x", x}, {"scales", {1, 1, 1, 2}}});
    EXPECT_EQ(dims_of(out.at(0)), (std::vector<uint32_t>{1, 1, 1, 8}));
    expect_near_all(engine::eval::to_doubles(out.at(0).value), D{10, 12.5, 17.5, 22.5, 27.5, 32.5, 37.5, 40}, 1e-6);
}

// align_corners divides by the unrounded length in·scale − 1, as ONNX's reference
// does: scale 0.6 on 4 is length 2.4, 2 positions at 0 and 1 · 3/1.4 = 2.1429, which
// reads 30·0.8571 + 40·0.1429 = 31.429 (the rounded length would sample 3: 40).
// Nearest (round_prefer_floor) at asymmetric x/0.6 = 0, 1.667 reads 10 and 30.
TEST(OnnxResizeRuntime, AlignCornersTakesTheUnroundedLengthAndNearestRoundsTheScaledCoordinate) {
    const D x{10, 20, 30, 40};
    expect_near_all(evaluate_values(scales_model("linear", "align_corners").import(), {{"x", x}, {"scales", {1, 1, 1, 0.6}}}),
                    D{10, 31.428571}, 1e-6);
    EXPECT_EQ(evaluate_values(scales_model("nearest", "asymmetric").import(), {{"x", x}, {"scales", {1, 1, 1, 0.6}}}),
              (D{10, 30}));
}

TEST(OnnxResizeRuntime, RuntimeScalesItCannotMapAreRefusedSayingWhy) {
    const std::string crop = import_error(scales_model("linear", "tf_crop_and_resize"));
    EXPECT_NE(crop.find("node 'resize' (Resize): tf_crop_and_resize with scales known only at run time is not "
                        "supported"),
              std::string::npos)
        << crop;
    const std::string v10 = import_error(scales_model("nearest", "", 10));
    EXPECT_NE(v10.find("node 'resize' (Resize): opset 10 nearest resize with scales known only at run time is not "
                       "supported: whether an axis is downsampled is known only when it runs"),
              std::string::npos)
        << v10;
    const std::string ints = import_error(scales_model("linear", "", 13, OnnxType::INT32));
    EXPECT_NE(ints.find("node 'resize' (Resize): linear resize of INT32 by scales known only at run time is not "
                        "supported (FLOAT only)"),
              std::string::npos)
        << ints;
}

}  // namespace
}  // namespace mgedump::test
