// The elemwise family's single-purpose operators, each as its MegDNN naive
// kernel (dnn/src/naive/<op>) and MegBrain operator define it: PowC, TypeCvt,
// AddUpdate, Where, MaskedFill, CheckNonFinite, AssertEqual and the fake
// quantizers FakeQuant, TQT and LSQ (forward).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/elemwise_kernels.h"
#include "engine/eval/elemwise_modes.h"
#include "engine/eval/elemwise_values.h"
#include "engine/eval/half.h"
#include "ir/infer/elemwise_util.h"
#include "ir/infer/shape_util.h"
#include "ir/param_schema.h"

namespace mgedump::engine::eval::elemwise {
namespace {

using E = ir::DTypeEnum;
using ir::elemwise::Cat;

// --- TypeCvt ------------------------------------------------------------------

// type_cvt/opr_impl.cpp `from`: the value a source element stands for, as
// float (float and quantized dtypes) or as int (integers and Bool).
template <class S>
float source_float(ir::DType d, S s) {
    if constexpr (std::is_same_v<S, float>) {
        return s;
    } else {
        if (d.type == E::Float16) return half_to_float(static_cast<uint16_t>(s));
        if (d.type == E::BFloat16) return bfloat16_to_float(static_cast<uint16_t>(s));
        return dequantize(d, static_cast<int32_t>(s));
    }
}

template <class S>
int32_t source_int(ir::DType d, S s) {
    if (d.type == E::Bool) return s != 0;
    return static_cast<int32_t>(s);
}

// `to`: static_cast into the destination ctype, or quantize.
template <class D>
D from_float(ir::DType d, float f) {
    if constexpr (std::is_same_v<D, float>) {
        return f;
    } else {
        if (d.type == E::Float16) return static_cast<D>(float_to_half(f));
        if (d.type == E::BFloat16) return static_cast<D>(float_to_bfloat16(f));
        if (d.type == E::Bool) return static_cast<D>(f != 0.f);
        if (ir::dtype_is_quantized(d.type)) return static_cast<D>(quantize(d, f));
        return truncate_float<D>(f);
    }
}

template <class D>
D from_int(ir::DType d, int32_t i) {
    if constexpr (std::is_same_v<D, float>) {
        return static_cast<float>(i);
    } else {
        // half(int) and bfloat16(int) convert through float.
        if (d.type == E::Float16 || d.type == E::BFloat16) return from_float<D>(d, static_cast<float>(i));
        if (d.type == E::Bool) return static_cast<D>(i != 0);
        if (ir::dtype_is_quantized(d.type)) return static_cast<D>(quantize(d, static_cast<float>(i)));
        return static_cast<D>(i);  // C++20: modular
    }
}

// The dtypes TypeCvtImpl::exec dispatches over that the evaluator stores:
// the computing dtypes, Bool, Uint16 and MEGDNN_FOREACH_QUANTIZED_DTYPE
// (which has no QuantizedS16: MegDNN throws "bad dtype" for it).
bool converts(ir::DType d) {
    const Cat c = ir::elemwise::category(d.type);
    if (c == Cat::Quantized)
        return d.type == E::Quantized8Asymm || d.type == E::QuantizedS8 || d.type == E::QuantizedS32;
    return c == Cat::Float || c == Cat::Int || c == Cat::Bool;
}

// --- helpers ------------------------------------------------------------------

// DTypeScalar::get_cast<float>: the scalar's value whatever its dtype.
float scalar_float(const KernelContext& ctx, ir::FieldName field) {
    const auto* s = std::get_if<ir::DTypeScalar>(&ctx.params().field(field));
    if (!s) ctx.fail("param {} is not a scalar", field);
    auto get = [&](auto tag) {
        decltype(tag) v;
        std::memcpy(&v, s->storage, sizeof(v));
        return v;
    };
    switch (s->dtype) {
        case E::Float32:
            return get(float{});
        case E::Int32:
            return static_cast<float>(get(int32_t{}));
        case E::Int16:
            return get(int16_t{});
        case E::Uint16:
            return get(uint16_t{});
        case E::Int8:
            return get(int8_t{});
        case E::Uint8:
            return get(uint8_t{});
        case E::Bool:
            return get(uint8_t{}) != 0 ? 1.f : 0.f;
        case E::Float16:
            return half_to_float(get(uint16_t{}));
        case E::BFloat16:
            return bfloat16_to_float(get(uint16_t{}));
        default:
            ctx.fail("param {} is a {} scalar, which the evaluator does not read", field,
                     ir::dtype_name(s->dtype));
    }
}

void need_float32(const KernelContext& ctx, const char* op) {
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (ctx.in(i).dtype().type != E::Float32)
            ctx.fail("{} computes Float32 only; input {} is {}", op, i, ir::dtype_string(ctx.in(i).dtype()));
}

// The fake quantizers: `op` over Float32 input 0 and the inputs broadcast to it.
template <class Op>
void fake_quantizer(KernelContext& ctx, const char* name, Op op) {
    need_float32(ctx, name);
    std::vector<Operand<float>> ops;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) {
        if (!ir::elemwise::broadcasts_to(ctx.in(i).shape(), ctx.in(0).shape()))
            ctx.fail("input {} {} does not broadcast to input 0 {}", i, ir::shape_string(ctx.in(i).shape()),
                     ir::shape_string(ctx.in(0).shape()));
        ops.push_back({ctx.in(i).data<float>().data(), ctx.in(i).shape()});
    }
    Tensor& out = output(ctx, 0, ir::DType::of(E::Float32), ctx.in(0).shape());
    map_operands(out.mutable_data<float>().data(), out.shape(), std::span<const Operand<float>>(ops), op);
}

}  // namespace

void convert(const Tensor& src, Tensor& dst) {
    const ir::DType sd = src.dtype(), dd = dst.dtype();
    if (!converts(sd)) throw Error("TypeCvt: the evaluator does not convert from " + ir::dtype_string(sd));
    if (!converts(dd)) throw Error("TypeCvt: the evaluator does not convert to " + ir::dtype_string(dd));
    if (src.elements() != dst.elements()) throw Error("TypeCvt: element counts differ");
    const bool from_int_value = ir::elemwise::category(sd.type) == Cat::Int || sd.type == E::Bool;
    with_storage_type(sd.type, [&](auto stag) {
        using S = decltype(stag);
        with_storage_type(dd.type, [&](auto dtag) {
            using D = decltype(dtag);
            const S* in = src.data<S>().data();
            D* out = dst.mutable_data<D>().data();
            detail::split(src.elements(), [&](uint64_t b, uint64_t e) {
                if (from_int_value) {
                    for (uint64_t i = b; i < e; ++i) out[i] = from_int<D>(dd, source_int(sd, in[i]));
                } else {
                    for (uint64_t i = b; i < e; ++i) out[i] = from_float<D>(dd, source_float(sd, in[i]));
                }
            });
        });
    });
}

void type_cvt(KernelContext& ctx) {
    const Tensor& src = ctx.in(0);
    const auto* target = std::get_if<ir::DType>(&ctx.params().field("dtype"));
    if (!target || !target->valid) ctx.fail("TypeCvt needs a target dtype");
    for (ir::DType d : {src.dtype(), *target})
        if (!converts(d)) ctx.fail("TypeCvt of {} is not implemented", ir::dtype_string(d));
    convert(src, output(ctx, 0, *target, src.shape()));
}

// powc/opr_impl.cpp: an exponent within float epsilon of an integer n is
// applied as |x|^n, negated for odd n and negative x; any other as powf.
void pow_c(KernelContext& ctx) {
    const Tensor& x = ctx.in(0);
    if (!is_float_dtype(x.dtype().type))
        ctx.fail("PowC computes float dtypes only, input is {}", ir::dtype_string(x.dtype()));
    const float p = static_cast<float>(ctx.params().float_field("exp"));
    const int n = static_cast<int>(std::round(p));
    const bool integral = std::fabs(static_cast<float>(n) - p) < std::numeric_limits<float>::epsilon();
    const Widened<float> in = widen_float(x);
    Tensor& out = output(ctx, 0, x.dtype(), x.shape());
    Result<float> result(out);
    const std::array<Operand<float>, 1> ops{in.operand()};
    if (integral) {
        const float nf = static_cast<float>(n);
        const bool odd = (n & 1) != 0;
        broadcast_map(result.data(), out.shape(), ops, [nf, odd](float v) {
            const float r = std::pow(std::fabs(v), nf);
            return odd && v < 0.f ? -r : r;
        });
    } else {
        broadcast_map(result.data(), out.shape(), ops, [p](float v) { return std::pow(v, p); });
    }
    result.finish();
}

// basic_arith.cpp AddUpdate::scn_do_execute and add_update/opr_impl.cpp:
// dest = alpha·dest + beta·delta + bias with delta broadcast to dest and
// converted to its dtype (AddUpdate::make); alpha = 0, beta = 1, bias = 0 is a
// plain copy of delta. The output is the updated value.
void add_update(KernelContext& ctx) {
    const Tensor& dest = ctx.in(0);
    const ir::DType d = dest.dtype();
    const Cat cat = ir::elemwise::category(d.type);
    if (!(cat == Cat::Float || (cat == Cat::Int && d.type != E::Uint16)))
        ctx.fail("AddUpdate has no kernel for {} (MegDNN's computing dtypes only)", ir::dtype_string(d));
    if (!ir::elemwise::broadcasts_to(ctx.in(1).shape(), dest.shape()))
        ctx.fail("delta {} does not broadcast to dest {}", ir::shape_string(ctx.in(1).shape()),
                 ir::shape_string(dest.shape()));
    Tensor delta = ctx.in(1);
    if (!(delta.dtype() == d)) {
        if (!converts(delta.dtype()))
            ctx.fail("delta of {} cannot be converted to {}", ir::dtype_string(delta.dtype()),
                     ir::dtype_string(d));
        Tensor converted(d, delta.shape());
        convert(delta, converted);
        delta = converted;
    }
    const float alpha = scalar_float(ctx, "alpha"), beta = scalar_float(ctx, "beta"),
                bias = scalar_float(ctx, "bias");
    Tensor& out = output(ctx, 0, d, dest.shape());
    const bool copy = alpha == 0.f && beta == 1.f && bias == 0.f;
    if (cat == Cat::Float) {
        // T alpha(param.alpha): Float16/BFloat16 coefficients are rounded to
        // the dtype first; the arithmetic is then float.
        auto coefficient = [&](float v) {
            if (d.type == E::Float16) return half_to_float(float_to_half(v));
            if (d.type == E::BFloat16) return bfloat16_to_float(float_to_bfloat16(v));
            return v;
        };
        const float fa = coefficient(alpha), fb = coefficient(beta), fc = coefficient(bias);
        const Widened<float> x = widen_float(dest), y = widen_float(delta);
        const std::array<Operand<float>, 2> ops{x.operand(), y.operand()};
        Result<float> result(out);
        if (copy)
            broadcast_map(result.data(), out.shape(), ops, [](float, float v) { return v; });
        else
            broadcast_map(result.data(), out.shape(), ops,
                          [=](float a, float v) { return fa * a + fb * v + fc; });
        result.finish();
        return;
    }
    // Integer dtypes: T alpha(param.alpha) truncates each coefficient to the
    // ctype; the sum is int arithmetic stored back into the ctype.
    auto coefficient = [&](float v) {
        return with_storage_type(
            d.type, [&](auto tag) { return static_cast<int32_t>(truncate_float<decltype(tag)>(v)); });
    };
    const int32_t ia = coefficient(alpha), ib = coefficient(beta), ic = coefficient(bias);
    const Widened<int32_t> x = widen_int(dest), y = widen_int(delta);
    const std::array<Operand<int32_t>, 2> ops{x.operand(), y.operand()};
    Result<int32_t> result(out);
    using intops::add, intops::mul;
    if (copy)
        broadcast_map(result.data(), out.shape(), ops, [](int32_t, int32_t v) { return v; });
    else
        broadcast_map(result.data(), out.shape(), ops,
                      [=](int32_t a, int32_t v) { return add(add(mul(ia, a), mul(ib, v)), ic); });
    result.finish();
}

// where/opr_impl.cpp: mask ? data1 : data2, element by element (one shape).
void where(KernelContext& ctx) {
    const Tensor &mask = ctx.in(0), &a = ctx.in(1), &b = ctx.in(2);
    if (mask.dtype().type != E::Bool)
        ctx.fail("the mask must be Bool, it is {}", ir::dtype_string(mask.dtype()));
    const Cat c = ir::elemwise::category(a.dtype().type);
    if (!(c == Cat::Float || c == Cat::Bool || (c == Cat::Int && a.dtype().type != E::Uint16)) ||
        !(a.dtype() == b.dtype()))
        ctx.fail("Where has no kernel for {} and {}", ir::dtype_string(a.dtype()),
                 ir::dtype_string(b.dtype()));
    if (!(mask.shape() == a.shape()) || !(mask.shape() == b.shape()))
        ctx.fail("mask, data1 and data2 must have one shape");
    Tensor& out = output(ctx, 0, a.dtype(), mask.shape());
    const uint8_t* m = mask.data<uint8_t>().data();
    with_storage_type(a.dtype().type, [&](auto tag) {
        using T = decltype(tag);
        const T *x = a.data<T>().data(), *y = b.data<T>().data();
        T* o = out.mutable_data<T>().data();
        detail::split(out.elements(), [&](uint64_t lo, uint64_t hi) {
            for (uint64_t i = lo; i < hi; ++i) o[i] = m[i] ? x[i] : y[i];
        });
    });
}

// masked_fill/opr_impl.cpp: the mask covers the leading dims of the input and
// is broadcast over the rest; masked elements become static_cast<T>(value).
void masked_fill(KernelContext& ctx) {
    const Tensor &x = ctx.in(0), &mask = ctx.in(1);
    const ir::DType d = x.dtype();
    const Cat c = ir::elemwise::category(d.type);
    if (!(c == Cat::Float || c == Cat::Bool || (c == Cat::Int && d.type != E::Uint16)))
        ctx.fail("MaskedFill has no kernel for {}", ir::dtype_string(d));
    if (mask.dtype().type != E::Bool)
        ctx.fail("the mask must be Bool, it is {}", ir::dtype_string(mask.dtype()));
    bool leading = mask.shape().ndim <= x.shape().ndim;
    for (uint32_t i = 0; leading && i < mask.shape().ndim; ++i) leading = mask.shape()[i] == x.shape()[i];
    if (!leading)
        ctx.fail("mask {} must match the leading dims of input 0 {}", ir::shape_string(mask.shape()),
                 ir::shape_string(x.shape()));
    const float value = static_cast<float>(ctx.params().float_field("value"));
    Tensor& out = output(ctx, 0, d, x.shape());
    const uint64_t n = x.elements(), m = mask.elements();
    if (n == 0) return;
    const uint64_t inner = n / m;
    const uint8_t* mk = mask.data<uint8_t>().data();
    with_storage_type(d.type, [&](auto tag) {
        using T = decltype(tag);
        T fill;
        if (d.type == E::Bool)
            fill = static_cast<T>(value != 0.f);
        else
            fill = from_float<T>(d, value);
        const T* in = x.data<T>().data();
        T* o = out.mutable_data<T>().data();
        detail::split(n, [&](uint64_t lo, uint64_t hi) {
            for (uint64_t i = lo; i < hi; ++i) o[i] = mk[i / inner] ? fill : in[i];
        });
    });
}

// check_non_finite/opr_impl.cpp on the copies CheckNonFinite::scn_do_execute
// makes: finite elements are multiplied by scale, the others kept; the last
// output is 1 when any element of any input is not finite, else 0.
void check_non_finite(KernelContext& ctx) {
    need_float32(ctx, "CheckNonFinite");
    const size_t n = ctx.nr_inputs();
    if (ctx.nr_outputs() != n + 1)
        ctx.fail("has {} outputs for {} inputs (one per input and the flag)", ctx.nr_outputs(), n);
    const float scale = static_cast<float>(ctx.params().float_field("scale"));
    int32_t flag = 0;
    for (size_t k = 0; k < n; ++k) {
        const Tensor& x = ctx.in(k);
        const float* in = x.data<float>().data();
        Tensor& out = output(ctx, k, ir::DType::of(E::Float32), x.shape());
        float* o = out.mutable_data<float>().data();
        for (uint64_t i = 0; i < x.elements(); ++i) {
            const bool finite = std::isfinite(in[i]);
            o[i] = finite ? in[i] * scale : in[i];
            flag |= !finite;
        }
    }
    output(ctx, n, ir::DType::of(E::Int32), ir::Shape::of({1})).mutable_data<int32_t>()[0] = flag;
}

// utility.cpp AssertEqual: passes input 0 on when err is within [0, maxerr],
// err being input 2 (a scalar), or with two inputs what AssertEqual::make
// computes: max |expect − get| / max(min(|expect|, |get|), 1). Otherwise
// MegEngine raises UnequalError; the evaluator refuses.
void assert_equal(KernelContext& ctx) {
    const Tensor &expect = ctx.in(0), &get = ctx.in(1);
    const float maxerr = static_cast<float>(ctx.params().float_field("maxerr"));
    float err;
    if (ctx.nr_inputs() == 3) {
        const Tensor& e = ctx.in(2);
        if (e.elements() != 1) ctx.fail("err (input 2) must be a scalar, it is {}", describe_tensor(e));
        err = element_as_float(e, 0);
    } else {
        if (!(expect.shape() == get.shape()))
            ctx.fail("expect {} and get {} differ in shape", ir::shape_string(expect.shape()),
                     ir::shape_string(get.shape()));
        const std::vector<float> a = to_floats(expect), b = to_floats(get);
        err = a.empty() ? 0.f : -std::numeric_limits<float>::infinity();
        for (size_t i = 0; i < a.size(); ++i) {
            const float e =
                std::fabs(a[i] - b[i]) / std::max(std::min(std::fabs(a[i]), std::fabs(b[i])), 1.f);
            if (std::isnan(e) || e > err) err = e;
            if (std::isnan(err)) break;
        }
    }
    if (!(err >= 0.f && err <= maxerr))
        ctx.fail("AssertEqual failed: err = {} is not within [0, maxerr = {}]", err, maxerr);
    ctx.out(0) = Tensor::reshaped(expect, expect.shape());
}

// fake_quant/opr_impl.cpp: (clamp(round(x / s) + zp, qmin, qmax) − zp) · s.
void fake_quant(KernelContext& ctx) {
    const float qmin = static_cast<float>(ctx.params().int_field("qmin"));
    const float qmax = static_cast<float>(ctx.params().int_field("qmax"));
    fake_quantizer(ctx, "FakeQuant", [=](float x, float s, float zp) {
        float q = std::round(x / s) + zp;
        q = q <= qmin ? qmin : q;
        q = q >= qmax ? qmax : q;
        return (q - zp) * s;
    });
}

// tqt/opr_impl.cpp: t = 2^s (pow(2, s) in double), clamp(round(x / t)) · t.
void tqt(KernelContext& ctx) {
    const float qmin = static_cast<float>(ctx.params().int_field("qmin"));
    const float qmax = static_cast<float>(ctx.params().int_field("qmax"));
    fake_quantizer(ctx, "TQT", [=](float x, float s) {
        const float t = static_cast<float>(std::pow(2.0, static_cast<double>(s)));
        float q = std::round(x / t);
        q = q <= qmin ? qmin : q;
        q = q >= qmax ? qmax : q;
        return q * t;
    });
}

// lsq/opr_impl.cpp: (round(clamp(x / s + zp, qmin, qmax)) − zp) · s; the grad
// scale (input 3) only matters backward.
void lsq(KernelContext& ctx) {
    const float qmin = static_cast<float>(ctx.params().int_field("qmin"));
    const float qmax = static_cast<float>(ctx.params().int_field("qmax"));
    fake_quantizer(ctx, "LSQ", [=](float x, float s, float zp, float) {
        float q = x / s + zp;
        q = q <= qmin ? qmin : q;
        q = q >= qmax ? qmax : q;
        q = std::round(q);
        return (q - zp) * s;
    });
}

}  // namespace mgedump::engine::eval::elemwise
