// Kernels of Pooling and AdaptivePooling: MegDNN's dnn/src/naive/pooling, which
// AdaptivePooling runs with the window dnn/src/common/adaptive_pooling.cpp
// derives (stride ⌊in/out⌋, window in − (out−1)·stride, no padding). NCHW and
// NHWC (the naive kernel's plain index getters); the channel-packed formats are
// refused, naming the format.
//
// Each window is reduced the way MegDNN's poolers do it, per storage type:
// MAX starts from DTypeTrait<ctype>::min() (−FLT_MAX for Float32, so a window of
// −inf gives −FLT_MAX) and keeps `answer > x ? answer : x` (a NaN is replaced by
// the next element); AVERAGE divides by the whole window, padding included;
// AVERAGE_COUNT_EXCLUDE_PADDING by the positions inside the input. Floats sum in
// float (Float16/BFloat16: in float, rounded once; MegDNN sums them in half).
// Integer averages: Int8 AVERAGE truncates the integer quotient, the others
// round float(sum)/count half away from zero; Quantized8Asymm's AVERAGE counts
// the padding as its zero point. MegDNN refuses a MAX or excluding-average
// window that lies entirely in the padding, and so do we.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/image_util.h"
#include "engine/eval/kernels.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

enum class Mode { Max, Average, AverageExcludePadding };

Mode parse_mode(const KernelContext& ctx) {
    const std::string_view m = ctx.params().enum_field("mode");
    if (m == "MAX_") return Mode::Max;
    if (m == "AVERAGE") return Mode::Average;
    if (m == "AVERAGE_COUNT_EXCLUDE_PADDING") return Mode::AverageExcludePadding;
    ctx.fail("pooling mode {} is not implemented", m);
}

struct Geometry {
    size_t n = 0, c = 0, ih = 0, iw = 0, oh = 0, ow = 0;
    size_t ph = 0, pw = 0, sh = 1, sw = 1, fh = 1, fw = 1;
    bool nhwc = false;

    size_t src_index(size_t b, size_t ch, size_t h, size_t w) const {
        return nhwc ? ((b * ih + h) * iw + w) * c + ch : ((b * c + ch) * ih + h) * iw + w;
    }
    size_t dst_index(size_t b, size_t ch, size_t h, size_t w) const {
        return nhwc ? ((b * oh + h) * ow + w) * c + ch : ((b * c + ch) * oh + h) * ow + w;
    }
};

// The input rows (or columns) output position o's window covers: [lo, hi).
struct Span {
    size_t lo, hi;
};
Span window_span(size_t o, size_t stride, size_t pad, size_t window, size_t in) {
    const int64_t start = static_cast<int64_t>(o * stride) - static_cast<int64_t>(pad);
    const int64_t end = std::min<int64_t>(start + static_cast<int64_t>(window), static_cast<int64_t>(in));
    const int64_t lo = std::max<int64_t>(start, 0);
    return lo < end ? Span{static_cast<size_t>(lo), static_cast<size_t>(end)} : Span{0, 0};
}

Geometry read_geometry(const KernelContext& ctx, const ir::Shape& src, const ir::Shape& dst,
                       std::string_view format) {
    if (format != "NCHW" && format != "NHWC")
        ctx.fail("format {} is not implemented; NCHW and NHWC only", format);
    if (src.ndim != 4 || dst.ndim != 4)
        ctx.fail("needs 4-dim input and output, they are {} and {}", ir::shape_string(src),
                 ir::shape_string(dst));
    Geometry g;
    g.nhwc = format == "NHWC";
    const size_t h = g.nhwc ? 1 : 2;
    g.n = src[0];
    g.c = g.nhwc ? src[3] : src[1];
    g.ih = src[h];
    g.iw = src[h + 1];
    g.oh = dst[h];
    g.ow = dst[h + 1];
    return g;
}

// Every window must see the input for MAX and the excluding average
// (MaxPooler / MeanExcludePooler throw "The pooling window lies outside completely").
void check_windows(const KernelContext& ctx, const Geometry& g, Mode mode) {
    if (mode == Mode::Average) return;
    for (size_t o = 0; o < g.oh; ++o)
        if (window_span(o, g.sh, g.ph, g.fh, g.ih).hi == 0)
            ctx.fail("the pooling window of output row {} lies entirely in the padding", o);
    for (size_t o = 0; o < g.ow; ++o)
        if (window_span(o, g.sw, g.pw, g.fw, g.iw).hi == 0)
            ctx.fail("the pooling window of output column {} lies entirely in the padding", o);
}

// Runs `window(b, ch, rows, cols)` → value for every output element, rows of
// outputs in parallel.
template <class Out, class F>
void for_each_window(const Geometry& g, Out* dst, F&& window) {
    tbb::parallel_for(size_t{0}, g.n * g.oh, [&](size_t row) {
        const size_t b = row / g.oh, oy = row % g.oh;
        const Span rows = window_span(oy, g.sh, g.ph, g.fh, g.ih);
        for (size_t ox = 0; ox < g.ow; ++ox) {
            const Span cols = window_span(ox, g.sw, g.pw, g.fw, g.iw);
            for (size_t ch = 0; ch < g.c; ++ch) dst[g.dst_index(b, ch, oy, ox)] = window(b, ch, rows, cols);
        }
    });
}

// MaxPooler: the largest element of the window, starting from `lowest` (a NaN
// is kept only until the next element, as `answer > v ? answer : v` does).
template <class T, class Src>
T window_max(const Geometry& g, const Src& s, size_t b, size_t ch, Span rows, Span cols, T lowest) {
    T answer = lowest;
    for (size_t y = rows.lo; y < rows.hi; ++y)
        for (size_t x = cols.lo; x < cols.hi; ++x) {
            const T v = s[g.src_index(b, ch, y, x)];
            answer = answer > v ? answer : v;
        }
    return answer;
}

// Float32, Float16, BFloat16: MaxPooler / MeanIncludePooler / MeanExcludePooler<ctype>.
void pool_floats(const Geometry& g, Mode mode, const Tensor& in, Tensor& out) {
    const E t = in.dtype().type;
    // DTypeTrait<ctype>::min(): the lowest finite value of the type.
    const float lowest = t == E::Float32 ? -FLT_MAX : t == E::Float16 ? -65504.0f : bfloat16_to_float(0xff7f);
    const image::Floats src = image::storage_floats(in);
    const float* s = src.ptr;
    const float window_size = static_cast<float>(g.fh * g.fw);
    std::vector<float> result(out.elements());
    for_each_window(g, result.data(), [&](size_t b, size_t ch, Span rows, Span cols) {
        if (mode == Mode::Max) return window_max(g, s, b, ch, rows, cols, lowest);
        float sum = 0.0f;
        for (size_t y = rows.lo; y < rows.hi; ++y)
            for (size_t x = cols.lo; x < cols.hi; ++x) sum += s[g.src_index(b, ch, y, x)];
        if (mode == Mode::Average) return sum / window_size;
        return sum / static_cast<float>((rows.hi - rows.lo) * (cols.hi - cols.lo));
    });
    image::store_values(out, result);
}

// The integer storage types, with MegDNN's integer poolers.
template <class T>
void pool_integers(const Geometry& g, Mode mode, const Tensor& in, Tensor& out) {
    const E t = in.dtype().type;
    const int32_t zero_point = t == E::Quantized8Asymm ? in.dtype().zero_point : 0;
    const int32_t window_size = static_cast<int32_t>(g.fh * g.fw);
    auto s = in.data<T>();
    auto d = out.mutable_data<T>();
    for_each_window(g, d.data(), [&](size_t b, size_t ch, Span rows, Span cols) -> T {
        if (mode == Mode::Max) return window_max(g, s, b, ch, rows, cols, std::numeric_limits<T>::min());
        // int32 sums (uint32 for Quantized8Asymm's excluding average), wrapping
        // as MegDNN's would.
        uint32_t sum = 0;
        for (size_t y = rows.lo; y < rows.hi; ++y)
            for (size_t x = cols.lo; x < cols.hi; ++x)
                sum += static_cast<uint32_t>(static_cast<int32_t>(s[g.src_index(b, ch, y, x)]));
        const int32_t fed = static_cast<int32_t>((rows.hi - rows.lo) * (cols.hi - cols.lo));
        const int32_t isum = static_cast<int32_t>(sum);
        if (mode == Mode::AverageExcludePadding) {
            const float f = t == E::Quantized8Asymm ? static_cast<float>(sum) : static_cast<float>(isum);
            return image::x86_cast<T>(std::round(f / static_cast<float>(fed)));
        }
        if (t == E::Int8) return static_cast<T>(std::clamp(isum / window_size, -128, 127));
        if (t == E::Quantized8Asymm) {
            const int32_t with_padding = isum + (window_size - fed) * zero_point;
            const int32_t r = image::x86_trunc(std::round(static_cast<float>(with_padding) / window_size));
            return static_cast<T>(std::clamp(r, 0, 255));
        }
        return image::x86_cast<T>(std::round(static_cast<float>(isum) / window_size));
    });
}

void pool(KernelContext& ctx, const Geometry& g, Mode mode) {
    const Tensor& in = ctx.in(0);
    Tensor& out = image::output(ctx);
    check_windows(ctx, g, mode);
    switch (in.dtype().type) {
        case E::Float32:
        case E::Float16:
        case E::BFloat16:
            return pool_floats(g, mode, in, out);
        case E::Int8:
        case E::QuantizedS8:
            return pool_integers<int8_t>(g, mode, in, out);
        case E::Quantized8Asymm:
            return pool_integers<uint8_t>(g, mode, in, out);
        case E::QuantizedS32:
            return pool_integers<int32_t>(g, mode, in, out);
        default:
            break;
    }
    ctx.fail("pooling of {} is not implemented", ir::dtype_string(in.dtype()));
}

void pooling(KernelContext& ctx) {
    const ir::InferContext& p = ctx.params();
    Geometry g = read_geometry(ctx, ctx.in(0).shape(), image::output(ctx).shape(), p.enum_field("format"));
    g.ph = static_cast<size_t>(p.int_field("pad_h"));
    g.pw = static_cast<size_t>(p.int_field("pad_w"));
    g.sh = static_cast<size_t>(p.int_field("stride_h"));
    g.sw = static_cast<size_t>(p.int_field("stride_w"));
    g.fh = static_cast<size_t>(p.int_field("window_h"));
    g.fw = static_cast<size_t>(p.int_field("window_w"));
    pool(ctx, g, parse_mode(ctx));
}

// AdaptivePoolingBase::deduce_pooling_param.
void adaptive_pooling(KernelContext& ctx) {
    Geometry g =
        read_geometry(ctx, ctx.in(0).shape(), image::output(ctx).shape(), ctx.params().enum_field("format"));
    if (g.oh == 0 || g.ow == 0) ctx.fail("the output size {}x{} must be positive", g.oh, g.ow);
    g.sh = g.ih / g.oh;
    g.sw = g.iw / g.ow;
    if (g.sh == 0 || g.sw == 0)
        ctx.fail("the output size {}x{} must be at most the input's {}x{}", g.oh, g.ow, g.ih, g.iw);
    g.fh = g.ih - (g.oh - 1) * g.sh;
    g.fw = g.iw - (g.ow - 1) * g.sw;
    pool(ctx, g, parse_mode(ctx));
}

}  // namespace

std::span<const KernelEntry> pooling_kernels() {
    static const KernelEntry kKernels[] = {
        {"Pooling", pooling},
        {"AdaptivePooling", adaptive_pooling},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
