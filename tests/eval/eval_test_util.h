// Shared by the evaluator tests: comparing a computed tensor with a reference
// (MegEngine's output, PyTorch's, ONNX's expected data) at the storage level,
// and building small graphs to run.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/evaluator.h"

namespace mgedump::test {

// Storage values as doubles: quantized types as their integers (MegEngine's
// outputs are stored so), floats widened.
inline std::vector<double> storage_values(const engine::eval::Tensor& t) {
    using engine::eval::with_storage_type;
    std::vector<double> out(t.elements());
    with_storage_type(t.dtype().type, [&](auto tag) {
        using T = decltype(tag);
        auto in = t.data<T>();
        for (size_t i = 0; i < out.size(); ++i) {
            if (t.dtype().type == ir::DTypeEnum::Float16) out[i] = engine::eval::half_to_float(static_cast<uint16_t>(in[i]));
            else if (t.dtype().type == ir::DTypeEnum::BFloat16) out[i] = engine::eval::bfloat16_to_float(static_cast<uint16_t>(in[i]));
            else out[i] = static_cast<double>(in[i]);
        }
    });
    return out;
}

// The tolerance a float result is held to, per element:
//   |got − want| ≤ rel·|want| + abs_of_max·max|want|
// rel covers one rounding of the result; abs_of_max covers a different order
// of summation in reductions (GEMM, convolution, norms), whose error grows with
// the magnitude of the terms summed, not with the (possibly cancelled) result.
struct Tolerance {
    double rel = 0;
    double abs_of_max = 0;
};
// Float32: a few ulps (4·2⁻²³ ≈ 4.8e-7) and 1e-6 of the largest |output|.
// Float16: two ulps of half (2·2⁻¹⁰) and 1e-3 of the largest |output|.
// Integers, Bool and quantized storage integers: exact.
inline Tolerance tolerance_for(ir::DTypeEnum t) {
    if (t == ir::DTypeEnum::Float32) return {4.8e-7, 1e-6};
    if (t == ir::DTypeEnum::Float16 || t == ir::DTypeEnum::BFloat16) return {2.0 / 1024, 1e-3};
    return {0, 0};
}

// "" when `got` matches `want` (dtype enum, shape, values within the dtype's
// tolerance, NaN where NaN), else what differs.
// The plain dtype numpy stores a quantized dtype's integers as (MegEngine's
// outputs are saved so: QuantizedS8 as int8, Quantized8Asymm as uint8, ...).
inline ir::DTypeEnum storage_dtype(ir::DTypeEnum t) {
    switch (t) {
        case ir::DTypeEnum::QuantizedS8: return ir::DTypeEnum::Int8;
        case ir::DTypeEnum::Quantized8Asymm: return ir::DTypeEnum::Uint8;
        case ir::DTypeEnum::QuantizedS16: return ir::DTypeEnum::Int16;
        case ir::DTypeEnum::QuantizedS32: return ir::DTypeEnum::Int32;
        default: return t;
    }
}

inline std::string compare_tensors(const engine::eval::Tensor& got, const engine::eval::Tensor& want,
                                   std::optional<Tolerance> tol_override = std::nullopt) {
    // A quantized result is compared as its storage integers with an expected
    // array of their plain dtype.
    if (storage_dtype(got.dtype().type) != storage_dtype(want.dtype().type) ||
        (got.dtype().type != want.dtype().type && !ir::dtype_is_quantized(got.dtype().type)))
        return fmt::format("dtype {} != expected {}", ir::dtype_name(got.dtype().type), ir::dtype_name(want.dtype().type));
    if (!(got.shape() == want.shape()))
        return fmt::format("shape {} != expected {}", ir::shape_string(got.shape()), ir::shape_string(want.shape()));
    const auto a = storage_values(got), b = storage_values(want);
    const Tolerance tol = tol_override.value_or(tolerance_for(want.dtype().type));
    double max_want = 0;
    for (double x : b)
        if (std::isfinite(x)) max_want = std::max(max_want, std::fabs(x));
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        bool ok;
        if (std::isnan(b[i])) ok = std::isnan(a[i]);
        else if (std::isinf(b[i])) ok = a[i] == b[i];
        else ok = std::fabs(a[i] - b[i]) <= tol.rel * std::fabs(b[i]) + tol.abs_of_max * max_want;
        if (!ok) {
            if (bad++ == 0) first = i;
            if (!std::isnan(a[i]) && !std::isnan(b[i])) worst = std::max(worst, std::fabs(a[i] - b[i]));
        }
    }
    if (!bad) return "";
    return fmt::format("{} of {} elements differ; first at {}: {} != expected {}; largest difference {} (max |expected| {})",
                       bad, a.size(), first, a[first], b[first], worst, max_want);
}

}  // namespace mgedump::test
