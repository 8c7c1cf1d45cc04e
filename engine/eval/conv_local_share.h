// LocalShare kernels (MegDNN's dnn/src/naive/local_share): a convolution whose
// filter differs per spatial block of the output (spatial_groups_h × _w blocks),
// with its backward data and backward filter. Float32, NCHW, plain loops.
#pragma once

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval {

void local_share_forward(KernelContext& ctx);          // (src, filter) -> dst
void local_share_backward_data(KernelContext& ctx);    // (filter, diff, like) -> grad of src
void local_share_backward_filter(KernelContext& ctx);  // (src, diff, like filter) -> grad of filter

}  // namespace mgedump::engine::eval
