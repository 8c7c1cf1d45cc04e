// The arithmetic of MegDNN's ctypes as the naive reduce-family kernels use them
// (Reduce, Cumsum, Argsort, TopK): per dtype, the storage type S, the working
// value V and the operations of reduce_helper.h / the naive Trait structs.
// Floats compute in float and round to the dtype after every operation
// (dt_float16 arithmetic yields a float expression that is stored back as half);
// integers wrap on overflow as the kernels' ctype does.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "engine/eval/half.h"
#include "ir/dtype.h"

namespace mgedump::engine::eval {

struct F32Num {
    using S = float;
    using V = float;
    static constexpr bool kNanAware = true;  // Trait<MIN/MAX, dt_float32> propagates NaN
    static V load(S s) { return s; }
    static S store(V v) { return v; }
    static V add(V a, V b) { return a + b; }
    static V mul(V a, V b) { return a * b; }
    static V div_count(V a, size_t n) { return a / static_cast<float>(n); }
};

template <float (*ToFloat)(uint16_t), uint16_t (*FromFloat)(float)>
struct HalfLikeNum {
    using S = uint16_t;
    using V = float;
    static constexpr bool kNanAware = false;  // the generic Trait: x < y ? x : y
    static V round(float x) { return ToFloat(FromFloat(x)); }
    static V load(S s) { return ToFloat(s); }
    static S store(V v) { return FromFloat(v); }
    static V add(V a, V b) { return round(a + b); }
    static V mul(V a, V b) { return round(a * b); }
    // x / (ctype)B: the count itself becomes a half first.
    static V div_count(V a, size_t n) { return round(a / round(static_cast<float>(n))); }
};
using F16Num = HalfLikeNum<half_to_float, float_to_half>;
using BF16Num = HalfLikeNum<bfloat16_to_float, float_to_bfloat16>;

template <class T>
struct IntNum {
    using S = T;
    using V = T;
    static constexpr bool kNanAware = false;
    static V load(S s) { return s; }
    static S store(V v) { return v; }
    static V add(V a, V b) { return static_cast<T>(static_cast<int64_t>(a) + b); }
    static V mul(V a, V b) { return static_cast<T>(static_cast<int64_t>(a) * b); }
    // x / (ctype)B with the count cast to T (which wraps for narrow types); the
    // caller refuses a count that casts to 0.
    static V div_count(V a, size_t n) { return static_cast<T>(static_cast<int64_t>(a) / static_cast<T>(n)); }
};

// dt_qint32: wrapping int32 sums; its operator/ rounds the float quotient.
struct QS32Num : IntNum<int32_t> {
    static V div_count(V a, size_t n) {
        return static_cast<int32_t>(
            std::round(static_cast<float>(a) / static_cast<float>(static_cast<int32_t>(n))));
    }
};

// Calls f(Num{}) for MEGDNN_FOREACH_COMPUTING_DTYPE (Float32, Float16, BFloat16,
// Int32, Int16, Int8, Uint8) and returns true; false for any other dtype.
template <class F>
bool with_computing_num(ir::DTypeEnum t, F&& f) {
    using E = ir::DTypeEnum;
    switch (t) {
        case E::Float32:
            f(F32Num{});
            return true;
        case E::Float16:
            f(F16Num{});
            return true;
        case E::BFloat16:
            f(BF16Num{});
            return true;
        case E::Int32:
            f(IntNum<int32_t>{});
            return true;
        case E::Int16:
            f(IntNum<int16_t>{});
            return true;
        case E::Int8:
            f(IntNum<int8_t>{});
            return true;
        case E::Uint8:
            f(IntNum<uint8_t>{});
            return true;
        default:
            return false;
    }
}

}  // namespace mgedump::engine::eval
