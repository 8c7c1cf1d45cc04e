// Kernels of the shape family (src/opr/impl/tensor_manip.cpp): operators that
// move elements without computing on them. Output shapes come from inference
// (ir/infer/rules_shape.cpp), which has already checked every rule; a kernel
// only moves the elements. Where the elements keep their row-major order
// (Reshape, AxisAddRemove, a Dimshuffle that only adds or drops axes of 1) the
// output shares the input's storage.
#include <algorithm>

#include "engine/eval/kernels.h"
#include "engine/eval/shape_views.h"
#include "ir/infer/indexing_slices.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

// The output shares the input's elements under the inferred shape.
void same_elements(KernelContext& ctx) { ctx.out(0) = Tensor::reshaped(ctx.in(0), output_shape(ctx, 0)); }

// Output = the input seen through `view` (strides over the input).
void copy_view(KernelContext& ctx, const StridedView& view) {
    gather_view(ctx.in(0), view, ctx.out(0), element_bytes(ctx, ctx.in(0).dtype()));
}

// TensorLayout::broadcast: right-aligned; an input dim equal to the target's
// is read with its stride, a dim of 1 (or a missing one) repeats (stride 0).
// A [1] input repeats everywhere.
void broadcast(KernelContext& ctx) {
    const ir::Shape& in = ctx.in(0).shape();
    const ir::Shape& out = output_shape(ctx, 0);
    if (in.elements() == out.elements()) return same_elements(ctx);
    const std::vector<int64_t> in_strides = ir::indexing::contiguous_strides(in);
    StridedView view{out, std::vector<int64_t>(out.ndim, 0), 0};
    for (uint32_t k = 0; k < out.ndim; ++k) {
        const int64_t ik = static_cast<int64_t>(k) + in.ndim - out.ndim;
        if (ik >= 0 && in.dim[ik] == out.dim[k]) view.strides[k] = in_strides[ik];
    }
    copy_view(ctx, view);
}

// Output axis k is input axis pattern[k], or a new axis of 1 for -1; input axes
// of 1 that the pattern leaves out go.
void dimshuffle(KernelContext& ctx) {
    const std::vector<int32_t>& pattern = ctx.params().ints_field("pattern");
    const ir::Shape& in = ctx.in(0).shape();
    const ir::Shape& out = output_shape(ctx, 0);
    // The axes longer than 1 in their input order: then nothing moves.
    std::vector<int32_t> kept;
    for (int32_t p : pattern)
        if (p >= 0 && in.dim[p] != 1) kept.push_back(p);
    if (std::is_sorted(kept.begin(), kept.end())) return same_elements(ctx);
    const std::vector<int64_t> in_strides = ir::indexing::contiguous_strides(in);
    StridedView view{out, std::vector<int64_t>(out.ndim, 0), 0};
    for (uint32_t k = 0; k < out.ndim; ++k)
        if (pattern[k] >= 0) view.strides[k] = in_strides[pattern[k]];
    copy_view(ctx, view);
}

// Each input fills its block of the axis, input after input.
void concat(KernelContext& ctx) {
    Tensor& out = ctx.out(0);
    const ir::Shape& out_shape = output_shape(ctx, 0);
    const uint32_t axis = *ir::normalize_axis(ctx.params().int_field("axis"), out_shape.ndim);
    const uint32_t bytes = element_bytes(ctx, out.dtype());
    const std::vector<int64_t> out_strides = ir::indexing::contiguous_strides(out_shape);
    int64_t start = 0;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) {
        const Tensor& in = ctx.in(i);
        scatter_view(in, out, StridedView{in.shape(), out_strides, start * out_strides[axis]}, bytes);
        start += in.shape().dim[axis];
    }
}

// Output p is the block of the axis after the first p parts.
void split(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    const uint32_t axis = *ir::normalize_axis(ctx.params().int_field("axis"), in.shape().ndim);
    const uint32_t bytes = element_bytes(ctx, in.dtype());
    const std::vector<int64_t> in_strides = ir::indexing::contiguous_strides(in.shape());
    int64_t start = 0;
    for (size_t p = 0; p < ctx.nr_outputs(); ++p) {
        const ir::Shape& part = output_shape(ctx, p);
        gather_view(in, StridedView{part, in_strides, start * in_strides[axis]}, ctx.out(p), bytes);
        start += part.dim[axis];
    }
}

// The inputs' broadcast shape as Int32, or its dim `axis` (INVALID_AXIS, 7:
// the whole shape).
void get_var_shape(KernelContext& ctx) {
    std::vector<ir::Shape> shapes;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) shapes.push_back(ctx.in(i).shape());
    const std::optional<ir::Shape> s = ir::broadcast_shapes(shapes);
    if (!s || !s->known()) ctx.fail("the input shapes do not broadcast together");
    output_shape(ctx, 0);
    std::span<int32_t> out = ctx.out(0).mutable_data<int32_t>();
    const int64_t axis = ctx.params().int_field("axis");
    if (axis == 7) {
        for (uint32_t k = 0; k < s->ndim; ++k) out[k] = static_cast<int32_t>(s->dim[k]);
        return;
    }
    out[0] = static_cast<int32_t>(s->dim[*ir::normalize_axis(axis, s->ndim)]);
}

// VirtualDep's extra inputs only order execution; PersistentOutputStorage only
// keeps its output's memory across runs. Both give input 0's value.
void first_input(KernelContext& ctx) { ctx.out(0) = ctx.in(0); }

}  // namespace

std::span<const KernelEntry> shape_kernels() {
    static const KernelEntry kKernels[] = {
        {"Reshape", same_elements},
        {"AxisAddRemove", same_elements},
        {"Broadcast", broadcast},
        {"Dimshuffle", dimshuffle},
        {"Concat", concat},
        {"Split", split},
        {"GetVarShape", get_var_shape},
        {"VirtualDep", first_input},
        {"PersistentOutputStorage", first_input},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
