// Inference rules of the elemwise family's single-purpose operators (listed in
// rules_elemwise.cpp): PowC, TypeCvt, AddUpdate, Where, MaskedFill, the fake
// quantizers and CheckNonFinite.
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/infer/elemwise_util.h"
#include "ir/infer/known_op_types.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir::elemwise {
namespace {

bool known_and(const InferContext& ctx, size_t i, auto pred) {
    const DType d = ctx.dtype(i);
    return d.valid && pred(d);
}

bool eq_shape(const Shape& a, const Shape& b) { return !a.known() || !b.known() || a == b; }

}  // namespace

void infer_powc(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const DType d = ctx.dtype(0);
    // dnn/src/common/powc.cpp:9: src and dst share a dtype of the float category.
    if (d.valid && category(d.type) != Cat::Float)
        ctx.fail("PowC takes a float input, input 0 is {}", dtype_string(d));
    const Shape& s = ctx.shape(0);
    const StaticValue* v = ctx.value(0);
    if (!v || !d.valid || !value_tracked(d)) {
        ctx.set_output(0, d, s);
        return;
    }
    // powc.cpp: an exponent within float epsilon of an integer is applied as that integer.
    const float p = static_cast<float>(ctx.float_field("exp"));
    const float pi = std::round(p);
    const bool integral = std::fabs(pi - p) < std::numeric_limits<float>::epsilon();
    std::vector<double> out(v->elems.size());
    for (size_t k = 0; k < out.size(); ++k) {
        const float x = static_cast<float>(v->elems[k]);
        out[k] = store_as(d.type, integral ? std::pow(x, static_cast<int>(pi)) : std::pow(x, p));
    }
    ctx.set_output_value(0, d, s, std::move(out));
}

void infer_type_cvt(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const FieldValue& f = ctx.field("dtype");
    const DType* target = std::get_if<DType>(&f);
    // basic_arith.cpp:746 TypeCvt: mgb_assert(dest_type.valid()).
    if (!target || !target->valid) ctx.fail("TypeCvt needs a target dtype (param dtype is not set)");
    const DType to = *target, from = ctx.dtype(0);
    // dnn/src/common/type_cvt.cpp:10: both sides float, int, quantized or Bool.
    auto convertible = [](DType d) {
        const Cat c = category(d.type);
        return c == Cat::Float || c == Cat::Int || c == Cat::Quantized || c == Cat::Bool;
    };
    if (from.valid && !convertible(from))
        ctx.fail("TypeCvt converts float, int, quantized and Bool dtypes; input 0 is {}", dtype_string(from));
    if (!convertible(to))
        ctx.fail("TypeCvt converts to float, int, quantized and Bool dtypes, not {}", dtype_string(to));
    const Shape& s = ctx.shape(0);
    const StaticValue* v = ctx.value(0);
    if (!v || !from.valid || !value_tracked(from) || !value_tracked(to)) {
        ctx.set_output(0, to, s);
        return;
    }
    // dnn/src/naive/type_cvt: through float when either side is quantized
    // (dequantize, then quantize: round half away, saturate), else static_cast.
    std::vector<double> out(v->elems.size());
    for (size_t k = 0; k < out.size(); ++k) {
        double x = v->elems[k];
        if (dtype_is_quantized(from.type))
            x = static_cast<float>((x - (dtype_is_asymmetric(from.type) ? from.zero_point : 0)) * from.scale);
        if (dtype_is_quantized(to.type)) {
            float q = std::round(static_cast<float>(x) / to.scale);
            if (dtype_is_asymmetric(to.type)) q += to.zero_point;
            double lo = -128, hi = 127;
            if (to.type == DTypeEnum::Quantized8Asymm) lo = 0, hi = 255;
            if (to.type == DTypeEnum::QuantizedS16) lo = -32768, hi = 32767;
            if (to.type == DTypeEnum::QuantizedS32) lo = -2147483648.0, hi = 2147483520.0;
            x = std::isnan(q) ? q : std::fmin(std::fmax(lo, q), hi);
        }
        out[k] = store_as(to.type, x);
    }
    ctx.set_output_value(0, to, s, std::move(out));
}

namespace {

std::optional<double> scalar_value(const DTypeScalar& s) {
    auto get = [&](auto tag) {
        decltype(tag) x;
        std::memcpy(&x, s.storage, sizeof(x));
        return static_cast<double>(x);
    };
    switch (s.dtype) {
        case DTypeEnum::Float32:
            return get(float{});
        case DTypeEnum::Int32:
            return get(int32_t{});
        case DTypeEnum::Int16:
            return get(int16_t{});
        case DTypeEnum::Uint16:
            return get(uint16_t{});
        case DTypeEnum::Int8:
            return get(int8_t{});
        case DTypeEnum::Uint8:
            return get(uint8_t{});
        case DTypeEnum::Bool:
            return s.storage[0] != 0 ? 1.0 : 0.0;
        default:
            return std::nullopt;
    }
}

}  // namespace

void infer_add_update(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const Graph& g = ctx.graph();
    // basic_arith.cpp:853: "AddUpdate cannot be applied on ImmutableTensor".
    if (g.oprs.type[g.vars.owner[ctx.input(0).value].value] == kImmutableTensorType)
        ctx.fail(
            "AddUpdate cannot update input 0: it is a constant (ImmutableTensor); use a SharedDeviceTensor");
    const Shape& dest = ctx.shape(0);
    const Shape& delta = ctx.shape(1);
    // scn_do_execute broadcasts delta to dest (TensorLayout::broadcast).
    if (!broadcasts_to(delta, dest))
        ctx.fail("delta {} does not broadcast to dest {} (dims equal or 1, no more dims than dest)",
                 shape_string(delta), shape_string(dest));
    const DType d = ctx.dtype(0);
    // dnn/src/common/add_update.cpp:14: on an int dest, alpha, beta and bias must be integers.
    if (d.valid && category(d.type) == Cat::Int)
        for (FieldName name : {FieldName("alpha"), FieldName("beta"), FieldName("bias")})
            if (const auto* s = std::get_if<DTypeScalar>(&ctx.field(name)))
                if (auto x = scalar_value(*s);
                    x && static_cast<float>(static_cast<int>(*x)) != static_cast<float>(*x))
                    ctx.fail("dest is {} but {} = {:g} is not an integer", dtype_string(d), name, *x);
    // The output is dest updated in place (ShapeInferDesc::make_identity(input(0))).
    // AddUpdate::make converts delta to dest's dtype, so any delta dtype is taken.
    ctx.set_output(0, d, dest);
}

void infer_where(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    const DType mask = ctx.dtype(0), a = ctx.dtype(1), b = ctx.dtype(2);
    // dnn/src/common/where.cpp:24: mask Bool; data1 and data2 one int, float or Bool dtype.
    if (mask.valid && mask.type != DTypeEnum::Bool)
        ctx.fail("the mask (input 0) must be Bool, it is {}", dtype_string(mask));
    if (a.valid && b.valid && !same_dtype(a, b))
        ctx.fail("inputs 1 and 2 must share a dtype: {} vs {}", dtype_string(a), dtype_string(b));
    const DType data = a.valid ? a : b;
    if (data.valid) {
        const Cat c = category(data.type);
        if (c != Cat::Float && c != Cat::Int && c != Cat::Bool)
            ctx.fail("Where selects int, float or Bool data, not {}", dtype_string(data));
    }
    // misc.cpp:684 WhereForward: mask, data1 and data2 have one shape (no broadcasting).
    const Shape &m = ctx.shape(0), &x = ctx.shape(1), &y = ctx.shape(2);
    if (!eq_shape(m, x) || !eq_shape(m, y) || !eq_shape(x, y))
        ctx.fail("mask, input 1 and input 2 must have one shape: {}, {}, {}", shape_string(m),
                 shape_string(x), shape_string(y));
    // The output shape is the mask's (misc.cpp:700); MegEngine infers no value.
    ctx.set_output(0, data, m);
}

void infer_masked_fill(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const DType d = ctx.dtype(0), mask = ctx.dtype(1);
    // dnn/src/common/masked_fill.cpp:14: a Bool mask whose dims are the leading
    // dims of input 0; input 0 a computing dtype (not Uint16) or Bool.
    if (mask.valid && mask.type != DTypeEnum::Bool)
        ctx.fail("the mask (input 1) must be Bool, it is {}", dtype_string(mask));
    if (d.valid) {
        const Cat c = category(d.type);
        if (!(c == Cat::Float || c == Cat::Bool || (c == Cat::Int && d.type != DTypeEnum::Uint16)))
            ctx.fail("MaskedFill fills float, int (not Uint16) or Bool tensors, not {}", dtype_string(d));
    }
    const Shape &x = ctx.shape(0), &m = ctx.shape(1);
    if (x.known() && m.known()) {
        bool ok = m.ndim <= x.ndim;
        for (uint32_t i = 0; ok && i < m.ndim; ++i) ok = m.dim[i] == x.dim[i];
        if (!ok)
            ctx.fail("mask {} must match the leading dims of input 0 {}", shape_string(m), shape_string(x));
    }
    ctx.set_output(0, d, x);
}

namespace {

// FakeQuant, TQT, LSQ. Built, they keep OperatorNodeBase::init_output_dtype
// (operator_node.cpp:297): every input of one dtype, which the output takes.
// Their other rules are checked only when the graph runs, so MegEngine's loader
// reads a graph that breaks them: check_layout_fwd (dnn/src/common/fake_quant.cpp:13,
// tqt.cpp, lsq.cpp) wants Float32, and the naive kernels broadcast the
// scale-like inputs to input 0.
void fake_quantizer(InferContext& ctx, size_t n, const char* what) {
    ctx.expect_inputs(n, n);
    const DType d = ctx.dtype(0);
    for (size_t i = 1; i < n; ++i)
        if (d.valid && ctx.dtype(i).valid && !(ctx.dtype(i) == d))
            ctx.fail("input {} is {}, input 0 is {}: every input must have one dtype; {}", i,
                     dtype_string(ctx.dtype(i)), dtype_string(d), what);
    if (d.valid && d.type != DTypeEnum::Float32)
        ctx.fail_when_run("input 0 is {}; {}", dtype_string(d), what);
    for (size_t i = 1; i < n; ++i)
        if (!broadcasts_to(ctx.shape(i), ctx.shape(0)))
            ctx.fail_when_run("input {} {} does not broadcast to input 0 {}", i, shape_string(ctx.shape(i)),
                              shape_string(ctx.shape(0)));
    ctx.set_output(0, d, ctx.shape(0));
}

}  // namespace

void infer_fake_quant(InferContext& ctx) {
    fake_quantizer(ctx, 3, "FakeQuant takes Float32 input, scale and zero point");
}
void infer_tqt(InferContext& ctx) { fake_quantizer(ctx, 2, "TQT takes Float32 input and scale"); }
void infer_lsq(InferContext& ctx) {
    fake_quantizer(ctx, 4, "LSQ takes Float32 input, scale, zero point and grad scale");
}

void infer_check_non_finite(InferContext& ctx) {
    const size_t n = ctx.nr_inputs();
    if (n == 0) ctx.fail("CheckNonFinite needs at least one input");
    // misc.cpp:589: one output per input, then the Int32 flag.
    if (ctx.nr_outputs() != n + 1)
        ctx.fail("CheckNonFinite with {} inputs has {} outputs (one per input and the flag), not {}", n,
                 n + 1, ctx.nr_outputs());
    // Its outputs are Float32 whatever the inputs (misc.cpp's constructor), and
    // scn_do_execute copies each input into its output, which fails for any
    // other dtype ("attempt to access dtype Float32 as Float16"): such inputs
    // build and load, and fail when the graph runs.
    for (size_t i = 0; i < n; ++i)
        if (known_and(ctx, i, [](DType d) { return d.type != DTypeEnum::Float32; }))
            ctx.fail_when_run(
                "input {} is {}; CheckNonFinite's outputs are Float32 copies of its inputs, so "
                "inputs must be Float32",
                i, dtype_string(ctx.dtype(i)));
    for (size_t i = 0; i < n; ++i) ctx.set_output(i, DType::of(DTypeEnum::Float32), ctx.shape(i));
    // The flag's shape [1] is inferred from the inputs' shapes (misc.cpp:648), so
    // it is known only when they all are.
    bool all_known = true;
    for (size_t i = 0; i < n; ++i) all_known = all_known && ctx.shape(i).known();
    ctx.set_output(n, DType::of(DTypeEnum::Int32), all_known ? Shape::of({1}) : Shape{});
}

}  // namespace mgedump::ir::elemwise
