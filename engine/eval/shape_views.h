// Moving elements without computing on them, shared by the shape and indexing
// kernels: a strided view of a row-major tensor (MegEngine's TensorLayout with
// an element offset — what a Dimshuffle, Broadcast, Subtensor or Split part
// reads) and copies between such a view and a contiguous tensor, for every dtype
// whose elements are whole bytes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval {

struct StridedView {
    ir::Shape shape;
    std::vector<int64_t> strides;  // in elements, one per dim; 0 repeats (broadcast)
    int64_t offset = 0;            // element offset of the first element
};

// Output k's shape, which inference knew (the evaluator allocated the output);
// refuses when it did not.
const ir::Shape& output_shape(KernelContext& ctx, size_t k);

// `shape` itself, row-major.
StridedView contiguous_view(const ir::Shape& shape);

// Bytes of one element of `dtype`; refuses (ctx.fail) sub-byte dtypes, which the
// evaluator does not move.
uint32_t element_bytes(const KernelContext& ctx, ir::DType dtype);

// dst (contiguous, view.shape) = the view's elements of src, in row-major order.
void gather_view(const Tensor& src, const StridedView& view, Tensor& dst, uint32_t elem_bytes);
// The view's elements of dst = src (contiguous, view.shape). A view that repeats
// an element (stride 0) keeps the last write.
void scatter_view(const Tensor& src, Tensor& dst, const StridedView& view, uint32_t elem_bytes);

// Element offsets, in `data`, of a gather/scatter: dst[j] = data[offsets[j]].
void gather_at(const Tensor& data, std::span<const int64_t> offsets, Tensor& dst, uint32_t elem_bytes);
void assign_at(Tensor& data, std::span<const int64_t> offsets, const Tensor& values, uint32_t elem_bytes);

}  // namespace mgedump::engine::eval
