#include "formats/onnx/window.h"

#include <fmt/format.h>

#include <algorithm>

namespace mgedump::formats::onnx_import {

Window2d read_window(const Importer& c, const Shape& input, const std::vector<int64_t>& kernel,
                     bool allow_asymmetric) {
    if (input.size() != 4)
        c.fail(fmt::format("only 2-D (NCHW) inputs are supported, input #0 has rank {}", input.size()));
    if (kernel.size() != 2) c.fail("kernel_shape must describe 2 spatial axes");
    auto strides = c.attr_ints("strides", {1, 1});
    auto dilations = c.attr_ints("dilations", {1, 1});
    auto pads = c.attr_ints("pads", {0, 0, 0, 0});
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
        c.fail("strides, dilations and pads must describe 2 spatial axes");
    const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
    if (auto_pad == "VALID") {
        pads = {0, 0, 0, 0};
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        for (size_t k = 0; k < 2; ++k) {
            int64_t in = input[2 + k], out = (in + strides[k] - 1) / strides[k];
            int64_t total =
                std::max<int64_t>(0, (out - 1) * strides[k] + dilations[k] * (kernel[k] - 1) + 1 - in);
            pads[k] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
            pads[k + 2] = total - pads[k];
        }
    } else if (auto_pad != "NOTSET") {
        c.fail(fmt::format("auto_pad '{}' is not supported", auto_pad));
    }
    if ((pads[0] != pads[2] || pads[1] != pads[3]) && !allow_asymmetric)
        c.fail(fmt::format("asymmetric pads [{}] are not supported", fmt::join(pads, ",")));
    Window2d w;
    w.pad_h = std::min(pads[0], pads[2]), w.pad_w = std::min(pads[1], pads[3]);
    w.extra_top = pads[0] - w.pad_h, w.extra_bottom = pads[2] - w.pad_h;
    w.extra_left = pads[1] - w.pad_w, w.extra_right = pads[3] - w.pad_w;
    w.stride_h = strides[0], w.stride_w = strides[1];
    w.dilate_h = dilations[0], w.dilate_w = dilations[1];
    return w;
}

ir::VarId pad_asymmetric(Importer& c, ir::VarId x, Shape& shape, const Window2d& w, double value) {
    if (!w.asymmetric()) return x;
    shape[2] += w.extra_top + w.extra_bottom;
    shape[3] += w.extra_left + w.extra_right;
    return c.emit("Padding", {x},
                  {int_param("front_offset_dim2", w.extra_top),
                   int_param("front_offset_dim3", w.extra_left),
                   int_param("back_offset_dim2", w.extra_bottom),
                   int_param("back_offset_dim3", w.extra_right),
                   float_param("padding_val", value),
                   {"padding_mode", "CONSTANT"}});
}

ir::ParamArgs conv_window_params(const Window2d& w) {
    return {int_param("pad_h", w.pad_h),       int_param("pad_w", w.pad_w),
            int_param("stride_h", w.stride_h), int_param("stride_w", w.stride_w),
            int_param("dilate_h", w.dilate_h), int_param("dilate_w", w.dilate_w)};
}

int64_t window_out(int64_t in, int64_t pad, int64_t k, int64_t stride, int64_t dilate) {
    return (in + 2 * pad - dilate * (k - 1) - 1) / stride + 1;
}

}  // namespace mgedump::formats::onnx_import
