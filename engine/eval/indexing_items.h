// MegEngine's index descriptor as the indexing kernels execute it: the
// IndexDescMaskDump items of an operator's param (which inputs give each item's
// begin, end, step or index, in item order: IndexDescMaskDump::to_index_desc),
// the data view the slices leave (FancyIndexingHelper::do_make_sub_spec, with
// MegEngine's Slice::apply from ir/infer/indexing_slices.h), and the element
// offsets MegDNN's vector-indexing kernels visit (dnn/src/naive/
// indexing_multi_axis_vec, mesh_indexing).
//
// Inference (ir/infer/rules_indexing.cpp) has already checked the items, the
// index dtypes and the shapes; what is left to check here are the index values.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/eval/kernel.h"
#include "engine/eval/shape_views.h"
#include "ir/infer/indexing_slices.h"

namespace mgedump::engine::eval {

using IndexItem = ir::indexing::IndexItem;

// The items of ctx's param, their inputs numbered from `first_input` on.
std::vector<IndexItem> index_items(const KernelContext& ctx, size_t first_input);

// The data after the slices: `scalar_indices` (the Subtensor family) also takes
// each index item as one element and removes its axis (all removed: [1]); the
// vector-indexing operators leave index items to MegDNN.
StridedView sliced_view(const KernelContext& ctx, const std::vector<IndexItem>& items, const ir::Shape& data,
                        bool scalar_indices);

// A vector index as MegDNN receives it: the (normalized) data axis and the Int32 index tensor.
struct VectorIndex {
    uint32_t axis;
    const Tensor* index;
};
// In MegDNN's order (FancyIndexingHelper's sort, reversed: ascending axes).
std::vector<VectorIndex> vector_indices(const KernelContext& ctx, const std::vector<IndexItem>& items,
                                        uint32_t ndim);

// The data offset of each element of `result` (row-major), for
// IndexingMultiAxisVec: the indices broadcast together and, when their axes are
// consecutive, take the place of the first one, else go to the front; a
// negative index counts from the axis end. Refuses an index out of range.
std::vector<int64_t> multi_axis_offsets(const KernelContext& ctx, const StridedView& data,
                                        const std::vector<VectorIndex>& indices, const ir::Shape& result);

// The same for MeshIndexing (each index a vector over its axis) and, `batched`,
// BatchedMeshIndexing (a [batch, n] matrix, row b for batch b).
std::vector<int64_t> mesh_offsets(const KernelContext& ctx, const StridedView& data,
                                  const std::vector<VectorIndex>& indices, const ir::Shape& result,
                                  bool batched);

// MegDNN's computing dtypes (MEGDNN_FOREACH_COMPUTING_DTYPE): the float and
// plain integer types.
bool is_computing_dtype(ir::DTypeEnum t);

// data[offsets[j]] += values[j], in order (repeated offsets add up), with the
// dtype's arithmetic: floats in float, rounded back; integers wrap.
void add_at(const KernelContext& ctx, Tensor& data, std::span<const int64_t> offsets, const Tensor& values);

}  // namespace mgedump::engine::eval
