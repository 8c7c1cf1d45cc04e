// Resize to `sizes` known only at run time. With sizes, ONNX's scale of an axis is
// out/in, so every coordinate_transformation_mode puts output position x of an
// axis at a rational source coordinate s = num/den of integers (in static, out and
// x known at run time):
//   half_pixel            ((2x + 1)·in − out) / (2·out)
//   pytorch_half_pixel    the same, or −½ when out = 1
//   align_corners         x·(in − 1) / (out − 1), or 0 when out = 1
//   asymmetric            x·in / out
//   tf_half_pixel_for_nn  (2x + 1)·in / (2·out)
// which the importer computes on Int32 vars (x an exclusive Cumsum of out ones):
// lo = FLOOR_DIV(num, den) and rem = num − lo·den give ⌊s⌋ and its fraction
// rem/den exactly, so nearest_mode's ties (fraction ½: 2·rem = den) are decided
// exactly too. Nearest gathers clamp(lo + up) along the axis (IndexingMultiAxisVec
// with that index var); linear gathers clamp(lo) and clamp(lo + 1) and weights them
// (den − rem)/den and rem/den (TRUE_DIV in Float32, one rounding each), one axis
// after the other as ONNX's reference does. Int32 holds the numerators while
// 2·in·out < 2³¹.
//
// Cubic (MegEngine's Keys A = −0.75, edge-clamped taps: ONNX's cubic with
// exclude_outside = 0) is one Resize to the runtime (H, W) = sizes[2:4] where ONNX
// samples as it does: half_pixel, whose scale out/in is MegEngine's. N and C are
// then Broadcast to sizes[0:2]: equal dims stay, a 1 becomes copies (ONNX's resize of
// a length-1 axis reads that one element at every position), any other pair
// MegEngine's Broadcast refuses at run time.
#include "formats/onnx/resize_runtime.h"

#include <fmt/format.h>

#include <array>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

ir::VarId to_float(Importer& c, ir::VarId v) { return type_cvt(c, v, ir::DTypeEnum::Float32); }

// The source coordinate num/den of every output position (x) of one axis.
struct Coordinate {
    ir::VarId num, den;
};

Coordinate source_coordinate(Importer& c, ResizeCoord coord, int64_t in, ir::VarId out, ir::VarId x) {
    const ir::VarId one = c.const_i32({1}), two = c.const_i32({2});
    // (2x + 1)·in
    auto odd_in = [&] { return int_op(c, "MUL", {int_op(c, "ADD", {int_op(c, "MUL", {x, two}), one}), c.const_i32({in})}); };
    switch (coord) {
        case ResizeCoord::HalfPixel:
            return {int_op(c, "SUB", {odd_in(), out}), int_op(c, "MUL", {out, two})};
        case ResizeCoord::PytorchHalfPixel: {
            // big·(num + 1) − 1: half_pixel's numerator for out > 1, −1 (over 2·1) for out = 1.
            const ir::VarId big = int_op(c, "LT", {one, out});
            const ir::VarId num = int_op(c, "SUB", {odd_in(), out});
            return {int_op(c, "SUB", {int_op(c, "MUL", {big, int_op(c, "ADD", {num, one})}), one}),
                    int_op(c, "MUL", {out, two})};
        }
        case ResizeCoord::AlignCorners:
            // out = 1 has the one position x = 0, so numerator 0 over 1.
            return {int_op(c, "MUL", {x, c.const_i32({in - 1})}),
                    int_op(c, "MAX", {int_op(c, "SUB", {out, one}), one})};
        case ResizeCoord::Asymmetric:
            return {int_op(c, "MUL", {x, c.const_i32({in})}), out};
        case ResizeCoord::TfHalfPixelForNn:
            return {odd_in(), int_op(c, "MUL", {out, two})};
        case ResizeCoord::TfCropAndResize:  // its roi is a float fraction: refused before this mapping
            c.fail("tf_crop_and_resize with sizes known only at run time is not supported");
    }
    return {};
}

ir::VarId clamp_index(Importer& c, ir::VarId i, int64_t in) {
    return int_op(c, "MIN", {int_op(c, "MAX", {i, c.const_i32({0})}), c.const_i32({in - 1})});
}

ir::VarId gather(Importer& c, ir::VarId x, size_t axis, ir::VarId index) {
    ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
    return c.emit("IndexingMultiAxisVec", {x, index}, {{"items", std::vector{item}}});
}

// A [out] weight var seen as (1, .., out, .., 1) with `out` at `axis`.
ir::VarId along(Importer& c, ir::VarId w, ir::VarId out, size_t rank, size_t axis) {
    std::vector<ir::VarId> parts;
    if (axis > 0) parts.push_back(c.const_i32(std::vector<int64_t>(axis, 1)));
    parts.push_back(out);
    if (axis + 1 < rank) parts.push_back(c.const_i32(std::vector<int64_t>(rank - axis - 1, 1)));
    const ir::VarId target = concat(c, parts, 0);
    return c.emit("Reshape", {w, target});
}

ir::VarId resample_axis(Importer& c, ir::VarId y, size_t rank, size_t axis, int64_t in, ir::VarId out,
                        ResizeMode mode, ResizeCoord coord, ResizeRounding rounding) {
    const ir::VarId x = iota(c, out);
    const auto [num, den] = source_coordinate(c, coord, in, out, x);
    const ir::VarId lo = int_op(c, "FLOOR_DIV", {num, den});
    const ir::VarId rem = int_op(c, "SUB", {num, int_op(c, "MUL", {lo, den})});  // in [0, den)
    if (mode == ResizeMode::Nearest) {
        const ir::VarId twice = int_op(c, "MUL", {rem, c.const_i32({2})});
        ir::VarId index = lo;
        switch (rounding) {
            case ResizeRounding::RoundPreferFloor:  // up when the fraction is above ½
                index = int_op(c, "ADD", {lo, int_op(c, "LT", {den, twice})});
                break;
            case ResizeRounding::RoundPreferCeil:  // up when it is ½ or more (2·rem ≥ den)
                index = int_op(c, "ADD", {lo, int_op(c, "LT", {int_op(c, "SUB", {den, c.const_i32({1})}), twice})});
                break;
            case ResizeRounding::Floor:
                break;
            case ResizeRounding::Ceil:  // up unless s is an integer
                index = int_op(c, "ADD", {lo, int_op(c, "LT", {c.const_i32({0}), rem})});
                break;
        }
        return gather(c, y, axis, clamp_index(c, index, in));
    }
    const ir::VarId first = gather(c, y, axis, clamp_index(c, lo, in));
    const ir::VarId second = gather(c, y, axis, clamp_index(c, int_op(c, "ADD", {lo, c.const_i32({1})}), in));
    const ir::VarId d = to_float(c, den);
    const ir::VarId w1 = c.emit("Elemwise", {to_float(c, rem), d}, {{"mode", "TRUE_DIV"}});
    const ir::VarId w0 = c.emit("Elemwise", {to_float(c, int_op(c, "SUB", {den, rem})), d}, {{"mode", "TRUE_DIV"}});
    const ir::VarId part = c.emit("Elemwise", {first, along(c, w0, out, rank, axis)}, {{"mode", "MUL"}});
    return c.emit("Elemwise", {second, along(c, w1, out, rank, axis), part}, {{"mode", "FUSE_MUL_ADD3"}});
}

// --- scales known only at run time ------------------------------------------------

ir::VarId to_int32(Importer& c, ir::VarId v) { return type_cvt(c, v, ir::DTypeEnum::Int32); }

// The source coordinate (Float32) of every output position x (Float32 [out]) of an
// axis of `in` elements resized by `scale`, `length` = in · scale not rounded (which
// ONNX's reference takes for the resized length in align_corners and
// pytorch_half_pixel), in float as ONNX Runtime's upsample transforms compute it;
// pytorch_half_pixel's length-1 case is −½, as ONNX's reference has it (its test
// data, and the sizes mapping).
ir::VarId scaled_coordinate(Importer& c, ResizeCoord coord, int64_t in, ir::VarId scale, ir::VarId length,
                            ir::VarId x) {
    const ir::VarId half = c.const_f32(0.5f), one = c.const_f32(1.0f);
    auto centre = [&] { return elemwise(c, "TRUE_DIV", {elemwise(c, "ADD", {x, half}), scale}); };  // (x + ½)/scale
    switch (coord) {
        case ResizeCoord::HalfPixel:
            return elemwise(c, "SUB", {centre(), half});
        case ResizeCoord::PytorchHalfPixel: {
            const ir::VarId longer = elemwise(c, "LT", {one, length});  // length > 1
            return elemwise(c, "SUB", {elemwise(c, "MUL", {longer, centre()}), half});
        }
        case ResizeCoord::AlignCorners: {
            // x · (in − 1) / (length − 1), or 0 when length is 1: then the one
            // position x = 0 is divided by 1.
            const ir::VarId last = elemwise(c, "ADD", {elemwise(c, "SUB", {length, one}), elemwise(c, "EQ", {length, one})});
            return elemwise(c, "TRUE_DIV",
                            {elemwise(c, "MUL", {x, c.const_f32(static_cast<float>(in - 1))}), last});
        }
        case ResizeCoord::Asymmetric:
            return elemwise(c, "TRUE_DIV", {x, scale});
        case ResizeCoord::TfHalfPixelForNn:
            return centre();
        case ResizeCoord::TfCropAndResize:  // refused before this mapping: its roi sizes the output
            c.fail("tf_crop_and_resize with scales known only at run time is not supported");
    }
    return {};
}

// ONNX's cubic_coeffs(ratio, A) for the taps ⌊s⌋ − 1 … ⌊s⌋ + 2, ratio t = s − ⌊s⌋:
// the outer taps at distance u (t + 1 and 2 − t) take ((A·u − 5A)·u + 8A)·u − 4A,
// the inner ones at distance d (t and 1 − t) ((A + 2)·d − (A + 3))·d² + 1.
std::array<ir::VarId, 4> cubic_weights(Importer& c, ir::VarId t, double a) {
    const auto k = [&](double v) { return c.const_f32(static_cast<float>(v)); };
    auto outer = [&](ir::VarId u) {
        ir::VarId w = elemwise(c, "SUB", {elemwise(c, "MUL", {u, k(a)}), k(5 * a)});
        w = elemwise(c, "ADD", {elemwise(c, "MUL", {w, u}), k(8 * a)});
        return elemwise(c, "SUB", {elemwise(c, "MUL", {w, u}), k(4 * a)});
    };
    auto inner = [&](ir::VarId d) {
        const ir::VarId w = elemwise(c, "SUB", {elemwise(c, "MUL", {d, k(a + 2)}), k(a + 3)});
        return elemwise(c, "ADD", {elemwise(c, "MUL", {elemwise(c, "MUL", {w, d}), d}), k(1)});
    };
    const ir::VarId one = k(1), rest = elemwise(c, "SUB", {one, t});  // 1 − t
    return {outer(elemwise(c, "ADD", {t, one})), inner(t), inner(rest), outer(elemwise(c, "ADD", {rest, one}))};
}

ir::VarId resample_scaled_axis(Importer& c, ir::VarId y, size_t rank, size_t axis, int64_t in, ir::VarId scale,
                               ResizeMode mode, ResizeCoord coord, ResizeRounding rounding, double cubic_a,
                               bool exclude_outside) {
    // ⌊in · scale⌋, the product in float as ONNX Runtime takes it.
    const ir::VarId length = elemwise(c, "MUL", {c.const_f32(static_cast<float>(in)), scale});
    const ir::VarId out = to_int32(c, elemwise(c, "FLOOR", {length}));
    const ir::VarId s = scaled_coordinate(c, coord, in, scale, length, to_float(c, iota(c, out)));
    const ir::VarId lo = elemwise(c, "FLOOR", {s});
    const ir::VarId frac = elemwise(c, "SUB", {s, lo});
    const ir::VarId half = c.const_f32(0.5f);
    if (mode == ResizeMode::Nearest) {
        ir::VarId pick = lo;
        switch (rounding) {
            case ResizeRounding::RoundPreferFloor:  // up when the fraction is above ½
                pick = elemwise(c, "ADD", {lo, elemwise(c, "LT", {half, frac})});
                break;
            case ResizeRounding::RoundPreferCeil:  // up when it is ½ or more
                pick = elemwise(c, "ADD", {lo, elemwise(c, "LEQ", {half, frac})});
                break;
            case ResizeRounding::Floor:
                break;
            case ResizeRounding::Ceil:
                pick = elemwise(c, "CEIL", {s});
                break;
        }
        return gather(c, y, axis, clamp_index(c, to_int32(c, pick), in));
    }
    const ir::VarId first = to_int32(c, lo);
    if (mode == ResizeMode::Linear) {
        const ir::VarId a = gather(c, y, axis, clamp_index(c, first, in));
        const ir::VarId b = gather(c, y, axis, clamp_index(c, int_op(c, "ADD", {first, c.const_i32({1})}), in));
        const ir::VarId w0 = elemwise(c, "SUB", {c.const_f32(1.0f), frac});
        const ir::VarId part = elemwise(c, "MUL", {a, along(c, w0, out, rank, axis)});
        return elemwise(c, "FUSE_MUL_ADD3", {b, along(c, frac, out, rank, axis), part});
    }
    std::array<ir::VarId, 4> w = cubic_weights(c, frac, cubic_a);
    std::array<ir::VarId, 4> taps;
    for (int64_t k = 0; k < 4; ++k) taps[static_cast<size_t>(k)] = int_op(c, "ADD", {first, c.const_i32({k - 1})});
    if (exclude_outside) {
        // Taps past the input weigh nothing; the others are renormalized to sum 1.
        for (size_t k = 0; k < 4; ++k) {
            const ir::VarId inside = int_op(c, "MUL", {int_op(c, "LEQ", {c.const_i32({0}), taps[k]}),
                                                       int_op(c, "LT", {taps[k], c.const_i32({in})})});
            w[k] = elemwise(c, "MUL", {w[k], to_float(c, inside)});
        }
        const ir::VarId sum = elemwise(c, "ADD", {elemwise(c, "ADD", {w[0], w[1]}), elemwise(c, "ADD", {w[2], w[3]})});
        for (ir::VarId& wk : w) wk = elemwise(c, "TRUE_DIV", {wk, sum});
    }
    ir::VarId result = elemwise(c, "MUL", {gather(c, y, axis, clamp_index(c, taps[0], in)), along(c, w[0], out, rank, axis)});
    for (size_t k = 1; k < 4; ++k)
        result = elemwise(c, "FUSE_MUL_ADD3",
                          {gather(c, y, axis, clamp_index(c, taps[k], in)), along(c, w[k], out, rank, axis), result});
    return result;
}

}  // namespace

void resize_to_runtime_scales(Importer& c, size_t scales_at, ResizeMode mode, ResizeCoord coord,
                              ResizeRounding rounding, double cubic_a, bool exclude_outside) {
    const Value& x = c.input(0);
    const size_t rank = x.shape.size();
    operand_length(c, scales_at, "scales", static_cast<int64_t>(rank));
    const Value& scales = c.input(scales_at);
    if (scales.shape.size() != 1 || scales.elem_type != P::FLOAT)
        c.fail(fmt::format("scales (input #{}) must be a 1-D FLOAT tensor", scales_at));
    for (size_t k = 0; k < rank; ++k)
        if (x.shape[k] <= 0) c.fail(fmt::format("axis {} of the input has {} elements; it must have some", k, x.shape[k]));
    if (mode != ResizeMode::Nearest && x.elem_type != P::FLOAT)
        c.fail(fmt::format("{} resize of {} by scales known only at run time is not supported (FLOAT only)",
                           mode == ResizeMode::Linear ? "linear" : "cubic", onnx_elem_name(x.elem_type)));
    ir::VarId y = c.var(0);
    for (size_t k = 0; k < rank; ++k)
        y = resample_scaled_axis(c, y, rank, k, x.shape[k], element(c, c.var(scales_at), static_cast<int64_t>(k)),
                                 mode, coord, rounding, cubic_a, exclude_outside);
    set_runtime_output(c, 0, y, x.elem_type, rank);
}

void resize_to_runtime_sizes(Importer& c, ResizeMode mode, ResizeCoord coord, ResizeRounding rounding) {
    const Value& x = c.input(0);
    const size_t rank = x.shape.size();
    operand_length(c, 3, "sizes", static_cast<int64_t>(rank));
    if (c.input(3).shape.size() != 1) c.fail("sizes (input #3) must be a 1-D tensor");
    for (size_t k = 0; k < rank; ++k)
        if (x.shape[k] <= 0) c.fail(fmt::format("axis {} of the input has {} elements; it must have some", k, x.shape[k]));
    const ir::VarId sizes = int32_var(c, 3, "sizes");
    if (mode == ResizeMode::Cubic) {
        if (rank != 4 || coord != ResizeCoord::HalfPixel || (x.elem_type != P::FLOAT && x.elem_type != P::FLOAT16))
            c.fail(
                "cubic resize to sizes known only at run time is supported only where MegEngine's Resize computes "
                "it for any sizes: NCHW FLOAT or FLOAT16, half_pixel");
        const ir::VarId hw = c.emit("Concat", {element(c, sizes, 2), element(c, sizes, 3)}, {int_param("axis", 0)});
        const ir::VarId y = c.emit("Resize", {c.var(0), hw}, {{"imode", "CUBIC"}, {"format", "NCHW"}});
        return set_runtime_output(c, 0, c.emit("Broadcast", {y, sizes}), x.elem_type, rank);
    }
    if (mode == ResizeMode::Linear && x.elem_type != P::FLOAT)
        c.fail(fmt::format("linear resize of {} to sizes known only at run time is not supported (FLOAT only)",
                           onnx_elem_name(x.elem_type)));
    ir::VarId y = c.var(0);
    for (size_t k = 0; k < rank; ++k)
        y = resample_axis(c, y, rank, k, x.shape[k], element(c, sizes, static_cast<int64_t>(k)), mode, coord,
                          rounding);
    set_runtime_output(c, 0, y, x.elem_type, rank);
}

}  // namespace mgedump::formats::onnx_import
