// Kernels of the normalising operators, each MegDNN's naive kernel in its own
// arithmetic and order: Softmax (dnn/src/naive/softmax: Reduce MAX, SUB, EXP,
// Reduce SUM, TRUE_DIV), LayerNorm (naive/layer_norm), GeneralNorm
// (naive/general_norm), GroupNorm and its backward (naive/group_norm; InstanceNorm
// is GroupNorm with one group per channel, src/opr/impl/dnn/instance_norm.cpp) and
// BatchNorm (naive/batch_normalization; outputs as src/opr/impl/dnn/batch_norm.cpp).
//
// The data's ctype T is float, Float16 or BFloat16; the statistics are float
// (T_ACC). Values are computed in float and rounded to T exactly where the naive
// kernel stores or casts to T (round_as), so Float32 results agree with MegDNN's
// to the bit and Float16 ones to its rounding points.
#include <array>
#include <cmath>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/kernels.h"
#include "engine/eval/reduce_naive.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;
const ir::DType kF32 = ir::DType::of(E::Float32);

ir::DType float_data(const KernelContext& ctx, size_t i) {
    const ir::DType d = ctx.in(i).dtype();
    if (!is_float_dtype(d.type)) ctx.fail("needs a float input, input {} is {}", i, ir::dtype_string(d));
    return d;
}

// Input i's elements as float, checked to be `n` of them in the data's dtype
// (the naive kernels read weight and bias as the data's ctype).
std::vector<float> same_dtype_values(const KernelContext& ctx, size_t i, ir::DType data, uint64_t n,
                                     const char* what) {
    const Tensor& t = ctx.in(i);
    if (!(t.dtype() == data))
        ctx.fail("{} (input {}) must have the data's dtype {}, has {}", what, i, ir::dtype_string(data),
                 ir::dtype_string(t.dtype()));
    if (t.elements() != n)
        ctx.fail("{} (input {}) must have {} elements, has {}", what, i, n, describe_tensor(t));
    return to_floats(t);
}

// Float32 statistics input i with `n` elements (the kernels read them as T_ACC).
std::vector<float> stat_values(const KernelContext& ctx, size_t i, uint64_t n, const char* what) {
    const Tensor& t = ctx.in(i);
    if (t.dtype().type != E::Float32)
        ctx.fail("{} (input {}) must be Float32, is {}", what, i, describe_tensor(t));
    if (t.elements() != n)
        ctx.fail("{} (input {}) must have {} elements, has {}", what, i, n, describe_tensor(t));
    return to_floats(t);
}

ir::Shape shape_of(std::span<const uint32_t> dims) {
    return dims.empty() ? ir::Shape::of({1}) : ir::Shape::of(dims);
}

// ---------------------------------------------------------------- Softmax

void softmax(KernelContext& ctx) {
    const Tensor& x = ctx.in(0);
    const ir::DType dt = float_data(ctx, 0);
    const auto axis = ir::normalize_axis(ctx.params().int_field("axis"), x.shape().ndim);
    if (!axis) ctx.fail("axis {} is out of range for {}", ctx.params().int_field("axis"), describe_tensor(x));
    if (x.elements() == 0) {
        ctx.out(0) = Tensor(dt, x.shape());
        return;
    }
    size_t B = x.shape()[*axis], C = 1;
    for (uint32_t i = *axis + 1; i < x.shape().ndim; ++i) C *= x.shape()[i];
    auto at_stat = [&](size_t i) { return i / (B * C) * C + i % C; };

    const std::vector<float> xs = to_floats(x);
    const std::vector<float> mx =
        to_floats(naive_reduce(ctx, x, *axis, ReduceMode::Max, ReduceDataType::Default, dt));
    std::vector<float> e(xs.size());
    for (size_t i = 0; i < xs.size(); ++i)
        e[i] = round_as(dt.type, std::exp(round_as(dt.type, xs[i] - mx[at_stat(i)])));
    const Tensor et = from_floats(dt, x.shape(), e);
    const std::vector<float> sum =
        to_floats(naive_reduce(ctx, et, *axis, ReduceMode::Sum, ReduceDataType::Default, dt));
    for (size_t i = 0; i < e.size(); ++i) e[i] = e[i] / sum[at_stat(i)];
    ctx.out(0) = from_floats(dt, x.shape(), e);
}

// ---------------------------------------------------------------- LayerNorm / GeneralNorm

// Outputs dst (the data's dtype and shape), mean and rstd (Float32, `stat`).
void set_norm_outputs(KernelContext& ctx, ir::DType dt, const ir::Shape& shape, const std::vector<float>& y,
                      const ir::Shape& stat, const std::vector<float>& mean, const std::vector<float>& rstd) {
    ctx.out(0) = from_floats(dt, shape, y);
    if (ctx.nr_outputs() > 1) ctx.out(1) = from_floats(kF32, stat, mean);
    if (ctx.nr_outputs() > 2) ctx.out(2) = from_floats(kF32, stat, rstd);
}

bool affine_inputs(const KernelContext& ctx) {
    const bool affine = ctx.params().int_field("affine") != 0;
    if (affine && ctx.nr_inputs() != 3) ctx.fail("affine=true needs the weight and bias inputs");
    return affine;
}

void layer_norm(KernelContext& ctx) {
    const Tensor& x = ctx.in(0);
    const ir::DType dt = float_data(ctx, 0);
    const bool affine = affine_inputs(ctx);
    const float eps = static_cast<float>(ctx.params().float_field("eps"));
    const uint64_t nd = static_cast<uint64_t>(ctx.params().int_field("normalized_dim"));
    const uint64_t size = static_cast<uint64_t>(ctx.params().int_field("normalized_size"));
    const ir::Shape& s = x.shape();
    if (nd >= s.ndim) ctx.fail("normalized_dim {} must be smaller than the input's {} dims", nd, s.ndim);
    const uint32_t keep = s.ndim - static_cast<uint32_t>(nd);
    uint64_t length = 1, slices = 1;
    for (uint32_t i = 0; i < s.ndim; ++i) (i < keep ? slices : length) *= s[i];
    // The naive kernel walks normalized_size elements per slice whatever the shape.
    if (size != length)
        ctx.fail("normalized_size {} must be the {} elements of the last {} dims", size, length, nd);
    std::vector<float> w, b;
    if (affine) {
        w = same_dtype_values(ctx, 1, dt, length, "weight");
        b = same_dtype_values(ctx, 2, dt, length, "bias");
    }
    const E t = dt.type;
    const std::vector<float> xs = to_floats(x);
    std::vector<float> y(xs.size()), mean(slices), rstd(slices);
    const float fl = static_cast<float>(length);
    for_each_slice(slices, length, [&](size_t i) {
        const float* p = xs.data() + i * length;
        float sum = 0;
        for (uint64_t j = 0; j < length; ++j) sum += p[j];
        const float m = round_as(t, sum / fl);
        float var = 0;
        for (uint64_t j = 0; j < length; ++j) var += (p[j] - m) * (p[j] - m);
        var = var / fl;
        const float sd = round_as(t, std::sqrt(var + eps));
        for (uint64_t j = 0; j < length; ++j) {
            float v = round_as(t, (p[j] - m) / sd);
            if (affine) v = round_as(t, v * w[j] + b[j]);
            y[i * length + j] = v;
        }
        mean[i] = m;
        rstd[i] = static_cast<float>(1.0 / sd);
    });
    set_norm_outputs(ctx, dt, s, y, shape_of(s.dims().first(keep)), mean, rstd);
}

void general_norm(KernelContext& ctx) {
    const Tensor& x = ctx.in(0);
    const ir::DType dt = float_data(ctx, 0);
    const bool affine = affine_inputs(ctx);
    const float eps = static_cast<float>(ctx.params().float_field("eps"));
    const int64_t start = ctx.params().int_field("axis_start"), end = ctx.params().int_field("axis_end");
    const ir::Shape& s = x.shape();
    if (start < 0 || start > end || end > static_cast<int64_t>(s.ndim))
        ctx.fail("needs 0 <= axis_start ({}) <= axis_end ({}) <= the input's {} dims", start, end, s.ndim);
    size_t A = 1, B = 1, C = 1;
    std::vector<uint32_t> stat_dims;
    for (uint32_t i = 0; i < s.ndim; ++i) {
        if (i < start)
            A *= s[i];
        else if (i < end)
            B *= s[i];
        else
            C *= s[i];
        if (i < start || i >= end) stat_dims.push_back(s[i]);
    }
    std::vector<float> w, bias;
    if (affine) {
        w = same_dtype_values(ctx, 1, dt, B, "weight");
        bias = same_dtype_values(ctx, 2, dt, B, "bias");
    }
    const E t = dt.type;
    const std::vector<float> xs = to_floats(x);
    std::vector<float> y(xs.size()), mean(A * C), rstd(A * C);
    for_each_slice(A * C, B, [&](size_t ac) {
        const size_t a = ac / C, c = ac % C;
        // Sums in double; each square is a float product first.
        double sum = 0, sum_sqr = 0;
        for (size_t b = 0; b < B; ++b) {
            const float v = xs[(a * B + b) * C + c];
            sum += v;
            sum_sqr += v * v;
        }
        const float m = static_cast<float>(sum / static_cast<double>(B));
        const float mm = m * m;
        const float sd = static_cast<float>(
            std::sqrt(std::abs(sum_sqr / static_cast<double>(B) - mm) + static_cast<double>(eps)));
        for (size_t b = 0; b < B; ++b) {
            const size_t at = (a * B + b) * C + c;
            float v = round_as(t, (xs[at] - m) / sd);
            if (affine) v = round_as(t, v * w[b] + bias[b]);
            y[at] = v;
        }
        mean[a * C + c] = m;
        rstd[a * C + c] = static_cast<float>(1.0 / sd);
    });
    set_norm_outputs(ctx, dt, s, y, shape_of(stat_dims), mean, rstd);
}

// ---------------------------------------------------------------- GroupNorm / InstanceNorm

struct GroupLayout {
    size_t n, c, hw, g, d;  // batch, channels, H·W, groups, channels per group
};

GroupLayout group_layout(const KernelContext& ctx, const Tensor& x, bool instance) {
    if (ctx.params().enum_field("format") != "NCHW")
        ctx.fail("format {} is not implemented; NCHW only", ctx.params().enum_field("format"));
    const ir::Shape& s = x.shape();
    if (s.ndim != 4) ctx.fail("supports only 4-dim input, got {}", describe_tensor(x));
    GroupLayout l{s[0], s[1], size_t{s[2]} * s[3], 0, 0};
    l.g = instance ? l.c : static_cast<size_t>(ctx.params().int_field("group"));
    if (l.g == 0 || l.c % l.g != 0)
        ctx.fail("group {} must be positive and divide the {} channels", l.g, l.c);
    l.d = l.c / l.g;
    return l;
}

// Outputs dst, mean and — as the naive kernel fills it — the variance in rstd's place.
template <bool Instance>
void group_norm(KernelContext& ctx) {
    const Tensor& x = ctx.in(0);
    const ir::DType dt = float_data(ctx, 0);
    const bool affine = affine_inputs(ctx);
    const float eps = static_cast<float>(ctx.params().float_field("eps"));
    const GroupLayout l = group_layout(ctx, x, Instance);
    std::vector<float> w, bias;
    if (affine) {
        w = same_dtype_values(ctx, 1, dt, l.c, "weight");
        bias = same_dtype_values(ctx, 2, dt, l.c, "bias");
    }
    const E t = dt.type;
    const std::vector<float> xs = to_floats(x);
    const size_t inner = l.d * l.hw;
    const float finner = static_cast<float>(inner);
    std::vector<float> y(xs.size()), mean(l.n * l.g), var_out(l.n * l.g);
    for_each_slice(l.n * l.g, inner, [&](size_t i) {
        const float* p = xs.data() + i * inner;
        float sum = 0;
        for (size_t j = 0; j < inner; ++j) sum += p[j];
        const float m = round_as(t, sum / finner);
        float var = 0;
        for (size_t j = 0; j < inner; ++j) var += (p[j] - m) * (p[j] - m);
        var = var / finner;
        const float inv_sd = 1.0f / round_as(t, std::sqrt(var + eps));
        if (affine) {
            const size_t g = i % l.g;
            for (size_t j = 0; j < l.d; ++j) {
                const size_t c = g * l.d + j;
                const float sc = inv_sd * w[c];
                const float sh = -sc * m + bias[c];
                for (size_t k = 0; k < l.hw; ++k) {
                    const size_t at = (i * l.d + j) * l.hw + k;
                    y[at] = round_as(t, sc * xs[at] + sh);
                }
            }
        } else {
            for (size_t j = 0; j < inner; ++j) y[i * inner + j] = round_as(t, (p[j] - m) * inv_sd);
        }
        mean[i] = m;
        var_out[i] = var;
    });
    set_norm_outputs(ctx, dt, x.shape(), y,
                     ir::Shape::of({static_cast<uint32_t>(l.n), static_cast<uint32_t>(l.g)}), mean, var_out);
}

// dx, and with affine dweight and dbias, from (dy, x, [weight,] mean, rstd),
// where rstd holds the variance the forward kernel wrote (1/sqrt(rstd + eps) is
// the inverse standard deviation).
template <bool Instance>
void group_norm_backward(KernelContext& ctx) {
    const bool affine = ctx.params().int_field("affine") != 0;
    if (ctx.nr_inputs() != (affine ? 5u : 4u))
        ctx.fail("affine={} takes {} inputs, has {}", affine, affine ? 5 : 4, ctx.nr_inputs());
    const Tensor& dy = ctx.in(0);
    const Tensor& x = ctx.in(1);
    const ir::DType dt = float_data(ctx, 1);
    if (!(dy.dtype() == dt) || !(dy.shape() == x.shape()))
        ctx.fail("dy {} must have x's dtype and shape {}", describe_tensor(dy), describe_tensor(x));
    const float eps = static_cast<float>(ctx.params().float_field("eps"));
    const GroupLayout l = group_layout(ctx, x, Instance);
    const size_t stat = affine ? 3 : 2;
    std::vector<float> w;
    if (affine) w = same_dtype_values(ctx, 2, dt, l.c, "weight");
    const std::vector<float> mean = stat_values(ctx, stat, l.n * l.g, "mean");
    const std::vector<float> var = stat_values(ctx, stat + 1, l.n * l.g, "rstd");
    const std::vector<float> dys = to_floats(dy), xs = to_floats(x);
    const E t = dt.type;
    auto weight = [&](size_t c) { return affine ? w[c] : 1.0f; };

    std::vector<float> inv_sd(l.n * l.g);
    for (size_t i = 0; i < inv_sd.size(); ++i)
        inv_sd[i] = round_as(t, 1.0f / round_as(t, std::sqrt(var[i] + eps)));
    // Per (n, c): Σ x·dy and Σ dy over H·W, in T.
    std::vector<float> ds(l.n * l.c), db(l.n * l.c);
    for (size_t i = 0; i < l.n * l.c; ++i) {
        float s = 0, b = 0;
        for (size_t j = 0; j < l.hw; ++j) {
            b = round_as(t, b + dys[i * l.hw + j]);
            s = round_as(t, s + xs[i * l.hw + j] * dys[i * l.hw + j]);
        }
        ds[i] = s;
        db[i] = b;
    }
    const float scale = round_as(t, 1.0f / round_as(t, static_cast<float>(l.d * l.hw)));
    std::vector<float> dx(xs.size());
    for_each_slice(l.n * l.g, l.d * l.hw, [&](size_t i) {
        const size_t g = i % l.g;
        float ds_v = 0, db_v = 0;
        for (size_t j = 0; j < l.d; ++j) {
            ds_v = round_as(t, ds_v + ds[i * l.d + j] * weight(g * l.d + j));
            db_v = round_as(t, db_v + db[i * l.d + j] * weight(g * l.d + j));
        }
        const float sd = inv_sd[i];
        const float c2 = (db_v * mean[i] - ds_v) * sd * sd * sd * scale;
        const float c3 = -c2 * mean[i] - db_v * sd * scale;
        for (size_t j = 0; j < l.d; ++j) {
            const float c1 = sd * weight(g * l.d + j);
            for (size_t k = 0; k < l.hw; ++k) {
                const size_t at = (i * l.d + j) * l.hw + k;
                dx[at] = round_as(t, c1 * dys[at] + c2 * xs[at] + c3);
            }
        }
    });
    ctx.out(0) = from_floats(dt, x.shape(), dx);
    if (!affine) return;
    std::vector<float> dw(l.c, 0.0f), dbias(l.c, 0.0f);
    for (size_t i = 0; i < l.n * l.g; ++i) {
        const size_t g = i % l.g;
        for (size_t j = 0; j < l.d; ++j) {
            const size_t c = g * l.d + j;
            dw[c] = round_as(t, dw[c] + (ds[i * l.d + j] - db[i * l.d + j] * mean[i]) * inv_sd[i]);
        }
    }
    for (size_t n = 0; n < l.n; ++n)
        for (size_t c = 0; c < l.c; ++c) dbias[c] = round_as(t, dbias[c] + db[n * l.c + c]);
    const Tensor& wt = ctx.in(2);
    ctx.out(1) = from_floats(wt.dtype(), wt.shape(), dw);
    ctx.out(2) = from_floats(wt.dtype(), wt.shape(), dbias);
}

// ---------------------------------------------------------------- BatchNorm

// Outputs (mean, variance, saved_mean, saved_variance, reserve, y), or the last
// four when the running statistics are not numbered. Training computes the batch
// statistics (saved_variance holds 1/sqrt(var + eps)) and, with 5 inputs,
// updates the running ones; inference uses the given mean and variance and
// leaves the saved statistics unwritten (zeros here, whatever the memory held in
// MegEngine). The naive kernel's unqualified sqrt of a float is C's double
// sqrt, so 1/sqrt and x/sqrt divide in double (MegEngine's outputs agree only so).
void batch_norm(KernelContext& ctx) {
    const size_t nin = ctx.nr_inputs(), nout = ctx.nr_outputs();
    if (nin != 3 && nin != 5) ctx.fail("takes 3 or 5 inputs, has {}", nin);
    if (nout != 6 && nout != 4) ctx.fail("has {} outputs, BatchNorm has 6 (or 4)", nout);
    const size_t first = nout == 6 ? 0 : 2;
    const std::string_view mode = ctx.params().enum_field("fwd_mode");
    const bool training = mode == "TRAINING";
    if (!training && mode != "INFERENCE") ctx.fail("fwd_mode {} is not implemented", mode);
    if (!training && nin != 5) ctx.fail("INFERENCE needs the mean and variance inputs (5 inputs)");
    const bool need_stats = training && nin == 5;

    const Tensor& x = ctx.in(0);
    const ir::DType t0 = float_data(ctx, 0);
    const ir::DType t1 = float_data(ctx, 1);
    // BNForwardImpl::exec: Float16 data with Float32 params, or one dtype for all.
    if (!(t0 == t1) && !(t0.type == E::Float16 && t1.type == E::Float32))
        ctx.fail("data {} with params {} is not supported", ir::dtype_string(t0), ir::dtype_string(t1));
    const ir::Shape& xs_shape = x.shape();
    const ir::Shape& ps = ctx.in(1).shape();
    if (xs_shape.ndim != 4 || ps.ndim != 4)
        ctx.fail("needs 4-dim input and scale, got {}", describe_tensor(x));
    // A param element per position of the non-1 dims of scale; the 1 dims are
    // the batch each statistic covers.
    std::array<size_t, 4> pstride{};
    size_t batch = 1, stride = 1, nparam = 1;
    for (int i = 3; i >= 0; --i) {
        if (ps[i] == 1) {
            batch *= xs_shape[i];
        } else {
            if (ps[i] != xs_shape[i])
                ctx.fail("scale {} does not fit the input {}", ir::shape_string(ps),
                         ir::shape_string(xs_shape));
            pstride[i] = stride;
            stride *= ps[i];
        }
        nparam *= ps[i];
    }
    const std::vector<float> xv = to_floats(x);
    const std::vector<float> scale = to_floats(ctx.in(1));
    const std::vector<float> bias = same_dtype_values(ctx, 2, t1, nparam, "bias");
    std::vector<float> mean, var;
    if (nin == 5) {
        mean = same_dtype_values(ctx, 3, t1, nparam, "mean");
        var = same_dtype_values(ctx, 4, t1, nparam, "variance");
    }
    const float eps = static_cast<float>(ctx.params().float_field("epsilon"));
    const double avg = ctx.params().float_field("avg_factor");
    const E r0 = t0.type, r1 = t1.type;

    // rep_4d: every element in (n, c, h, w) order with its param index.
    auto each = [&](auto&& f) {
        size_t at = 0;
        for (size_t n = 0; n < xs_shape[0]; ++n)
            for (size_t c = 0; c < xs_shape[1]; ++c)
                for (size_t h = 0; h < xs_shape[2]; ++h)
                    for (size_t w = 0; w < xs_shape[3]; ++w, ++at)
                        f(at, n * pstride[0] + c * pstride[1] + h * pstride[2] + w * pstride[3]);
    };
    std::vector<float> y(xv.size());
    std::vector<float> saved_mean(nparam, 0.0f), saved_inv(nparam, 0.0f);
    if (training) {
        const float denominator = static_cast<float>(1.0 / static_cast<double>(batch));
        each([&](size_t at, size_t p) { saved_mean[p] = round_as(r1, saved_mean[p] + xv[at]); });
        for (size_t p = 0; p < nparam; ++p) {
            saved_mean[p] = round_as(r1, saved_mean[p] * denominator);
            if (need_stats)
                mean[p] = round_as(r1, static_cast<float>((1 - avg) * mean[p] + avg * saved_mean[p]));
        }
        each([&](size_t at, size_t p) {
            const float sigma = xv[at] - saved_mean[p];
            saved_inv[p] = round_as(r1, saved_inv[p] + sigma * sigma);
        });
        for (size_t p = 0; p < nparam; ++p) {
            const float tmp = saved_inv[p] * denominator;
            saved_inv[p] = round_as(r1, static_cast<float>(1 / std::sqrt(static_cast<double>(tmp + eps))));
            if (need_stats)
                var[p] = round_as(
                    r1, static_cast<float>((1 - avg) * var[p] + avg * tmp * static_cast<double>(batch) /
                                                                    static_cast<double>(batch - 1)));
        }
        each([&](size_t at, size_t p) {
            const float tmp = (xv[at] - saved_mean[p]) * saved_inv[p];
            y[at] = round_as(r0, scale[p] * tmp + bias[p]);
        });
    } else {
        each([&](size_t at, size_t p) {
            const float tmp =
                static_cast<float>((xv[at] - mean[p]) / std::sqrt(static_cast<double>(var[p] + eps)));
            y[at] = round_as(r0, scale[p] * tmp + bias[p]);
        });
    }
    if (first == 0 && need_stats) {
        ctx.out(0) = from_floats(t1, ps, mean);
        ctx.out(1) = from_floats(t1, ps, var);
    }
    ctx.out(2 - first) = from_floats(t1, ps, saved_mean);
    ctx.out(3 - first) = from_floats(t1, ps, saved_inv);
    ctx.out(5 - first) = from_floats(t0, xs_shape, y);
}

}  // namespace

std::span<const KernelEntry> norm_kernels() {
    static const KernelEntry kKernels[] = {
        {"Softmax", softmax},
        {"LayerNorm", layer_norm},
        {"GeneralNorm", general_norm},
        {"GroupNorm", group_norm<false>},
        {"InstanceNorm", group_norm<true>},
        {"GroupNormBackward", group_norm_backward<false>},
        {"InstanceNormBackward", group_norm_backward<true>},
        {"BatchNorm", batch_norm},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
