// Slicing arithmetic the shape and indexing families share: MegEngine's
// Slice::apply on one axis (src/core/impl/tensor.cpp), strided views of a
// row-major value (what a Subtensor, Dimshuffle or Broadcast of a known value
// is), and the index items of an indexing operator's param as both inference
// (rules_indexing.cpp) and the evaluator (engine/eval/indexing_items.cpp) read them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/infer.h"
#include "ir/param_schema.h"

namespace mgedump::ir::indexing {

struct AxisSlice {
    int64_t begin = 0;  // first element taken
    int64_t step = 1;
    uint32_t size = 0;  // elements taken
};

// Why a slice does not fit its axis (None: it fits).
enum class SliceFault : uint8_t { None, ZeroStep, OutOfBound };

// Slice::apply on an axis of `size_ax` elements. Not Python's clamping: a
// negative begin/end is wrapped once (v + size) and then must be in range;
// only ends past the axis are clamped. A scalar index i is the slice [i, i+1)
// (or [-1, end) for -1) and is never clamped. Returns why the slice does not
// fit the axis, or None; `out` is set only when it fits. (A fault code, not
// the message: returning an empty std::string on every success cost a quarter
// more instructions, 480 against 342 per inference of transformer_encoder's
// six Subtensors.)
SliceFault apply_slice(uint32_t size_ax, std::optional<int64_t> begin, std::optional<int64_t> end,
                       std::optional<int64_t> step, bool scalar_idx, AxisSlice& out);
// The rule behind `fault` (not None), in words, for the arguments apply_slice had.
std::string slice_error(SliceFault fault, uint32_t size_ax, std::optional<int64_t> begin,
                        std::optional<int64_t> end, std::optional<int64_t> step, bool scalar_idx);

// One IndexDescMaskDump item with the positions of the inputs that give its
// begin, end, step or index (-1: not given).
struct IndexItem {
    int32_t axis = 0;  // as written (may be negative)
    int begin = -1, end = -1, step = -1, idx = -1;
};

struct IndexItems {
    std::vector<IndexItem> items;
    size_t end = 0;  // the position after the last input the items take
};

// The items' inputs follow them from position `first` on, each item's begin,
// end, step, idx in turn (IndexDescMaskDump::to_index_desc).
IndexItems index_items(std::span<const IndexDescMaskItem> masks, size_t first);
// The same into `out` (at least masks.size() entries), for a caller that keeps
// the items on the stack; returns the position after the last input they take.
size_t index_items(std::span<const IndexDescMaskItem> masks, size_t first, std::span<IndexItem> out);

// FancyIndexingHelper::init's order of the items (cmp_by_axis_rev): negative
// axes first, then descending.
inline bool before_in_megengine_order(const IndexItem& l, const IndexItem& r) {
    return (l.axis < 0) == (r.axis < 0) ? l.axis > r.axis : l.axis < 0;
}
std::vector<size_t> sorted_order(std::span<const IndexItem> items);
// The order MegDNN receives the vector indices in: the reverse of sorted_order
// (ascending for axes of one sign).
std::vector<size_t> megdnn_order(std::span<const IndexItem> items);

// `shape` and its `strides` without `axes` (the scalar-indexed ones); all
// removed leaves [1] (do_make_sub_spec's axis_to_remove). In place: `strides`
// holds at least one stride per dim of `shape` (and at least one).
void remove_axes(Shape& shape, std::span<int64_t> strides, std::span<const uint32_t> axes);
// The same for strides in a vector, which keeps one per remaining dim.
void remove_axes(Shape& shape, std::vector<int64_t>& strides, std::span<const uint32_t> axes);

// Row-major strides of a contiguous shape, in elements: into `out` (at least
// one per dim; inference's views keep them on the stack), or a new vector.
void contiguous_strides(const Shape& s, std::span<int64_t> out);
std::vector<int64_t> contiguous_strides(const Shape& s);

// Calls `visit(offset)` for each element of a strided view (`shape` with
// `strides` from `base`), in the view's row-major order.
template <class Visit>
void for_each_view_offset(const Shape& shape, std::span<const int64_t> strides, int64_t base, Visit visit) {
    const uint64_t n = shape.elements();
    std::array<uint32_t, kMaxNdim> idx{};
    int64_t off = base;
    for (uint64_t k = 0; k < n; ++k) {
        visit(off);
        // Odometer: bump the last axis, carrying into earlier ones.
        for (uint32_t a = shape.ndim; a-- > 0;) {
            if (++idx[a] < shape.dim[a]) {
                off += strides[a];
                break;
            }
            off -= strides[a] * static_cast<int64_t>(idx[a] - 1);
            idx[a] = 0;
        }
    }
}

// The element offsets of a strided view, in the view's row-major order.
std::vector<int64_t> view_offsets(const Shape& shape, std::span<const int64_t> strides, int64_t base);

// The view's elements of `src`, in the same order (inference's values of
// Subtensor, Broadcast, Dimshuffle and Split).
std::vector<double> gather_view(const std::vector<double>& src, const Shape& shape, std::span<const int64_t> strides,
                                int64_t base);

}  // namespace mgedump::ir::indexing
