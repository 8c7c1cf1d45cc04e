// Conv, ConvTranspose and BatchNormalization. Conv becomes ConvBias when it has a
// bias (bias viewed as (1, OC, 1, 1)) and Convolution otherwise; groups use
// sparse=GROUP with the weights viewed as (G, OC/G, IC/G, KH, KW) — same bytes, so
// weights stay views into the model. A BatchNormalization whose input is a Conv
// output read by nothing else is folded into that Conv (see formats/onnx/batch_norm.h).
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "formats/onnx/batch_norm.h"
#include "formats/onnx/values.h"
#include "formats/onnx/window.h"

namespace mgedump::formats::onnx_import {
namespace {

// The same value seen with another shape (a constant keeps its bytes and name).
ir::VarId reshaped(Importer& c, size_t input, const Shape& shape) {
    const Value& v = c.input(input);
    if (v.is_const) {
        Value view = v;
        view.shape = shape;
        view.var = {};
        return c.materialize(view, c.node().input(static_cast<int>(input)));
    }
    return c.reshape(c.var(input), shape);
}

ir::VarId value_var(Importer& c, Value v, std::string_view name) { return c.materialize(v, name); }

// Only 2-D convolutions are mapped: data (N, C, H, W) and weight of rank 4.
void check_conv_ranks(Importer& c, const Value& x, const Value& w) {
    if (x.shape.size() != 4)
        c.fail(fmt::format("data (input #0) must have rank 4 (N, C, H, W), has {}", x.shape.size()));
    if (w.shape.size() != 4)
        c.fail(fmt::format("weight (input #1) must have rank 4, has {}", w.shape.size()));
}

void conv(Importer& c) {
    c.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
    const Value &x = c.input(0), &w = c.input(1);
    check_conv_ranks(c, x, w);
    const int64_t group = c.attr_int("group", 1);
    const int64_t oc = w.shape[0];
    if (group < 1 || oc % group != 0 || x.shape[1] != w.shape[1] * group)
        c.fail(fmt::format("group {} does not divide the channels (input {}, weight [{}])", group, x.shape[1],
                           fmt::join(w.shape, ",")));
    auto kernel = c.attr_ints("kernel_shape", {w.shape[2], w.shape[3]});
    if (kernel != std::vector<int64_t>{w.shape[2], w.shape[3]})
        c.fail("kernel_shape does not match the weight");
    Window2d win = read_window(c, x.shape, kernel, /*allow_asymmetric=*/true);
    // Asymmetric pads (TensorFlow's SAME): the remainder as a zero Padding first.
    Shape in_shape = x.shape;
    ir::VarId in = pad_asymmetric(c, c.var(0), in_shape, win, 0.0);
    Shape out{x.shape[0], oc, window_out(in_shape[2], win.pad_h, kernel[0], win.stride_h, win.dilate_h),
              window_out(in_shape[3], win.pad_w, kernel[1], win.stride_w, win.dilate_w)};
    Shape wshape = group == 1 ? w.shape : Shape{group, oc / group, w.shape[1], w.shape[2], w.shape[3]};
    ir::ParamArgs params = conv_window_params(win);
    params.emplace_back("sparse", group == 1 ? "DENSE" : "GROUP");

    std::optional<FoldedConv> folded;
    if (c.options().fold_batch_norm) folded = fold_following_batch_norm(c);
    ir::VarId y;
    if (folded) {
        folded->weight.shape = wshape;
        folded->bias.shape = {1, oc, 1, 1};
        ir::VarId wv = value_var(c, folded->weight, c.node().input(1));
        ir::VarId bv = value_var(c, folded->bias, "bias");
        y = c.emit("ConvBias", {in, wv, bv}, params);
        c.fused_batch_norms()[folded->batch_norm_output] = c.node().output(0);
        c.set_output_var(0, y, x.elem_type, out);
        c.alias_output_name(folded->batch_norm_output, 0);
        return;
    }
    ir::VarId wv = reshaped(c, 1, wshape);
    if (c.has_input(2)) {
        if (c.input(2).shape != Shape{oc}) c.fail(fmt::format("bias (input #2) must have shape [{}]", oc));
        y = c.emit("ConvBias", {in, wv, reshaped(c, 2, {1, oc, 1, 1})}, params);
    } else {
        y = c.emit("Convolution", {in, wv}, params);
    }
    c.set_output_var(0, y, x.elem_type, out);
}

// ConvolutionBackwardData(filter, data): MegEngine's conv_transpose2d. ONNX's
// weight (C, M/G, KH, KW) is MegEngine's layout; groups view it as (G, C/G, M/G, KH, KW).
void conv_transpose(Importer& c) {
    c.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", "output_padding"});
    const Value &x = c.input(0), &w = c.input(1);
    check_conv_ranks(c, x, w);
    for (int64_t p : c.attr_ints("output_padding", {0, 0}))
        if (p != 0) c.fail("output_padding is not supported");
    if (c.attr_string("auto_pad", "NOTSET") != "NOTSET") c.fail("auto_pad is not supported");
    const int64_t group = c.attr_int("group", 1);
    if (group < 1 || w.shape[0] % group != 0 || x.shape[1] != w.shape[0])
        c.fail(fmt::format("group {} does not match the channels (input {}, weight [{}])", group, x.shape[1],
                           fmt::join(w.shape, ",")));
    auto kernel = c.attr_ints("kernel_shape", {w.shape[2], w.shape[3]});
    Window2d win = read_window(c, x.shape, kernel);
    const int64_t oc = w.shape[1] * group;
    Shape out{x.shape[0], oc,
              (x.shape[2] - 1) * win.stride_h - 2 * win.pad_h + win.dilate_h * (kernel[0] - 1) + 1,
              (x.shape[3] - 1) * win.stride_w - 2 * win.pad_w + win.dilate_w * (kernel[1] - 1) + 1};
    Shape wshape =
        group == 1 ? w.shape : Shape{group, w.shape[0] / group, w.shape[1], w.shape[2], w.shape[3]};
    ir::ParamArgs params = conv_window_params(win);
    params.emplace_back("sparse", group == 1 ? "DENSE" : "GROUP");
    ir::VarId y = c.emit("ConvolutionBackwardData", {reshaped(c, 1, wshape), c.var(0)}, params);
    if (c.has_input(2)) {
        if (c.input(2).shape != Shape{oc}) c.fail(fmt::format("bias (input #2) must have shape [{}]", oc));
        y = c.emit("Elemwise", {y, reshaped(c, 2, {1, oc, 1, 1})}, {{"mode", "ADD"}});
    }
    c.set_output_var(0, y, x.elem_type, out);
}

// Not after a foldable Conv: y = x * scale' + bias' as one FUSE_MUL_ADD3, with
// scale' and bias' computed at import time.
void batch_norm(Importer& c) {
    BatchNormScale bn = read_batch_norm(c);
    const Value& x = c.input(0);
    Shape s(x.shape.size(), 1);
    if (s.size() < 2) c.fail("input must have a channel axis");
    s[1] = static_cast<int64_t>(bn.scale.size());
    Value scale = float_const(bn.scale, s), bias = float_const(bn.bias, s);
    scale.param_name = c.node().output(0) + ".scale";
    bias.param_name = c.node().output(0) + ".bias";
    ir::VarId y = c.emit(
        "Elemwise", {c.var(0), value_var(c, scale, scale.param_name), value_var(c, bias, bias.param_name)},
        {{"mode", "FUSE_MUL_ADD3"}});
    c.set_output_var(0, y, x.elem_type, x.shape);
}

constexpr OpHandler kHandlers[] = {
    {"Conv", conv},
    {"ConvTranspose", conv_transpose},
    {"BatchNormalization", batch_norm},
};

}  // namespace

std::span<const OpHandler> conv_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
