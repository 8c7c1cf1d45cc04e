// Shape arithmetic several families share: Elemwise broadcasting, axis
// normalisation, dtype categories.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/infer/context.h"

namespace mgedump::ir {

// MegEngine's Elemwise broadcast (dnn/src/common/elemwise/opr_impl.cpp
// deduce_shape): shapes aligned at the right, each dim equal or 1. nullopt when
// they do not broadcast. Unknown in → unknown out.
std::optional<Shape> broadcast_shapes(std::span<const Shape> shapes);

// Whether `x` is a whole number int64 holds, into `out`: one conversion and
// one compare back (floor, on x86-64's baseline, takes a dozen steps). What a
// shape tensor's dims and a Subtensor's indices must be.
inline bool whole_number(double x, int64_t& out) {
    if (!(x >= -9.2e18 && x <= 9.2e18)) return false;  // also NaN
    out = static_cast<int64_t>(x);
    return static_cast<double>(out) == x;
}

// These three are inline: rules call them for nearly every operator, and a
// call each cost more than the test itself.

// axis in [-ndim, ndim) → [0, ndim); nullopt when out of range.
inline std::optional<uint32_t> normalize_axis(int64_t axis, uint32_t ndim) {
    const int64_t n = ndim;
    if (axis < -n || axis >= n) return std::nullopt;
    return static_cast<uint32_t>(axis < 0 ? axis + n : axis);
}

// Float32, Float16, BFloat16
inline bool dtype_is_float(DTypeEnum t) {
    return t == DTypeEnum::Float32 || t == DTypeEnum::Float16 || t == DTypeEnum::BFloat16;
}

// Int8/16/32, Uint8/16 (not Bool, not quantized)
inline bool dtype_is_integer(DTypeEnum t) {
    switch (t) {
        case DTypeEnum::Int8:
        case DTypeEnum::Int16:
        case DTypeEnum::Int32:
        case DTypeEnum::Uint8:
        case DTypeEnum::Uint16: return true;
        default: return false;
    }
}

std::string dtype_string(DType d);    // "Float32", "QuantizedS8(0.25)", "unknown"

}  // namespace mgedump::ir
