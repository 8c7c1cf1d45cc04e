// Inference rules: operators that stand for tensors (io.sereg.h) and custom
// operators. An output is its tensor: dtype and shape as stored; an
// ImmutableTensor's value is known statically (MegEngine infers it), a
// SharedDeviceTensor's or input's is not (it can change between runs).
#include "ir/infer/rules.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir {
namespace {

void tensor_outputs(InferContext& ctx) {
    const Graph& g = ctx.graph();
    if (ctx.nr_tensors() != ctx.nr_outputs())
        ctx.fail("has {} tensors for {} outputs", ctx.nr_tensors(), ctx.nr_outputs());
    for (uint32_t k = 0; k < ctx.nr_outputs(); ++k) {
        const TensorId t = ctx.tensor(k);
        ctx.set_output_dims(k, g.tensors.dtype[t.value], g.tensor_shape(t));
    }
}

// The value is known statically, but decoded only when a rule reads it
// (InferContext::value, constant_value).
void immutable_tensor(InferContext& ctx) { tensor_outputs(ctx); }
void device_tensor(InferContext& ctx) { tensor_outputs(ctx); }

// A custom operator's outputs are defined by its own library, which mgedump
// does not load: they stay unknown (dtype and shape), as the file has them.
void custom_op(InferContext& ctx) {
    for (size_t k = 0; k < ctx.nr_outputs(); ++k) ctx.set_output(k, ctx.config_dtype(), Shape{});
}

}  // namespace

std::span<const InferRuleEntry> io_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Host2DeviceCopy", device_tensor, true},
        {"ImmutableTensor", immutable_tensor, true},
        {"SharedDeviceTensor", device_tensor, true},
        {"VolatileSharedDeviceTensor", device_tensor, true},
        {"MultipleDeviceTensorHolder", device_tensor, true},
        {"SharedDeviceTensorWithFormat", device_tensor, true},
        {"MultipleDeviceTensorWithFormatHolder", device_tensor, true},
        {"CustomOpNode", custom_op},
    };
    return kRules;
}

}  // namespace mgedump::ir
