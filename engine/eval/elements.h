// Reading and writing a tensor's elements whatever its dtype: the storage type of
// each dtype, its elements as float (quantized: the real value scale·(q − zero
// point)) and back with the dtype's rounding. Kernels that are defined on real
// numbers compute in float through these; kernels that are exact on integers use
// the storage type directly (with_storage_type).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/eval/half.h"
#include "engine/eval/tensor.h"
#include "ir/error.h"

namespace mgedump::engine::eval {

// Calls f(T{}) with the C type one element of `t` is stored as (Float16 and
// BFloat16: uint16_t bits; Bool: uint8_t). Throws Error for sub-byte and complex
// dtypes, which the evaluator does not compute.
template <class F>
decltype(auto) with_storage_type(ir::DTypeEnum t, F&& f) {
    using E = ir::DTypeEnum;
    switch (t) {
        case E::Float32: return f(float{});
        case E::Int32:
        case E::QuantizedS32: return f(int32_t{});
        case E::Int16:
        case E::QuantizedS16: return f(int16_t{});
        case E::Int8:
        case E::QuantizedS8: return f(int8_t{});
        case E::Uint8:
        case E::Bool:
        case E::Byte:
        case E::Quantized8Asymm: return f(uint8_t{});
        case E::Uint16:
        case E::Float16:
        case E::BFloat16: return f(uint16_t{});
        default: break;
    }
    throw Error(std::string("the evaluator does not compute ") + std::string(ir::dtype_name(t)) + " tensors");
}

bool is_float_dtype(ir::DTypeEnum t);  // Float32, Float16, BFloat16

// Rounds half away from zero, as MegDNN's quantization does (std::round).
inline float round_half_away(float x) { return std::round(x); }

// One element as float (the real value for quantized dtypes).
float element_as_float(const Tensor& t, uint64_t i);
// Every element as float.
std::vector<float> to_floats(const Tensor& t);
// Every element as double (integers exactly; Float16 widened).
std::vector<double> to_doubles(const Tensor& t);
// An integer or quantized tensor's stored integers less the zero point, as
// double (exact): the operands of integer sums computed by a double GEMM.
std::vector<double> integers_of(const Tensor& t);
// A tensor of `dtype` and `shape` holding `values`, each rounded the way the
// dtype stores a computed float: Float16/BFloat16 to nearest even; integers
// truncate like a C++ cast; quantized: value / scale + zero point rounded half
// away from zero and saturated; Bool: x != 0.
Tensor from_floats(ir::DType dtype, const ir::Shape& shape, std::span<const float> values);
Tensor from_doubles(ir::DType dtype, const ir::Shape& shape, std::span<const double> values);

// Quantize one real value into `dtype`'s storage range (rounded, saturated).
int64_t quantize(ir::DType dtype, float real);
float dequantize(ir::DType dtype, int64_t stored);

}  // namespace mgedump::engine::eval
