// The per-element kernels of Elemwise's modes, as dnn/src/common/elemwise/
// kern_defs.cuh defines them: one function per (mode, dtype category). The
// float kernels compute in float (Float16/BFloat16 operands widened, the result
// rounded once by the caller); the integer kernels compute in int, the type
// C++ promotes every MegDNN integer ctype to, wrapping on overflow as the x86
// build MegEngine's outputs come from does; the Bool kernels on 0/1.
//
// Each dispatcher calls run(op) with the mode's kernel (a lambda of 1 to 4
// arguments) and returns false when the mode has no kernel for the category.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "ir/infer/elemwise_util.h"

namespace mgedump::engine::eval::elemwise {

using ir::elemwise::Mode;

// erfinvf / erfcinvf: MegDNN evaluates them in double and rounds to float;
// these are accurate to a few double ulps, so the float results agree.
double erfinv(double z);
double erfcinv(double z);

// kern_defs.cuh normcdf on the host: 0.5 (1 + erf(x / √2)).
inline float normcdf(float x) { return 0.5f * (1.f + std::erf(x / std::sqrt(2.f))); }

template <class Run>
bool float_mode(int mode, Run&& run) {
    using F = float;
    switch (mode) {
        // unary
        case Mode::RELU:
            run([](F x) { return x <= 0.f ? 0.f : x; });
            return true;
        case Mode::ABS:
            run([](F x) { return std::fabs(x); });
            return true;
        case Mode::NEGATE:
            run([](F x) { return -x; });
            return true;
        case Mode::ACOS:
            run([](F x) { return std::acos(x); });
            return true;
        case Mode::ASIN:
            run([](F x) { return std::asin(x); });
            return true;
        case Mode::CEIL:
            run([](F x) { return std::ceil(x); });
            return true;
        case Mode::COS:
            run([](F x) { return std::cos(x); });
            return true;
        case Mode::EXP:
            run([](F x) { return std::exp(x); });
            return true;
        case Mode::EXPM1:
            run([](F x) { return std::expm1(x); });
            return true;
        case Mode::FLOOR:
            run([](F x) { return std::floor(x); });
            return true;
        case Mode::LOG:
            run([](F x) { return std::log(x); });
            return true;
        case Mode::LOG1P:
            run([](F x) { return std::log1p(x); });
            return true;
        case Mode::SIGMOID:
            run([](F x) { return 1.f / (std::exp(-x) + 1.f); });
            return true;
        case Mode::SIN:
            run([](F x) { return std::sin(x); });
            return true;
        case Mode::TANH:
            run([](F x) { return std::tanh(x); });
            return true;
        case Mode::FAST_TANH:
            run([](F x) { return x * (27.f + x * x) / (27.f + 9.f * x * x); });
            return true;
        // roundf: half away from zero.
        case Mode::ROUND:
            run([](F x) { return std::round(x); });
            return true;
        case Mode::ERF:
            run([](F x) { return std::erf(x); });
            return true;
        case Mode::ERFINV:
            run([](F x) { return static_cast<F>(erfinv(x)); });
            return true;
        case Mode::ERFC:
            run([](F x) { return std::erfc(x); });
            return true;
        case Mode::ERFCINV:
            run([](F x) { return static_cast<F>(erfcinv(x)); });
            return true;
        // std::min/std::max (not fmin/fmax), so NaN propagates as in MegDNN.
        case Mode::H_SWISH:
            run([](F x) { return x * std::min(std::max(x + 3, 0.f), 6.f) * (1.f / 6.f); });
            return true;
        case Mode::SILU:
            run([](F x) { return x / (std::exp(-x) + 1.f); });
            return true;
        case Mode::GELU:
            run([](F x) { return x * normcdf(x); });
            return true;
        case Mode::SINH:
            run([](F x) { return std::sinh(x); });
            return true;
        case Mode::COSH:
            run([](F x) { return std::cosh(x); });
            return true;
        case Mode::ASINH:
            run([](F x) { return std::asinh(x); });
            return true;
        case Mode::ACOSH:
            run([](F x) { return std::acosh(x); });
            return true;
        case Mode::ATANH:
            run([](F x) { return std::atanh(x); });
            return true;
        case Mode::TAN:
            run([](F x) { return std::tan(x); });
            return true;
        case Mode::SOFTPLUS:
            run([](F x) { return std::log1p(std::exp(-std::fabs(x))) + (x <= 0.f ? 0.f : x); });
            return true;
        case Mode::RELU6:
            run([](F x) { return x <= 0.f ? 0.f : (x <= 6.f ? x : 6.f); });
            return true;
        case Mode::HSIGMOID:
            run([](F x) { return x <= -3.f ? 0.f : (x >= 3.f ? 1.f : (x + 3.f) / 6.f); });
            return true;
        case Mode::LOGSIGMOID:
            run([](F x) { return -std::log1p(std::exp(-std::fabs(x))) + (x >= 0.f ? 0.f : x); });
            return true;
        case Mode::SQRT:
            run([](F x) { return std::sqrt(x); });
            return true;
        case Mode::SQUARE:
            run([](F x) { return x * x; });
            return true;
        case Mode::SIGN:
            run([](F x) { return x < 0.f ? -1.f : (x > 0.f ? 1.f : 0.f); });
            return true;
        // binary
        case Mode::ABS_GRAD:
            run([](F x, F y) { return x > 0.f ? y : -y; });
            return true;
        case Mode::ADD:
            run([](F x, F y) { return x + y; });
            return true;
        case Mode::SUB:
            run([](F x, F y) { return x - y; });
            return true;
        case Mode::MUL:
            run([](F x, F y) { return x * y; });
            return true;
        case Mode::MAX:
            run([](F x, F y) { return x > y ? x : y; });
            return true;
        case Mode::MIN:
            run([](F x, F y) { return x < y ? x : y; });
            return true;
        case Mode::SIGMOID_GRAD:
            run([](F x, F y) { return x * (1.f - x) * y; });
            return true;
        case Mode::SWITCH_GT0:
            run([](F x, F y) { return x > 0.f ? y : 0.f; });
            return true;
        case Mode::TANH_GRAD:
            run([](F x, F y) { return (1.f - x * x) * y; });
            return true;
        case Mode::LT:
            run([](F x, F y) { return x < y ? 1.f : 0.f; });
            return true;
        case Mode::LEQ:
            run([](F x, F y) { return x <= y ? 1.f : 0.f; });
            return true;
        case Mode::EQ:
            run([](F x, F y) { return x == y ? 1.f : 0.f; });
            return true;
        case Mode::FLOOR_DIV:
            run([](F x, F y) { return std::floor(x / y); });
            return true;
        // fmodf: the sign of the dividend (the int kernel follows Python instead).
        case Mode::MOD:
            run([](F x, F y) { return std::fmod(x, y); });
            return true;
        case Mode::FUSE_ADD_RELU:
            run([](F x, F y) { return x + y <= 0.f ? 0.f : x + y; });
            return true;
        case Mode::PRELU:
            run([](F x, F y) { return x > 0.f ? x : x * y; });
            return true;
        case Mode::TRUE_DIV:
            run([](F x, F y) { return x / y; });
            return true;
        case Mode::POW:
            run([](F x, F y) { return std::pow(x, y); });
            return true;
        case Mode::LOG_SUM_EXP:
            run([](F x, F y) {
                const F a = x < y ? x : y, b = x < y ? y : x;
                return b + std::log1p(std::exp(a - b));
            });
            return true;
        case Mode::FAST_TANH_GRAD:
            run([](F x, F dx) {
                const F x2 = x * x, deno = 3.f + x2;
                return ((-48.f * x2) / deno + 27.f + x2) / (deno * 9.f) * dx;
            });
            return true;
        case Mode::FUSE_ADD_TANH:
            run([](F x, F y) { return std::tanh(x + y); });
            return true;
        case Mode::FUSE_ADD_SIGMOID:
            run([](F x, F y) { return 1.f / (std::exp(-(x + y)) + 1.f); });
            return true;
        case Mode::ATAN2:
            run([](F x, F y) { return std::atan2(x, y); });
            return true;
        case Mode::H_SWISH_GRAD:
            run([](F x, F y) { return x < -3.f ? 0.f : (x > 3.f ? y : (2.f * x + 3.f) / 6.f * y); });
            return true;
        case Mode::FUSE_ADD_H_SWISH:
            run([](F x, F y) {
                const F z = x + y;
                return z * std::min(std::max(z + 3, 0.f), 6.f) * (1.f / 6.f);
            });
            return true;
        case Mode::SILU_GRAD:
            run([](F x, F dy) {
                const F s = 1.f / (1.f + std::exp(-x));
                return dy * s * (1.f + x * (1.f - s));
            });
            return true;
        case Mode::GELU_GRAD:
            run([](F x, F dy) {
                const F phi = 0.3989422804014327f * std::exp(-0.5f * x * x);  // 1/√(2π) e^(−x²/2)
                return dy * (normcdf(x) + x * phi);
            });
            return true;
        case Mode::ASINH_GRAD:
            run([](F x, F y) { return y / std::sqrt(x * x + 1.f); });
            return true;
        case Mode::ACOSH_GRAD:
            run([](F x, F y) { return y / std::sqrt(x * x - 1.f); });
            return true;
        case Mode::ATANH_GRAD:
            run([](F x, F y) { return y / (1.f - x * x); });
            return true;
        case Mode::SOFTPLUS_GRAD:
            run([](F x, F dy) {
                const F e = std::exp(-std::fabs(x));
                const F logg = -dy * e / (1.f + e);
                const F grad0 = x > 0.f ? logg : -logg;
                const F relux = x < 0.f ? 0.f : x;
                return grad0 + (relux > 0.f ? dy : 0.f);
            });
            return true;
        case Mode::RELU6_GRAD:
            run([](F x, F y) { return x <= 0.f ? 0.f : (x >= 6.f ? 0.f : y); });
            return true;
        case Mode::HSIGMOID_GRAD:
            run([](F x, F y) { return x <= -3.f ? 0.f : (x >= 3.f ? 0.f : y / 6.f); });
            return true;
        // ternary and more
        case Mode::COND_LEQ_MOV:
            run([](F x, F y, F z) { return x <= y ? z : 0.f; });
            return true;
        case Mode::COND_LT_MOV:
            run([](F x, F y, F z) { return x < y ? z : 0.f; });
            return true;
        case Mode::FUSE_MUL_ADD3:
            run([](F x, F y, F z) { return x * y + z; });
            return true;
        case Mode::CLIP:
            run([](F x, F lo, F hi) { return x <= lo ? lo : (x <= hi ? x : hi); });
            return true;
        case Mode::PRELU_GRAD:
            run([](F x, F y, F z) { return x >= 0.f ? y : y * z; });
            return true;
        case Mode::FUSE_MUL_ADD4:
            run([](F x, F y, F z, F w) { return x * y + z * w; });
            return true;
        default:
            return false;
    }
}

// What an integer kernel must know of the storage type (RMULH) and where it
// reports an element whose C++ operation is undefined (MegDNN traps or gives
// an unspecified value; the evaluator refuses).
struct IntContext {
    int digits = 31;                                    // std::numeric_limits<ctype>::digits
    int32_t min = std::numeric_limits<int32_t>::min();  // ctype's range
    int32_t max = std::numeric_limits<int32_t>::max();
    enum Fault : int { None, DivideByZero, DivideOverflow, ShiftRange };
    std::atomic<int>* fault = nullptr;
    void report(Fault f) const {
        int expected = None;
        fault->compare_exchange_strong(expected, f);
    }
};

// round_mulh_saturate<ctype> (elemwise_helper.cuh): the high half of the
// double-width product, rounded upward; min·min gives max (for the unsigned
// ctypes that is 0·0).
inline int32_t round_mulh_saturate(int32_t a, int32_t b, const IntContext& c) {
    if (a == b && a == c.min) return c.max;
    const int64_t p = static_cast<int64_t>(a) * static_cast<int64_t>(b);
    const int64_t mask = (int64_t{1} << c.digits) - 1;
    return static_cast<int32_t>((p >> c.digits) + ((p & mask) > (mask >> 1)));
}

namespace intops {
// int arithmetic as the x86 build does it: two's complement wrap-around.
inline int32_t add(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t sub(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t mul(int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
}  // namespace intops

template <class Run>
bool int_mode(int mode, const IntContext& c, Run&& run) {
    using I = int32_t;
    using namespace intops;
    switch (mode) {
        case Mode::RELU:
            run([](I x) { return x <= 0 ? 0 : x; });
            return true;
        // abs(int(x)): abs(INT_MIN) wraps to INT_MIN.
        case Mode::ABS:
            run([](I x) { return x < 0 ? sub(0, x) : x; });
            return true;
        case Mode::NEGATE:
            run([](I x) { return sub(0, x); });
            return true;
        case Mode::RELU6:
            run([](I x) { return x <= 0 ? 0 : (x <= 6 ? x : 6); });
            return true;
        case Mode::SQUARE:
            run([](I x) { return mul(x, x); });
            return true;
        case Mode::SIGN:
            run([](I x) { return x < 0 ? -1 : (x > 0 ? 1 : 0); });
            return true;
        case Mode::ABS_GRAD:
            run([](I x, I y) { return x > 0 ? y : sub(0, y); });
            return true;
        case Mode::ADD:
            run([](I x, I y) { return add(x, y); });
            return true;
        case Mode::SUB:
            run([](I x, I y) { return sub(x, y); });
            return true;
        case Mode::MUL:
            run([](I x, I y) { return mul(x, y); });
            return true;
        case Mode::MAX:
            run([](I x, I y) { return x > y ? x : y; });
            return true;
        case Mode::MIN:
            run([](I x, I y) { return x < y ? x : y; });
            return true;
        case Mode::SIGMOID_GRAD:
            run([](I x, I y) { return mul(mul(x, sub(1, x)), y); });
            return true;
        case Mode::SWITCH_GT0:
            run([](I x, I y) { return x > 0 ? y : 0; });
            return true;
        case Mode::TANH_GRAD:
            run([](I x, I y) { return mul(sub(1, mul(x, x)), y); });
            return true;
        case Mode::LT:
            run([](I x, I y) -> I { return x < y; });
            return true;
        case Mode::LEQ:
            run([](I x, I y) -> I { return x <= y; });
            return true;
        case Mode::EQ:
            run([](I x, I y) -> I { return x == y; });
            return true;
        case Mode::FUSE_ADD_RELU:
            run([](I x, I y) { return add(x, y) <= 0 ? 0 : add(x, y); });
            return true;
        case Mode::PRELU:
            run([](I x, I y) { return x > 0 ? x : mul(x, y); });
            return true;
        // dispatch_floordiv_int: rounds toward −∞.
        case Mode::FLOOR_DIV:
            run([c](I x, I y) -> I {
                if (y == 0) return c.report(IntContext::DivideByZero), 0;
                if (x == std::numeric_limits<I>::min() && y == -1)
                    return c.report(IntContext::DivideOverflow), 0;
                if ((x ^ y) < 0) return x % y ? x / y - 1 : x / y;
                return x / y;
            });
            return true;
        // (y + x % y) % y: the sign of the divisor, as Python's %.
        case Mode::MOD:
            run([c](I x, I y) -> I {
                if (y == 0) return c.report(IntContext::DivideByZero), 0;
                if (x == std::numeric_limits<I>::min() && y == -1)
                    return c.report(IntContext::DivideOverflow), 0;
                return add(y, x % y) % y;
            });
            return true;
        // Operands are promoted to int: a shift by a negative count or by 32 or
        // more is undefined.
        case Mode::SHL:
            run([c](I x, I y) -> I {
                if (y < 0 || y > 31) return c.report(IntContext::ShiftRange), 0;
                return static_cast<I>(static_cast<uint32_t>(x) << y);
            });
            return true;
        case Mode::SHR:
            run([c](I x, I y) -> I {
                if (y < 0 || y > 31) return c.report(IntContext::ShiftRange), 0;
                return x >> y;
            });
            return true;
        case Mode::RMULH:
            run([c](I a, I b) { return round_mulh_saturate(a, b, c); });
            return true;
        case Mode::COND_LEQ_MOV:
            run([](I x, I y, I z) { return x <= y ? z : 0; });
            return true;
        case Mode::COND_LT_MOV:
            run([](I x, I y, I z) { return x < y ? z : 0; });
            return true;
        case Mode::CLIP:
            run([](I x, I lo, I hi) { return x <= lo ? lo : (x <= hi ? x : hi); });
            return true;
        case Mode::FUSE_MUL_ADD3:
            run([](I x, I y, I z) { return add(mul(x, y), z); });
            return true;
        case Mode::FUSE_MUL_ADD4:
            run([](I x, I y, I z, I w) { return add(mul(x, y), mul(z, w)); });
            return true;
        default:
            return false;
    }
}

template <class Run>
bool bool_mode(int mode, Run&& run) {
    using B = uint8_t;
    switch (mode) {
        case Mode::NOT:
            run([](B x) -> B { return x == 0; });
            return true;
        case Mode::AND:
            run([](B x, B y) -> B { return x != 0 && y != 0; });
            return true;
        case Mode::OR:
            run([](B x, B y) -> B { return x != 0 || y != 0; });
            return true;
        case Mode::XOR:
            run([](B x, B y) -> B { return (x != 0) != (y != 0); });
            return true;
        case Mode::LT:
            run([](B x, B y) -> B { return (x != 0) < (y != 0); });
            return true;
        case Mode::LEQ:
            run([](B x, B y) -> B { return (x != 0) <= (y != 0); });
            return true;
        case Mode::EQ:
            run([](B x, B y) -> B { return (x != 0) == (y != 0); });
            return true;
        default:
            return false;
    }
}

}  // namespace mgedump::engine::eval::elemwise
