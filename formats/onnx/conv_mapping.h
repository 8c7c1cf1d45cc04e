// Conv's mapping (formats/onnx/ops_conv.cpp) for the integer convolutions
// (ConvInteger, QLinearConv in ops_quantize.cpp), which override the data and
// weight inputs with their zero-point-free Float32 values and reuse Conv's
// windows, padding, groups and 1-/3-D layouts.
#pragma once

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

struct ConvResult {
    ir::VarId var;
    Shape shape;  // ONNX's (N, OC, spatial...)
};

// The current node's inputs #0 (data) and #1 (weight) convolved as ONNX's Conv with
// the node's attributes. `with_bias`: input #2 is Conv's bias and a following
// BatchNormalization may be folded (then output #0 is already set).
ConvResult conv_mapped(Importer& c, bool with_bias);

}  // namespace mgedump::formats::onnx_import
