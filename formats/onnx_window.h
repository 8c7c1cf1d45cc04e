// The sliding-window attributes Conv, ConvTranspose and the pools share
// (kernel_shape, strides, pads, dilations, auto_pad), read for 2-D NCHW inputs.
#pragma once

#include <vector>

#include "formats/onnx_importer.h"
#include "ir/builder.h"

namespace mgedump::formats::onnx_import {

struct Window2d {
    int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilate_h = 1, dilate_w = 1;
};

// Fails for non-4-D inputs, unknown auto_pad and asymmetric pads (MegEngine's
// convolutions and pools pad both sides alike). `kernel` is (KH, KW).
Window2d read_window(const Importer& c, const Shape& input, const std::vector<int64_t>& kernel);
// pad/stride/dilate params as MegEngine's Convolution and ConvBias name them.
ir::ParamArgs conv_window_params(const Window2d& w);
int64_t window_out(int64_t in, int64_t pad, int64_t k, int64_t stride, int64_t dilate);

}  // namespace mgedump::formats::onnx_import
