// DeformableConv kernels (MegDNN's dnn/src/naive/deformable_conv): a convolution
// whose every tap samples the input bilinearly at a learned offset, scaled by a
// mask, with its backward data (gradients of input, offset and mask) and
// backward filter. Float32, NCHW, plain loops in MegDNN's order.
#pragma once

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval {

void deformable_conv_forward(KernelContext& ctx);          // (src, filter, offset, mask) -> dst
void deformable_conv_backward_data(KernelContext& ctx);    // (..., diff) -> grads of src, offset, mask
void deformable_conv_backward_filter(KernelContext& ctx);  // (..., diff) -> grad of filter

}  // namespace mgedump::engine::eval
