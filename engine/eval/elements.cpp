#include "engine/eval/elements.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

// MegDNN's DTypeParam<T>::quantize bounds, as floats: QuantizedS32 saturates at
// 2147483520, the largest float below 2^31 (float(INT32_MAX) would overflow the
// cast).
struct QuantizedRange {
    float lo, hi;
};

QuantizedRange quantized_range(E t) {
    switch (t) {
        case E::QuantizedS8: return {-128.f, 127.f};
        case E::Quantized8Asymm: return {0.f, 255.f};
        case E::QuantizedS16: return {-32768.f, 32767.f};
        case E::QuantizedS32: return {-2147483648.f, 2147483520.f};
        default: break;
    }
    throw Error(std::string("the evaluator does not compute ") + std::string(ir::dtype_name(t)) + " tensors");
}

template <class T>
T store_float_as(ir::DType d, float x) {
    if (d.type == E::Float16) return static_cast<T>(float_to_half(x));
    if (d.type == E::BFloat16) return static_cast<T>(float_to_bfloat16(x));
    if (d.type == E::Bool) return static_cast<T>(x != 0.0f);
    if (ir::dtype_is_quantized(d.type)) return static_cast<T>(quantize(d, x));
    if constexpr (std::is_integral_v<T>) {
        // A C++ float→int cast is undefined outside the range; MegDNN's kernels do
        // the cast on x86, where it gives the "integer indefinite" value. Saturate
        // instead (a defined, documented choice) and keep NaN at 0.
        if (std::isnan(x)) return T{0};
        if (x >= static_cast<float>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        if (x <= static_cast<float>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
        return static_cast<T>(x);
    } else {
        return static_cast<T>(x);
    }
}

template <class T>
T store_double_as(ir::DType d, double x) {
    if constexpr (std::is_integral_v<T>) {
        if (!ir::dtype_is_quantized(d.type) && d.type != E::Float16 && d.type != E::BFloat16 && d.type != E::Bool) {
            if (std::isnan(x)) return T{0};
            if (x >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
            if (x <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
            return static_cast<T>(x);
        }
    }
    return store_float_as<T>(d, static_cast<float>(x));
}

// One stored element of dtype d as R (float or double): Float16/BFloat16
// widened, quantized dequantized.
template <class R, class T>
R element_as(ir::DType d, T v) {
    if (d.type == E::Float16) return half_to_float(static_cast<uint16_t>(v));
    if (d.type == E::BFloat16) return bfloat16_to_float(static_cast<uint16_t>(v));
    if (ir::dtype_is_quantized(d.type)) return dequantize(d, static_cast<int64_t>(v));
    return static_cast<R>(v);
}

template <class R>
std::vector<R> elements_as(const Tensor& t) {
    const ir::DType d = t.dtype();
    std::vector<R> out(t.elements());
    with_storage_type(d.type, [&](auto tag) {
        using T = decltype(tag);
        auto in = t.data<T>();
        if constexpr (std::is_same_v<T, float>) {
            std::copy(in.begin(), in.begin() + out.size(), out.begin());
        } else {
            for (size_t i = 0; i < out.size(); ++i) out[i] = element_as<R>(d, in[i]);
        }
    });
    return out;
}

// from_floats / from_doubles: each value stored with the dtype's rounding.
template <class V>
Tensor from_values(ir::DType dtype, const ir::Shape& shape, std::span<const V> values, const char* what) {
    Tensor t(dtype, shape);
    with_storage_type(dtype.type, [&](auto tag) {
        using T = decltype(tag);
        auto out = t.mutable_data<T>();
        if (values.size() != out.size())
            throw Error(std::string("evaluator: element count mismatch in ") + what);
        for (size_t i = 0; i < out.size(); ++i) {
            if constexpr (std::is_same_v<V, float>)
                out[i] = store_float_as<T>(dtype, values[i]);
            else
                out[i] = store_double_as<T>(dtype, values[i]);
        }
    });
    return t;
}

}  // namespace

bool is_float_dtype(E t) { return t == E::Float32 || t == E::Float16 || t == E::BFloat16; }

int64_t quantize(ir::DType dtype, float real) {
    const QuantizedRange r = quantized_range(dtype.type);
    float q = round_half_away(real / dtype.scale);
    if (ir::dtype_is_asymmetric(dtype.type)) q += static_cast<float>(dtype.zero_point);
    // fmax(lo, NaN) is lo: MegDNN's saturate maps NaN to the lower bound.
    q = std::fmin(std::fmax(r.lo, q), r.hi);
    return static_cast<int64_t>(q);
}

float dequantize(ir::DType dtype, int64_t stored) {
    const int64_t zero_point = ir::dtype_is_asymmetric(dtype.type) ? dtype.zero_point : 0;
    return static_cast<float>(stored - zero_point) * dtype.scale;
}

float element_as_float(const Tensor& t, uint64_t i) {
    return with_storage_type(
        t.dtype().type, [&](auto tag) { return element_as<float>(t.dtype(), t.data<decltype(tag)>()[i]); });
}

std::vector<float> to_floats(const Tensor& t) { return elements_as<float>(t); }
std::vector<double> to_doubles(const Tensor& t) { return elements_as<double>(t); }

std::vector<double> integers_of(const Tensor& t) {
    std::vector<double> out(t.elements());
    const double zp = ir::dtype_is_quantized(t.dtype().type) ? t.dtype().zero_point : 0;
    with_storage_type(t.dtype().type, [&](auto tag) {
        using T = decltype(tag);
        auto in = t.data<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(in[i]) - zp;
    });
    return out;
}

Tensor from_floats(ir::DType dtype, const ir::Shape& shape, std::span<const float> values) {
    return from_values(dtype, shape, values, "from_floats");
}

Tensor from_doubles(ir::DType dtype, const ir::Shape& shape, std::span<const double> values) {
    return from_values(dtype, shape, values, "from_doubles");
}

}  // namespace mgedump::engine::eval
