// Helpers the conv and image rule files share (ir/infer/rules_conv.cpp,
// ir/infer/rules_image.cpp): MegDNN's sliding-window size formula, reading a
// static shape tensor, dtype comparisons the way MegDNN makes them.
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "ir/infer/context.h"
#include "ir/infer/shape_util.h"

namespace mgedump::ir::conv {

// Whether input i's dtype and shape are both known.
inline bool known(const InferContext& ctx, size_t i) { return ctx.shape(i).known() && ctx.dtype(i).valid; }

inline bool all_dtypes_known(const InferContext& ctx) {
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (!ctx.dtype(i).valid) return false;
    return true;
}

// Every output unknown: what a rule reports when an input it needs is unknown.
inline void unknown_outputs(InferContext& ctx, DType d) {
    for (size_t k = 0; k < ctx.nr_outputs(); ++k) ctx.set_output(k, d, Shape{});
}

// dnn/src/common/utils.cpp infer_conv_shape: out = (in + 2*pad - window) / stride + 1,
// asserting in + 2*pad >= window. Callers refuse stride 0 first (MegEngine divides by it).
inline uint32_t window_out(const InferContext& ctx, const char* dim, uint64_t in, uint64_t window,
                           uint64_t stride, uint64_t pad) {
    if (in + 2 * pad < window)
        ctx.fail("{}: the window spans {} but the padded input has only {} ({} + 2*{})", dim, window,
                 in + 2 * pad, in, pad);
    return static_cast<uint32_t>((in + 2 * pad - window) / stride + 1);
}

// The backward-data inverse (dnn/src/common/convolution.cpp deduce_layout):
// in = (out - 1) * stride + window - 2*pad, asserting (out-1)*stride + window > 2*pad.
inline uint32_t window_in(const InferContext& ctx, const char* dim, uint64_t out, uint64_t window,
                          uint64_t stride, uint64_t pad) {
    const uint64_t i = (out - 1) * stride + window;
    if (out == 0 || i <= 2 * pad)
        ctx.fail("{}: an output of {} with window {}, stride {} leaves nothing inside padding {}", dim, out,
                 window, stride, pad);
    return static_cast<uint32_t>(i - 2 * pad);
}

// The dims held by shape tensor input i (cg::copy_tensor_value_to_shape): a 1-D
// tensor of non-negative integers. nullopt when its value is not known statically.
inline std::optional<std::vector<uint32_t>> shape_value(const InferContext& ctx, size_t i) {
    const DType d = ctx.dtype(i);
    const Shape& s = ctx.shape(i);
    if (d.valid && !dtype_is_integer(d.type))
        ctx.fail("input {} is a shape tensor and must hold integers, it is {}", i, dtype_string(d));
    if (s.known() && s.ndim != 1)
        ctx.fail("input {} is a shape tensor and must be 1-dim, it is {}", i, shape_string(s));
    if (s.known() && s[0] > kMaxNdim)
        ctx.fail("input {} is a shape tensor of {} dims, more than {}", i, s[0], kMaxNdim);
    const StaticValue* v = ctx.value(i);
    if (!v || !d.valid) return std::nullopt;
    std::vector<uint32_t> dims;
    for (double e : v->elems) {
        if (e < 0 || e > std::numeric_limits<uint32_t>::max())
            ctx.fail("input {} is a shape tensor and holds {}, not a size", i, e);
        dims.push_back(static_cast<uint32_t>(e));
    }
    return dims;
}

// dnn/src/common/utils.h almost_equal (1 ULP) on scales, as dtype_almost_equal uses it.
inline bool scale_almost_equal(float x, float y) {
    return std::abs(x - y) < std::numeric_limits<float>::epsilon() * std::abs(x + y) ||
           std::abs(x - y) < std::numeric_limits<float>::min();
}

// dnn/src/common/utils.cpp dtype_almost_equal.
inline bool dtype_almost_equal(DType a, DType b) {
    if (a.type != b.type) return false;
    if (!dtype_is_quantized(a.type)) return true;
    if (!scale_almost_equal(a.scale, b.scale)) return false;
    return !dtype_is_asymmetric(a.type) || a.zero_point == b.zero_point;
}

}  // namespace mgedump::ir::conv
