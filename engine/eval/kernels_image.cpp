// Kernels of the image family: Padding, Resize and LRN here (MegDNN's
// dnn/src/naive/{padding,resize,lrn}), WarpPerspective, WarpAffine and Remap in
// image_warp.cpp, RelayoutFormat in image_relayout.cpp, ROIAlign in
// image_roi_align.cpp. Interpolation follows the naive kernels' float arithmetic
// term by term, so results match to the last bit where MegEngine's do (Float16:
// computed in float, rounded once).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/image_kernels.h"
#include "engine/eval/image_util.h"
#include "engine/eval/kernels.h"
#include "ir/infer/padding_fields.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;
using image::output;

// ---------------------------------------------------------------- Padding

// T(param().padding_val) for the dtype's ctype, as storage bytes: floats
// rounded, integer and quantized storage converted by a C++ cast (so a
// quantized padding value is a stored integer, not a real value).
std::vector<std::byte> padding_value(const KernelContext& ctx, ir::DType d, float v) {
    std::vector<std::byte> bytes(ir::dtype_bits(d.type) / 8);
    auto put = [&](auto x) { std::memcpy(bytes.data(), &x, sizeof(x)); };
    const bool integral = d.type != E::Float32 && d.type != E::Float16 && d.type != E::BFloat16;
    if (integral && !(std::trunc(v) >= -2147483648.0f && std::trunc(v) < 2147483648.0f))
        ctx.fail("padding_val {} does not convert to {} (undefined in MegDNN)", v, ir::dtype_string(d));
    switch (d.type) {
        case E::Float32:
            put(v);
            break;
        case E::Float16:
            put(float_to_half(v));
            break;
        case E::BFloat16:
            put(float_to_bfloat16(v));
            break;
        case E::Int32:
        case E::QuantizedS32:
            put(image::x86_cast<int32_t>(v));
            break;
        case E::Int16:
            put(image::x86_cast<int16_t>(v));
            break;
        case E::Int8:
        case E::QuantizedS8:
            put(image::x86_cast<int8_t>(v));
            break;
        case E::Uint8:
        case E::Quantized8Asymm:
            put(image::x86_cast<uint8_t>(v));
            break;
        default:
            ctx.fail("padding of {} is not implemented", ir::dtype_string(d));
    }
    return bytes;
}

// dnn/src/naive/padding: each output index of each dim reads source index
// map[dim][o], or the padding value where that is -1 (CONSTANT).
void padding(KernelContext& ctx) {
    const ir::InferContext& p = ctx.params();
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const ir::Shape& s = in.shape();
    const std::string_view mode = p.enum_field("padding_mode");
    if (mode != "CONSTANT" && mode != "REPLICATE" && mode != "REFLECT")
        ctx.fail("padding mode {} is not implemented", mode);
    const std::vector<std::byte> pad =
        padding_value(ctx, in.dtype(), static_cast<float>(p.float_field("padding_val")));
    const size_t elem = pad.size();
    if (in.elements() == 0 && out.elements() != 0 && mode != "CONSTANT")
        ctx.fail("{} padding of an empty tensor {} has nothing to repeat", mode, ir::shape_string(s));

    std::vector<std::vector<int64_t>> map(s.ndim);
    for (uint32_t d = 0; d < s.ndim; ++d) {
        const int64_t front = p.int_field(ir::padding::kFrontOffset[d]);
        const int64_t back = p.int_field(ir::padding::kBackOffset[d]);
        const int64_t size = s[d];
        // PaddingBase::check_exec: a reflection must stay inside the source.
        if (mode == "REFLECT" && (front >= size || back >= size))
            ctx.fail("REFLECT padding of dim {} by {} and {} needs offsets below its size {}", d, front, back,
                     size);
        for (int64_t o = 0; o < static_cast<int64_t>(out.shape()[d]); ++o) {
            const int64_t i = o - front;
            int64_t src;
            if (mode == "CONSTANT")
                src = i >= 0 && i < size ? i : -1;
            else if (mode == "REPLICATE")
                src = std::clamp<int64_t>(i, 0, size - 1);
            else
                src = std::min(std::abs(i), 2 * size - std::abs(i) - 2);
            map[d].push_back(src);
        }
    }

    // Rows of the last dim: the outer dims pick a source row (or padding), the
    // last dim's map picks elements within it.
    const uint32_t last = s.ndim - 1;
    const size_t row_out = out.shape()[last], row_in = s[last];
    const size_t rows = row_out ? out.elements() / row_out : 0;
    const std::byte* src = in.bytes().data();
    std::byte* dst = out.mutable_bytes().data();
    tbb::parallel_for(size_t{0}, rows, [&](size_t r) {
        int64_t src_row = 0;
        bool padded = false;
        size_t rest = r;
        size_t in_stride = 1;
        for (uint32_t d = last; d-- > 0;) {
            const size_t o = rest % out.shape()[d];
            rest /= out.shape()[d];
            const int64_t i = map[d][o];
            padded = padded || i < 0;
            src_row += i * static_cast<int64_t>(in_stride);
            in_stride *= s[d];
        }
        std::byte* o = dst + r * row_out * elem;
        const std::byte* srow = src + (padded ? 0 : static_cast<size_t>(src_row) * row_in * elem);
        for (size_t x = 0; x < row_out; ++x) {
            const int64_t i = map[last][x];
            std::memcpy(o + x * elem, padded || i < 0 ? pad.data() : srow + static_cast<size_t>(i) * elem,
                        elem);
        }
    });
}

// ---------------------------------------------------------------- Resize

// ResizeBase::get_nearest_src.
int nearest_src(float scale, int size, int idx) { return std::min(image::x86_trunc(idx / scale), size - 1); }

// ResizeBase::get_nearest_linear_coord: the two taps (weight, index) of output
// index idx; NEAREST puts all the weight on one tap.
struct Taps {
    float a0;
    int i0;
    float a1;
    int i1;
};
Taps linear_taps(bool nearest, float scale, int size, int idx) {
    if (size == 1) return {1.0f, 0, 0.0f, 0};
    float alpha = (idx + 0.5f) / scale - 0.5f;
    int origin = image::x86_trunc(std::floor(alpha));
    alpha -= origin;
    if (nearest) {
        origin = nearest_src(scale, size, idx);
        alpha = 0;
    }
    if (origin < 0) {
        origin = 0;
        alpha = 0;
    } else if (origin + 1 >= size) {
        origin = size - 2;
        alpha = 1;
    }
    return {1 - alpha, origin, alpha, origin + 1};
}

// src/common/resize.cuh interpolate_cubic (Keys, A = -0.75).
std::array<float, 4> cubic_coeffs(float x) {
    const float A = -0.75f;
    std::array<float, 4> c;
    c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
    c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
    c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
    c[3] = 1.f - c[0] - c[1] - c[2];
    return c;
}

// ResizeBase::get_cubic_coord: the fraction and the tap left of the sample.
std::pair<float, int> cubic_coord(float scale, int idx) {
    float alpha = (idx + 0.5f) / scale - 0.5f;
    const int origin = image::x86_trunc(std::floor(alpha));
    alpha -= origin;
    return {alpha, origin};
}

struct ResizeGeometry {
    int n, c, ih, iw, oh, ow;
    bool nhwc;
    size_t src(int b, int ch, int y, int x) const {
        return nhwc ? ((static_cast<size_t>(b) * ih + y) * iw + x) * c + ch
                    : ((static_cast<size_t>(b) * c + ch) * ih + y) * iw + x;
    }
    size_t dst(int b, int ch, int y, int x) const {
        return nhwc ? ((static_cast<size_t>(b) * oh + y) * ow + x) * c + ch
                    : ((static_cast<size_t>(b) * c + ch) * oh + y) * ow + x;
    }
};

// resize_cv.cpp resize_nearest_32f / _8u (NHWC with 1 or 3 channels): source
// row ⌊dy · (1 / (out/in))⌋ in double, clamped.
int cv_nearest(int d, int in, int out) {
    const double f = static_cast<double>(out) / in;
    const double inv = 1.0f / f;
    const int s = image::x86_trunc(std::floor(d * inv));
    return s < 0 ? 0 : (s >= in ? in - 1 : s);
}

void resize(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const std::string_view format = ctx.params().enum_field("format");
    const std::string_view imode = ctx.params().enum_field("imode");
    if (format != "NCHW" && format != "NHWC")
        ctx.fail("format {} is not implemented; NCHW and NHWC only", format);
    const E t = in.dtype().type;
    // ResizeImpl::KernParam::from_tensors.
    if (!image::interpolable(t) || t == E::BFloat16)
        ctx.fail("Resize of {} is not supported (MegDNN resizes Float32, Float16 and 8-bit integers)",
                 ir::dtype_string(in.dtype()));
    const ir::Shape& s = in.shape();
    const ir::Shape& d = out.shape();
    if (s.ndim != 4 || d.ndim != 4) ctx.fail("needs 4-dim input and output");
    const bool nhwc = format == "NHWC";
    const size_t h = nhwc ? 1 : 2;
    const ResizeGeometry g{static_cast<int>(s[0]),
                           static_cast<int>(nhwc ? s[3] : s[1]),
                           static_cast<int>(s[h]),
                           static_cast<int>(s[h + 1]),
                           static_cast<int>(d[h]),
                           static_cast<int>(d[h + 1]),
                           nhwc};
    if (g.ih == 0 || g.iw == 0) ctx.fail("cannot resize an empty image {}", ir::shape_string(s));

    // ResizeImpl::exec: NHWC images of 1 or 3 channels go to the OpenCV port
    // unless the mode is LINEAR; the naive NHWC kernel computes every mode but
    // NEAREST as LINEAR.
    const bool cv = nhwc && (g.c == 1 || g.c == 3) && imode != "LINEAR";
    if (cv && imode != "NEAREST")
        ctx.fail("Resize imode {} of a {}-channel NHWC image (MegDNN's OpenCV port) is not implemented",
                 imode, g.c);
    if (cv && t != E::Float32 && t != E::Uint8)
        ctx.fail("Resize of a {}-channel NHWC {} image is refused by MegDNN's OpenCV port", g.c,
                 ir::dtype_string(in.dtype()));
    if (!nhwc && imode != "LINEAR" && imode != "NEAREST" && imode != "CUBIC")
        ctx.fail("Resize imode {} is not implemented in NCHW", imode);

    const image::Floats src = image::storage_floats(in);
    const float* sp = src.ptr;
    std::vector<float> result(out.elements());
    const float scale_h = static_cast<float>(g.oh) / static_cast<float>(g.ih);
    const float scale_w = static_cast<float>(g.ow) / static_cast<float>(g.iw);
    const bool nearest = imode == "NEAREST";
    const bool cubic = !nhwc && imode == "CUBIC";
    tbb::parallel_for(0, g.n * g.oh, [&](int row) {
        const int b = row / g.oh, oy = row % g.oh;
        for (int ox = 0; ox < g.ow; ++ox) {
            if (cv) {
                const int y = cv_nearest(oy, g.ih, g.oh), x = cv_nearest(ox, g.iw, g.ow);
                for (int ch = 0; ch < g.c; ++ch) result[g.dst(b, ch, oy, ox)] = sp[g.src(b, ch, y, x)];
            } else if (nearest && !nhwc) {
                const int y = nearest_src(scale_h, g.ih, oy), x = nearest_src(scale_w, g.iw, ox);
                for (int ch = 0; ch < g.c; ++ch) result[g.dst(b, ch, oy, ox)] = sp[g.src(b, ch, y, x)];
            } else if (cubic) {
                const auto [ah, oh0] = cubic_coord(scale_h, oy);
                const auto [aw, ow0] = cubic_coord(scale_w, ox);
                const std::array<float, 4> hc = cubic_coeffs(ah), wc = cubic_coeffs(aw);
                for (int ch = 0; ch < g.c; ++ch) {
                    float ret = 0;
                    for (int kh = 0; kh < 4; ++kh) {
                        const int y = std::clamp(oh0 - 1 + kh, 0, g.ih - 1);
                        for (int kw = 0; kw < 4; ++kw) {
                            const int x = std::clamp(ow0 - 1 + kw, 0, g.iw - 1);
                            ret += sp[g.src(b, ch, y, x)] * hc[kh] * wc[kw];
                        }
                    }
                    result[g.dst(b, ch, oy, ox)] = image::rounding_convert(t, ret);
                }
            } else {
                const Taps th = linear_taps(nearest, scale_h, g.ih, oy);
                const Taps tw = linear_taps(nearest, scale_w, g.iw, ox);
                for (int ch = 0; ch < g.c; ++ch) {
                    const float v = sp[g.src(b, ch, th.i0, tw.i0)] * th.a0 * tw.a0 +
                                    sp[g.src(b, ch, th.i0, tw.i1)] * th.a0 * tw.a1 +
                                    sp[g.src(b, ch, th.i1, tw.i0)] * th.a1 * tw.a0 +
                                    sp[g.src(b, ch, th.i1, tw.i1)] * th.a1 * tw.a1;
                    result[g.dst(b, ch, oy, ox)] = image::rounding_convert(t, v);
                }
            }
        }
    });
    image::store_values(out, result);
}

// ---------------------------------------------------------------- LRN

// dnn/src/naive/lrn: x · (k + α·Σ x²)^−β over the n channels centred on each
// (the window cut at the first and last channel).
void lrn(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const ir::Shape& s = in.shape();
    if (s.ndim != 4) ctx.fail("LRN needs a 4-dim NCHW input, input 0 is {}", ir::shape_string(s));
    if (!is_float_dtype(in.dtype().type))
        ctx.fail("LRN needs a float input, it is {}", ir::dtype_string(in.dtype()));
    const ir::InferContext& p = ctx.params();
    const size_t half = static_cast<size_t>(p.int_field("n")) / 2;
    const float k = static_cast<float>(p.float_field("k"));
    const float alpha = static_cast<float>(p.float_field("alpha"));
    const float beta = static_cast<float>(p.float_field("beta"));
    const size_t n = s[0], c = s[1], hw = static_cast<size_t>(s[2]) * s[3];
    const image::Floats src = image::storage_floats(in);
    const float* sp = src.ptr;
    std::vector<float> result(out.elements());
    tbb::parallel_for(size_t{0}, n * c, [&](size_t plane) {
        const size_t b = plane / c, dc = plane % c;
        const size_t c_start = dc >= half ? dc - half : 0;
        const size_t c_end = std::min(dc + half, c - 1);
        const float* base = sp + b * c * hw;
        for (size_t i = 0; i < hw; ++i) {
            float suma2 = 0.0f;
            for (size_t sc = c_start; sc <= c_end; ++sc) suma2 += base[sc * hw + i] * base[sc * hw + i];
            const float multiplicand = std::pow(k + alpha * suma2, -beta);
            result[plane * hw + i] = base[dc * hw + i] * multiplicand;
        }
    });
    out = from_floats(out.dtype(), out.shape(), result);
}

}  // namespace

std::span<const KernelEntry> image_kernels() {
    static const KernelEntry kKernels[] = {
        {"Padding", padding},
        {"Resize", resize},
        {"LRN", lrn},
        {"WarpPerspective", image::warp_perspective},
        {"WarpAffine", image::warp_affine},
        {"Remap", image::remap},
        {"RelayoutFormat", image::relayout_format},
        {"ROIAlign", image::roi_align},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
