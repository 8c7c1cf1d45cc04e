// Kernels of the operators that stand for tensors (io.sereg.h): constants and
// params give their stored value; Host2DeviceCopy is fed by the evaluator
// itself. Identity-like operators pass their input on without a copy.
#include "engine/eval/kernels.h"

#include "ir/graph.h"

namespace mgedump::engine::eval {
namespace {

// One stored tensor per output, as its dtype and shape.
void stored_tensors(KernelContext& ctx) {
    const ir::Graph& g = ctx.graph();
    const ir::Range tensors = g.oprs.tensors[ctx.opr().value];
    if (tensors.count != ctx.nr_outputs()) ctx.fail("has {} tensors for {} outputs", tensors.count, ctx.nr_outputs());
    for (uint32_t k = 0; k < tensors.count; ++k) {
        const ir::TensorId t(tensors.begin + k);
        const ir::BlobId blob = g.tensors.blob[t.value];
        if (!blob.valid()) ctx.fail("tensor {} has no value", k);
        // Viewed where it is stored (a weight is not copied on every run).
        ctx.out(k) = Tensor::view_of(g.tensors.dtype[t.value], ir::Shape::of(g.tensor_shape(t)), g.blobs.bytes(blob),
                                     g.blobs.owner(blob));
    }
}

// Operators whose value is their first input's (they exist for the graph's
// dependencies, memory or broadcasting rules, not for the numbers).
void pass_through(KernelContext& ctx) { ctx.out(0) = Tensor::reshaped(ctx.in(0), ctx.out(0).empty() ? ctx.in(0).shape() : ctx.out(0).shape()); }

}  // namespace

std::span<const KernelEntry> io_kernels() {
    static const KernelEntry kKernels[] = {
        {"ImmutableTensor", stored_tensors},
        {"SharedDeviceTensor", stored_tensors},
        {"VolatileSharedDeviceTensor", stored_tensors},
        {"SharedDeviceTensorWithFormat", stored_tensors},
        {"MultipleDeviceTensorHolder", stored_tensors},
        {"MultipleDeviceTensorWithFormatHolder", stored_tensors},
        {"Identity", pass_through},
        {"Copy", pass_through},
        {"MarkDynamicVar", pass_through},
        {"MarkNoBroadcastElemwise", pass_through},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
