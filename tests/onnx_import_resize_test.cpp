// Resize: where MegEngine's Resize samples as ONNX does, one Resize; otherwise
// the exact decomposition (gathers, weighted for linear and cubic; Where for
// tf_crop_and_resize's extrapolation), or a refusal naming the node. The numbers are checked with the reference evaluator against ONNX's
// definition (a 1-D resample per axis, as onnx/backend/test/case/node/resize.py
// computes it) and against ONNX's own test data with scales/sizes made constants.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "engine/eval/onnx_test_data.h"
#include "formats/onnx/onnx_proto.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;
using V = std::vector<std::string>;

// ONNX's reference resize of an NCHW tensor, one axis at a time: the source
// coordinate of each output position, then nearest (with its rounding) or the
// two linear taps, edge-clamped. `length` is in·scale (unrounded) for scales.
struct RefAxis {
    int64_t in, out;
    double scale, length;
};
double ref_coordinate(const std::string& coord, const RefAxis& a, int64_t x) {
    if (coord == "asymmetric") return x / a.scale;
    if (coord == "align_corners") return a.length == 1 ? 0 : x * (a.in - 1.0) / (a.length - 1);
    if (coord == "pytorch_half_pixel" && a.length == 1) return -0.5;
    return (x + 0.5) / a.scale - 0.5;  // half_pixel, pytorch_half_pixel
}
std::vector<double> ref_resize(const std::vector<double>& x, std::vector<int64_t> shape,
                               const std::vector<RefAxis>& axes, const std::string& mode,
                               const std::string& coord, const std::string& rounding) {
    std::vector<double> cur = x;
    for (size_t axis = 0; axis < shape.size(); ++axis) {
        const RefAxis& a = axes[axis];
        int64_t outer = 1, inner = 1;
        for (size_t k = 0; k < axis; ++k) outer *= shape[k];
        for (size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
        std::vector<double> next(static_cast<size_t>(outer * a.out * inner));
        auto at = [&](int64_t o, int64_t i, int64_t k) {
            return cur[static_cast<size_t>((o * a.in + std::clamp<int64_t>(i, 0, a.in - 1)) * inner + k)];
        };
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t d = 0; d < a.out; ++d) {
                const double s = ref_coordinate(coord, a, d), f = std::floor(s), r = s - f;
                for (int64_t k = 0; k < inner; ++k) {
                    double v;
                    if (mode == "nearest") {
                        bool up =
                            r != 0 && (rounding == "ceil" || (rounding == "round_prefer_floor" && r > 0.5) ||
                                       (rounding == "round_prefer_ceil" && r >= 0.5));
                        v = at(o, static_cast<int64_t>(f) + up, k);
                    } else {
                        v = at(o, static_cast<int64_t>(f), k) * (1 - r) +
                            at(o, static_cast<int64_t>(f) + 1, k) * r;
                    }
                    next[static_cast<size_t>((o * a.out + d) * inner + k)] = v;
                }
            }
        cur = std::move(next);
        shape[axis] = a.out;
    }
    return cur;
}

std::vector<double> ramp(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % 101) / 7.0;  // not monotone
    return v;
}

struct ResizeCase {
    std::string mode, coord, rounding;
    std::vector<int64_t> in;
    std::vector<float> scales;
};

// A Resize node with constant scales, converted, evaluated and compared with ref_resize.
ir::Graph check_scales(const ResizeCase& t) {
    OnnxModel m(13);
    m.input("x", t.in).output("y");
    m.initializer("scales", {static_cast<int64_t>(t.scales.size())}, t.scales);
    auto& n = m.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    set_attr(n, "mode", t.mode.c_str());
    set_attr(n, "coordinate_transformation_mode", t.coord.c_str());
    if (t.mode == "nearest") set_attr(n, "nearest_mode", t.rounding.c_str());
    ir::Graph g = m.import();
    std::vector<RefAxis> axes;
    for (size_t k = 0; k < t.in.size(); ++k) {
        const double s = t.scales[k], length = static_cast<double>(t.in[k]) * s;
        axes.push_back({t.in[k], static_cast<int64_t>(std::floor(length)), s, length});
    }
    int64_t n_in = 1;
    for (int64_t d : t.in) n_in *= d;
    const auto x = ramp(static_cast<size_t>(n_in));
    expect_near_all(evaluate_values(g, {{"x", x}}), ref_resize(x, t.in, axes, t.mode, t.coord, t.rounding));
    return g;
}

TEST(OnnxResize, AScalePastWhatADimHoldsIsRefused) {
    // An infinite scale's output length was converted to an integer: undefined.
    for (float big : {std::numeric_limits<float>::infinity(), 1e30f}) {
        OnnxModel m(13);
        m.input("x", {1, 1, 2, 2}).output("y");
        m.initializer("scales", {4}, {1, 1, big, 1});
        m.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
        const std::string error = import_error(m);
        EXPECT_NE(error.find(fmt::format("node 'resize' (Resize): scale {} of axis 2 makes {} elements of 2: more "
                                         "than a MegEngine dim holds",
                                         static_cast<double>(big), 2.0 * static_cast<double>(big))),
                  std::string::npos)
            << error;
    }
}

TEST(OnnxResize, SizesAndIntegerScalesGiveOneResizeWithTheOutputSize) {
    OnnxModel m;
    m.input("x", {1, 2, 4, 4}).output("a").output("b");
    m.initializer("scales", {4}, {1, 1, 2, 2});
    m.initializer_i64("sizes", {4}, {1, 2, 6, 3});
    auto& n = m.node("Resize", {"x", "", "scales"}, {"a"});
    set_attr(n, "mode", "nearest");
    set_attr(n, "coordinate_transformation_mode", "asymmetric");
    set_attr(n, "nearest_mode", "floor");
    set_attr(m.node("Resize", {"x", "", "", "sizes"}, {"b"}), "mode", "linear");
    ir::Graph g = m.import();
    ir::OprId r0 = find_opr(g, "Resize", 0), r1 = find_opr(g, "Resize", 1);
    EXPECT_EQ(enum_field(g, r0, "imode"), "NEAREST");
    EXPECT_EQ(enum_field(g, r0, "format"), "NCHW");
    EXPECT_EQ(input_ints(g, r0, 1), (std::vector<int32_t>{8, 8}));
    EXPECT_EQ(enum_field(g, r1, "imode"), "LINEAR");
    EXPECT_EQ(input_ints(g, r1, 1), (std::vector<int32_t>{6, 3}));
    expect_round_trip(g);
}

TEST(OnnxResize, AlignCornersThatResizeCannotComputeDecomposes) {
    ir::Graph g = check_scales({"linear", "align_corners", "", {1, 2, 4, 4}, {1, 1, 2, 2}});
    EXPECT_EQ(count_ops(g, "Resize"), 0u);
}

TEST(OnnxResize, NearestWithAFractionalScaleSamplesWithTheScaleNotOutputOverInput) {
    // The case: 11×13 ×1.7 gives 18×22, and ⌊18·11/18⌋-style sampling was off by 3.9.
    ir::Graph g = check_scales({"nearest", "asymmetric", "floor", {1, 2, 11, 13}, {1, 1, 1.7f, 1.7f}});
    EXPECT_EQ(count_ops(g, "Resize"), 0u);
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 2u);
    expect_round_trip(g);
}

TEST(OnnxResize, ScaleThatEqualsOutputOverInputIsOneResize) {
    ir::Graph g = check_scales({"nearest", "asymmetric", "floor", {1, 2, 4, 5}, {1, 1, 2, 3}});
    EXPECT_EQ(compute_ops(g), V{"Resize"});
    EXPECT_EQ(enum_field(g, find_opr(g, "Resize"), "imode"), "NEAREST");
    g = check_scales({"linear", "half_pixel", "", {1, 3, 4, 6}, {1, 1, 0.5f, 2}});
    EXPECT_EQ(compute_ops(g), V{"Resize"});
    EXPECT_EQ(enum_field(g, find_opr(g, "Resize"), "imode"), "LINEAR");
}

TEST(OnnxResize, LinearWithAFractionalScaleIsTwoWeightedGathersPerAxis) {
    ir::Graph g = check_scales({"linear", "half_pixel", "", {1, 2, 5, 7}, {1, 1, 1.7f, 0.6f}});
    EXPECT_EQ(count_ops(g, "Resize"), 0u);
    EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 4u);
    expect_round_trip(g);
}

TEST(OnnxResize, EveryNearestRoundingAndCoordinateModeMatchesOnnxsDefinition) {
    for (std::string coord : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"})
        for (std::string rounding : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
            SCOPED_TRACE(coord + " " + rounding);
            check_scales({"nearest", coord, rounding, {1, 1, 5, 6}, {1, 1, 1.7f, 0.5f}});
            check_scales({"nearest", coord, rounding, {1, 1, 4, 3}, {1, 1, 2, 3}});
        }
}

TEST(OnnxResize, LinearCoordinateModesMatchOnnxsDefinition) {
    for (std::string coord : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
        SCOPED_TRACE(coord);
        check_scales({"linear", coord, "", {1, 2, 5, 6}, {1, 1, 1.7f, 0.4f}});
        check_scales({"linear", coord, "", {2, 1, 3, 4}, {1, 1, 2, 2}});
    }
}

// Where MegEngine's Resize samples otherwise (here out/in = 8/5 for a scale of
// 1.7), cubic is four gathers per resized axis, weighted as ONNX's cubic_coeffs
// (the values: ONNX's test data below). Its weights sum to 1 at every position,
// so a constant image stays that constant, for any A and with exclude_outside.
TEST(OnnxResize, CubicThatResizeCannotComputeIsFourWeightedGathersPerAxis) {
    for (const auto& [a, exclude] : {std::pair{-0.75f, int64_t{0}}, {-0.5f, int64_t{1}}}) {
        SCOPED_TRACE(a);
        OnnxModel m(13);
        m.input("x", {1, 1, 5, 5}).output("y");
        m.initializer("scales", {4}, {1, 1, 1.7f, 1.7f});
        auto& n = m.node("Resize", {"x", "", "scales"}, {"y"}, "up");
        set_attr(n, "mode", "cubic");
        set_attr(n, "cubic_coeff_a", a);
        set_attr(n, "exclude_outside", exclude);
        const ir::Graph g = m.import();
        EXPECT_EQ(count_ops(g, "Resize"), 0u);
        EXPECT_EQ(count_ops(g, "IndexingMultiAxisVec"), 8u);
        const std::vector<double> out = evaluate_values(g, {{"x", std::vector<double>(25, 2.5)}});
        ASSERT_EQ(out.size(), 64u);  // ⌊5 · 1.7⌋ = 8 per axis
        for (double v : out) EXPECT_NEAR(v, 2.5, 1e-5);
    }
}

// Cubic with pytorch_half_pixel: where the output axes are longer than 1 that is
// half_pixel, so one Resize CUBIC, whose numbers (MegDNN's kernel) equal ONNX's formula as the
// decomposition computes it on the same image seen as rank 3.
TEST(OnnxResize, PytorchHalfPixelCubicIsOneResizeComputingOnnxsNumbers) {
    auto model = [](std::vector<int64_t> in, std::vector<float> scales) {
        OnnxModel m(13);
        m.input("x", in).output("y");
        m.initializer("scales", {static_cast<int64_t>(scales.size())}, scales);
        auto& n = m.node("Resize", {"x", "", "scales"}, {"y"}, "up");
        set_attr(n, "mode", "cubic");
        set_attr(n, "coordinate_transformation_mode", "pytorch_half_pixel");
        return m.import();
    };
    const ir::Graph native = model({1, 1, 4, 5}, {1, 1, 2, 0.6f});
    EXPECT_EQ(count_ops(native, "Resize"), 1u);
    EXPECT_EQ(count_ops(native, "IndexingMultiAxisVec"), 0u);
    const ir::Graph decomposed = model({1, 4, 5}, {1, 2, 0.6f});
    EXPECT_EQ(count_ops(decomposed, "Resize"), 0u);
    const auto x = ramp(20);
    expect_near_all(evaluate_values(native, {{"x", x}}), evaluate_values(decomposed, {{"x", x}}), 1e-5);
}

// ONNX's export_resize_tf_crop_and_resize (onnx/backend/test/case/node/resize.py,
// whose expected values it prints): 4×4 to 3×3 over the region roi of the input.
OnnxModel tf_crop_model(const std::vector<float>& roi, float extrapolation) {
    OnnxModel m(13);
    m.input("x", {1, 1, 4, 4}).output("y");
    m.initializer("roi", {8}, roi);
    m.initializer_i64("sizes", {4}, {1, 1, 3, 3});
    auto& n = m.node("Resize", {"x", "roi", "", "sizes"}, {"y"}, "crop");
    set_attr(n, "mode", "linear");
    set_attr(n, "coordinate_transformation_mode", "tf_crop_and_resize");
    set_attr(n, "extrapolation_value", extrapolation);
    return m;
}

TEST(OnnxResize, TfCropAndResizeSamplesTheRegionAndExtrapolatesOutsideIt) {
    std::vector<double> x(16);
    for (size_t i = 0; i < 16; ++i) x[i] = static_cast<double>(i + 1);
    expect_near_all(evaluate_values(tf_crop_model({0, 0, 0.4f, 0.6f, 1, 1, 0.6f, 0.8f}, 0).import(), {{"x", x}}),
                    {7.6000004, 7.9, 8.2, 8.8, 9.1, 9.400001, 10, 10.3, 10.6}, 1e-5);
    // The region past the input: extrapolation_value there, exactly, even where the
    // taps a position would read are not finite.
    const ir::Graph g = tf_crop_model({0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f}, 10).import();
    expect_near_all(evaluate_values(g, {{"x", x}}), {7.6000004, 10, 10, 12.400001, 10, 10, 10, 10, 10}, 1e-5);
    std::vector<double> with_inf = x;
    with_inf[0] = std::numeric_limits<double>::infinity();
    const std::vector<double> out = evaluate_values(g, {{"x", with_inf}});
    EXPECT_EQ(out[8], 10);
    EXPECT_EQ(out[2], 10);
}

TEST(OnnxResize, TfCropAndResizeWithScalesRuntimeSizesOrARegionNotFiniteIsRefused) {
    OnnxModel scaled(13);
    scaled.input("x", {1, 1, 4, 4}).output("y");
    scaled.initializer("roi", {8}, {0, 0, 0, 0, 1, 1, 1, 1});
    scaled.initializer("scales", {4}, {1, 1, 0.5f, 0.5f});
    set_attr(scaled.node("Resize", {"x", "roi", "scales"}, {"y"}, "crop"), "coordinate_transformation_mode",
             "tf_crop_and_resize");
    EXPECT_NE(import_error(scaled).find("node 'crop' (Resize): tf_crop_and_resize with scales is not supported"),
              std::string::npos)
        << import_error(scaled);
    // A region that is not finite has no source coordinates.
    for (float bad : {std::nanf(""), std::numeric_limits<float>::infinity()}) {
        const std::string error = import_error(tf_crop_model({0, 0, bad, 0, 1, 1, 1, 1}, 0));
        EXPECT_NE(error.find("node 'crop' (Resize): roi of axis 2 is"), std::string::npos) << error;
    }
    OnnxModel runtime(13);
    runtime.input("x", {1, 1, 4, 4}).input("sizes", {4}, OnnxType::INT64).output("y");
    runtime.initializer("roi", {8}, {0, 0, 0, 0, 1, 1, 1, 1});
    set_attr(runtime.node("Resize", {"x", "roi", "", "sizes"}, {"y"}, "crop"), "coordinate_transformation_mode",
             "tf_crop_and_resize");
    EXPECT_NE(import_error(runtime).find("node 'crop' (Resize): tf_crop_and_resize with sizes known only at run "
                                         "time is not supported"),
              std::string::npos)
        << import_error(runtime);
}

TEST(OnnxResize, CubicOfHalfPrecisionThatResizeCannotComputeIsRefusedNamingTheNode) {
    OnnxModel m(13);
    m.input("x", {1, 1, 5, 5}, OnnxType::FLOAT16).output("y", OnnxType::FLOAT16);
    m.initializer("scales", {4}, {1, 1, 1.7f, 1.7f});
    set_attr(m.node("Resize", {"x", "", "scales"}, {"y"}, "up"), "mode", "cubic");
    const std::string error = import_error(m);
    EXPECT_NE(error.find("node 'up' (Resize): cubic resize of FLOAT16 that MegEngine's Resize does not compute "
                         "exactly is not supported"),
              std::string::npos)
        << error;
}

TEST(OnnxResize, Opset10SamplesAsymmetricAndRefusesNearestDownsampling) {
    OnnxModel m(10);
    m.input("x", {1, 1, 3, 3}).output("y");
    m.initializer("scales", {4}, {1, 1, 1.5f, 1.5f});
    set_attr(m.node("Resize", {"x", "scales"}, {"y"}), "mode", "linear");
    ir::Graph g = m.import();
    const auto x = ramp(9);
    expect_near_all(
        evaluate_values(g, {{"x", x}}),
        ref_resize(x, {1, 1, 3, 3}, {{1, 1, 1, 1}, {1, 1, 1, 1}, {3, 4, 1.5, 4.5}, {3, 4, 1.5, 4.5}},
                   "linear", "asymmetric", ""));

    OnnxModel down(10);
    down.input("x", {1, 1, 4, 4}).output("y");
    down.initializer("scales", {4}, {1, 1, 0.5f, 0.5f});
    down.node("Resize", {"x", "scales"}, {"y"});
    EXPECT_THROW(down.import(), GraphError);
}

// ONNX's test models give scales/sizes as graph inputs; with the values of
// test_data_set_0 made initializers they convert, and must match output_0.
const fs::path kNodeTests = "/usr/share/libonnx-testdata/data/node";

TEST(OnnxResize, OnnxTestDataWithConstantScalesMatchesOrIsRefused) {
    if (!fs::exists(kNodeTests)) GTEST_SKIP() << "libonnx-testdata is not installed";
    // Refused, with the reason the importer gives.
    const std::set<std::string> refused = {};
    size_t matched = 0;
    for (const auto& e : fs::directory_iterator(kNodeTests)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("test_resize_", 0) != 0) continue;
        SCOPED_TRACE(name);
        onnx::ModelProto model;
        {
            std::ifstream in(e.path() / "model.onnx", std::ios::binary);
            ASSERT_TRUE(model.ParseFromIstream(&in));
        }
        const fs::path set = e.path() / "test_data_set_0";
        // Inputs after X become initializers holding the data set's values.
        auto* g = model.mutable_graph();
        std::vector<std::string> names;
        for (const auto& in : g->input()) names.push_back(in.name());
        for (size_t k = 1; k < names.size(); ++k) {
            onnx::TensorProto t;
            std::ifstream in(set / ("input_" + std::to_string(k) + ".pb"), std::ios::binary);
            ASSERT_TRUE(t.ParseFromIstream(&in));
            t.set_name(names[k]);
            *g->add_initializer() = t;
        }
        while (g->input_size() > 1) g->mutable_input()->RemoveLast();
        const std::string bytes = model.SerializeAsString();
        ir::Graph graph;
        try {
            graph = formats::import_onnx_bytes(
                ir::Bytes(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), name, ".");
        } catch (const GraphError& err) {
            EXPECT_TRUE(refused.count(name)) << "refused: " << err.what();
            continue;
        }
        EXPECT_FALSE(refused.count(name)) << "converts, but is listed as refused";
        auto sets = engine::eval::read_onnx_test_sets(set);
        ASSERT_EQ(sets.size(), 1u);
        sets[0].inputs.resize(1);  // X; the others are initializers now
        const auto outputs = engine::eval::evaluate(graph, engine::eval::onnx_feeds(graph, sets[0], {"X"}));
        const auto check =
            engine::eval::check_against_onnx(outputs.at(0).value, sets[0].outputs.at(0).value, "Y");
        EXPECT_TRUE(check.ok()) << check.problem << " " << check.mismatched << " mismatched, max abs "
                                << check.max_abs;
        matched += check.ok();
    }
    // Every case: cubic as one Resize where MegEngine's computes it, else four
    // weighted gathers per axis (align_corners, asymmetric, out/in other than the
    // scale, A = -0.5, exclude_outside); tf_crop_and_resize (ONNX 1.12's data is
    // its extrapolation_value case) with Where outside the region.
    EXPECT_EQ(matched, 23u);
}

}  // namespace
}  // namespace mgedump::test
