#include "engine/eval/reduce_naive.h"

#include <cmath>
#include <cstdint>

#include "engine/eval/elements.h"
#include "engine/eval/reduce_num.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

template <class Num>
typename Num::V reduce_min(typename Num::V x, typename Num::V y) {
    if constexpr (Num::kNanAware)
        return (std::isnan(x) || x < y) ? x : y;
    else
        return x < y ? x : y;
}
template <class Num>
typename Num::V reduce_max(typename Num::V x, typename Num::V y) {
    if constexpr (Num::kNanAware)
        return (std::isnan(x) || x > y) ? x : y;
    else
        return x > y ? x : y;
}

// The naive kernel's order: the range [lo, hi) is halved until one element is
// left, and the halves are combined on the way back up.
template <class S, class Visit, class Apply>
auto pairwise(const S* p, size_t stride, size_t lo, size_t hi, const Visit& visit, const Apply& apply)
    -> decltype(visit(*p)) {
    if (lo + 1 < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        return apply(pairwise(p, stride, lo, mid, visit, apply), pairwise(p, stride, mid, hi, visit, apply));
    }
    return visit(p[lo * stride]);
}

template <class Num, class Visit, class Apply, class Write>
void reduce_abc(const typename Num::S* src, typename Num::S* dst, size_t A, size_t B, size_t C,
                const Visit& visit, const Apply& apply, const Write& write) {
    for_each_slice(A * C, B, [&](size_t o) {
        const size_t a = o / C, c = o % C;
        dst[o] = Num::store(write(pairwise(src + a * B * C + c, C, 0, B, visit, apply)));
    });
}

template <class Num>
void reduce_with(ReduceMode mode, const typename Num::S* src, typename Num::S* dst, size_t A, size_t B,
                 size_t C) {
    using V = typename Num::V;
    auto load = [](typename Num::S s) { return Num::load(s); };
    auto square = [](typename Num::S s) {
        const V v = Num::load(s);
        return Num::mul(v, v);
    };
    auto add = [](V a, V b) { return Num::add(a, b); };
    auto same = [](V v) { return v; };
    switch (mode) {
        case ReduceMode::Sum:
            return reduce_abc<Num>(src, dst, A, B, C, load, add, same);
        case ReduceMode::Mean:
            return reduce_abc<Num>(src, dst, A, B, C, load, add, [B](V v) { return Num::div_count(v, B); });
        case ReduceMode::SumSqr:
            return reduce_abc<Num>(src, dst, A, B, C, square, add, same);
        case ReduceMode::Product:
            return reduce_abc<Num>(
                src, dst, A, B, C, load, [](V a, V b) { return Num::mul(a, b); }, same);
        case ReduceMode::Min:
            return reduce_abc<Num>(src, dst, A, B, C, load, reduce_min<Num>, same);
        case ReduceMode::Max:
            return reduce_abc<Num>(src, dst, A, B, C, load, reduce_max<Num>, same);
    }
}

template <class Num>
void run(ReduceMode mode, const Tensor& src, Tensor& dst, size_t A, size_t B, size_t C) {
    using S = typename Num::S;
    reduce_with<Num>(mode, src.data<S>().data(), dst.mutable_data<S>().data(), A, B, C);
}

}  // namespace

std::optional<ReduceMode> reduce_mode_named(std::string_view name) {
    if (name == "SUM") return ReduceMode::Sum;
    if (name == "SUM_SQR") return ReduceMode::SumSqr;
    if (name == "PRODUCT") return ReduceMode::Product;
    if (name == "MIN_" || name == "MIN") return ReduceMode::Min;
    if (name == "MAX_" || name == "MAX") return ReduceMode::Max;
    if (name == "MEAN") return ReduceMode::Mean;
    return std::nullopt;
}

std::optional<ReduceDataType> reduce_data_type_named(std::string_view name) {
    if (name == "DEFAULT") return ReduceDataType::Default;
    if (name == "FLOAT_O32xC32") return ReduceDataType::FloatO32xC32;
    if (name == "FLOAT_O16xC32" || name == "FLOAT_IO16xC32") return ReduceDataType::FloatO16xC32;
    if (name == "QUINT_I8xO32") return ReduceDataType::QuintI8xO32;
    if (name == "QINT_I8xO32") return ReduceDataType::QintI8xO32;
    return std::nullopt;
}

std::string_view reduce_mode_name(ReduceMode mode) {
    switch (mode) {
        case ReduceMode::Sum:
            return "SUM";
        case ReduceMode::SumSqr:
            return "SUM_SQR";
        case ReduceMode::Product:
            return "PRODUCT";
        case ReduceMode::Min:
            return "MIN";
        case ReduceMode::Max:
            return "MAX";
        case ReduceMode::Mean:
            return "MEAN";
    }
    return "?";
}

Tensor convert_dtype(const Tensor& src, ir::DType dst) {
    if (src.dtype() == dst) return src;
    return from_floats(dst, src.shape(), to_floats(src));
}

float round_as(ir::DTypeEnum t, float x) {
    if (t == E::Float16) return half_to_float(float_to_half(x));
    if (t == E::BFloat16) return bfloat16_to_float(float_to_bfloat16(x));
    return x;
}

Tensor naive_reduce(const KernelContext& ctx, const Tensor& src, uint32_t axis, ReduceMode mode,
                    ReduceDataType data_type, ir::DType dst_dtype) {
    const ir::Shape& is = src.shape();
    if (axis >= is.ndim) ctx.fail("reduction axis {} is out of range for {}", axis, describe_tensor(src));
    size_t A = 1, C = 1;
    for (uint32_t i = 0; i < axis; ++i) A *= is[i];
    for (uint32_t i = axis + 1; i < is.ndim; ++i) C *= is[i];
    const size_t B = is[axis];
    if (B == 0) ctx.fail("cannot reduce an empty axis of {}", describe_tensor(src));

    // ReduceForwardImpl::exec: quantized sums and means accumulate in
    // QuantizedS32 of the input's scale; any other non-DEFAULT data_type in Float32.
    const ir::DType in = src.dtype();
    ir::DType comp = in;
    if (mode == ReduceMode::Sum || mode == ReduceMode::Mean) {
        if (ir::dtype_is_quantized(in.type)) {
            if (in.type != E::QuantizedS8 && in.type != E::Quantized8Asymm)
                ctx.fail("Reduce {} of {} is not supported by MegDNN (QuantizedS8 and Quantized8Asymm only)",
                         reduce_mode_name(mode), ir::dtype_string(in));
            comp = ir::DType::quantized(E::QuantizedS32, in.scale);
        } else if (data_type != ReduceDataType::Default) {
            comp = ir::DType::of(E::Float32);
        }
    } else if (data_type != ReduceDataType::Default) {
        comp = ir::DType::of(E::Float32);
    }
    // x / (ctype)B: a narrow integer type can cast the count to 0.
    if (mode == ReduceMode::Mean && ir::dtype_is_integer(comp.type) &&
        with_storage_type(comp.type, [B](auto tag) { return static_cast<decltype(tag)>(B) == 0; }))
        ctx.fail("MEAN over {} elements divides by ({}){} = 0 in MegDNN's integer arithmetic", B,
                 ir::dtype_name(comp.type), B);
    const Tensor work = convert_dtype(src, comp);
    ir::Shape os = is;
    os[axis] = 1;
    Tensor out(comp, os);
    if (with_computing_num(comp.type, [&](auto num) { run<decltype(num)>(mode, work, out, A, B, C); }))
        return convert_dtype(out, dst_dtype);
    switch (comp.type) {
        case E::QuantizedS32:
            run<QS32Num>(mode, work, out, A, B, C);
            break;
        case E::QuantizedS8:
        case E::Quantized8Asymm:
            // reduce_fwd<SUM_SQR/PRODUCT> on dt_qint8 / dt_quint8 throw; MIN and
            // MAX compare the storage integers.
            if (mode != ReduceMode::Min && mode != ReduceMode::Max)
                ctx.fail("Reduce ({}) with DEFAULT DataType is not supported on {}", reduce_mode_name(mode),
                         ir::dtype_name(comp.type));
            if (comp.type == E::QuantizedS8)
                run<IntNum<int8_t>>(mode, work, out, A, B, C);
            else
                run<IntNum<uint8_t>>(mode, work, out, A, B, C);
            break;
        default:
            ctx.fail("Reduce does not compute {} tensors", ir::dtype_string(comp));
    }
    return convert_dtype(out, dst_dtype);
}

}  // namespace mgedump::engine::eval
