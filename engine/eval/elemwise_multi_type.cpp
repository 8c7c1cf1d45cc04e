// ElemwiseMultiType (nn_int.sereg.h) as dnn/src/naive/elemwise_multi_type
// computes it: the fixed-dtype integer and mixed modes element by element, the
// Q* modes as the float Elemwise kernel on dequantized inputs quantized into
// the output dtype, and the comparisons and ISNAN/ISINF into Bool.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/eval/elemwise_kernels.h"
#include "engine/eval/elemwise_modes.h"
#include "engine/eval/elemwise_values.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval::elemwise {
namespace {

using E = ir::DTypeEnum;
using ir::elemwise::Cat;

// Runs `op` over float (or int32) operands into the output of `dtype`.
template <class C, class Op>
void compute(KernelContext& ctx, ir::DType dtype, const Inputs<C>& in, Op op) {
    Tensor& out = output(ctx, 0, dtype, output_shape(ctx));
    Result<C> result(out);
    map_operands(result.data(), out.shape(), in.span(), op);
    result.finish();
}

// rounding_shift_right_away_from_zero<T> (elemwise_helper.cuh), with C++'s
// promotions to int and conversions back to T.
template <class T>
int32_t shift_right_away_from_zero(int32_t x, int32_t k) {
    const T mask = static_cast<T>((T(1) << k) - 1);
    const T threshold = static_cast<T>((mask >> 1) + (x < 0));
    return static_cast<T>((x >> k) + ((x & mask) > threshold));
}

// elemwise_multi_type round_shr_saturate<S, D>: the shift, then (when D is
// narrower than S) saturation to D.
template <class S, class D>
int32_t round_shr_saturate(int32_t x, int32_t k) {
    int32_t r = shift_right_away_from_zero<S>(x, k);
    if constexpr (!std::is_same_v<S, D>)
        r = std::clamp<int32_t>(r, std::numeric_limits<D>::min(), std::numeric_limits<D>::max());
    return r;
}

// A shift count the int arithmetic above keeps defined.
bool shift_ok(int32_t k) { return k >= 0 && k <= 30; }

template <class S, class D>
void round_shr(KernelContext& ctx, E out_type) {
    std::atomic<bool> bad{false};
    compute(ctx, ir::DType::of(out_type), int_inputs(ctx), [&bad](int32_t x, int32_t k) {
        if (!shift_ok(k)) return bad = true, 0;
        return round_shr_saturate<S, D>(x, k);
    });
    if (bad) ctx.fail("a shift count outside [0, 30]: undefined for MegDNN's int arithmetic");
}

template <class D>
void round_shr_dispatch(KernelContext& ctx, E out_type, bool int16_int32_only) {
    const E t = ctx.in(0).dtype().type;
    switch (t) {
        case E::Int32:
            return round_shr<int32_t, D>(ctx, out_type);
        case E::Int16:
            return round_shr<int16_t, D>(ctx, out_type);
        case E::Int8:
            if (!int16_int32_only) return round_shr<int8_t, D>(ctx, out_type);
            break;
        case E::Uint8:
            if (!int16_int32_only) return round_shr<uint8_t, D>(ctx, out_type);
            break;
        default:
            break;
    }
    ctx.fail("mode {} has no kernel for input 0 of {}", ctx.params().enum_field("mode"), ir::dtype_name(t));
}

// FUSE_ADD_RMULH_ROUND_SHR_SATURATE_*: round_shr_saturate<S, int8>(
// round_mulh_saturate<S>(S(x + y), z), offset), then clamped to [min, max].
template <class S>
void fuse_add_rmulh_round_shr(KernelContext& ctx) {
    IntContext c;
    c.digits = std::numeric_limits<S>::digits;
    c.min = std::numeric_limits<S>::min();
    c.max = std::numeric_limits<S>::max();
    std::atomic<bool> bad{false};
    compute(ctx, ir::DType::of(E::Int8), int_inputs(ctx),
            [c, &bad](int32_t x, int32_t y, int32_t z, int32_t offset, int32_t lo, int32_t hi) {
                if (!shift_ok(offset)) return bad = true, 0;
                const int32_t sum = static_cast<S>(x + y);
                int32_t r = round_shr_saturate<S, int8_t>(round_mulh_saturate(sum, z, c), offset);
                r = std::min(r, hi);
                return std::max(r, lo);
            });
    if (bad) ctx.fail("a shift count outside [0, 30]: undefined for MegDNN's int arithmetic");
}

// The Q* modes: the Elemwise mode each one runs on dequantized values
// (opr_impl_helper.cpp ON_QUANTIZED_MODE).
int quantized_mode(std::string_view m) {
    struct Entry {
        std::string_view name;
        Mode mode;
    };
    static constexpr Entry kModes[] = {
        {"QRELU", Mode::RELU},
        {"QABS", Mode::ABS},
        {"QACOS", Mode::ACOS},
        {"QASIN", Mode::ASIN},
        {"QCEIL", Mode::CEIL},
        {"QCOS", Mode::COS},
        {"QEXP", Mode::EXP},
        {"QEXPM1", Mode::EXPM1},
        {"QFLOOR", Mode::FLOOR},
        {"QLOG", Mode::LOG},
        {"QLOG1P", Mode::LOG1P},
        {"QNEGATE", Mode::NEGATE},
        {"QSIGMOID", Mode::SIGMOID},
        {"QSIN", Mode::SIN},
        {"QTANH", Mode::TANH},
        {"QFAST_TANH", Mode::FAST_TANH},
        {"QROUND", Mode::ROUND},
        {"QERF", Mode::ERF},
        {"QERFINV", Mode::ERFINV},
        {"QERFC", Mode::ERFC},
        {"QERFCINV", Mode::ERFCINV},
        {"QH_SWISH", Mode::H_SWISH},
        {"QABS_GRAD", Mode::ABS_GRAD},
        {"QADD", Mode::ADD},
        {"QFLOOR_DIV", Mode::FLOOR_DIV},
        {"QMAX", Mode::MAX},
        {"QMIN", Mode::MIN},
        {"QMOD", Mode::MOD},
        {"QMUL", Mode::MUL},
        {"QPOW", Mode::POW},
        {"QSIGMOID_GRAD", Mode::SIGMOID_GRAD},
        {"QSUB", Mode::SUB},
        {"QSWITCH_GT0", Mode::SWITCH_GT0},
        {"QTANH_GRAD", Mode::TANH_GRAD},
        {"QTRUE_DIV", Mode::TRUE_DIV},
        {"QLOG_SUM_EXP", Mode::LOG_SUM_EXP},
        {"QLT", Mode::LT},
        {"QLEQ", Mode::LEQ},
        {"QEQ", Mode::EQ},
        {"QFUSE_ADD_RELU", Mode::FUSE_ADD_RELU},
        {"QFUSE_ADD_SIGMOID", Mode::FUSE_ADD_SIGMOID},
        {"QFUSE_ADD_TANH", Mode::FUSE_ADD_TANH},
        {"QFAST_TANH_GRAD", Mode::FAST_TANH_GRAD},
        {"QATAN2", Mode::ATAN2},
        {"QH_SWISH_GRAD", Mode::H_SWISH_GRAD},
        {"QFUSE_ADD_H_SWISH", Mode::FUSE_ADD_H_SWISH},
        {"QFUSE_MUL_ADD3", Mode::FUSE_MUL_ADD3},
        {"QCOND_LEQ_MOV", Mode::COND_LEQ_MOV},
        {"QCOND_LT_MOV", Mode::COND_LT_MOV},
    };
    for (const Entry& e : kModes)
        if (e.name == m) return e.mode;
    return -1;
}

// MEGDNN_FOREACH_QUANTIZED_DTYPE: the quantized dtypes the Q* kernels are
// instantiated for (and the sub-byte ones, which the evaluator does not store).
bool quantized_kernel_dtype(E t) {
    return t == E::Quantized8Asymm || t == E::QuantizedS32 || t == E::QuantizedS8;
}

void quantized(KernelContext& ctx, std::string_view name, int mode) {
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (!quantized_kernel_dtype(ctx.in(i).dtype().type))
            ctx.fail("mode {} has no kernel for input {} of {} (Quantized8Asymm, QuantizedS8, QuantizedS32)",
                     name, i, ir::dtype_name(ctx.in(i).dtype().type));
    // on_quantized_mode asserts the two inputs of a binary mode share the enum.
    if (ctx.nr_inputs() == 2 && ctx.in(0).dtype().type != ctx.in(1).dtype().type)
        ctx.fail("mode {} needs inputs of one quantized dtype, has {} and {}", name,
                 ir::dtype_name(ctx.in(0).dtype().type), ir::dtype_name(ctx.in(1).dtype().type));
    const ir::DType out = ctx.out(0).empty() ? ctx.params().config_dtype() : ctx.out(0).dtype();
    if (!quantized_kernel_dtype(out.type))
        ctx.fail("mode {} has no kernel for output dtype {}", name, ir::dtype_string(out));
    const Inputs<float> in = float_inputs(ctx);
    bool ran = false;
    float_mode(mode, [&](auto op) {
        compute(ctx, out, in, op);
        ran = true;
    });
    if (!ran) ctx.fail("mode {} has no kernel", name);
}

// dest_type_bool_mode: EQ, NEQ, LT, LEQ on two inputs of one dtype among the
// float ones, Int32/16/8, Uint8 and Bool.
void compare(KernelContext& ctx, std::string_view name) {
    const E a = ctx.in(0).dtype().type, b = ctx.in(1).dtype().type;
    if (a != b)
        ctx.fail("mode {} compares inputs of one dtype, has {} and {}", name, ir::dtype_name(a),
                 ir::dtype_name(b));
    const Cat c = ir::elemwise::category(a);
    if (!(c == Cat::Float || c == Cat::Bool || (c == Cat::Int && a != E::Uint16)))
        ctx.fail("mode {} has no kernel for {} inputs", name, ir::dtype_name(a));
    Tensor& out = output(ctx, 0, ir::DType::of(E::Bool), output_shape(ctx));
    uint8_t* dst = out.mutable_data<uint8_t>().data();
    auto run = [&](const auto& in) {
        using C = std::remove_cvref_t<decltype(in.ops[0].data[0])>;
        auto map = [&](auto op) { map_operands(dst, out.shape(), in.span(), op); };
        if (name == "EQ")
            map([](C x, C y) -> uint8_t { return x == y; });
        else if (name == "NEQ")
            map([](C x, C y) -> uint8_t { return x != y; });
        else if (name == "LT")
            map([](C x, C y) -> uint8_t { return x < y; });
        else
            map([](C x, C y) -> uint8_t { return x <= y; });
    };
    if (c == Cat::Float)
        run(float_inputs(ctx));
    else
        run(int_inputs(ctx));
}

void classify(KernelContext& ctx, std::string_view name) {
    const E t = ctx.in(0).dtype().type;
    if (ir::elemwise::category(t) != Cat::Float)
        ctx.fail("mode {} has no kernel for {} inputs (float dtypes only)", name, ir::dtype_name(t));
    Tensor& out = output(ctx, 0, ir::DType::of(E::Bool), output_shape(ctx));
    const Inputs<float> in = float_inputs(ctx);
    uint8_t* dst = out.mutable_data<uint8_t>().data();
    if (name == "ISNAN")
        map_operands(dst, out.shape(), in.span(), [](float x) -> uint8_t { return std::isnan(x); });
    else
        map_operands(dst, out.shape(), in.span(), [](float x) -> uint8_t { return std::isinf(x); });
}

}  // namespace

void elemwise_multi_type(KernelContext& ctx) {
    const std::string_view m = ctx.params().enum_field("mode");
    const E f32 = E::Float32;
    if (m == "FUSE_MUL_ADD3_INT16x32x32x32") {
        // (int16 · int32) + int32 in int, wrapping.
        return compute(ctx, ir::DType::of(E::Int32), int_inputs(ctx),
                       [](int32_t x, int32_t y, int32_t z) { return intops::add(intops::mul(x, y), z); });
    }
    if (m == "FUSE_MUL_ADD3_INT16xF32xF32xF32" || m == "FUSE_MUL_ADD3_UINT8xF32xF32xF32")
        return compute(ctx, ir::DType::of(f32), float_inputs(ctx),
                       [](float x, float y, float z) { return x * y + z; });
    if (m == "MUL_INT16xF32xF32")
        return compute(ctx, ir::DType::of(f32), float_inputs(ctx), [](float x, float y) { return x * y; });
    if (m == "FUSE_MUL_ADD3_IXxF32xF32xI8") {
        const E t = ctx.in(0).dtype().type;
        if (t == E::Uint16) ctx.fail("mode {} has no kernel for input 0 of Uint16", m);
        // Fma3iXxf32xf32xiYOp: rint (to nearest even) of k·x + b, saturated
        // to int8 (NaN to the minimum).
        return compute(ctx, ir::DType::of(E::Int8), float_inputs(ctx), [](float x, float k, float b) {
            const float v = std::rint(k * x + b);
            return v >= -128.f ? (v <= 127.f ? v : 127.f) : -128.f;
        });
    }
    if (m == "ROUND_SHR_SATURATE_IXxI8xI8") return round_shr_dispatch<int8_t>(ctx, E::Int8, false);
    if (m == "ROUND_SHR_SATURATE_IXxI8xI16") return round_shr_dispatch<int16_t>(ctx, E::Int16, true);
    if (m == "FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT16x16x16x8") return fuse_add_rmulh_round_shr<int16_t>(ctx);
    if (m == "FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT32x32x32x8") return fuse_add_rmulh_round_shr<int32_t>(ctx);
    if (m == "EQ" || m == "NEQ" || m == "LT" || m == "LEQ") return compare(ctx, m);
    if (m == "ISNAN" || m == "ISINF") return classify(ctx, m);
    if (const int mode = quantized_mode(m); mode >= 0) return quantized(ctx, m, mode);
    ctx.fail("mode {} is not implemented", m);
}

}  // namespace mgedump::engine::eval::elemwise
