// Kernels of the convolution family (MegDNN's dnn/src/naive/{convolution,conv_bias,
// batch_conv_bias,convolution3d,local_share}): im2col + GEMM (conv_gemm.h) for
// the sums, then ConvBias's bias, z and nonlinearity the way
// naive/conv_bias/opr_impl.cpp applies them. NCHW / NCDHW only; other formats are
// refused, naming the format.
//
// Float16 / BFloat16 are computed in float and rounded once (MegDNN's naive
// kernels accumulate in half for compute_mode DEFAULT; its other CPU kernels do
// not). Integer and quantized convolutions sum exactly (double GEMM of the stored
// integers, zero points subtracted) and wrap to the dtype the sums are kept in,
// as MegDNN's integer arithmetic does.
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/eval/conv_deformable.h"
#include "engine/eval/conv_gemm.h"
#include "engine/eval/conv_local_share.h"
#include "engine/eval/elements.h"
#include "engine/eval/kernels.h"
#include "ir/infer/conv_2d.h"
#include "ir/infer/conv_3d.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

// ---------------------------------------------------------------- operands

// A float view of a tensor: Float32 storage itself, or the converted values
// (Float16/BFloat16 widened, quantized dequantized).
struct Floats {
    std::vector<float> copy;
    const float* ptr = nullptr;
};

Floats floats_of(const Tensor& t) {
    Floats f;
    if (t.dtype().type == E::Float32) {
        f.ptr = t.data<float>().data();
    } else {
        f.copy = to_floats(t);
        f.ptr = f.copy.data();
    }
    return f;
}

// The stored integers as they are (a bias, a z).
std::vector<int64_t> storage_ints(const Tensor& t) {
    std::vector<int64_t> out(t.elements());
    with_storage_type(t.dtype().type, [&](auto tag) {
        using T = decltype(tag);
        auto in = t.data<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(in[i]);
    });
    return out;
}

// Two's-complement wrap into the dtype's storage integer, as a C++ narrowing
// conversion (MegDNN's int16/int8 accumulators and casts) gives it.
int64_t wrap_to(E t, int64_t v) {
    switch (t) {
        case E::Int8:
        case E::QuantizedS8:
            return static_cast<int8_t>(v);
        case E::Int16:
        case E::QuantizedS16:
            return static_cast<int16_t>(v);
        case E::Int32:
        case E::QuantizedS32:
            return static_cast<int32_t>(v);
        case E::Uint8:
        case E::Quantized8Asymm:
            return static_cast<uint8_t>(v);
        default:
            break;
    }
    throw Error(fmt::format("evaluator: no integer storage for {}", ir::dtype_name(t)));
}

void store_ints(Tensor& out, const std::vector<int64_t>& v) {
    with_storage_type(out.dtype().type, [&](auto tag) {
        using T = decltype(tag);
        auto o = out.mutable_data<T>();
        for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<T>(v[i]);
    });
}

Tensor& output(KernelContext& ctx) {
    Tensor& out = ctx.out(0);
    if (out.empty()) ctx.fail("the output shape is not known");
    return out;
}

// A float result into `out`: Float32 is computed in place; other dtypes in a
// float buffer, then stored with the dtype's rounding (Float16 to nearest,
// quantized rounded half away from zero and saturated).
template <class F>
void write_floats(Tensor& out, F&& compute) {
    if (out.dtype().type == E::Float32) {
        compute(out.mutable_data<float>().data());
        return;
    }
    std::vector<float> v(out.elements());
    compute(v.data());
    out = from_floats(out.dtype(), out.shape(), v);
}

// ---------------------------------------------------------------- params

bool flipped(const KernelContext& ctx) { return ctx.params().enum_field("mode") == "CONVOLUTION"; }

// A 2-D convolution's geometry from its input, filter and output shapes (input
// and output in NCHW; `filter` is one sample's filter).
ConvGeometry geometry_2d(const KernelContext& ctx, const ir::Shape& src, const ir::Shape& filter,
                         const ir::Shape& dst, size_t filter_index,
                         ir::FieldName compute_field = "compute_mode") {
    const ir::conv::Conv2d p = ir::conv::read_conv2d(ctx.params(), compute_field);
    if (p.format != "NCHW") ctx.fail("format {} is not implemented; NCHW only", p.format);
    if (filter.ndim != (p.group ? 5u : 4u))
        ctx.fail("a {} convolution needs a {}-dim filter, it is {}", p.group ? "GROUP" : "DENSE",
                 p.group ? 5 : 4, ir::shape_string(filter));
    const ir::conv::FilterMeta m = ir::conv::canonize_filter(ctx.params(), p, src.ndim, filter, filter_index);
    ConvGeometry g;
    g.batch = src[0];
    g.group = m.group;
    g.icpg = m.icpg;
    g.ocpg = m.ocpg;
    g.in = {1, src[2], src[3]};
    g.out = {1, dst[2], dst[3]};
    g.kernel = {1, m.fh, m.fw};
    g.pad = {0, p.ph, p.pw};
    g.stride = {1, p.sh, p.sw};
    g.dilate = {1, p.dh, p.dw};
    return g;
}

// A 3-D convolution's geometry (NCDHW; filter [oc, ic, fd, fh, fw] or
// [g, ocpg, icpg, fd, fh, fw]).
ConvGeometry geometry_3d(const KernelContext& ctx, const ir::Shape& src, const ir::Shape& filter,
                         const ir::Shape& dst) {
    const ir::InferContext& pc = ctx.params();
    if (pc.enum_field("format") != "NCDHW")
        ctx.fail("format {} is not implemented; NCDHW only", pc.enum_field("format"));
    const bool group = pc.enum_field("sparse") == "GROUP";
    if (src.ndim != 5 || dst.ndim != 5 || filter.ndim != (group ? 6u : 5u))
        ctx.fail("unexpected shapes {} / {} / {}", ir::shape_string(src), ir::shape_string(filter),
                 ir::shape_string(dst));
    const uint32_t s = group ? 1 : 0;
    ConvGeometry g;
    g.batch = src[0];
    g.group = group ? filter[0] : 1;
    g.ocpg = filter[s];
    g.icpg = filter[s + 1];
    const ir::conv::Conv3d p = ir::conv::read_conv3d(pc);
    for (int a = 0; a < 3; ++a) {
        g.in[a] = src[2 + a];
        g.out[a] = dst[2 + a];
        g.kernel[a] = filter[s + 2 + a];
        g.pad[a] = p.pad[a];
        g.stride[a] = p.stride[a];
        g.dilate[a] = p.dil[a];
    }
    if (g.icpg * g.group != src[1] || g.ocpg * g.group != dst[1])
        ctx.fail("filter {} does not fit input {} and output {}", ir::shape_string(filter),
                 ir::shape_string(src), ir::shape_string(dst));
    return g;
}

// ---------------------------------------------------------------- sums

// The float sums of a float (or dequantized) convolution into `acc`.
void float_sums(const ConvGeometry& g, bool flip, const Tensor& src, const Tensor& filter,
                size_t filter_batch_stride, float* acc) {
    const Floats s = floats_of(src);
    Floats f = floats_of(filter);
    if (flip) {
        if (f.copy.empty()) f.copy.assign(f.ptr, f.ptr + filter.elements());
        flip_filter(g, f.copy.data(), filter.elements() / g.kernel_size());
        f.ptr = f.copy.data();
    }
    conv_forward(g, s.ptr, f.ptr, filter_batch_stride, acc);
}

// The exact integer sums of an integer or quantized convolution.
std::vector<int64_t> integer_sums(const ConvGeometry& g, bool flip, const Tensor& src, const Tensor& filter,
                                  size_t filter_batch_stride, size_t out_elements) {
    const std::vector<double> s = integers_of(src);
    std::vector<double> f = integers_of(filter);
    if (flip) flip_filter(g, f.data(), f.size() / g.kernel_size());
    std::vector<double> acc(out_elements);
    conv_forward(g, s.data(), f.data(), filter_batch_stride, acc.data());
    std::vector<int64_t> out(out_elements);
    for (size_t i = 0; i < out_elements; ++i) out[i] = static_cast<int64_t>(acc[i]);
    return out;
}

// ---------------------------------------------------------------- bias, z, nonlinearity

enum class Nonline { Identity, Relu, Sigmoid, HSwish };

Nonline read_nonline(const KernelContext& ctx) {
    const std::string_view m = ctx.params().enum_field("nonlineMode");
    if (m == "IDENTITY") return Nonline::Identity;
    if (m == "RELU") return Nonline::Relu;
    if (m == "SIGMOID") return Nonline::Sigmoid;
    if (m == "H_SWISH") return Nonline::HSwish;
    ctx.fail("nonlineMode {} is not implemented", m);
}

// dnn/src/common/elemwise/kern_defs.cuh RELU, SIGMOID, H_SWISH on float.
float activate(Nonline m, float x) {
    switch (m) {
        case Nonline::Identity:
            return x;
        case Nonline::Relu:
            return x <= 0.f ? 0.f : x;
        case Nonline::Sigmoid:
            return 1.f / (std::exp(-x) + 1.f);
        case Nonline::HSwish:
            return x * std::min(std::max(x + 3, 0.f), 6.f) * (1.f / 6.f);
    }
    return x;
}

// The bias element for output element i: the bias is the output's shape or one
// value per output channel ([1, OC, 1, ...]).
struct BiasIndex {
    bool full = false;
    size_t spatial = 1, channels = 1;
    size_t operator()(size_t i) const { return full ? i : (i / spatial) % channels; }
};

BiasIndex bias_index(const Tensor& bias, const Tensor& out) {
    const ir::Shape& s = out.shape();
    size_t spatial = 1;
    for (uint32_t a = 2; a < s.ndim; ++a) spatial *= s[a];
    return {bias.shape() == s, spatial, s[1]};
}

struct Epilogue {
    const Tensor* bias = nullptr;
    const Tensor* z = nullptr;
    Nonline mode = Nonline::Identity;
};

// The nonlinearity over n floats, the mode chosen once.
void activate_all(Nonline m, float* p, size_t n) {
    switch (m) {
        case Nonline::Identity:
            return;
        case Nonline::Relu:
            for (size_t i = 0; i < n; ++i) p[i] = activate(Nonline::Relu, p[i]);
            return;
        case Nonline::Sigmoid:
            for (size_t i = 0; i < n; ++i) p[i] = activate(Nonline::Sigmoid, p[i]);
            return;
        case Nonline::HSwish:
            for (size_t i = 0; i < n; ++i) p[i] = activate(Nonline::HSwish, p[i]);
            return;
    }
}

// The float route: sums + bias + z, nonlinearity, then the output's dtype. Each
// element sees MegDNN's operations in MegDNN's order (its passes fused per
// channel plane).
void finish_floats(const ConvGeometry& g, bool flip, const Tensor& src, const Tensor& filter,
                   size_t filter_batch_stride, const Epilogue& e, Tensor& out) {
    write_floats(out, [&](float* acc) {
        float_sums(g, flip, src, filter, filter_batch_stride, acc);
        if (!e.bias && !e.z && e.mode == Nonline::Identity) return;
        const Floats b = e.bias ? floats_of(*e.bias) : Floats{};
        const Floats z = e.z ? floats_of(*e.z) : Floats{};
        const BiasIndex bi = e.bias ? bias_index(*e.bias, out) : BiasIndex{};
        const ir::Shape& s = out.shape();
        size_t plane = 1;
        for (uint32_t a = 2; a < s.ndim; ++a) plane *= s[a];
        const size_t planes = plane ? out.elements() / plane : 0;
        tbb::parallel_for(size_t{0}, planes, [&](size_t k) {
            float* p = acc + k * plane;
            if (e.bias && bi.full) {
                for (size_t i = 0; i < plane; ++i) p[i] += b.ptr[k * plane + i];
            } else if (e.bias) {
                const float v = b.ptr[k % s[1]];
                for (size_t i = 0; i < plane; ++i) p[i] += v;
            }
            if (e.z)
                for (size_t i = 0; i < plane; ++i) p[i] += z.ptr[k * plane + i];
            activate_all(e.mode, p, plane);
        });
    });
}

// The integer route (naive conv_bias's handle_z_inp_and_activation_naive): the
// sums plus bias kept in `sfb`; with a quantized z both go to float and are
// added; a quantized `sfb` goes through the nonlinearity in float
// (ElemwiseMultiType's Q modes) into the output's dtype; an integer one stays
// integer (IDENTITY, RELU).
void finish_integers(const KernelContext& ctx, const ConvGeometry& g, bool flip, const Tensor& src,
                     const Tensor& filter, size_t filter_batch_stride, const Epilogue& e, ir::DType sfb,
                     Tensor& out) {
    std::vector<int64_t> v = integer_sums(g, flip, src, filter, filter_batch_stride, out.elements());
    const size_t n = v.size();
    if (e.bias) {
        const std::vector<int64_t> b = storage_ints(*e.bias);
        const BiasIndex bi = bias_index(*e.bias, out);
        for (size_t i = 0; i < n; ++i) v[i] += b[bi(i)];
    }
    for (int64_t& x : v) x = wrap_to(sfb.type, x);
    const ir::DType dd = out.dtype();
    const auto as_real = [&](int64_t x) {
        return ir::dtype_is_quantized(sfb.type) ? dequantize(sfb, x) : static_cast<float>(x);
    };
    if (e.z) {
        if (is_float_dtype(e.z->dtype().type))
            ctx.fail("a float z ({}) with {} sums is not supported (MegDNN adds it to an unwritten output)",
                     ir::dtype_string(e.z->dtype()), ir::dtype_string(sfb));
        const std::vector<float> z = to_floats(*e.z);
        std::vector<float> r(n);
        for (size_t i = 0; i < n; ++i) r[i] = activate(e.mode, as_real(v[i]) + z[i]);
        out = from_floats(dd, out.shape(), r);
        return;
    }
    if (sfb.type == dd.type && e.mode == Nonline::Identity) return store_ints(out, v);
    if (ir::dtype_is_quantized(sfb.type)) {
        if (e.mode != Nonline::Identity && !ir::dtype_is_quantized(dd.type))
            ctx.fail("nonlineMode with quantized sums and a {} output is not supported",
                     ir::dtype_string(dd));
        std::vector<float> r(n);
        for (size_t i = 0; i < n; ++i) r[i] = activate(e.mode, as_real(v[i]));
        out = from_floats(dd, out.shape(), r);
        return;
    }
    if (sfb.type != dd.type)
        ctx.fail("{} sums into a {} output are not implemented", ir::dtype_string(sfb), ir::dtype_string(dd));
    if (e.mode != Nonline::Relu)
        ctx.fail("MegDNN has no integer kernel for this nonlineMode on {}", ir::dtype_string(dd));
    for (int64_t& x : v) x = x <= 0 ? 0 : x;
    store_ints(out, v);
}

bool is_int_conv(E src, E sfb) {
    return (src == E::Int8 && (sfb == E::Int16 || sfb == E::Int32)) ||
           ((src == E::QuantizedS8 || src == E::Quantized8Asymm) && sfb == E::QuantizedS32);
}

// ConvBias / BatchConvBias: MegDNN's naive dispatch on (input, bias, sums) dtypes,
// then the epilogue. The sums are kept in the bias's dtype, or in the output's
// when their kinds match (the naive kernel then sums into the output itself).
void conv_with_epilogue(KernelContext& ctx, const ConvGeometry& g, size_t filter_batch_stride,
                        const Epilogue& e) {
    const Tensor& src = ctx.in(0);
    const Tensor& filter = ctx.in(1);
    Tensor& out = output(ctx);
    const ir::DType sd = src.dtype(), dd = out.dtype();
    // src/opr/impl/dnn/convolution.cpp ConvBiasForward::scn_do_execute: without a
    // bias input the bias layout is QuantizedS32 at the *output's* scale for a
    // QuantizedS8 output, else the output's dtype. MegEngine then converts those
    // sums at the output's scale, not input·filter: that is what it computes.
    ir::DType sfb = e.bias
                        ? e.bias->dtype()
                        : (dd.type == E::QuantizedS8 ? ir::DType::quantized(E::QuantizedS32, dd.scale) : dd);
    if (sfb.type == dd.type) sfb = dd;
    const bool flip = flipped(ctx);
    if (is_float_dtype(sd.type) && sfb.type == sd.type)
        return finish_floats(g, flip, src, filter, filter_batch_stride, e, out);
    if (sd.type == E::QuantizedS8 && sfb.type == E::Float32)
        return finish_floats(g, flip, src, filter, filter_batch_stride, e, out);
    if (is_int_conv(sd.type, sfb.type))
        return finish_integers(ctx, g, flip, src, filter, filter_batch_stride, e, sfb, out);
    ctx.fail("{} input with a {} bias into {}: MegDNN has no kernel for it", ir::dtype_string(sd),
             ir::dtype_string(sfb), ir::dtype_string(dd));
}

// ---------------------------------------------------------------- kernels

void convolution(KernelContext& ctx) {
    Tensor& out = output(ctx);
    const ConvGeometry g = geometry_2d(ctx, ctx.in(0).shape(), ctx.in(1).shape(), out.shape(), 1);
    const E sd = ctx.in(0).dtype().type, dd = out.dtype().type;
    // naive/convolution/opr_impl.cpp's dispatch: float to itself, Int8 to
    // Int16/Int32, QuantizedS8 / Quantized8Asymm to QuantizedS32, and
    // QuantizedS8 to QuantizedS8 — the int32 sums cast to int8, unscaled,
    // which is what MegEngine computes. No QuantizedS8 → Float32 kernel.
    if (ir::dtype_is_quantized(sd) && dd == E::Float32)
        ctx.fail("{} to Float32: MegDNN's Convolution has no kernel for it (ConvBias has)",
                 ir::dtype_string(ctx.in(0).dtype()));
    if (!(is_float_dtype(sd) && sd == dd) && !is_int_conv(sd, dd) &&
        !(sd == E::QuantizedS8 && dd == E::QuantizedS8))
        ctx.fail("{} to {}: MegDNN's Convolution has no kernel for it", ir::dtype_string(ctx.in(0).dtype()),
                 ir::dtype_string(out.dtype()));
    const bool flip = flipped(ctx);
    if (is_float_dtype(sd)) return finish_floats(g, flip, ctx.in(0), ctx.in(1), 0, {}, out);
    finish_integers(ctx, g, flip, ctx.in(0), ctx.in(1), 0, {}, out.dtype(), out);
}

Epilogue read_epilogue(const KernelContext& ctx) {
    Epilogue e;
    if (ctx.nr_inputs() >= 3) e.bias = &ctx.in(2);
    if (ctx.nr_inputs() >= 4) e.z = &ctx.in(3);
    e.mode = read_nonline(ctx);
    return e;
}

void conv_bias(KernelContext& ctx) {
    Tensor& out = output(ctx);
    const ConvGeometry g = geometry_2d(ctx, ctx.in(0).shape(), ctx.in(1).shape(), out.shape(), 1);
    conv_with_epilogue(ctx, g, 0, read_epilogue(ctx));
}

// The filter's first dim is the batch: sample n is convolved with filter[n].
void batch_conv_bias(KernelContext& ctx) {
    Tensor& out = output(ctx);
    const ir::Shape& fb = ctx.in(1).shape();
    const ir::Shape per_sample = ir::Shape::of(fb.dims().subspan(1));
    const ConvGeometry g = geometry_2d(ctx, ctx.in(0).shape(), per_sample, out.shape(), 1);
    if (fb[0] != g.batch)
        ctx.fail("the filter {} is for {} samples, the input has {}", ir::shape_string(fb), fb[0], g.batch);
    conv_with_epilogue(ctx, g, per_sample.elements(), read_epilogue(ctx));
}

// Backward data: grad = the adjoint of the forward convolution applied to diff.
// Float dtypes in float; Int8 / QuantizedS8 / Quantized8Asymm exactly into
// Int32 / QuantizedS32 (zero points subtracted), a QuantizedS8 gradient through
// QuantizedS32(filter·diff scale), as naive/convolution/opr_impl.cpp does.
template <size_t Dims>
void backward_data(KernelContext& ctx) {
    const Tensor& filter = ctx.in(0);
    const Tensor& diff = ctx.in(1);
    Tensor& grad = output(ctx);
    const ConvGeometry g = Dims == 2 ? geometry_2d(ctx, grad.shape(), filter.shape(), diff.shape(), 0)
                                     : geometry_3d(ctx, grad.shape(), filter.shape(), diff.shape());
    const bool flip = flipped(ctx);
    const E ft = filter.dtype().type, gt = grad.dtype().type;
    if (is_float_dtype(ft)) {
        if (diff.dtype().type != ft)
            ctx.fail("filter {} and gradient {}: MegDNN's kernel needs one dtype",
                     ir::dtype_string(filter.dtype()), ir::dtype_string(diff.dtype()));
        Floats f = floats_of(filter);
        if (flip) {
            if (f.copy.empty()) f.copy.assign(f.ptr, f.ptr + filter.elements());
            flip_filter(g, f.copy.data(), filter.elements() / g.kernel_size());
            f.ptr = f.copy.data();
        }
        const Floats d = floats_of(diff);
        write_floats(grad, [&](float* out) { conv_backward_data(g, f.ptr, d.ptr, out); });
        return;
    }
    const bool ints = (ft == E::Int8 || ft == E::QuantizedS8) &&
                      (gt == E::Int32 || gt == E::QuantizedS32 || gt == E::QuantizedS8);
    const bool asymm = ft == E::Quantized8Asymm && gt == E::QuantizedS32;
    if (Dims != 2 || !(ints || asymm))
        ctx.fail("filter {}, gradient {} into {}: MegDNN has no kernel for it",
                 ir::dtype_string(filter.dtype()), ir::dtype_string(diff.dtype()),
                 ir::dtype_string(grad.dtype()));
    std::vector<double> f = integers_of(filter);
    if (flip) flip_filter(g, f.data(), f.size() / g.kernel_size());
    const std::vector<double> d = integers_of(diff);
    std::vector<double> acc(grad.elements());
    conv_backward_data(g, f.data(), d.data(), acc.data());
    std::vector<int64_t> v(acc.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(static_cast<int64_t>(acc[i]));
    if (gt == E::QuantizedS8) {
        const ir::DType sums =
            ir::DType::quantized(E::QuantizedS32, filter.dtype().scale * diff.dtype().scale);
        std::vector<float> r(v.size());
        for (size_t i = 0; i < v.size(); ++i) r[i] = dequantize(sums, v[i]);
        grad = from_floats(grad.dtype(), grad.shape(), r);
        return;
    }
    store_ints(grad, v);
}

// Backward filter (float dtypes only): the gradient of the filter, flipped back
// for CONVOLUTION mode.
template <size_t Dims>
void backward_filter(KernelContext& ctx) {
    const Tensor& src = ctx.in(0);
    const Tensor& diff = ctx.in(1);
    Tensor& grad = output(ctx);
    const ConvGeometry g = Dims == 2 ? geometry_2d(ctx, src.shape(), ctx.in(2).shape(), diff.shape(), 2)
                                     : geometry_3d(ctx, src.shape(), ctx.in(2).shape(), diff.shape());
    if (!is_float_dtype(src.dtype().type) || diff.dtype().type != src.dtype().type)
        ctx.fail(
            "input {} and gradient {}: only float convolutions of one dtype have a backward filter kernel",
            ir::dtype_string(src.dtype()), ir::dtype_string(diff.dtype()));
    const Floats s = floats_of(src);
    const Floats d = floats_of(diff);
    const bool flip = flipped(ctx);
    write_floats(grad, [&](float* out) {
        conv_backward_filter(g, s.ptr, d.ptr, out);
        if (flip) flip_filter(g, out, grad.elements() / g.kernel_size());
    });
}

void convolution3d(KernelContext& ctx) {
    Tensor& out = output(ctx);
    const ConvGeometry g = geometry_3d(ctx, ctx.in(0).shape(), ctx.in(1).shape(), out.shape());
    if (!is_float_dtype(ctx.in(0).dtype().type))
        ctx.fail("{} input: 3-D convolution is float only", ir::dtype_string(ctx.in(0).dtype()));
    finish_floats(g, flipped(ctx), ctx.in(0), ctx.in(1), 0, {}, out);
}

}  // namespace

std::span<const KernelEntry> conv_kernels() {
    static const KernelEntry kKernels[] = {
        {"Convolution", convolution},
        {"ConvBias", conv_bias},
        {"BatchConvBias", batch_conv_bias},
        {"ConvolutionBackwardData", backward_data<2>},
        {"ConvolutionBackwardFilter", backward_filter<2>},
        {"Convolution3D", convolution3d},
        {"Convolution3DBackwardData", backward_data<3>},
        {"Convolution3DBackwardFilter", backward_filter<3>},
        {"LocalShare", local_share_forward},
        {"LocalShareBackwardData", local_share_backward_data},
        {"LocalShareBackwardFilter", local_share_backward_filter},
        {"DeformableConv", deformable_conv_forward},
        {"DeformableConvBackwardData", deformable_conv_backward_data},
        {"DeformableConvBackwardFilter", deformable_conv_backward_filter},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
