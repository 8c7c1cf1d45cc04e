#include "ir/infer/indexing_slices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace mgedump::ir::indexing {
namespace {

std::string opt_string(std::optional<int64_t> v) { return v ? std::to_string(*v) : "None"; }

}  // namespace

[[gnu::hot]] SliceFault apply_slice(uint32_t size_ax_u, std::optional<int64_t> begin_opt,
                                    std::optional<int64_t> end_opt, std::optional<int64_t> step_opt,
                                    bool scalar_idx, AxisSlice& out) {
    const int64_t size_ax = size_ax_u;
    const int64_t step = step_opt.value_or(1);
    if (step == 0) return SliceFault::ZeroStep;
    // An empty axis maps every position to 0 (Slice::apply's mod_size).
    auto wrap = [&](int64_t v) -> int64_t { return size_ax == 0 ? 0 : (v < 0 ? v + size_ax : v); };
    int64_t begin, end;
    if (step > 0) {
        begin = wrap(begin_opt.value_or(0));
        end = wrap(end_opt.value_or(size_ax));
        if (!scalar_idx) {
            end = std::min(end, size_ax);
            begin = std::min(begin, end);
        }
        if (!(begin >= 0 && end >= begin && end <= size_ax)) return SliceFault::OutOfBound;
    } else {
        begin = wrap(begin_opt.value_or(size_ax - 1));
        end = end_opt ? wrap(*end_opt) : -1;
        if (!scalar_idx) {
            begin = std::min(begin, std::max<int64_t>(size_ax - 1, 0));
            end = std::min(end, begin);
        }
        if (!(begin >= 0 && end <= begin && begin < size_ax && end >= -1)) return SliceFault::OutOfBound;
    }
    const int64_t step_abs = std::abs(step);
    out.begin = begin;
    out.step = step;
    out.size = static_cast<uint32_t>((std::abs(end - begin) + step_abs - 1) / step_abs);
    return SliceFault::None;
}

std::string slice_error(SliceFault fault, uint32_t size_ax, std::optional<int64_t> begin,
                        std::optional<int64_t> end, std::optional<int64_t> step, bool scalar_idx) {
    if (fault == SliceFault::ZeroStep) return "a slice step can not be zero";
    if (scalar_idx) return fmt::format("index {} is out of bound for an axis of {}", opt_string(begin), size_ax);
    return fmt::format("slice begin={} end={} step={} is out of bound for an axis of {}", opt_string(begin),
                       opt_string(end), opt_string(step), size_ax);
}

IndexItems index_items(std::span<const IndexDescMaskItem> masks, size_t first) {
    IndexItems out;
    out.items.resize(masks.size());
    out.end = index_items(masks, first, out.items);
    return out;
}

size_t index_items(std::span<const IndexDescMaskItem> masks, size_t first, std::span<IndexItem> out) {
    int next = static_cast<int>(first);
    for (size_t k = 0; k < masks.size(); ++k) {
        const IndexDescMaskItem& m = masks[k];
        IndexItem& it = out[k];
        it = IndexItem{};
        it.axis = m.axis;
        if (m.begin) it.begin = next++;
        if (m.end) it.end = next++;
        if (m.step) it.step = next++;
        if (m.idx) it.idx = next++;
    }
    return static_cast<size_t>(next);
}

std::vector<size_t> sorted_order(std::span<const IndexItem> items) {
    std::vector<size_t> order(items.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(),
              [&](size_t l, size_t r) { return before_in_megengine_order(items[l], items[r]); });
    return order;
}

std::vector<size_t> megdnn_order(std::span<const IndexItem> items) {
    std::vector<size_t> order = sorted_order(items);
    std::reverse(order.begin(), order.end());
    return order;
}

void remove_axes(Shape& shape, std::span<int64_t> strides, std::span<const uint32_t> axes) {
    // Nothing to remove (a Subtensor of slices only): the copy below was nearly
    // a tenth of inferring one.
    if (axes.empty() && shape.ndim > 0) return;
    Shape s;
    for (uint32_t a = 0; a < shape.ndim; ++a) {
        if (std::find(axes.begin(), axes.end(), a) != axes.end()) continue;
        // s.ndim <= a: the kept strides move towards the front, in place.
        strides[s.ndim] = strides[a];
        s.dim[s.ndim++] = shape.dim[a];
    }
    if (s.ndim == 0) {
        s = Shape::of({1});
        strides[0] = 1;
    }
    shape = s;
}

void remove_axes(Shape& shape, std::vector<int64_t>& strides, std::span<const uint32_t> axes) {
    if (strides.empty()) strides.push_back(1);
    remove_axes(shape, std::span<int64_t>(strides), axes);
    strides.resize(shape.ndim);
}

void contiguous_strides(const Shape& s, std::span<int64_t> out) {
    int64_t acc = 1;
    for (uint32_t i = s.ndim; i-- > 0;) {
        out[i] = acc;
        acc *= s.dim[i];
    }
}

std::vector<int64_t> contiguous_strides(const Shape& s) {
    std::vector<int64_t> st(s.ndim);
    contiguous_strides(s, st);
    return st;
}

std::vector<int64_t> view_offsets(const Shape& shape, std::span<const int64_t> strides, int64_t base) {
    std::vector<int64_t> out;
    out.reserve(shape.elements());
    for_each_view_offset(shape, strides, base, [&](int64_t off) { out.push_back(off); });
    return out;
}

std::vector<double> gather_view(const std::vector<double>& src, const Shape& shape, std::span<const int64_t> strides,
                                int64_t base) {
    std::vector<double> out;
    out.reserve(shape.elements());
    for_each_view_offset(shape, strides, base, [&](int64_t off) { out.push_back(src[static_cast<size_t>(off)]); });
    return out;
}

}  // namespace mgedump::ir::indexing
