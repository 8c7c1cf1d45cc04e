#include "formats/onnx/window.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace mgedump::formats::onnx_import {

Window read_window(const Importer& c, const Shape& input, const std::vector<int64_t>& kernel,
                   bool resolve_auto_pad) {
    if (input.size() < 3 || input.size() > 5)
        c.fail(fmt::format("only 1-, 2- and 3-D inputs (N, C, spatial...) are supported, input #0 has rank {}",
                           input.size()));
    const size_t n = input.size() - 2;
    if (kernel.size() != n) c.fail(fmt::format("kernel_shape must describe {} spatial axes", n));
    Window w;
    w.kernel = kernel;
    w.strides = c.attr_ints("strides", std::vector<int64_t>(n, 1));
    w.dilations = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
    auto pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (w.strides.size() != n || w.dilations.size() != n || pads.size() != 2 * n)
        c.fail(fmt::format("strides, dilations and pads must describe {} spatial axes", n));
    for (size_t k = 0; k < n; ++k) {
        if (w.strides[k] < 1 || w.dilations[k] < 1 || w.kernel[k] < 1)
            c.fail(fmt::format("kernel {}, stride {} and dilation {} must be positive", w.kernel[k], w.strides[k],
                               w.dilations[k]));
        if (pads[k] < 0 || pads[k + n] < 0) c.fail(fmt::format("negative pads [{}]", fmt::join(pads, ",")));
    }
    const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
    if (auto_pad == "VALID") {
        if (resolve_auto_pad) pads.assign(2 * n, 0);
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        if (resolve_auto_pad)
            for (size_t k = 0; k < n; ++k) {
                int64_t in = input[2 + k], out = (in + w.strides[k] - 1) / w.strides[k];
                int64_t total = std::max<int64_t>(
                    0, (out - 1) * w.strides[k] + w.dilations[k] * (kernel[k] - 1) + 1 - in);
                pads[k] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
                pads[k + n] = total - pads[k];
            }
    } else if (auto_pad != "NOTSET") {
        c.fail(fmt::format("auto_pad '{}' is not supported", auto_pad));
    }
    w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
    w.pads_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
    return w;
}

ir::VarId pad_spatial(Importer& c, ir::VarId x, Shape& shape, const std::vector<int64_t>& front,
                      const std::vector<int64_t>& back, double value) {
    bool any = false;
    ir::ParamArgs params{{"padding_mode", "CONSTANT"}, float_param("padding_val", value)};
    for (size_t k = 0; k < front.size(); ++k) {
        if (front[k] == 0 && back[k] == 0) continue;
        any = true;
        params.push_back(int_param(fmt::format("front_offset_dim{}", k + 2), front[k]));
        params.push_back(int_param(fmt::format("back_offset_dim{}", k + 2), back[k]));
        shape[k + 2] += front[k] + back[k];
    }
    return any ? c.emit("Padding", {x}, params) : x;
}

ir::VarId pad_asymmetric(Importer& c, ir::VarId x, Shape& shape, const Window& w, double value) {
    std::vector<int64_t> front, back;
    for (size_t k = 0; k < w.dims(); ++k) {
        front.push_back(w.extra_begin(k));
        back.push_back(w.extra_end(k));
    }
    return pad_spatial(c, x, shape, front, back, value);
}

int64_t window_out(int64_t in, int64_t pad, int64_t k, int64_t stride, int64_t dilate) {
    return (in + 2 * pad - dilate * (k - 1) - 1) / stride + 1;
}

}  // namespace mgedump::formats::onnx_import
