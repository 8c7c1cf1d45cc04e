#include "ir/infer/shape_util.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::ir {

void Shape::fail_too_many_dims(std::span<const uint32_t> dims) {
    throw GraphError(fmt::format("shape [{}] has {} dims; MegEngine allows at most {}", fmt::join(dims, ","),
                                 dims.size(), kMaxNdim));
}

std::string shape_string(const Shape& s) {
    if (!s.known()) return "[unknown]";
    return fmt::format("[{}]", fmt::join(s.dims(), ","));
}

std::optional<Shape> broadcast_shapes(std::span<const Shape> shapes) {
    Shape out;
    for (const Shape& s : shapes) {
        if (!s.known()) return Shape{};
        out.ndim = std::max(out.ndim, s.ndim);
    }
    for (uint32_t i = 0; i < out.ndim; ++i) out.dim[i] = 1;
    for (const Shape& s : shapes) {
        const uint32_t off = out.ndim - s.ndim;
        for (uint32_t i = 0; i < s.ndim; ++i) {
            uint32_t& o = out.dim[off + i];
            const uint32_t d = s.dim[i];
            if (d == o || d == 1) continue;
            if (o == 1) {
                o = d;
                continue;
            }
            return std::nullopt;
        }
    }
    return out;
}

std::string dtype_string(DType d) {
    if (!d.valid) return "unknown";
    if (!dtype_is_quantized(d.type)) return std::string(dtype_name(d.type));
    if (dtype_is_asymmetric(d.type)) return fmt::format("{}({:g},{})", dtype_name(d.type), d.scale, d.zero_point);
    return fmt::format("{}({:g})", dtype_name(d.type), d.scale);
}

}  // namespace mgedump::ir
