// MultiHeadAttn (MultiHeadAttnForward) as MegDNN's naive kernel computes it
// (dnn/src/common/multi_head_attn/proxy_forward_base.cpp): optional q/k/v
// projections with biases, the heads split off the projected features (or the
// unprojected inputs repeated per head), softmax(scale·q·kᵀ [+ mask])·v, the
// heads merged, an optional output projection; dropout when training.
#pragma once

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval {

void multi_head_attn(KernelContext& ctx);

}  // namespace mgedump::engine::eval
