#include "engine/eval/indexing_items.h"

#include <algorithm>
#include <cmath>
#include <variant>

#include "engine/eval/elements.h"
#include "ir/infer/indexing_slices.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

// A begin/end/step/index input: one integral element (do_make_sub_spec's next_iv).
int64_t scalar_input(const KernelContext& ctx, int pos) {
    const Tensor& t = ctx.in(static_cast<size_t>(pos));
    if (t.elements() != 1)
        ctx.fail("index input {} must be a scalar, has shape {}", pos, ir::shape_string(t.shape()));
    const double v = to_doubles(t)[0];
    if (v != std::floor(v)) ctx.fail("index input {} holds {}, not an integer", pos, v);
    return static_cast<int64_t>(v);
}

uint32_t data_axis(const KernelContext& ctx, int32_t axis, uint32_t ndim) {
    const std::optional<uint32_t> a = ir::normalize_axis(axis, ndim);
    if (!a) ctx.fail("index item axis {} is out of range for data of {} dims", axis, ndim);
    return *a;
}

const int32_t* index_data(const KernelContext& ctx, const VectorIndex& v) {
    if (v.index->dtype().type != ir::DTypeEnum::Int32)
        ctx.fail("the index for axis {} is {}; indices must be Int32", v.axis,
                 ir::dtype_name(v.index->dtype().type));
    return v.index->data<int32_t>().data();
}

// Wraps a negative index once (MegDNN adds the axis size) and refuses what is
// still outside the axis.
int64_t wrap_index(const KernelContext& ctx, int64_t i, uint32_t size, uint32_t axis) {
    const int64_t w = i < 0 ? i + size : i;
    if (w < 0 || w >= size) ctx.fail("index {} is out of bounds for axis {} of size {}", i, axis, size);
    return w;
}

// Odometer over a row-major shape: calls f(pos) for every position in order.
template <class F>
void for_each_position(const ir::Shape& s, F&& f) {
    const uint64_t n = s.elements();
    std::vector<uint32_t> pos(s.ndim, 0);
    for (uint64_t k = 0; k < n; ++k) {
        f(pos);
        for (uint32_t a = s.ndim; a-- > 0;) {
            if (++pos[a] < s.dim[a]) break;
            pos[a] = 0;
        }
    }
}

}  // namespace

std::vector<IndexItem> index_items(const KernelContext& ctx, size_t first_input) {
    const auto& masks = std::get<std::vector<ir::IndexDescMaskItem>>(ctx.params().field("items"));
    ir::indexing::IndexItems parsed = ir::indexing::index_items(masks, first_input);
    if (parsed.end != ctx.nr_inputs())
        ctx.fail("the index items take {} index inputs, the operator has {}", parsed.end - first_input,
                 ctx.nr_inputs() - first_input);
    return std::move(parsed.items);
}

StridedView sliced_view(const KernelContext& ctx, const std::vector<IndexItem>& items, const ir::Shape& data,
                        bool scalar_indices) {
    StridedView v = contiguous_view(data);
    std::vector<uint32_t> removed;
    for (const IndexItem& it : items) {
        const uint32_t axis = data_axis(ctx, it.axis, data.ndim);
        std::optional<int64_t> begin, end, step;
        bool scalar = false;
        if (it.idx >= 0) {
            if (!scalar_indices) continue;
            // An index i is the slice [i, i+1); -1 is [-1, end).
            scalar = true;
            removed.push_back(axis);
            begin = scalar_input(ctx, it.idx);
            if (*begin != -1) end = *begin + 1;
        } else {
            if (it.begin >= 0) begin = scalar_input(ctx, it.begin);
            if (it.end >= 0) end = scalar_input(ctx, it.end);
            if (it.step >= 0) step = scalar_input(ctx, it.step);
        }
        ir::indexing::AxisSlice s;
        if (const ir::indexing::SliceFault fault =
                ir::indexing::apply_slice(v.shape.dim[axis], begin, end, step, scalar, s);
            fault != ir::indexing::SliceFault::None)
            ctx.fail("axis {}: {}", axis,
                     ir::indexing::slice_error(fault, v.shape.dim[axis], begin, end, step, scalar));
        v.offset += v.strides[axis] * s.begin;
        v.strides[axis] *= s.step;
        v.shape.dim[axis] = s.size;
    }
    if (!removed.empty()) ir::indexing::remove_axes(v.shape, v.strides, removed);
    return v;
}

std::vector<VectorIndex> vector_indices(const KernelContext& ctx, const std::vector<IndexItem>& items,
                                        uint32_t ndim) {
    std::vector<VectorIndex> out;
    for (size_t k : ir::indexing::megdnn_order(items)) {
        if (items[k].idx < 0) continue;
        const uint32_t axis = data_axis(ctx, items[k].axis, ndim);
        if (!out.empty() && axis <= out.back().axis)
            ctx.fail("index axes reach MegDNN as {} after {}; they must ascend", axis, out.back().axis);
        out.push_back({axis, &ctx.in(static_cast<size_t>(items[k].idx))});
    }
    return out;
}

std::vector<int64_t> multi_axis_offsets(const KernelContext& ctx, const StridedView& data,
                                        const std::vector<VectorIndex>& indices, const ir::Shape& result) {
    const size_t nidx = indices.size();
    std::vector<ir::Shape> shapes;
    for (const VectorIndex& v : indices) shapes.push_back(v.index->shape());
    ir::Shape ishape;
    if (nidx) {
        const std::optional<ir::Shape> b = ir::broadcast_shapes(shapes);
        if (!b) ctx.fail("the index shapes do not broadcast together");
        ishape = *b;
    }
    const uint32_t idx_ndim = ishape.ndim;
    bool consecutive = true;
    for (size_t k = 1; k < nidx; ++k) consecutive &= indices[k].axis == indices[k - 1].axis + 1;
    const uint32_t idx_axis = nidx && consecutive ? indices[0].axis : 0;

    // Each index read through the broadcast shape (stride 0 where it repeats).
    std::vector<std::vector<int64_t>> istrides(nidx, std::vector<int64_t>(idx_ndim, 0));
    std::vector<const int32_t*> ivalues(nidx);
    for (size_t k = 0; k < nidx; ++k) {
        const ir::Shape& s = shapes[k];
        const std::vector<int64_t> cs = ir::indexing::contiguous_strides(s);
        for (uint32_t d = 0; d < idx_ndim; ++d) {
            const int64_t sd = static_cast<int64_t>(d) - (idx_ndim - s.ndim);
            if (sd >= 0 && s.dim[sd] != 1) istrides[k][d] = cs[sd];
        }
        ivalues[k] = index_data(ctx, indices[k]);
    }
    std::vector<uint32_t> rest;
    for (uint32_t a = 0; a < data.shape.ndim; ++a)
        if (std::none_of(indices.begin(), indices.end(), [&](const VectorIndex& v) { return v.axis == a; }))
            rest.push_back(a);
    if (result.ndim != rest.size() + idx_ndim)
        ctx.fail("the indexed result has {} dims; the data and indices give {}", result.ndim,
                 rest.size() + idx_ndim);

    std::vector<int64_t> offsets;
    offsets.reserve(result.elements());
    for_each_position(result, [&](const std::vector<uint32_t>& pos) {
        int64_t off = data.offset;
        for (size_t k = 0; k < nidx; ++k) {
            int64_t io = 0;
            for (uint32_t d = 0; d < idx_ndim; ++d) io += pos[idx_axis + d] * istrides[k][d];
            const uint32_t axis = indices[k].axis;
            off += data.strides[axis] * wrap_index(ctx, ivalues[k][io], data.shape.dim[axis], axis);
        }
        for (size_t i = 0; i < rest.size(); ++i)
            off += data.strides[rest[i]] * pos[i + (i >= idx_axis ? idx_ndim : 0)];
        offsets.push_back(off);
    });
    return offsets;
}

std::vector<int64_t> mesh_offsets(const KernelContext& ctx, const StridedView& data,
                                  const std::vector<VectorIndex>& indices, const ir::Shape& result,
                                  bool batched) {
    if (result.ndim != data.shape.ndim)
        ctx.fail("the indexed result has {} dims, the data {}", result.ndim, data.shape.ndim);
    // Per axis: the index values and, batched, the length of one batch's row.
    std::vector<const int32_t*> ivalues(result.ndim, nullptr);
    std::vector<int64_t> row(result.ndim, 0);
    for (const VectorIndex& v : indices) {
        ivalues[v.axis] = index_data(ctx, v);
        if (batched) row[v.axis] = v.index->shape().dim[1];
    }
    std::vector<int64_t> offsets;
    offsets.reserve(result.elements());
    for_each_position(result, [&](const std::vector<uint32_t>& pos) {
        int64_t off = data.offset;
        for (uint32_t a = 0; a < result.ndim; ++a) {
            int64_t p = pos[a];
            if (ivalues[a]) p = ivalues[a][pos[0] * row[a] + pos[a]];
            off += data.strides[a] * wrap_index(ctx, p, data.shape.dim[a], a);
        }
        offsets.push_back(off);
    });
    return offsets;
}

bool is_computing_dtype(ir::DTypeEnum t) {
    using E = ir::DTypeEnum;
    return t == E::Float32 || t == E::Float16 || t == E::BFloat16 || t == E::Int32 || t == E::Int16 ||
           t == E::Int8 || t == E::Uint8;
}

void add_at(const KernelContext& ctx, Tensor& data, std::span<const int64_t> offsets, const Tensor& values) {
    const ir::DTypeEnum t = data.dtype().type;
    if (ir::dtype_is_quantized(t)) ctx.fail("adding into {} tensors is not defined", ir::dtype_name(t));
    with_storage_type(t, [&](auto tag) {
        using T = decltype(tag);
        const T* v = values.data<T>().data();
        T* d = data.mutable_data<T>().data();
        for (size_t j = 0; j < offsets.size(); ++j) {
            T& x = d[offsets[j]];
            if (t == ir::DTypeEnum::Float16)
                x = static_cast<T>(float_to_half(half_to_float(static_cast<uint16_t>(x)) +
                                                 half_to_float(static_cast<uint16_t>(v[j]))));
            else if (t == ir::DTypeEnum::BFloat16)
                x = static_cast<T>(float_to_bfloat16(bfloat16_to_float(static_cast<uint16_t>(x)) +
                                                     bfloat16_to_float(static_cast<uint16_t>(v[j]))));
            else if (t == ir::DTypeEnum::Bool)
                x = static_cast<T>(x != 0 || v[j] != 0);
            else if constexpr (std::is_integral_v<T>)
                x = static_cast<T>(static_cast<int64_t>(x) +
                                   static_cast<int64_t>(v[j]));  // wraps, as C++ does
            else
                x = x + v[j];
        }
    });
}

}  // namespace mgedump::engine::eval
