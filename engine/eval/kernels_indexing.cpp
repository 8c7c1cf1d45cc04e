// Kernels of the indexing family: the Subtensor operators (scalar indices and
// slices, src/opr/impl/tensor_manip.cpp), the vector-indexing operators
// (src/opr/impl/indexing.cpp over MegDNN's indexing_multi_axis_vec and
// mesh_indexing) and the one-hot pair (indexing_one_hot). The index items are
// decoded by engine/eval/indexing_items.h; every kernel here reads its data
// through the sliced view and then gathers, assigns or adds at element offsets.
//
// The modifying forms give input 0 with the indexed part replaced or
// incremented; repeated indices are applied in order (a later Set wins, Incr
// adds up), as MegDNN's loops do. Index values out of range are refused (MegDNN
// asserts, or reads outside the tensor). The dtypes are MegDNN's kernels'.
#include <cstring>

#include "engine/eval/indexing_items.h"
#include "engine/eval/kernels.h"
#include "ir/infer/indexing_slices.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

// The output starts as a copy of input 0.
Tensor& copy_of_data(KernelContext& ctx) {
    output_shape(ctx, 0);
    Tensor& out = ctx.out(0);
    const auto src = ctx.in(0).bytes();
    if (!src.empty()) std::memcpy(out.mutable_bytes().data(), src.data(), src.size());
    return out;
}

std::vector<int64_t> view_offsets(const StridedView& v) {
    return ir::indexing::view_offsets(v.shape, v.strides, v.offset);
}

void need_dtype(const KernelContext& ctx, bool ok, const char* kernel) {
    if (!ok)
        ctx.fail("MegDNN's {} kernel does not take {} data", kernel, ir::dtype_name(ctx.in(0).dtype().type));
}

bool computing_or_quantized8(E t) {
    return is_computing_dtype(t) || t == E::QuantizedS8 || t == E::Quantized8Asymm || t == E::QuantizedS32;
}

// --- Subtensor family: the view itself is the indexed part -------------------

void subtensor(KernelContext& ctx) {
    const StridedView view = sliced_view(ctx, index_items(ctx, 1), ctx.in(0).shape(), true);
    output_shape(ctx, 0);
    gather_view(ctx.in(0), view, ctx.out(0), element_bytes(ctx, ctx.in(0).dtype()));
}

void set_subtensor(KernelContext& ctx) {
    const StridedView view = sliced_view(ctx, index_items(ctx, 2), ctx.in(0).shape(), true);
    Tensor& out = copy_of_data(ctx);
    scatter_view(ctx.in(1), out, view, element_bytes(ctx, out.dtype()));
}

// IncrSubtensor adds with MegDNN's AddUpdate (computing dtypes only).
void incr_subtensor(KernelContext& ctx) {
    need_dtype(ctx, is_computing_dtype(ctx.in(0).dtype().type), "AddUpdate");
    const StridedView view = sliced_view(ctx, index_items(ctx, 2), ctx.in(0).shape(), true);
    Tensor& out = copy_of_data(ctx);
    add_at(ctx, out, view_offsets(view), ctx.in(1));
}

// --- vector indexing ----------------------------------------------------------

enum class Modify { kSet, kIncr };

using OffsetsFn = std::vector<int64_t> (*)(const KernelContext&, const StridedView&,
                                           const std::vector<VectorIndex>&, const ir::Shape&);

std::vector<int64_t> mesh(const KernelContext& ctx, const StridedView& d, const std::vector<VectorIndex>& i,
                          const ir::Shape& r) {
    return mesh_offsets(ctx, d, i, r, false);
}
std::vector<int64_t> batched_mesh(const KernelContext& ctx, const StridedView& d,
                                  const std::vector<VectorIndex>& i, const ir::Shape& r) {
    return mesh_offsets(ctx, d, i, r, true);
}

void vector_get(KernelContext& ctx, OffsetsFn offsets_fn) {
    const Tensor& data = ctx.in(0);
    const std::vector<IndexItem> items = index_items(ctx, 1);
    const StridedView view = sliced_view(ctx, items, data.shape(), false);
    const std::vector<int64_t> offsets =
        offsets_fn(ctx, view, vector_indices(ctx, items, data.shape().ndim), output_shape(ctx, 0));
    gather_at(data, offsets, ctx.out(0), element_bytes(ctx, data.dtype()));
}

void vector_modify(KernelContext& ctx, OffsetsFn offsets_fn, Modify how) {
    const std::vector<IndexItem> items = index_items(ctx, 2);
    const StridedView view = sliced_view(ctx, items, ctx.in(0).shape(), false);
    const std::vector<int64_t> offsets =
        offsets_fn(ctx, view, vector_indices(ctx, items, ctx.in(0).shape().ndim), ctx.in(1).shape());
    Tensor& out = copy_of_data(ctx);
    if (how == Modify::kSet)
        assign_at(out, offsets, ctx.in(1), element_bytes(ctx, out.dtype()));
    else
        add_at(ctx, out, offsets, ctx.in(1));
}

// IndexingMultiAxisVec and its Set/Incr: computing dtypes and Bool.
bool multi_axis_dtype(const KernelContext& ctx) {
    const E t = ctx.in(0).dtype().type;
    return is_computing_dtype(t) || t == E::Bool;
}

void multi_axis_vec(KernelContext& ctx) {
    need_dtype(ctx, multi_axis_dtype(ctx), "IndexingMultiAxisVec");
    vector_get(ctx, multi_axis_offsets);
}
void set_multi_axis_vec(KernelContext& ctx) {
    need_dtype(ctx, multi_axis_dtype(ctx), "IndexingSetMultiAxisVec");
    vector_modify(ctx, multi_axis_offsets, Modify::kSet);
}
void incr_multi_axis_vec(KernelContext& ctx) {
    need_dtype(ctx, multi_axis_dtype(ctx), "IndexingIncrMultiAxisVec");
    vector_modify(ctx, multi_axis_offsets, Modify::kIncr);
}

// Mesh indexing: reads and sets also take the 8- and 32-bit quantized dtypes;
// the increments only computing dtypes.
void mesh_indexing(KernelContext& ctx) {
    need_dtype(ctx, computing_or_quantized8(ctx.in(0).dtype().type), "MeshIndexing");
    vector_get(ctx, mesh);
}
void set_mesh_indexing(KernelContext& ctx) {
    need_dtype(ctx, computing_or_quantized8(ctx.in(0).dtype().type), "SetMeshIndexing");
    vector_modify(ctx, mesh, Modify::kSet);
}
void incr_mesh_indexing(KernelContext& ctx) {
    need_dtype(ctx, is_computing_dtype(ctx.in(0).dtype().type), "IncrMeshIndexing");
    vector_modify(ctx, mesh, Modify::kIncr);
}
void batched_mesh_indexing(KernelContext& ctx) {
    need_dtype(ctx, computing_or_quantized8(ctx.in(0).dtype().type), "BatchedMeshIndexing");
    vector_get(ctx, batched_mesh);
}
void batched_set_mesh_indexing(KernelContext& ctx) {
    need_dtype(ctx, computing_or_quantized8(ctx.in(0).dtype().type), "BatchedSetMeshIndexing");
    vector_modify(ctx, batched_mesh, Modify::kSet);
}
void batched_incr_mesh_indexing(KernelContext& ctx) {
    need_dtype(ctx, is_computing_dtype(ctx.in(0).dtype().type), "BatchedIncrMeshIndexing");
    vector_modify(ctx, batched_mesh, Modify::kIncr);
}

// --- one-hot ------------------------------------------------------------------

// For every position of the data without `axis` (row-major), the offset of the
// element the index picks on that axis; indices must be in [0, size) (no
// wrapping: MegDNN asserts).
std::vector<int64_t> one_hot_offsets(const KernelContext& ctx, const Tensor& data, const Tensor& index) {
    const uint32_t axis = static_cast<uint32_t>(ctx.params().int_field("axis"));
    if (index.dtype().type != E::Int32)
        ctx.fail("the index is {}; it must be Int32", ir::dtype_name(index.dtype().type));
    const ir::Shape& s = data.shape();
    ir::Shape outer = s;
    outer.dim[axis] = 1;
    const std::vector<int64_t> strides = ir::indexing::contiguous_strides(s);
    std::vector<int64_t> offsets = ir::indexing::view_offsets(outer, strides, 0);
    const std::span<const int32_t> idx = index.data<int32_t>();
    if (idx.size() != offsets.size())
        ctx.fail("the index has {} elements; the data without axis {} has {}", idx.size(), axis,
                 offsets.size());
    for (size_t j = 0; j < offsets.size(); ++j) {
        if (idx[j] < 0 || idx[j] >= static_cast<int64_t>(s.dim[axis]))
            ctx.fail("index value {} is out of range [0, {}) for axis {}", idx[j], s.dim[axis], axis);
        offsets[j] += idx[j] * strides[axis];
    }
    return offsets;
}

bool one_hot_dtype(const KernelContext& ctx) {
    const E t = ctx.in(0).dtype().type;
    return is_computing_dtype(t) || t == E::Quantized8Asymm;
}

void indexing_one_hot(KernelContext& ctx) {
    need_dtype(ctx, one_hot_dtype(ctx), "IndexingOneHot");
    output_shape(ctx, 0);
    gather_at(ctx.in(0), one_hot_offsets(ctx, ctx.in(0), ctx.in(1)), ctx.out(0),
              element_bytes(ctx, ctx.in(0).dtype()));
}

void indexing_set_one_hot(KernelContext& ctx) {
    need_dtype(ctx, one_hot_dtype(ctx), "IndexingSetOneHot");
    const std::vector<int64_t> offsets = one_hot_offsets(ctx, ctx.in(0), ctx.in(1));
    Tensor& out = copy_of_data(ctx);
    assign_at(out, offsets, ctx.in(2), element_bytes(ctx, out.dtype()));
}

}  // namespace

std::span<const KernelEntry> indexing_kernels() {
    static const KernelEntry kKernels[] = {
        {"Subtensor", subtensor},
        {"SetSubtensor", set_subtensor},
        {"IncrSubtensor", incr_subtensor},
        {"IndexingMultiAxisVec", multi_axis_vec},
        {"IndexingSetMultiAxisVec", set_multi_axis_vec},
        {"IndexingIncrMultiAxisVec", incr_multi_axis_vec},
        {"MeshIndexing", mesh_indexing},
        {"SetMeshIndexing", set_mesh_indexing},
        {"IncrMeshIndexing", incr_mesh_indexing},
        {"BatchedMeshIndexing", batched_mesh_indexing},
        {"BatchedSetMeshIndexing", batched_set_mesh_indexing},
        {"BatchedIncrMeshIndexing", batched_incr_mesh_indexing},
        {"IndexingOneHot", indexing_one_hot},
        {"IndexingSetOneHot", indexing_set_one_hot},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
