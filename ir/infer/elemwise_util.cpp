#include "ir/infer/elemwise_util.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace mgedump::ir::elemwise {

// kCategories (elemwise_util.h) spelled out by dtype, checked at compile time.
constexpr Cat category_by_name(DTypeEnum t) {
    switch (t) {
        case DTypeEnum::Float32:
        case DTypeEnum::Float16:
        case DTypeEnum::BFloat16:
            return Cat::Float;
        case DTypeEnum::Int8:
        case DTypeEnum::Int16:
        case DTypeEnum::Int32:
        case DTypeEnum::Uint8:
        case DTypeEnum::Uint16:
            return Cat::Int;
        case DTypeEnum::Bool:
            return Cat::Bool;
        case DTypeEnum::IntB1:
        case DTypeEnum::IntB2:
        case DTypeEnum::IntB4:
        case DTypeEnum::UintB4:
            return Cat::LowBit;
        case DTypeEnum::Byte:
            return Cat::Other;
        case DTypeEnum::Complex64:
            return Cat::Complex;
        default:
            return dtype_is_quantized(t) ? Cat::Quantized : Cat::Other;
    }
}
constexpr bool categories_match() {
    for (int i = 0; i < kDTypeCount; ++i)
        if (kCategories[i] != category_by_name(static_cast<DTypeEnum>(i))) return false;
    return true;
}
static_assert(categories_match(), "kCategories (elemwise_util.h) disagrees with the dtype switch");

const char* category_name(Cat c) {
    switch (c) {
        case Cat::Float:
            return "float";
        case Cat::Int:
            return "int";
        case Cat::Bool:
            return "bool";
        case Cat::Quantized:
            return "quantized";
        case Cat::LowBit:
            return "low-bit";
        case Cat::Complex:
            return "complex";
        default:
            return "other";
    }
}

bool same_dtype(DType a, DType b) {
    if (a.type != b.type) return false;
    if (!dtype_is_quantized(a.type)) return true;
    return std::fabs(a.scale - b.scale) < 1e-6f &&
           (!dtype_is_asymmetric(a.type) || a.zero_point == b.zero_point);
}

namespace {
bool is_scalar(const Shape& s) { return s.ndim == 1 && s.dim[0] == 1; }
}  // namespace

namespace {

// dst := the broadcast of dst and cur (both known, neither a scalar); false when
// a dim pair is neither equal nor has a 1.
bool merge_broadcast(Shape& dst, const Shape& cur) {
    const uint32_t n = std::max(cur.ndim, dst.ndim);
    const uint32_t cpad = n - cur.ndim, dpad = n - dst.ndim;
    Shape out;
    out.ndim = n;
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t v0 = i >= dpad ? dst.dim[i - dpad] : 1, v1 = i >= cpad ? cur.dim[i - cpad] : 1;
        if (v0 != v1 && v0 > 1 && v1 > 1) return false;
        out.dim[i] = (v0 != 0 && v1 != 0) ? std::max(v0, v1) : 0;
    }
    dst = out;
    return true;
}

}  // namespace

namespace {

// One walk over shapes held by value or by pointer; `at(k)` gives the k-th.
template <class At>
std::optional<Shape> merged_shape(size_t n, At at) {
    if (n == 0) return Shape{};
    const Shape& first = at(0);
    bool all_equal = true;
    for (size_t k = 0; k < n; ++k) {
        const Shape& s = at(k);
        if (!s.known()) return Shape{};
        all_equal = all_equal && s == first;
    }
    if (all_equal) return first;  // the common case, nothing to broadcast
    Shape dst = first;
    for (size_t k = 1; k < n; ++k) {
        const Shape& cur = at(k);
        if (is_scalar(dst)) {
            dst = cur;
            continue;
        }
        if (is_scalar(cur)) continue;
        if (!merge_broadcast(dst, cur)) return std::nullopt;
    }
    return dst;
}

}  // namespace

std::optional<Shape> elemwise_shape(std::span<const Shape* const> shapes) {
    return merged_shape(shapes.size(), [&](size_t k) -> const Shape& { return *shapes[k]; });
}

std::optional<Shape> elemwise_shape(std::span<const Shape> shapes) {
    return merged_shape(shapes.size(), [&](size_t k) -> const Shape& { return shapes[k]; });
}

bool broadcasts_to(const Shape& src, const Shape& dst) {
    if (!src.known() || !dst.known() || is_scalar(src)) return true;
    if (dst.ndim < src.ndim) return false;
    for (uint32_t i = 0; i < src.ndim; ++i) {
        const uint32_t s = src.dim[src.ndim - 1 - i], d = dst.dim[dst.ndim - 1 - i];
        if (s != d && s != 1) return false;
    }
    return true;
}

std::vector<double> broadcast_elements(const std::vector<double>& value, const Shape& src, const Shape& dst) {
    const uint64_t n = dst.elements();
    if (src == dst) return value;
    std::vector<double> out(n);
    // Row-major strides of src aligned to dst's dims; 0 where src broadcasts.
    std::array<uint64_t, kMaxNdim> stride{};
    uint64_t s = 1;
    for (int i = static_cast<int>(src.ndim) - 1, j = static_cast<int>(dst.ndim) - 1; j >= 0; --i, --j) {
        const uint32_t d = i >= 0 ? src.dim[i] : 1;
        stride[j] = d == 1 ? 0 : s;
        s *= d;
    }
    for (uint64_t k = 0; k < n; ++k) {
        uint64_t rest = k, off = 0;
        for (int j = static_cast<int>(dst.ndim) - 1; j >= 0; --j) {
            off += (rest % dst.dim[j]) * stride[j];
            rest /= dst.dim[j];
        }
        out[k] = value[off];
    }
    return out;
}

namespace {

// Integer kernels compute in the promoted C++ int (exact in int64 for every
// operand MegEngine's int dtypes hold); the caller stores the result as the dtype.
std::optional<double> eval_int(int mode, const double* a) {
    const int64_t x = static_cast<int64_t>(a[0]);
    const int64_t y = static_cast<int64_t>(a[1]);
    const int64_t z = static_cast<int64_t>(a[2]);
    auto d = [](int64_t v) -> std::optional<double> { return static_cast<double>(v); };
    switch (mode) {
        case RELU:
            return d(x <= 0 ? 0 : x);
        case ABS:
            return d(std::llabs(x));
        case NEGATE:
            return d(-x);
        case RELU6:
            return d(x <= 0 ? 0 : (x <= 6 ? x : 6));
        case SQUARE:
            return d(x * x);
        case SIGN:
            return d(x < 0 ? -1 : (x > 0 ? 1 : 0));
        case ABS_GRAD:
            return d(x > 0 ? y : -y);
        case ADD:
            return d(x + y);
        case SUB:
            return d(x - y);
        case MUL:
            return d(x * y);
        case MAX:
            return d(x > y ? x : y);
        case MIN:
            return d(x < y ? x : y);
        // kern_defs.cuh dispatch_floordiv_int: rounds toward -inf, not C's truncation.
        case FLOOR_DIV:
            if (y == 0) return std::nullopt;
            return d((x ^ y) < 0 && x % y != 0 ? x / y - 1 : x / y);
        // kern_defs.cuh: (y + x % y) % y, Python's sign-of-divisor modulo.
        case MOD:
            if (y == 0) return std::nullopt;
            return d((y + x % y) % y);
        case SIGMOID_GRAD:
            return d(x * (1 - x) * y);
        case TANH_GRAD:
            return d((1 - x * x) * y);
        case SWITCH_GT0:
            return d(x > 0 ? y : 0);
        case LT:
            return d(x < y);
        case LEQ:
            return d(x <= y);
        case EQ:
            return d(x == y);
        case FUSE_ADD_RELU:
            return d(x + y <= 0 ? 0 : x + y);
        case SHL:
        case SHR: {
            // Operands are promoted to int: a shift by 32 or more is undefined.
            if (y < 0 || y >= 32) return std::nullopt;
            if (mode == SHL) return d(x * (int64_t{1} << y));
            return d(x >= 0 ? x >> y : -((-x - 1) >> y) - 1);
        }
        case PRELU:
            return d(x > 0 ? x : x * y);
        case COND_LEQ_MOV:
            return d(x <= y ? z : 0);
        case COND_LT_MOV:
            return d(x < y ? z : 0);
        case FUSE_MUL_ADD3:
            return d(x * y + z);
        case FUSE_MUL_ADD4:
            return d(x * y + z * static_cast<int64_t>(a[3]));
        case CLIP:
            return d(x <= y ? y : (x <= z ? x : z));
        default:
            return std::nullopt;  // RMULH: saturating rounding not modelled
    }
}

std::optional<double> eval_bool(int mode, const double* a) {
    const bool x = a[0] != 0, y = a[1] != 0;
    switch (mode) {
        case NOT:
            return x ? 0 : 1;
        case AND:
            return x && y;
        case OR:
            return x || y;
        case XOR:
            return x != y;
        case LT:
            return x < y;
        case LEQ:
            return x <= y;
        case EQ:
            return x == y;
        case FUSE_MUL_ADD3:
            return (x && y) || a[2] != 0;
        case FUSE_MUL_ADD4:
            return (x && y) || (a[2] != 0 && a[3] != 0);
        default:
            return std::nullopt;
    }
}

float normcdf(float x) { return 0.5f * std::erfc(-x * 0.70710678118654752f); }

std::optional<double> eval_float(int mode, const double* a) {
    const float x = static_cast<float>(a[0]), y = static_cast<float>(a[1]), z = static_cast<float>(a[2]);
    float r;
    switch (mode) {
        case RELU:
            r = x <= 0 ? 0.f : x;
            break;
        case ABS:
            r = std::fabs(x);
            break;
        case NEGATE:
            r = -x;
            break;
        case ACOS:
            r = std::acos(x);
            break;
        case ASIN:
            r = std::asin(x);
            break;
        case CEIL:
            r = std::ceil(x);
            break;
        case COS:
            r = std::cos(x);
            break;
        case EXP:
            r = std::exp(x);
            break;
        case EXPM1:
            r = std::expm1(x);
            break;
        case FLOOR:
            r = std::floor(x);
            break;
        case LOG:
            r = std::log(x);
            break;
        case LOG1P:
            r = std::log1p(x);
            break;
        case SIGMOID:
            r = 1.f / (std::exp(-x) + 1.f);
            break;
        case SIN:
            r = std::sin(x);
            break;
        case TANH:
            r = std::tanh(x);
            break;
        case FAST_TANH:
            r = x * (27.f + x * x) / (27.f + 9.f * x * x);
            break;
        case ROUND:
            r = std::round(x);
            break;
        case ERF:
            r = std::erf(x);
            break;
        case ERFC:
            r = std::erfc(x);
            break;
        case H_SWISH:
            r = x * std::fmin(std::fmax(x + 3, 0.f), 6.f) * (1.f / 6.f);
            break;
        case SILU:
            r = x / (std::exp(-x) + 1.f);
            break;
        case GELU:
            r = x * normcdf(x);
            break;
        case SINH:
            r = std::sinh(x);
            break;
        case COSH:
            r = std::cosh(x);
            break;
        case ASINH:
            r = std::asinh(x);
            break;
        case ACOSH:
            r = std::acosh(x);
            break;
        case ATANH:
            r = std::atanh(x);
            break;
        case TAN:
            r = std::tan(x);
            break;
        case SOFTPLUS:
            r = std::log1p(std::exp(-std::fabs(x))) + (x <= 0 ? 0.f : x);
            break;
        case RELU6:
            r = x <= 0 ? 0.f : (x <= 6 ? x : 6.f);
            break;
        case HSIGMOID:
            r = x <= -3 ? 0.f : (x >= 3 ? 1.f : (x + 3.f) / 6.f);
            break;
        case LOGSIGMOID:
            r = -std::log1p(std::exp(-std::fabs(x))) + (x >= 0 ? 0.f : x);
            break;
        case SQRT:
            r = std::sqrt(x);
            break;
        case SQUARE:
            r = x * x;
            break;
        case SIGN:
            r = x < 0 ? -1.f : (x > 0 ? 1.f : 0.f);
            break;
        case ABS_GRAD:
            r = x > 0 ? y : -y;
            break;
        case ADD:
            r = x + y;
            break;
        case SUB:
            r = x - y;
            break;
        case MUL:
            r = x * y;
            break;
        case MAX:
            r = x > y ? x : y;
            break;
        case MIN:
            r = x < y ? x : y;
            break;
        case FLOOR_DIV:
            r = std::floor(x / y);
            break;
        case MOD:
            r = std::fmod(x, y);
            break;  // truncating, unlike the int kernel
        case SIGMOID_GRAD:
            r = x * (1 - x) * y;
            break;
        case SWITCH_GT0:
            r = x > 0 ? y : 0.f;
            break;
        case TANH_GRAD:
            r = (1 - x * x) * y;
            break;
        case LT:
            r = x < y;
            break;
        case LEQ:
            r = x <= y;
            break;
        case EQ:
            r = x == y;
            break;
        case FUSE_ADD_RELU:
            r = x + y <= 0 ? 0.f : x + y;
            break;
        case TRUE_DIV:
            r = x / y;
            break;
        case POW:
            r = std::pow(x, y);
            break;
        case LOG_SUM_EXP: {
            const float lo = x < y ? x : y, hi = x < y ? y : x;
            r = hi + std::log1p(std::exp(lo - hi));
            break;
        }
        case FUSE_ADD_TANH:
            r = std::tanh(x + y);
            break;
        case FUSE_ADD_SIGMOID:
            r = 1.f / (std::exp(-(x + y)) + 1.f);
            break;
        case ATAN2:
            r = std::atan2(x, y);
            break;
        case FUSE_ADD_H_SWISH: {
            const float s = x + y;
            r = s * std::fmin(std::fmax(s + 3, 0.f), 6.f) * (1.f / 6.f);
            break;
        }
        case PRELU:
            r = x > 0 ? x : x * y;
            break;
        case COND_LEQ_MOV:
            r = x <= y ? z : 0.f;
            break;
        case COND_LT_MOV:
            r = x < y ? z : 0.f;
            break;
        case FUSE_MUL_ADD3:
            r = x * y + z;
            break;
        case FUSE_MUL_ADD4:
            r = x * y + z * static_cast<float>(a[3]);
            break;
        case CLIP:
            r = x <= y ? y : (x <= z ? x : z);
            break;
        case PRELU_GRAD:
            r = x >= 0 ? y : y * z;
            break;
        default:
            return std::nullopt;  // the gradients and inverse-erf kernels: not modelled
    }
    return static_cast<double>(r);
}

}  // namespace

std::optional<double> eval_elemwise(int mode, DTypeEnum t, const double* args) {
    switch (category(t)) {
        case Cat::Float:
            return eval_float(mode, args);
        case Cat::Int:
            return eval_int(mode, args);
        case Cat::Bool:
            return eval_bool(mode, args);
        default:
            return std::nullopt;
    }
}

}  // namespace mgedump::ir::elemwise
