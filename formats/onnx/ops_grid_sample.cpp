// GridSample (opset 16) on 4-D data: X (N, C, H, W) sampled at Grid (N, Ho, Wo, 2)
// (x along W, y along H, in [−1, 1]). MegEngine's Remap is not used: it takes the
// map in pixels (no normalized coordinates, no align_corners choice) and its
// BORDER_CONSTANT / REPLICATE borders clamp and weight taps its own way
// (dnn/src/naive/remap), so its sampling is not provably ONNX's. Instead the
// sampling is written out as PyTorch's grid_sampler_2d (whose outputs are ONNX's
// test data) computes it, per output position, with Float32 Elemwise on the grid
// (known only at run time, as in ONNX's tests):
//   unnormalize: align_corners ((g + 1) / 2)·(size − 1), else ((g + 1)·size − 1) / 2;
//   padding_mode border clips the coordinate to [0, size − 1]; reflection reflects it
//   at −½ and size − ½ (align_corners: 0 and size − 1) as PyTorch's
//   reflect_coordinates does (ABS, MOD (fmod), the parity of FLOOR), then clips;
//   nearest: the tap at the coordinate rounded half to even;
//   bilinear: the taps at ⌊x⌋, ⌊x⌋ + 1 (and y) weighted (x1 − x)(y1 − y),
//   (x − x0)(y1 − y), (x1 − x)(y − y0), (x − x0)(y − y0), summed in that order.
// A tap outside the input reads 0 (Where on a Bool in-bounds mask, so a non-finite
// input value elsewhere cannot leak through a zero weight); the taps are one
// IndexingMultiAxisVec each on X seen as (N, H, W, C), by batch, row and column.
//   bicubic: the 4×4 taps around ⌊x⌋, ⌊y⌋ of the unnormalized coordinate, each
//   tap's coordinate bounded by padding_mode, weighted by PyTorch's cubic
//   coefficients (A = −0.75) along x per row, then along y.
// Refused: other ranks (ONNX 1.12's GridSample is 4-D), other modes.
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

ir::IndexDescMaskItem index_item(size_t axis) { return {static_cast<int8_t>(axis), false, false, false, true}; }

struct Sampler {
    Importer& c;
    int64_t n, ch, h, w, ho, wo;
    ir::VarId nhwc;   // X as (N, H, W, C)
    ir::VarId batch;  // 0..N−1 along axis 0, broadcast to (N, Ho, Wo)

    Shape plane() const { return {n, ho, wo}; }
    Shape taps() const { return {n, ho, wo, ch}; }
    ir::VarId f32(double v) const { return c.const_f32(static_cast<float>(v)); }

    ir::VarId within(ir::VarId v, int64_t size) const {
        return elemwise(c, "AND",
                        {bool_elemwise(c, "LEQ", {f32(0), v}), bool_elemwise(c, "LEQ", {v, f32(static_cast<double>(size - 1))})});
    }
    ir::VarId index(ir::VarId v, int64_t size) const {
        ir::VarId clipped = elemwise(c, "CLIP", {v, f32(0), f32(static_cast<double>(size - 1))});
        return type_cvt(c, clipped, ir::DTypeEnum::Int32);
    }
    // X at the whole-number coordinates (y, x) of every output position, (N, Ho, Wo, C);
    // 0 where they lie outside the input.
    ir::VarId tap(ir::VarId y, ir::VarId x) const {
        ir::VarId inside = elemwise(c, "AND", {within(y, h), within(x, w)});
        ir::VarId g = c.emit("IndexingMultiAxisVec", {nhwc, batch, index(y, h), index(x, w)},
                             {{"items", std::vector{index_item(0), index_item(1), index_item(2)}}});
        const Shape one{n, ho, wo, 1};
        ir::VarId mask = broadcast_to(c, c.reshape(inside, one), one, taps());
        return c.emit("Where", {mask, g, broadcast_to(c, f32(0), {1}, taps())});
    }
    ir::VarId weighted(ir::VarId t, ir::VarId weight) const {
        return elemwise(c, "MUL", {t, c.reshape(weight, {n, ho, wo, 1})});
    }
};

// PyTorch's reflect_coordinates(v, twice_low, twice_high): |v − low| folded into
// [low, low + span] by fmod and the parity of ⌊|v − low| / span⌋; an empty span
// (size 1 with align_corners) gives 0, as PyTorch's does.
ir::VarId reflect(Importer& c, ir::VarId v, const Shape& shape, int64_t twice_low, int64_t twice_high) {
    auto f32 = [&](double d) { return c.const_f32(static_cast<float>(d)); };
    if (twice_low == twice_high) return broadcast_to(c, f32(0), {1}, shape);
    const double low = static_cast<double>(twice_low) / 2, span = static_cast<double>(twice_high - twice_low) / 2;
    ir::VarId a = elemwise(c, "ABS", {elemwise(c, "SUB", {v, f32(low)})});
    ir::VarId extra = elemwise(c, "MOD", {a, f32(span)});
    ir::VarId flips = elemwise(c, "FLOOR", {elemwise(c, "TRUE_DIV", {a, f32(span)})});
    ir::VarId even = bool_elemwise(c, "EQ", {elemwise(c, "MOD", {flips, f32(2)}), f32(0)});
    return c.emit("Where", {even, elemwise(c, "ADD", {extra, f32(low)}),
                            elemwise(c, "ADD", {elemwise(c, "SUB", {f32(span), extra}), f32(low)})});
}

// PyTorch's get_cubic_upsample_coefficients(t) with A = −0.75: cubic_convolution2(t + 1),
// cubic_convolution1(t), cubic_convolution1(1 − t), cubic_convolution2(2 − t), in its
// order of operations: conv1(x) = ((A + 2)·x − (A + 3))·x·x + 1, conv2(x) = ((A·x −
// 5A)·x + 8A)·x − 4A.
std::array<ir::VarId, 4> cubic_coefficients(Importer& c, ir::VarId t) {
    constexpr double A = -0.75;
    auto f32 = [&](double d) { return c.const_f32(static_cast<float>(d)); };
    auto conv1 = [&](ir::VarId x) {
        ir::VarId p = elemwise(c, "SUB", {elemwise(c, "MUL", {f32(A + 2), x}), f32(A + 3)});
        return elemwise(c, "ADD", {elemwise(c, "MUL", {elemwise(c, "MUL", {p, x}), x}), f32(1)});
    };
    auto conv2 = [&](ir::VarId x) {
        ir::VarId p = elemwise(c, "SUB", {elemwise(c, "MUL", {f32(A), x}), f32(5 * A)});
        p = elemwise(c, "ADD", {elemwise(c, "MUL", {p, x}), f32(8 * A)});
        return elemwise(c, "SUB", {elemwise(c, "MUL", {p, x}), f32(4 * A)});
    };
    ir::VarId one_minus = elemwise(c, "SUB", {f32(1), t});
    return {conv2(elemwise(c, "ADD", {t, f32(1)})), conv1(t), conv1(one_minus),
            conv2(elemwise(c, "ADD", {one_minus, f32(1)}))};
}

void grid_sample(Importer& c) {
    c.check_attrs({"align_corners", "mode", "padding_mode"});
    require_float(c, 0);
    const Value &x = c.input(0), &grid = c.input(1);
    if (x.elem_type != P::FLOAT || grid.elem_type != P::FLOAT) c.fail("X and Grid must be FLOAT");
    if (x.shape.size() != 4)
        c.fail(fmt::format("X has rank {}; only 4-D (N, C, H, W) data is supported", x.shape.size()));
    if (grid.shape.size() != 4 || grid.shape[0] != x.shape[0] || grid.shape[3] != 2)
        c.fail(fmt::format("Grid [{}] must be (N, H_out, W_out, 2) with N = {}", fmt::join(grid.shape, ","),
                           x.shape[0]));
    const std::string mode = c.attr_string("mode", "bilinear");
    const std::string padding = c.attr_string("padding_mode", "zeros");
    const bool align_corners = c.attr_int("align_corners", 0) != 0;
    if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
        c.fail(fmt::format("mode '{}' is not supported (bilinear, nearest and bicubic are)", mode));
    if (padding != "zeros" && padding != "border" && padding != "reflection")
        c.fail(fmt::format("padding_mode '{}' is not supported (zeros, border and reflection are)", padding));
    Sampler s{c, x.shape[0], x.shape[1], x.shape[2], x.shape[3], grid.shape[1], grid.shape[2], {}, {}};
    s.nhwc = c.emit("Dimshuffle", {c.var(0)}, {{"pattern", std::vector<int32_t>{0, 2, 3, 1}}});
    std::vector<int64_t> ns(static_cast<size_t>(s.n));
    for (int64_t k = 0; k < s.n; ++k) ns[static_cast<size_t>(k)] = k;
    std::vector<std::byte> bytes(ns.size() * 4);
    for (size_t k = 0; k < ns.size(); ++k) {
        const int32_t v = static_cast<int32_t>(ns[k]);
        std::memcpy(bytes.data() + 4 * k, &v, 4);
    }
    const Shape along{s.n, 1, 1};
    s.batch = broadcast_to(c, c.const_var(ir::DTypeEnum::Int32, along, std::move(bytes)), along, s.plane());

    // The unnormalized coordinate along W (component 0) or H (1).
    auto unnormalized = [&](int64_t component, int64_t size) {
        const std::vector<ir::IndexDescMaskItem> item{index_item(3)};
        ir::VarId g = c.emit("Subtensor", {c.var(1), c.const_i32({component})}, {{"items", item}});
        ir::VarId one = s.f32(1), half = s.f32(2);
        return align_corners
                   ? elemwise(c, "MUL", {elemwise(c, "TRUE_DIV", {elemwise(c, "ADD", {g, one}), half}),
                                         s.f32(static_cast<double>(size - 1))})
                   : elemwise(c, "TRUE_DIV",
                              {elemwise(c, "SUB", {elemwise(c, "MUL", {elemwise(c, "ADD", {g, one}),
                                                                       s.f32(static_cast<double>(size))}),
                                                   one}),
                               half});
    };
    // padding_mode applied to a coordinate (zeros: as it is; the taps mask it).
    auto bounded = [&](ir::VarId v, int64_t size) {
        if (padding == "reflection")
            v = reflect(c, v, s.plane(), align_corners ? 0 : -1, align_corners ? 2 * (size - 1) : 2 * size - 1);
        if (padding != "zeros") v = elemwise(c, "CLIP", {v, s.f32(0), s.f32(static_cast<double>(size - 1))});
        return v;
    };
    ir::VarId y;
    if (mode == "bicubic") {
        // PyTorch's bicubic grid sampling: the 4×4 taps around ⌊x⌋, ⌊y⌋ on the
        // unnormalized coordinates, each tap's coordinate bounded by padding_mode,
        // cubic_interp1d along x per row, then along y (A = −0.75).
        ir::VarId ix = unnormalized(0, s.w), iy = unnormalized(1, s.h);
        ir::VarId x0 = elemwise(c, "FLOOR", {ix}), y0 = elemwise(c, "FLOOR", {iy});
        const auto cx = cubic_coefficients(c, elemwise(c, "SUB", {ix, x0}));
        const auto cy = cubic_coefficients(c, elemwise(c, "SUB", {iy, y0}));
        std::array<ir::VarId, 4> xs, ys;
        for (int k = 0; k < 4; ++k) {
            xs[k] = bounded(elemwise(c, "ADD", {x0, s.f32(k - 1)}), s.w);
            ys[k] = bounded(elemwise(c, "ADD", {y0, s.f32(k - 1)}), s.h);
        }
        std::optional<ir::VarId> acc;
        for (int i = 0; i < 4; ++i) {
            std::optional<ir::VarId> row;
            for (int j = 0; j < 4; ++j) {
                ir::VarId t = s.weighted(s.tap(ys[i], xs[j]), cx[j]);
                row = row ? elemwise(c, "ADD", {*row, t}) : t;
            }
            ir::VarId t = s.weighted(*row, cy[i]);
            acc = acc ? elemwise(c, "ADD", {*acc, t}) : t;
        }
        y = *acc;
    } else {
        ir::VarId ix = bounded(unnormalized(0, s.w), s.w), iy = bounded(unnormalized(1, s.h), s.h);
        if (mode == "nearest") {
            // In statements of their own (a call's arguments have no order in C++;
            // GCC's, the last first, kept).
            const ir::VarId column = round_half_to_even(c, ix, P::FLOAT);
            y = s.tap(round_half_to_even(c, iy, P::FLOAT), column);
        } else {
            ir::VarId x0 = elemwise(c, "FLOOR", {ix}), y0 = elemwise(c, "FLOOR", {iy});
            ir::VarId x1 = elemwise(c, "ADD", {x0, s.f32(1)}), y1 = elemwise(c, "ADD", {y0, s.f32(1)});
            ir::VarId wx0 = elemwise(c, "SUB", {x1, ix}), wx1 = elemwise(c, "SUB", {ix, x0});
            ir::VarId wy0 = elemwise(c, "SUB", {y1, iy}), wy1 = elemwise(c, "SUB", {iy, y0});
            // The corner's weight, then its tap (GCC's order of the call's arguments, kept).
            auto corner = [&](ir::VarId yy, ir::VarId xx, ir::VarId wx, ir::VarId wy) {
                const ir::VarId weight = elemwise(c, "MUL", {wx, wy});
                return s.weighted(s.tap(yy, xx), weight);
            };
            y = corner(y0, x0, wx0, wy0);
            y = elemwise(c, "ADD", {y, corner(y0, x1, wx1, wy0)});
            y = elemwise(c, "ADD", {y, corner(y1, x0, wx0, wy1)});
            y = elemwise(c, "ADD", {y, corner(y1, x1, wx1, wy1)});
        }
    }
    y = c.emit("Dimshuffle", {y}, {{"pattern", std::vector<int32_t>{0, 3, 1, 2}}});
    c.set_output_var(0, y, P::FLOAT, {s.n, s.ch, s.ho, s.wo});
}

constexpr OpHandler kHandlers[] = {
    {"GridSample", grid_sample},
};

}  // namespace

std::span<const OpHandler> grid_sample_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
