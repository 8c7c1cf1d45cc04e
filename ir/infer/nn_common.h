// Helpers the nn and misc inference rules share (rules_nn.cpp, rules_misc.cpp):
// shapes read from shape-tensor values, dtype categories as MegDNN names them.
#pragma once

#include <cmath>
#include <optional>

#include "ir/infer/context.h"
#include "ir/infer/shape_util.h"

namespace mgedump::ir::nn {

inline bool is_float(DType d) { return d.valid && dtype_is_float(d.type); }
inline bool is_quantized(DType d) { return d.valid && dtype_is_quantized(d.type); }

// Whether every input shape is known: MegEngine's OutshapePureByInshapeOpr (every
// MegDNN wrapper) infers its outputs from all input shapes or from none.
inline bool all_shapes_known(const InferContext& ctx) {
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (!ctx.shape(i).known()) return false;
    return true;
}

// The shape held by input `i`'s value, as cg::copy_tensor_value_to_shape reads it
// (src/core/impl/graph/helper.cpp:395): a 1-dim tensor of at most 7 elements,
// each a non-negative whole number. nullopt when the value is not known.
inline std::optional<Shape> shape_from_value(const InferContext& ctx, size_t i) {
    const Shape& s = ctx.shape(i);
    if (s.known() && s.ndim != 1) ctx.fail("shape tensor (input {}) must be 1-dim, got {}", i, shape_string(s));
    const StaticValue* v = ctx.value(i);
    if (!v) return std::nullopt;
    if (v->elems.size() > kMaxNdim)
        ctx.fail("shape tensor (input {}) has {} elements; a shape has at most {} dims", i, v->elems.size(),
                 kMaxNdim);
    Shape out;
    out.ndim = static_cast<uint32_t>(v->elems.size());
    for (size_t k = 0; k < v->elems.size(); ++k) {
        const double d = v->elems[k];
        if (!(d >= 0) || d != std::floor(d) || d > 4294967295.0)
            ctx.fail("shape tensor (input {}) element {} is {}, not a valid dim", i, k, d);
        out.dim[k] = static_cast<uint32_t>(d);
    }
    return out;
}

// An output count check for operators whose count the builder chooses.
inline void expect_outputs(const InferContext& ctx, size_t lo, size_t hi, std::string_view why) {
    const size_t n = ctx.nr_outputs();
    if (n < lo || n > hi) {
        if (lo == hi) ctx.fail("has {} outputs; {} needs {}", n, why, lo);
        ctx.fail("has {} outputs; {} needs {} or {}", n, why, lo, hi);
    }
}

}  // namespace mgedump::ir::nn
