// Resize. MegEngine's Resize samples with out/in, not with ONNX's `scales`, and
// knows one coordinate rule per mode (dnn/src/common/resize.cpp: NEAREST takes
// ⌊dst · in/out⌋, LINEAR and CUBIC sample at (dst + ½) · in/out − ½). The importer
// computes, for every output position of every axis, the source ONNX samples
// (its coordinate_transformation_mode, nearest_mode and scale, as ONNX's
// reference implementation does) and the one MegEngine's kernel would take; where
// they agree on every position, the node is one Resize. Otherwise it decomposes
// exactly, one axis at a time: nearest is an IndexingMultiAxisVec of the source
// indices, linear two of them weighted (Elemwise MUL, FUSE_MUL_ADD3), cubic four
// (any cubic_coeff_a, exclude_outside). `sizes` known only at run time goes to
// formats/onnx/resize_runtime.cpp, and so does `scales` known only at run time.
// Upsample (opsets 7 to 10) is Resize-10.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/resize_runtime.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

using Coord = ResizeCoord;
using Rounding = ResizeRounding;
using Mode = ResizeMode;

// One axis: sizes, ONNX's scale (the given one, or out/in for `sizes`) and the
// resized length its reference uses for align_corners and pytorch_half_pixel
// (in · scale, not rounded, for `scales`); tf_crop_and_resize's region of the
// input, as fractions of in − 1 (roi[k], roi[rank + k]).
struct Axis {
    int64_t in, out;
    double scale, length;
    float roi_start = 0, roi_end = 1;
};

double source_coordinate(Coord m, const Axis& a, int64_t x) {
    switch (m) {
        case Coord::HalfPixel:
            return (x + 0.5) / a.scale - 0.5;
        case Coord::PytorchHalfPixel:
            return a.length > 1 ? (x + 0.5) / a.scale - 0.5 : -0.5;
        case Coord::AlignCorners:
            return a.length == 1 ? 0.0 : x * static_cast<double>(a.in - 1) / (a.length - 1);
        case Coord::Asymmetric:
            return x / a.scale;
        case Coord::TfHalfPixelForNn:
            return (x + 0.5) / a.scale;
        case Coord::TfCropAndResize: {
            // The region's extent in float, as ONNX's reference subtracts its float32 roi.
            const double extent = a.roi_end - a.roi_start, last = static_cast<double>(a.in - 1);
            const double s = a.length == 1 ? extent * last / 2 : x * extent * last / (a.length - 1);
            return s + static_cast<double>(a.roi_start) * last;
        }
    }
    return 0;
}

int64_t clamp_index(int64_t i, int64_t in) { return std::clamp<int64_t>(i, 0, in - 1); }

// A source position and its weight; an output position reads one (nearest) or two (linear).
struct Tap {
    int64_t index;
    double weight;
};
using Taps = std::vector<Tap>;

// ONNX's cubic: cubic_coeff_a, and exclude_outside (taps past the input get no
// weight, the rest renormalized to sum 1).
struct Cubic {
    double a = -0.75;
    bool exclude_outside = false;
};

// ONNX's reference (onnx/backend/test/case/node/resize.py): the four taps
// ⌊s⌋ − 1 … ⌊s⌋ + 2 around source coordinate s, weighted by cubic_coeffs(ratio,
// A) with ratio = s − ⌊s⌋ (an integral s reads s alone), edge-padded (an index
// past the input reads the edge) unless exclude_outside drops it.
Taps cubic_taps(const Cubic& cubic, const Axis& ax, double s) {
    const double f = std::floor(s), r = s - f, A = cubic.a;
    const int64_t lo = static_cast<int64_t>(f) - 1;
    std::array<double, 4> w{((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
                            ((A + 2) * r - (A + 3)) * r * r + 1,
                            ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
                            ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A};
    if (cubic.exclude_outside) {
        double sum = 0;
        for (int64_t t = 0; t < 4; ++t) {
            if (lo + t < 0 || lo + t >= ax.in) w[t] = 0;
            sum += w[t];
        }
        for (double& wt : w) wt /= sum;
    }
    Taps taps;
    for (int64_t t = 0; t < 4; ++t) taps.push_back({clamp_index(lo + t, ax.in), w[t]});
    return taps;
}

// The taps ONNX reads for source coordinate `s` (source_coordinate) of axis `a`.
Taps onnx_taps(Mode mode, Rounding r, const Cubic& cubic, const Axis& a, double s) {
    if (mode == Mode::Cubic) return cubic_taps(cubic, a, s);
    const double f = std::floor(s), frac = s - f;
    const int64_t lo = static_cast<int64_t>(f);
    if (mode == Mode::Nearest) {
        bool up = false;
        if (frac != 0) {
            switch (r) {
                case Rounding::RoundPreferFloor:
                    up = frac > 0.5;
                    break;
                case Rounding::RoundPreferCeil:
                    up = frac >= 0.5;
                    break;
                case Rounding::Floor:
                    up = false;
                    break;
                case Rounding::Ceil:
                    up = true;
                    break;
            }
        }
        return {{clamp_index(lo + up, a.in), 1.0}};
    }
    return {{clamp_index(lo, a.in), 1 - frac}, {clamp_index(lo + 1, a.in), frac}};
}

// ResizeBase::get_nearest_src and get_nearest_linear_coord, in float as MegDNN
// computes them, with scale = float(out) / in.
Taps megengine_taps(Mode mode, const Axis& a, int64_t x) {
    const float scale = static_cast<float>(a.out) / static_cast<float>(a.in);
    const int size = static_cast<int>(a.in), idx = static_cast<int>(x);
    if (mode == Mode::Nearest) return {{std::min(static_cast<int>(idx / scale), size - 1), 1.0}};
    if (size == 1) return {{0, 1.0}};
    float alpha = (idx + 0.5f) / scale - 0.5f;
    int origin = static_cast<int>(std::floor(alpha));
    alpha -= static_cast<float>(origin);
    if (origin < 0) {
        origin = 0;
        alpha = 0;
    } else if (origin + 1 >= size) {
        origin = size - 2;
        alpha = 1;
    }
    return {{origin, 1.0 - alpha}, {origin + 1, alpha}};
}

// The weight each source index gets, zero weights dropped.
std::map<int64_t, double> weights(const Taps& taps) {
    std::map<int64_t, double> w;
    for (const Tap& t : taps)
        if (t.weight != 0) w[t.index] += t.weight;
    return w;
}

// Equal up to float rounding of the weights (MegDNN computes them in float).
bool same_sampling(const Taps& a, const Taps& b) {
    auto wa = weights(a), wb = weights(b);
    if (wa.size() != wb.size()) return false;
    for (auto ia = wa.begin(), ib = wb.begin(); ia != wa.end(); ++ia, ++ib)
        if (ia->first != ib->first || std::abs(ia->second - ib->second) > 1e-6) return false;
    return true;
}

struct AxisPlan {
    std::vector<Taps> taps;  // per output position, as ONNX samples
    bool identity = true;    // out == in and position i reads i alone
    bool megengine = true;   // MegEngine's Resize samples the same
    // tf_crop_and_resize: the positions whose source lies outside [0, in − 1],
    // which ONNX gives extrapolation_value (their taps read index 0, weight 0).
    std::vector<uint8_t> outside;
    bool any_outside() const { return std::find(outside.begin(), outside.end(), 1) != outside.end(); }
};

AxisPlan plan_axis(Mode mode, Coord coord, Rounding r, const Cubic& cubic, const Axis& a) {
    AxisPlan p;
    p.identity = a.in == a.out;
    for (int64_t x = 0; x < a.out; ++x) {
        const double s = source_coordinate(coord, a, x);
        const bool outside = coord == Coord::TfCropAndResize && (s < 0 || s > static_cast<double>(a.in - 1));
        p.outside.push_back(outside);
        if (outside) {
            p.identity = p.megengine = false;
            const size_t width = mode == Mode::Nearest ? 1 : mode == Mode::Linear ? 2 : 4;
            p.taps.push_back(Taps(width, Tap{0, 0.0}));
            continue;
        }
        Taps t = onnx_taps(mode, r, cubic, a, s);
        auto w = weights(t);
        p.identity = p.identity && w.size() == 1 && w.begin()->first == x && w.begin()->second == 1.0;
        if (mode != Mode::Cubic) p.megengine = p.megengine && same_sampling(t, megengine_taps(mode, a, x));
        p.taps.push_back(std::move(t));
    }
    return p;
}

Coord parse_coord(const Importer& c, const std::string& s) {
    if (s == "half_pixel") return Coord::HalfPixel;
    if (s == "pytorch_half_pixel") return Coord::PytorchHalfPixel;
    if (s == "align_corners") return Coord::AlignCorners;
    if (s == "asymmetric") return Coord::Asymmetric;
    if (s == "tf_half_pixel_for_nn") return Coord::TfHalfPixelForNn;
    if (s == "tf_crop_and_resize") return Coord::TfCropAndResize;
    c.fail(fmt::format("coordinate_transformation_mode '{}' is not supported", s));
}

Rounding parse_rounding(const Importer& c, const std::string& s) {
    if (s == "round_prefer_floor") return Rounding::RoundPreferFloor;
    if (s == "round_prefer_ceil") return Rounding::RoundPreferCeil;
    if (s == "floor") return Rounding::Floor;
    if (s == "ceil") return Rounding::Ceil;
    c.fail(fmt::format("nearest_mode '{}' is not supported", s));
}

// The output sizes and the ONNX scale of every axis, from `sizes` or `scales`.
std::vector<Axis> read_axes(Importer& c, const Shape& in) {
    std::vector<Axis> axes;
    const size_t rank = in.size();
    const bool has_sizes = c.opset() >= 11 && c.has_input(3);
    if (has_sizes) {
        std::vector<int64_t> sizes = c.const_ints(3, "sizes");
        if (sizes.size() != rank) c.fail(fmt::format("sizes has {} entries for rank {}", sizes.size(), rank));
        for (size_t k = 0; k < rank; ++k)
            axes.push_back({in[k], sizes[k], static_cast<double>(sizes[k]) / static_cast<double>(in[k]),
                            static_cast<double>(sizes[k])});
    } else {
        const size_t at = c.opset() < 11 ? 1 : 2;  // opset 10: (X, scales)
        std::vector<double> scales = c.const_floats(at, "scales");
        if (scales.size() != rank)
            c.fail(fmt::format("scales has {} entries for rank {}", scales.size(), rank));
        for (size_t k = 0; k < rank; ++k) {
            // ONNX's reference: the float32 scale times the size in double, truncated.
            const double s = static_cast<float>(scales[k]), length = static_cast<double>(in[k]) * s;
            if (!(s > 0)) c.fail(fmt::format("scale {} of axis {} is not positive", scales[k], k));
            // Checked before the conversion, which is undefined past int64 (an
            // infinite scale): no MegEngine dim holds more than 2^32 - 1.
            if (!(length < 0x1p32))
                c.fail(fmt::format("scale {} of axis {} makes {} elements of {}: more than a MegEngine dim holds",
                                   scales[k], k, length, in[k]));
            axes.push_back({in[k], static_cast<int64_t>(std::floor(length)), s, length});
        }
    }
    for (size_t k = 0; k < rank; ++k)
        if (axes[k].in <= 0 || axes[k].out <= 0)
            c.fail(
                fmt::format("axis {} resizes {} to {}; both must be positive", k, axes[k].in, axes[k].out));
    return axes;
}

// tf_crop_and_resize's roi (input #1: the starts, then the ends, as fractions
// of each axis) into `axes`. With sizes only: for scales ONNX's reference sizes
// the output ⌊in · scale⌋ where its text says ⌊in · (end − start) · scale⌋.
void read_roi(Importer& c, std::vector<Axis>& axes, int32_t elem_type) {
    if (elem_type != P::FLOAT)
        c.fail(fmt::format("tf_crop_and_resize of {} is not supported (FLOAT only)", onnx_elem_name(elem_type)));
    if (!c.has_input(3))
        c.fail("tf_crop_and_resize with scales is not supported (give sizes: ONNX's reference and its operator "
               "text size the output differently)");
    if (!c.has_input(1)) c.fail("tf_crop_and_resize needs roi (input #1)");
    const std::vector<double> roi = c.const_floats(1, "roi");
    if (roi.size() != 2 * axes.size())
        c.fail(fmt::format("roi has {} values for rank {} (a start and an end per axis)", roi.size(), axes.size()));
    for (size_t k = 0; k < axes.size(); ++k) {
        // Checked before the conversion to float (a double past its range is
        // undefined there) and after it: a NaN coordinate is neither inside nor
        // outside, and has no tap to convert to an index.
        const double start = roi[k], end = roi[axes.size() + k];
        constexpr double kFloatMax = std::numeric_limits<float>::max();
        if (!(std::abs(start) <= kFloatMax && std::abs(end) <= kFloatMax))
            c.fail(fmt::format("roi of axis {} is [{}, {}]: a finite float32 region is needed", k, start, end));
        axes[k].roi_start = static_cast<float>(start);
        axes[k].roi_end = static_cast<float>(end);
    }
}

// `x` gathered along `axis` at `index` (one IndexingMultiAxisVec).
ir::VarId gather(Importer& c, ir::VarId x, int64_t axis, const std::vector<int64_t>& index) {
    ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
    return c.emit("IndexingMultiAxisVec", {x, c.const_i32(index)}, {{"items", std::vector{item}}});
}

ir::VarId weight_var(Importer& c, const std::vector<float>& w, size_t rank, size_t axis) {
    Shape shape(rank, 1);
    shape[axis] = static_cast<int64_t>(w.size());
    Value v = float_const(w, shape);
    return c.materialize(v, "resize weights");
}

// One axis of the decomposition: each output position reads its taps.
// tf_crop_and_resize's positions outside the input: `y` (of ONNX shape `shape`)
// with extrapolation_value there, by Where on a constant Bool mask along `axis`
// (a product with a zero weight would let a non-finite input through).
ir::VarId extrapolate_outside(Importer& c, ir::VarId y, const Shape& shape, size_t axis, const AxisPlan& p,
                              float extrapolation) {
    Shape along(shape.size(), 1);
    along[axis] = static_cast<int64_t>(p.outside.size());
    std::vector<int64_t> inside;
    for (uint8_t o : p.outside) inside.push_back(o == 0);
    Value mask = int_const_as(P::BOOL, inside, along);
    ir::VarId cond = broadcast_to(c, c.materialize(mask, c.node().output(0) + ".inside"), along, shape);
    ir::VarId fill = broadcast_to(c, c.const_f32(extrapolation), {1}, shape);
    return c.emit("Where", {cond, y, fill});
}

ir::VarId resample_axis(Importer& c, ir::VarId x, size_t rank, size_t axis, const AxisPlan& p) {
    const size_t n = p.taps.size();
    const size_t width = p.taps.front().size();
    std::vector<std::vector<int64_t>> index(width, std::vector<int64_t>(n));
    std::vector<std::vector<float>> weight(width, std::vector<float>(n));
    bool single = true;  // every position reads one source with weight 1 (nearest, or integral linear)
    for (size_t o = 0; o < n; ++o) {
        auto w = weights(p.taps[o]);
        single = single && w.size() == 1;
        for (size_t t = 0; t < width; ++t) {
            index[t][o] = p.taps[o][t].index;
            weight[t][o] = static_cast<float>(p.taps[o][t].weight);
        }
        if (w.size() == 1) {
            // Put the whole weight on tap 0 so `single` positions gather it there.
            index[0][o] = w.begin()->first;
            weight[0][o] = 1;
            for (size_t t = 1; t < width; ++t) weight[t][o] = 0;
        }
    }
    const int64_t a = static_cast<int64_t>(axis);
    if (single) return gather(c, x, a, index[0]);
    // In the order a dump lists them: every tap's gather, then the products, the
    // first a MUL, each further one added by FUSE_MUL_ADD3.
    std::vector<ir::VarId> gathered;
    for (size_t t = 0; t < width; ++t) gathered.push_back(gather(c, x, a, index[t]));
    ir::VarId y = c.emit("Elemwise", {gathered[0], weight_var(c, weight[0], rank, axis)}, {{"mode", "MUL"}});
    for (size_t t = 1; t < width; ++t)
        y = c.emit("Elemwise", {gathered[t], weight_var(c, weight[t], rank, axis), y}, {{"mode", "FUSE_MUL_ADD3"}});
    return y;
}

void resize(Importer& c) {
    c.check_attrs({"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                   "exclude_outside", "extrapolation_value"});
    const Value& x = c.input(0);
    const size_t rank = x.shape.size();
    if (rank == 0) c.fail("a scalar cannot be resized");
    const std::string mode_name = c.attr_string("mode", "nearest");
    Mode mode;
    if (mode_name == "nearest")
        mode = Mode::Nearest;
    else if (mode_name == "linear")
        mode = Mode::Linear;
    else if (mode_name == "cubic")
        mode = Mode::Cubic;
    else
        c.fail(fmt::format("mode '{}' is not supported", mode_name));
    // Resize-10 has no coordinate or rounding attributes: it samples at x / scale
    // and its nearest floors (ONNX Runtime rounds up when downsampling, so that is
    // refused below as ambiguous).
    const bool v10 = c.opset() < 11;
    const Coord coord = v10 ? Coord::Asymmetric
                            : parse_coord(c, c.attr_string("coordinate_transformation_mode", "half_pixel"));
    const Rounding rounding =
        v10 ? Rounding::Floor : parse_rounding(c, c.attr_string("nearest_mode", "round_prefer_floor"));
    // MegEngine's CUBIC is Keys' with A = −0.75 and edge taps kept; anything
    // else is decomposed below, which needs the sizes at import time.
    const Cubic cubic{c.attr_float("cubic_coeff_a", -0.75), c.attr_int("exclude_outside", 0) != 0};
    const bool megengine_cubic = static_cast<float>(cubic.a) == -0.75f && !cubic.exclude_outside;

    // Scales known only at run time: lengths ⌊in·scale⌋ and source coordinates in
    // Float32, as ONNX Runtime computes them. ONNX's reference computes them in
    // double, so the two can differ where in·scale or a nearest tie lies within
    // float rounding of an integer.
    const size_t scales_at = v10 ? 1 : 2;
    if (!(c.opset() >= 11 && c.has_input(3)) && is_runtime_value(c, scales_at)) {
        if (coord == Coord::TfCropAndResize)
            c.fail("tf_crop_and_resize with scales known only at run time is not supported (its roi and scales size "
                   "the output; converted with constant roi and sizes)");
        if (v10 && mode == Mode::Nearest)
            c.fail(fmt::format("opset {} nearest resize with scales known only at run time is not supported: "
                               "whether an axis is downsampled is known only when it runs, and opset {}'s nearest "
                               "downsampling is ambiguous (no nearest_mode); export with opset 11 or later",
                               c.opset(), c.opset()));
        return resize_to_runtime_scales(c, scales_at, mode, coord, rounding, cubic.a, cubic.exclude_outside);
    }
    if (c.opset() >= 11 && c.has_input(3) && is_runtime_value(c, 3)) {
        if (cubic.exclude_outside)
            c.fail("exclude_outside=1 with sizes known only at run time is not supported (converted with constant "
                   "sizes or scales)");
        if (mode == Mode::Cubic && !megengine_cubic)
            c.fail(fmt::format("cubic_coeff_a {} with sizes known only at run time is not supported (MegEngine's "
                               "cubic uses -0.75; other values are converted with constant sizes or scales)",
                               cubic.a));
        if (coord == Coord::TfCropAndResize)
            c.fail("tf_crop_and_resize with sizes known only at run time is not supported (converted with constant "
                   "sizes)");
        return resize_to_runtime_sizes(c, mode, coord, rounding);
    }
    std::vector<Axis> axes = read_axes(c, x.shape);
    if (coord == Coord::TfCropAndResize) read_roi(c, axes, x.elem_type);
    Shape out;
    for (const Axis& a : axes) out.push_back(a.out);
    if (v10 && mode == Mode::Nearest)
        for (size_t k = 0; k < rank; ++k)
            if (axes[k].out < axes[k].in)
                c.fail(
                    fmt::format("opset {} nearest downsampling (axis {}) is ambiguous: its Resize has no "
                                "nearest_mode; export with opset 11 or later",
                                c.opset(), k));

    std::vector<AxisPlan> plans;
    for (const Axis& a : axes) plans.push_back(plan_axis(mode, coord, rounding, cubic, a));
    bool all_identity = true;
    for (const AxisPlan& p : plans) all_identity = all_identity && p.identity;
    if (all_identity) return c.set_output(0, x);

    // One Resize: NCHW, N and C kept, and MegEngine samples each image axis as ONNX does.
    bool native = rank == 4 && plans[0].identity && plans[1].identity;
    if (mode == Mode::Cubic) {
        // Keys' cubic with A = -0.75 at half-pixel centres, edge-clamped taps: the
        // same where MegEngine's scale out/in is ONNX's scale. pytorch_half_pixel
        // is half_pixel on an axis resized to more than 1.
        native = native && megengine_cubic;
        for (size_t k = 2; native && k < 4; ++k)
            native = (coord == Coord::HalfPixel || (coord == Coord::PytorchHalfPixel && axes[k].length > 1)) &&
                     std::abs(static_cast<float>(axes[k].out) / static_cast<float>(axes[k].in) -
                              axes[k].scale) <= 1e-7 * axes[k].scale;
    } else {
        native = native && plans[2].megengine && plans[3].megengine;
    }
    // MegDNN resizes Float32, Float16 and 8-bit integers; it rounds interpolated
    // integers where ONNX's cast truncates, so those are nearest only.
    const bool is_float = x.elem_type == P::FLOAT || x.elem_type == P::FLOAT16;
    const bool resizable =
        is_float || (mode == Mode::Nearest && (x.elem_type == P::INT8 || x.elem_type == P::UINT8));
    if (native && resizable) {
        const char* imode = mode == Mode::Nearest ? "NEAREST" : mode == Mode::Linear ? "LINEAR" : "CUBIC";
        ir::VarId y = c.emit("Resize", {c.var(0), c.const_i32({out[2], out[3]})},
                             {{"imode", imode}, {"format", "NCHW"}});
        return c.set_output_var(0, y, x.elem_type, out);
    }
    if (mode != Mode::Nearest && x.elem_type != P::FLOAT)
        c.fail(
            fmt::format("{} resize of {} that MegEngine's Resize does not compute exactly is not "
                        "supported (FLOAT only)",
                        mode_name, onnx_elem_name(x.elem_type)));
    ir::VarId y = c.var(0);
    if (coord != Coord::TfCropAndResize) {
        for (size_t k = 0; k < rank; ++k)
            if (!plans[k].identity) y = resample_axis(c, y, rank, k, plans[k]);
        return c.set_output_var(0, y, x.elem_type, out);
    }
    // ONNX's reference interpolates the last axis first and gives a position
    // outside the region on an axis extrapolation_value before the axes before
    // it interpolate: so the axes last to first, each followed by its Where.
    const float extrapolation = static_cast<float>(c.attr_float("extrapolation_value", 0.0));
    Shape now = x.shape;
    for (size_t k = rank; k-- > 0;) {
        if (plans[k].identity) continue;
        y = resample_axis(c, y, rank, k, plans[k]);
        now[k] = out[k];
        if (plans[k].any_outside()) y = extrapolate_outside(c, y, now, k, plans[k], extrapolation);
    }
    c.set_output_var(0, y, x.elem_type, out);
}

// Upsample (7, 9; deprecated by opset 10): Resize-10's sampling (asymmetric
// coordinates, nearest floors, output ⌊in · scale⌋), so it is converted as Resize
// is at those opsets. Upsample-7 gives the scales as an attribute; Upsample-9
// as input #1, as Resize-10 does.
void upsample(Importer& c) {
    if (c.opset() > 10)
        c.fail(fmt::format("Upsample was deprecated in opset 10; a model of opset {} must use Resize", c.opset()));
    if (c.opset() < 7)
        c.fail(fmt::format("opset {}'s Upsample-1 (experimental: height_scale, width_scale) is not supported",
                           c.opset()));
    if (c.has_attr("scales")) {
        if (c.has_input(1)) c.fail("scales is given both as an attribute and as input #1");
        const std::vector<float> scales(c.attr("scales")->floats().begin(), c.attr("scales")->floats().end());
        c.override_input(1, float_const(scales, {static_cast<int64_t>(scales.size())}));
        c.mark_attr_handled("scales");
    }
    resize(c);
}

constexpr OpHandler kHandlers[] = {
    {"Resize", resize},
    {"Upsample", upsample},
};

}  // namespace

std::span<const OpHandler> resize_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
