// WarpPerspective, WarpAffine and Remap: MegDNN's dnn/src/naive/{warp_perspective,
// warp_affine,remap}, NCHW and NHWC.
//
// Two algorithms, chosen as MegDNN chooses (warp::is_cv_available):
// - the naive kernel (NCHW, and NHWC images MegDNN does not hand to OpenCV):
//   each output pixel maps to a float source point; its floor and floor + 1
//   are mapped by the border mode (WarpPerspectiveBase::get_real_coord) and the
//   four samples mixed with weights (1 − α)/α, in float, term by term;
// - the OpenCV port (NHWC Float32 images of 1 to 3 channels, warp_*_cv.cpp):
//   source points are fixed-point with 5 fraction bits (INTER_BITS), the
//   weights come from a 32×32 table, and pixels outside use
//   megcv::border_interpolate. Its NEAREST and LINEAR modes are implemented.
//
// With border mode CONSTANT a sample outside is border_val, and a non-finite
// result becomes border_val. Float16 and BFloat16 are computed in float and
// rounded once; 8-bit integers are interpolated as stored and round()ed.
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/image_kernels.h"
#include "engine/eval/image_util.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval::image {
namespace {

using E = ir::DTypeEnum;

// An image batch in NCHW or NHWC: where element (b, ch, y, x) lives.
struct Layout {
    size_t c = 0, h = 0, w = 0;
    bool nhwc = false;
    size_t at(size_t b, size_t ch, size_t y, size_t x) const {
        return nhwc ? ((b * h + y) * w + x) * c + ch : ((b * c + ch) * h + y) * w + x;
    }
};

Layout layout_of(const KernelContext& ctx, const ir::Shape& s, bool nhwc) {
    if (s.ndim != 4) ctx.fail("needs 4-dim images, got {}", ir::shape_string(s));
    return nhwc ? Layout{s[3], s[1], s[2], true} : Layout{s[1], s[2], s[3], false};
}

bool parse_nhwc(const KernelContext& ctx) {
    const std::string_view f = ctx.params().enum_field("format");
    if (f != "NCHW" && f != "NHWC") ctx.fail("format {} is not implemented; NCHW and NHWC only", f);
    return f == "NHWC";
}

// The matrices as float; MegDNN reads them as Float32, or as the input's own
// float type where the input is Float16/BFloat16 and the matrix is too.
std::vector<float> matrices(const KernelContext& ctx, const Tensor& mat, E src) {
    const E m = mat.dtype().type;
    if (m != E::Float32 && !(m == src && (m == E::Float16 || m == E::BFloat16)))
        ctx.fail("the matrix must be Float32 (or the float input's dtype), it is {}",
                 ir::dtype_string(mat.dtype()));
    const Floats f = storage_floats(mat);
    return std::vector<float>(f.ptr, f.ptr + mat.elements());
}

// ---------------------------------------------------------------- the naive kernel

// One output pixel's source point (α_w, α_h) sampled bilinearly, the naive way.
struct NaiveSampler {
    const KernelContext& ctx;
    Border border;
    float border_val;
    Layout src;

    // `value(b, ch, y, x)` for every channel of the output pixel, through `put(ch, v)`.
    template <class Put>
    void sample(const float* s, size_t b, float alphaw, float alphah, Put&& put) const {
        const float fw = std::floor(alphaw), fh = std::floor(alphah);
        const int iw0 = border_coord(ctx, border, x86_trunc(fw + 0), static_cast<int>(src.w));
        const int iw1 = border_coord(ctx, border, x86_trunc(fw + 1), static_cast<int>(src.w));
        const int ih0 = border_coord(ctx, border, x86_trunc(fh + 0), static_cast<int>(src.h));
        const int ih1 = border_coord(ctx, border, x86_trunc(fh + 1), static_cast<int>(src.h));
        alphaw -= fw;
        alphah -= fh;
        auto at = [&](size_t ch, int y, int x) {
            return y != -1 && x != -1 ? s[src.at(b, ch, y, x)] : border_val;
        };
        for (size_t ch = 0; ch < src.c; ++ch) {
            const float v = at(ch, ih0, iw0) * (1.0f - alphaw) * (1.0f - alphah) +
                            at(ch, ih0, iw1) * alphaw * (1.0f - alphah) +
                            at(ch, ih1, iw0) * (1.0f - alphaw) * alphah + at(ch, ih1, iw1) * alphaw * alphah;
            put(ch, border == Border::Constant && !std::isfinite(v) ? border_val : v);
        }
    }
};

// get_real_coord leaves TRANSPARENT and ISOLATED coordinates as they are (an
// out-of-bounds read); MegDNN's checks refuse them for NCHW.
Border naive_border(const KernelContext& ctx, ir::FieldName field) {
    const Border b = parse_border(ctx, field);
    if (b == Border::Transparent || b == Border::Isolated)
        ctx.fail("border mode {} is not supported by MegDNN's naive warp kernel", border_name(b));
    return b;
}

// ---------------------------------------------------------------- the OpenCV port

constexpr int kInterBits = 5;  // InterpolationTable::INTER_BITS
constexpr int kTab = 1 << kInterBits;

int saturate_short(int v) { return std::clamp(v, -32768, 32767); }
int32_t wrapping_add(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// A source point in fixed point: the integer sample left of it and, for LINEAR,
// the 5-bit fractions as one table index ((y & 31) · 32 + (x & 31)).
struct FixedPoint {
    int sx, sy, frac;
};

// The float bilinear weights of table entry `frac` (interp_helper.cpp get_table:
// products of the 1-D taps 1 − i/32 and i/32).
std::array<float, 4> cv_linear_weights(int frac) {
    const float scale = 1.f / kTab;
    const int i = frac / kTab, j = frac % kTab;
    const float ty[2] = {1.f - i * scale, i * scale};
    const float tx[2] = {1.f - j * scale, j * scale};
    return {ty[0] * tx[0], ty[0] * tx[1], ty[1] * tx[0], ty[1] * tx[1]};
}

// warp_common.h remapNearest / remapBilinear for one image (Float32, 1–3 channels).
struct CvRemap {
    const KernelContext& ctx;
    Border border;
    float border_val;
    bool nearest;
    Layout src;

    void pixel(const float* s, size_t b, FixedPoint p, float* out) const {
        const int swidth = static_cast<int>(src.w), sheight = static_cast<int>(src.h);
        auto at = [&](int y, int x, size_t ch) { return s[src.at(b, ch, y, x)]; };
        if (nearest) {
            int sx = p.sx, sy = p.sy;
            if (static_cast<unsigned>(sx) < static_cast<unsigned>(swidth) &&
                static_cast<unsigned>(sy) < static_cast<unsigned>(sheight)) {
            } else if (border == Border::Replicate) {
                sx = std::clamp(sx, 0, swidth - 1);
                sy = std::clamp(sy, 0, sheight - 1);
            } else if (border == Border::Constant) {
                for (size_t ch = 0; ch < src.c; ++ch) out[ch] = border_val;
                return;
            } else {
                sx = border_coord(ctx, border, sx, swidth);
                sy = border_coord(ctx, border, sy, sheight);
            }
            for (size_t ch = 0; ch < src.c; ++ch) out[ch] = at(sy, sx, ch);
            return;
        }
        const std::array<float, 4> w = cv_linear_weights(p.frac);
        const unsigned width1 = static_cast<unsigned>(std::max(swidth - 1, 0));
        const unsigned height1 = static_cast<unsigned>(std::max(sheight - 1, 0));
        const int sx = p.sx, sy = p.sy;
        if (static_cast<unsigned>(sx) < width1 && static_cast<unsigned>(sy) < height1) {
            for (size_t ch = 0; ch < src.c; ++ch)
                out[ch] = at(sy, sx, ch) * w[0] + at(sy, sx + 1, ch) * w[1] + at(sy + 1, sx, ch) * w[2] +
                          at(sy + 1, sx + 1, ch) * w[3];
            return;
        }
        if (border == Border::Constant && (sx >= swidth || sx + 1 < 0 || sy >= sheight || sy + 1 < 0)) {
            for (size_t ch = 0; ch < src.c; ++ch) out[ch] = border_val;
            return;
        }
        int sx0, sx1, sy0, sy1;
        if (border == Border::Replicate) {
            sx0 = std::clamp(sx, 0, swidth - 1);
            sx1 = std::clamp(sx + 1, 0, swidth - 1);
            sy0 = std::clamp(sy, 0, sheight - 1);
            sy1 = std::clamp(sy + 1, 0, sheight - 1);
        } else {
            sx0 = border_coord(ctx, border, sx, swidth);
            sx1 = border_coord(ctx, border, sx + 1, swidth);
            sy0 = border_coord(ctx, border, sy, sheight);
            sy1 = border_coord(ctx, border, sy + 1, sheight);
        }
        auto v = [&](int y, int x, size_t ch) { return x >= 0 && y >= 0 ? at(y, x, ch) : border_val; };
        for (size_t ch = 0; ch < src.c; ++ch)
            out[ch] = v(sy0, sx0, ch) * w[0] + v(sy0, sx1, ch) * w[1] + v(sy1, sx0, ch) * w[2] +
                      v(sy1, sx1, ch) * w[3];
    }
};

// warp::is_cv_available: NHWC images of 1–3 channels, Float32 or Uint8, any
// interpolation but AREA.
bool cv_available(const Layout& src, E dtype, std::string_view imode) {
    return src.nhwc && src.c >= 1 && src.c <= 3 && (dtype == E::Float32 || dtype == E::Uint8) &&
           (imode == "NEAREST" || imode == "LINEAR" || imode == "CUBIC" || imode == "LANCZOS4");
}

// What of the OpenCV port is implemented: Float32, NEAREST and LINEAR.
CvRemap cv_remap(const KernelContext& ctx, const Layout& src, E dtype, std::string_view imode,
                 ir::FieldName bfield, float border_val) {
    if (dtype != E::Float32)
        ctx.fail(
            "a {}-channel NHWC {} image goes to MegDNN's OpenCV port, which is implemented for Float32 only",
            src.c, ir::dtype_name(dtype));
    if (imode != "NEAREST" && imode != "LINEAR")
        ctx.fail("imode {} of MegDNN's OpenCV port ({}-channel NHWC images) is not implemented", imode,
                 src.c);
    const Border b = parse_border(ctx, bfield);
    if (b == Border::Transparent || b == Border::Isolated)
        ctx.fail("border mode {} of MegDNN's OpenCV port is not implemented", border_name(b));
    return CvRemap{ctx, b, border_val, imode == "NEAREST", src};
}

Layout output_layout(const KernelContext& ctx, const Tensor& out, bool nhwc) {
    return layout_of(ctx, out.shape(), nhwc);
}

// ---------------------------------------------------------------- WarpPerspective

// warp_perspective_cv.cpp: the point of each pixel in double, computed per
// block of the output as MegDNN's tasks do (the block origin enters the sum).
void perspective_cv(const CvRemap& cv, const float* s, const std::vector<float>& mats,
                    const std::vector<int32_t>& src_of, const Layout& dst, size_t n, float* out) {
    const size_t height = dst.h, width = dst.w;
    if (height == 0 || width == 0) return;
    constexpr size_t kBlock = 32;
    // Only the block width matters: the block's first column enters the sum.
    const size_t bw = std::min(kBlock * kBlock / std::min(kBlock / 2, height), width);
    tbb::parallel_for(size_t{0}, n * height, [&](size_t row) {
        const size_t b = row / height, y = row % height;
        double M[9];
        for (int i = 0; i < 9; ++i) M[i] = mats[b * 9 + i];
        for (size_t x = 0; x < width; x += bw) {
            const size_t w_end = std::min(width, x + bw);
            const double X0 = M[0] * x + M[1] * y + M[2];
            const double Y0 = M[3] * x + M[4] * y + M[5];
            const double W0 = M[6] * x + M[7] * y + M[8];
            for (size_t x1 = 0; x + x1 < w_end; ++x1) {
                double W = W0 + M[6] * x1;
                FixedPoint p{};
                if (cv.nearest) {
                    W = W ? 1. / W : 0;
                    const double fX =
                        std::max((double)INT_MIN, std::min((double)INT_MAX, (X0 + M[0] * x1) * W));
                    const double fY =
                        std::max((double)INT_MIN, std::min((double)INT_MAX, (Y0 + M[3] * x1) * W));
                    p.sx = saturate_short(x86_round(fX));
                    p.sy = saturate_short(x86_round(fY));
                } else {
                    W = W ? kTab / W : 0;
                    const double fX =
                        std::max((double)INT_MIN, std::min((double)INT_MAX, (X0 + M[0] * x1) * W));
                    const double fY =
                        std::max((double)INT_MIN, std::min((double)INT_MAX, (Y0 + M[3] * x1) * W));
                    const int X = x86_round(fX), Y = x86_round(fY);
                    p.sx = saturate_short(X >> kInterBits);
                    p.sy = saturate_short(Y >> kInterBits);
                    p.frac = (Y & (kTab - 1)) * kTab + (X & (kTab - 1));
                }
                cv.pixel(s, static_cast<size_t>(src_of[b]), p, out + dst.at(b, 0, y, x + x1));
            }
        }
    });
}

}  // namespace

// imgproc.cpp WarpPerspectiveForward: inputs (src, mat[, mat_idx], out_shape).
void warp_perspective(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const bool nhwc = parse_nhwc(ctx);
    const E t = in.dtype().type, to = out.dtype().type;
    const Layout src = layout_of(ctx, in.shape(), nhwc);
    const Layout dst = output_layout(ctx, out, nhwc);
    const size_t n = out.shape()[0];
    const std::string_view imode = ctx.params().enum_field("imode");
    const float border_val = static_cast<float>(ctx.params().float_field("border_val"));
    const std::vector<float> mats = matrices(ctx, ctx.in(1), t);

    // Which source image each output batch reads (mat_idx, else its own).
    std::vector<int32_t> src_of(n);
    if (ctx.nr_inputs() == 4) {
        auto idx = ctx.in(2).data<int32_t>();
        for (size_t i = 0; i < n; ++i) {
            if (idx[i] < 0 || static_cast<uint32_t>(idx[i]) >= in.shape()[0])
                ctx.fail("mat_idx[{}] = {} is out of the source batch {}", i, idx[i], in.shape()[0]);
            src_of[i] = idx[i];
        }
    } else {
        for (size_t i = 0; i < n; ++i) src_of[i] = static_cast<int32_t>(i);
    }

    if (!interpolable(t)) ctx.fail("WarpPerspective of {} is not implemented", ir::dtype_string(in.dtype()));
    const Floats sf = storage_floats(in);
    std::vector<float> result(out.elements());

    if (t == to && cv_available(src, t, imode)) {
        const CvRemap cv = cv_remap(ctx, src, t, imode, "bmode", border_val);
        perspective_cv(cv, sf.ptr, mats, src_of, dst, n, result.data());
        store_values(out, result);
        return;
    }
    if (imode != "LINEAR") ctx.fail("imode {} is not implemented by MegDNN's naive WarpPerspective", imode);
    // kern_naive_dimshuffle_typecvt: Uint8 / Quantized8Asymm interpolated as
    // stored, then made real: (v − zero point) · scale.
    const bool to_float = t != to;
    if (to_float && !((t == E::Uint8 || t == E::Quantized8Asymm) && to == E::Float32))
        ctx.fail("WarpPerspective from {} to {} is not implemented", ir::dtype_string(in.dtype()),
                 ir::dtype_string(out.dtype()));
    const float zero_point = t == E::Quantized8Asymm ? in.dtype().zero_point : 0.0f;
    const float scale = t == E::Quantized8Asymm ? in.dtype().scale : 1.0f;

    const NaiveSampler sampler{ctx, naive_border(ctx, "bmode"), border_val, src};
    tbb::parallel_for(size_t{0}, n * dst.h, [&](size_t row) {
        const size_t b = row / dst.h, oh = row % dst.h;
        const float* m = mats.data() + b * 9;
        for (size_t ow = 0; ow < dst.w; ++ow) {
            const float numeratorw = m[0] * ow + m[1] * oh + m[2];
            const float numeratorh = m[3] * ow + m[4] * oh + m[5];
            const float denominator = m[6] * ow + m[7] * oh + m[8];
            sampler.sample(sf.ptr, static_cast<size_t>(src_of[b]), numeratorw / denominator,
                           numeratorh / denominator, [&](size_t ch, float v) {
                               result[dst.at(b, ch, oh, ow)] =
                                   to_float ? (v - zero_point) * scale : rounding_convert(t, v);
                           });
        }
    });
    store_values(out, result);
}

// imgproc.cpp WarpAffineForward: inputs (src, mat[N,2,3], out_shape).
void warp_affine(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const bool nhwc = parse_nhwc(ctx);
    const E t = in.dtype().type;
    const Layout src = layout_of(ctx, in.shape(), nhwc);
    const Layout dst = output_layout(ctx, out, nhwc);
    const size_t n = out.shape()[0];
    const std::string_view imode = ctx.params().enum_field("imode");
    const float border_val = static_cast<float>(ctx.params().float_field("border_val"));
    if (!interpolable(t) || t == E::BFloat16)
        ctx.fail("WarpAffine of {} is not supported", ir::dtype_string(in.dtype()));
    const std::vector<float> mats = matrices(ctx, ctx.in(1), t);
    const Floats sf = storage_floats(in);
    std::vector<float> result(out.elements());

    if (cv_available(src, t, imode)) {
        // warp_affine_cv.cpp: the point in 10-bit fixed point (AB_BITS), the x
        // part as a per-column delta, rounded by half a table step.
        const CvRemap cv = cv_remap(ctx, src, t, imode, "border_mode", border_val);
        constexpr int kAbBits = 10, kAbScale = 1 << kAbBits;
        const int round_delta = cv.nearest ? kAbScale / 2 : kAbScale / kTab / 2;
        tbb::parallel_for(size_t{0}, n * dst.h, [&](size_t row) {
            const size_t b = row / dst.h, y = row % dst.h;
            double M[6];
            for (int i = 0; i < 6; ++i) M[i] = mats[b * 6 + i];
            const int X0 = wrapping_add(x86_round((M[1] * y + M[2]) * kAbScale), round_delta);
            const int Y0 = wrapping_add(x86_round((M[4] * y + M[5]) * kAbScale), round_delta);
            for (size_t x = 0; x < dst.w; ++x) {
                const int adelta = x86_round(M[0] * x * kAbScale);
                const int bdelta = x86_round(M[3] * x * kAbScale);
                FixedPoint p{};
                if (cv.nearest) {
                    p.sx = saturate_short(wrapping_add(X0, adelta) >> kAbBits);
                    p.sy = saturate_short(wrapping_add(Y0, bdelta) >> kAbBits);
                } else {
                    const int X = wrapping_add(X0, adelta) >> (kAbBits - kInterBits);
                    const int Y = wrapping_add(Y0, bdelta) >> (kAbBits - kInterBits);
                    p.sx = saturate_short(X >> kInterBits);
                    p.sy = saturate_short(Y >> kInterBits);
                    p.frac = (Y & (kTab - 1)) * kTab + (X & (kTab - 1));
                }
                cv.pixel(sf.ptr, b, p, result.data() + dst.at(b, 0, y, x));
            }
        });
        store_values(out, result);
        return;
    }
    if (imode != "LINEAR") ctx.fail("imode {} is not implemented by MegDNN's naive WarpAffine", imode);
    // The naive kernel reads a Float16 input's matrix as Float16 whatever its dtype.
    if (t == E::Float16 && ctx.in(1).dtype().type != E::Float16)
        ctx.fail("WarpAffine of a Float16 input needs a Float16 matrix (MegDNN reads it as Float16)");
    const NaiveSampler sampler{ctx, naive_border(ctx, "border_mode"), border_val, src};
    tbb::parallel_for(size_t{0}, n * dst.h, [&](size_t row) {
        const size_t b = row / dst.h, oh = row % dst.h;
        const float* m = mats.data() + b * 6;
        for (size_t ow = 0; ow < dst.w; ++ow) {
            const float alphaw = m[0] * ow + m[1] * oh + m[2];
            const float alphah = m[3] * ow + m[4] * oh + m[5];
            sampler.sample(sf.ptr, b, alphaw, alphah, [&](size_t ch, float v) {
                result[dst.at(b, ch, oh, ow)] = rounding_convert(t, v);
            });
        }
    });
    store_values(out, result);
}

// ---------------------------------------------------------------- Remap

namespace {

// remap/opr_impl.cpp round_half_to_even.
float round_half_to_even(float f) {
    const float away = std::round(f);
    const float diff = away - f;
    if (diff != 0.5f && diff != -0.5f) return away;
    if (std::fmod(away, 2.0f) == 0.0f) return away;
    return f - diff;
}

}  // namespace

// dnn/src/naive/remap: output pixel (h, w) samples the input at map_xy[n, h, w]
// = (x, y); the four samples of LINEAR are elements of the input's type (a
// CONSTANT sample outside is RoundingConverter(scalar)).
void remap(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const bool nhwc = parse_nhwc(ctx);
    const E t = in.dtype().type;
    if (t != E::Float32 && t != E::Float16 && t != E::BFloat16 && t != E::Int8 && t != E::Uint8)
        ctx.fail("Remap of {} is not supported by MegDNN", ir::dtype_string(in.dtype()));
    const std::string_view imode = ctx.params().enum_field("imode");
    if (imode != "LINEAR" && imode != "NEAREST")
        ctx.fail("imode {} is not supported by MegDNN's Remap", imode);
    const Border border = parse_border(ctx, "border_type");
    if (border == Border::Transparent || border == Border::Isolated)
        ctx.fail("border mode {} is not supported by MegDNN's Remap", border_name(border));
    const float scalar = rounding_convert(t, static_cast<float>(ctx.params().float_field("scalar")));
    const Layout src = layout_of(ctx, in.shape(), nhwc);
    const Layout dst = output_layout(ctx, out, nhwc);
    const size_t n = out.shape()[0];
    const Floats sf = storage_floats(in);
    const Floats map = storage_floats(ctx.in(1));
    const int ih = static_cast<int>(src.h), iw = static_cast<int>(src.w);
    std::vector<float> result(out.elements());

    const bool nearest = imode == "NEAREST";
    auto get = [&](size_t b, size_t ch, int row, int col) {
        if (border == Border::Constant)
            return row >= 0 && row < ih && col >= 0 && col < iw ? sf.ptr[src.at(b, ch, row, col)] : scalar;
        return sf.ptr[src.at(b, ch, border_coord(ctx, border, row, ih), border_coord(ctx, border, col, iw))];
    };
    tbb::parallel_for(size_t{0}, n * dst.h, [&](size_t r) {
        const size_t b = r / dst.h, h = r % dst.h;
        for (size_t w = 0; w < dst.w; ++w) {
            const float* xy = map.ptr + ((b * dst.h + h) * dst.w + w) * 2;
            const float index_col = xy[0], index_row = xy[1];
            if (nearest) {
                const int col = x86_trunc(round_half_to_even(index_col));
                const int row = x86_trunc(round_half_to_even(index_row));
                for (size_t ch = 0; ch < dst.c; ++ch) result[dst.at(b, ch, h, w)] = get(b, ch, row, col);
                continue;
            }
            const int col = x86_trunc(std::floor(index_col));
            const int row = x86_trunc(std::floor(index_row));
            const float v = index_col - col;  // alphaw
            const float u = index_row - row;  // alphah
            const float one = 1.f;
            for (size_t ch = 0; ch < dst.c; ++ch) {
                const float a00 = get(b, ch, row + 0, col + 0), a01 = get(b, ch, row + 0, col + 1);
                const float a10 = get(b, ch, row + 1, col + 0), a11 = get(b, ch, row + 1, col + 1);
                result[dst.at(b, ch, h, w)] = rounding_convert(
                    t, a00 * (one - v) * (one - u) + a01 * (one - u) * v + a10 * (one - v) * u + a11 * u * v);
            }
        }
    });
    store_values(out, result);
}

}  // namespace mgedump::engine::eval::image
