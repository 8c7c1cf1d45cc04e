// Kernels of the elemwise family (basic_arith.sereg.h, nn_int.sereg.h and the
// single-purpose operators of misc.sereg.h): Elemwise here, the rest in
// elemwise_multi_type.cpp and elemwise_misc.cpp.
//
// Elemwise follows MegDNN's naive kernel (dnn/src/naive/elemwise with the
// per-mode definitions of dnn/src/common/elemwise/kern_defs.cuh) and the
// MegBrain operator around it (src/opr/impl/basic_arith.cpp): inputs are
// broadcast to the output; float dtypes compute in float, integer dtypes in
// int, Bool on truth values; QuantizedS8/S32 compute on their storage
// integers as Int8/Int32 (basic_arith.cpp:429).
#include <atomic>
#include <vector>

#include "engine/eval/elemwise_kernels.h"
#include "engine/eval/elemwise_modes.h"
#include "engine/eval/elemwise_values.h"
#include "engine/eval/half.h"
#include "engine/eval/kernels.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace elemwise {
namespace {

using ir::elemwise::Cat;
using E = ir::DTypeEnum;

// basic_arith.cpp call_megdnn_opr_exec: FUSE_MUL_ADD3 runs fused only when c
// has a's or b's layout or is a scalar, FUSE_MUL_ADD4 only when the products
// pair up by layout; otherwise it runs as MUL, MUL and ADD, each result
// stored in the dtype. Only Float16/BFloat16 round differently between the two.
bool fused_layouts(int mode, const KernelContext& ctx) {
    auto s = [&](size_t i) { return ctx.in(i).shape(); };
    if (mode == Mode::FUSE_MUL_ADD3) return s(2) == s(0) || s(2) == s(1) || s(2) == ir::Shape::of({1});
    return (s(0) == s(2) && s(1) == s(3)) || (s(0) == s(3) && s(1) == s(2));
}

void elemwise_float(KernelContext& ctx, int mode, Tensor& out) {
    const Inputs<float> in = float_inputs(ctx);
    Result<float> result(out);
    auto run = [&](auto op) { map_operands(result.data(), out.shape(), in.span(), op); };
    const E t = out.dtype().type;
    if ((mode == Mode::FUSE_MUL_ADD3 || mode == Mode::FUSE_MUL_ADD4) && t != E::Float32 &&
        !fused_layouts(mode, ctx)) {
        float (*round)(float) = t == E::Float16
                                    ? +[](float v) { return half_to_float(float_to_half(v)); }
                                    : +[](float v) { return bfloat16_to_float(float_to_bfloat16(v)); };
        if (mode == Mode::FUSE_MUL_ADD3)
            run([round](float x, float y, float z) { return z + round(x * y); });
        else
            run([round](float x, float y, float z, float w) { return round(z * w) + round(x * y); });
    } else if (!float_mode(mode, run)) {
        ctx.fail("mode {} has no float kernel", ctx.params().enum_field("mode"));
    }
    result.finish();
}

IntContext int_context(E t) {
    IntContext c;
    switch (t) {
        case E::Int8:
        case E::QuantizedS8:
            c.digits = 7, c.min = -128, c.max = 127;
            break;
        case E::Int16:
            c.digits = 15, c.min = -32768, c.max = 32767;
            break;
        case E::Uint8:
            c.digits = 8, c.min = 0, c.max = 255;
            break;
        case E::Uint16:
            c.digits = 16, c.min = 0, c.max = 65535;
            break;
        default:
            break;  // Int32, QuantizedS32
    }
    return c;
}

void elemwise_int(KernelContext& ctx, int mode, Tensor& out) {
    const E t = ctx.in(0).dtype().type;
    // MegDNN's fused multiply-adds dispatch over MEGDNN_FOREACH_COMPUTING_DTYPE,
    // which has no Uint16 ("bad dtype").
    if (t == E::Uint16 && (mode == Mode::FUSE_MUL_ADD3 || mode == Mode::FUSE_MUL_ADD4))
        ctx.fail("mode {} has no Uint16 kernel in MegDNN", ctx.params().enum_field("mode"));
    const Inputs<int32_t> in = int_inputs(ctx);
    Result<int32_t> result(out);
    std::atomic<int> fault{IntContext::None};
    IntContext c = int_context(t);
    c.fault = &fault;
    auto run = [&](auto op) { map_operands(result.data(), out.shape(), in.span(), op); };
    if (!int_mode(mode, c, run)) ctx.fail("mode {} has no integer kernel", ctx.params().enum_field("mode"));
    switch (fault.load()) {
        case IntContext::DivideByZero:
            ctx.fail("integer division by zero (MegDNN's kernel traps)");
        case IntContext::DivideOverflow:
            ctx.fail("integer division of INT32_MIN by -1 (MegDNN's kernel traps)");
        case IntContext::ShiftRange:
            ctx.fail("a shift count outside [0, 31]: undefined for MegDNN's int shift");
        default:
            break;
    }
    result.finish();
}

void elemwise_bool(KernelContext& ctx, int mode, Tensor& out) {
    std::vector<Operand<uint8_t>> ops;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        ops.push_back({ctx.in(i).data<uint8_t>().data(), ctx.in(i).shape()});
    uint8_t* dst = out.mutable_data<uint8_t>().data();
    auto run = [&](auto op) { map_operands(dst, out.shape(), std::span<const Operand<uint8_t>>(ops), op); };
    // FUSE_MUL_ADD3/4 allow Bool in the mode trait, but MegDNN dispatches them
    // over the computing dtypes only ("bad dtype").
    if (!bool_mode(mode, run))
        ctx.fail("mode {} has no Bool kernel in MegDNN", ctx.params().enum_field("mode"));
}

void elemwise_kernel(KernelContext& ctx) {
    const int mode = static_cast<int>(ctx.params().int_field("mode"));
    const ir::DType dt = ctx.in(0).dtype();
    Tensor& out = output(ctx, 0, dt, output_shape(ctx));
    switch (ir::elemwise::category(dt.type)) {
        case Cat::Float:
            return elemwise_float(ctx, mode, out);
        case Cat::Int:
            return elemwise_int(ctx, mode, out);
        case Cat::Bool:
            return elemwise_bool(ctx, mode, out);
        case Cat::Quantized:
            if (dt.type == E::QuantizedS8 || dt.type == E::QuantizedS32) return elemwise_int(ctx, mode, out);
            ctx.fail("Elemwise on {} is not supported by MegEngine (QuantizedS8 and QuantizedS32 only)",
                     ir::dtype_string(dt));
        default:
            ctx.fail("Elemwise does not compute {} tensors", ir::dtype_string(dt));
    }
}

template <class C, class Widen>
Inputs<C> inputs(const KernelContext& ctx, Widen widen) {
    Inputs<C> in;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) in.widened.push_back(widen(ctx.in(i)));
    for (const auto& w : in.widened) in.ops.push_back(w.operand());
    return in;
}

}  // namespace

ir::Shape output_shape(const KernelContext& ctx) {
    std::vector<ir::Shape> shapes;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) shapes.push_back(ctx.in(i).shape());
    std::optional<ir::Shape> s = ir::elemwise::elemwise_shape(shapes);
    if (!s || !s->known()) ctx.fail("input shapes do not broadcast together");
    return *s;
}

Inputs<float> float_inputs(const KernelContext& ctx) { return inputs<float>(ctx, widen_float); }
Inputs<int32_t> int_inputs(const KernelContext& ctx) { return inputs<int32_t>(ctx, widen_int); }

Tensor& output(KernelContext& ctx, size_t k, ir::DType dtype, const ir::Shape& shape) {
    Tensor& t = ctx.out(k);
    if (t.empty()) t = Tensor(dtype, shape);
    if (!(t.shape() == shape))
        ctx.fail("output {} is {}, the kernel computes {}", k, ir::shape_string(t.shape()),
                 ir::shape_string(shape));
    return t;
}

}  // namespace elemwise

std::span<const KernelEntry> elemwise_kernels() {
    static const KernelEntry kKernels[] = {
        {"Elemwise", elemwise::elemwise_kernel},
        {"ElemwiseMultiType", elemwise::elemwise_multi_type},
        {"PowC", elemwise::pow_c},
        {"TypeCvt", elemwise::type_cvt},
        {"AddUpdate", elemwise::add_update},
        {"Where", elemwise::where},
        {"MaskedFill", elemwise::masked_fill},
        {"CheckNonFinite", elemwise::check_non_finite},
        {"AssertEqual", elemwise::assert_equal},
        {"FakeQuant", elemwise::fake_quant},
        {"TQT", elemwise::tqt},
        {"LSQ", elemwise::lsq},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
