// The sliding-window attributes Conv, ConvTranspose and the pools share
// (kernel_shape, strides, pads, dilations, auto_pad), read for 2-D NCHW inputs.
#pragma once

#include <vector>

#include "formats/onnx/importer.h"
#include "ir/builder.h"

namespace mgedump::formats::onnx_import {

struct Window2d {
    int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilate_h = 1, dilate_w = 1;
    // What asymmetric pads add beyond the symmetric pad_h/pad_w on each side.
    int64_t extra_top = 0, extra_left = 0, extra_bottom = 0, extra_right = 0;
    bool asymmetric() const { return extra_top || extra_left || extra_bottom || extra_right; }
};

// Fails for non-4-D inputs and unknown auto_pad. MegEngine's convolutions and pools
// pad both sides alike; asymmetric pads fail unless `allow_asymmetric`, when the
// remainder is left in the extra_* fields for pad_asymmetric. `kernel` is (KH, KW).
Window2d read_window(const Importer& c, const Shape& input, const std::vector<int64_t>& kernel,
                     bool allow_asymmetric = false);
// `x` (of shape `shape`, updated) padded by the window's asymmetric remainder with
// `value`: one Padding operator, or nothing when the pads are symmetric.
ir::VarId pad_asymmetric(Importer& c, ir::VarId x, Shape& shape, const Window2d& w, double value);
// pad/stride/dilate params as MegEngine's Convolution and ConvBias name them.
ir::ParamArgs conv_window_params(const Window2d& w);
int64_t window_out(int64_t in, int64_t pad, int64_t k, int64_t stride, int64_t dilate);

}  // namespace mgedump::formats::onnx_import
