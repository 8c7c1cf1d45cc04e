// BatchNormalization at inference: y = x * scale + bias per channel, with
// scale = gamma / sqrt(var + eps) and bias = beta - mean * scale computed at import
// time, either folded into the Conv before it or applied as one Elemwise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

struct BatchNormScale {
    std::vector<float> scale, bias;
};

// The current node is a BatchNormalization; fails naming what is unsupported
// (training mode, extra outputs, non-constant statistics).
BatchNormScale read_batch_norm(const Importer& c);

// The current node is an inference BatchNormalization whose scale, B, mean or var
// is known only at run time: the normalisation computed with Elemwise.
void batch_norm_of_runtime_statistics(Importer& c);
// The current node is a BatchNormalization with training_mode = 1: normalised with
// the batch's statistics, and the running statistics updated.
void batch_norm_training(Importer& c);

struct FoldedConv {
    Value weight, bias;  // new owned constants, named after the Conv weight / BN bias
    std::string batch_norm_output;
};

// The current node is a Conv whose only reader is a BatchNormalization that can be
// folded (constant float weights and statistics, inference mode): the rescaled
// weight and bias. nullopt leaves the BN to be converted on its own.
std::optional<FoldedConv> fold_following_batch_norm(const Importer& c);

}  // namespace mgedump::formats::onnx_import
