// The sliding-window attributes Conv, ConvTranspose and the pools share
// (kernel_shape, strides, pads, dilations, auto_pad), read for 1-, 2- and 3-D
// inputs (N, C, spatial...), and the helpers that place ONNX's windows on
// MegEngine's operators, which pad both sides of an axis alike.
#pragma once

#include <vector>

#include "formats/onnx/importer.h"
#include "ir/builder.h"

namespace mgedump::formats::onnx_import {

// One entry per spatial axis.
struct Window {
    std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
    size_t dims() const { return kernel.size(); }
    // The pad MegEngine applies on both sides of axis k, and what ONNX adds beyond it.
    int64_t sym_pad(size_t k) const { return std::min(pads_begin[k], pads_end[k]); }
    int64_t extra_begin(size_t k) const { return pads_begin[k] - sym_pad(k); }
    int64_t extra_end(size_t k) const { return pads_end[k] - sym_pad(k); }
};

// Fails unless `input` has 1 to 3 spatial axes and the attributes describe that
// many. auto_pad VALID / SAME_UPPER / SAME_LOWER become pads (the forward rule:
// output ceil(in / stride)) unless `resolve_auto_pad` is false (ConvTranspose
// computes its own).
Window read_window(const Importer& c, const Shape& input, const std::vector<int64_t>& kernel,
                   bool resolve_auto_pad = true);

// `x` (of shape `shape`, updated) extended on its spatial axes (2, 3, ...) by
// `front` / `back` elements of `value`: one Padding, or nothing when all are 0.
ir::VarId pad_spatial(Importer& c, ir::VarId x, Shape& shape, const std::vector<int64_t>& front,
                      const std::vector<int64_t>& back, double value);
// x padded by the window's asymmetric remainder (extra_begin / extra_end).
ir::VarId pad_asymmetric(Importer& c, ir::VarId x, Shape& shape, const Window& w, double value);

int64_t window_out(int64_t in, int64_t pad, int64_t k, int64_t stride, int64_t dilate);

}  // namespace mgedump::formats::onnx_import
