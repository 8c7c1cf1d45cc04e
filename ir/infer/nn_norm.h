// Inference rules of the normalisation operators and multi-head attention, kept
// apart from rules_nn.cpp (which lists them) to keep each file readable.
#pragma once

#include "ir/infer/context.h"

namespace mgedump::ir::nn {

void batch_norm(InferContext& ctx);       // nn_norm.cpp
void layer_norm(InferContext& ctx);
void group_norm(InferContext& ctx);
void instance_norm(InferContext& ctx);
void group_norm_backward(InferContext& ctx);  // also InstanceNormBackward
void general_norm(InferContext& ctx);
void multi_head_attn(InferContext& ctx);  // nn_mha.cpp

}  // namespace mgedump::ir::nn
