// Slicing arithmetic the shape and indexing families share: MegEngine's
// Slice::apply on one axis (src/core/impl/tensor.cpp), and strided views of a
// row-major value (what a Subtensor, Dimshuffle or Broadcast of a known value is).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/infer.h"

namespace mgedump::ir::indexing {

struct AxisSlice {
    int64_t begin = 0;  // first element taken
    int64_t step = 1;
    uint32_t size = 0;  // elements taken
};

// Slice::apply on an axis of `size_ax` elements. Not Python's clamping: a
// negative begin/end is wrapped once (v + size) and then must be in range;
// only ends past the axis are clamped. A scalar index i is the slice [i, i+1)
// (or [-1, end) for -1) and is never clamped. Returns the broken rule in words,
// empty on success.
std::string apply_slice(uint32_t size_ax, std::optional<int64_t> begin, std::optional<int64_t> end,
                        std::optional<int64_t> step, bool scalar_idx, AxisSlice& out);

// Row-major strides of a contiguous shape, in elements.
std::vector<int64_t> contiguous_strides(const Shape& s);

// The element offsets of a strided view (`shape` with `strides` from `base`),
// in the view's row-major order.
std::vector<int64_t> view_offsets(const Shape& shape, std::span<const int64_t> strides, int64_t base);

// The view's elements of `src` (offsets from view_offsets).
std::vector<double> gather(const std::vector<double>& src, std::span<const int64_t> offsets);

}  // namespace mgedump::ir::indexing
