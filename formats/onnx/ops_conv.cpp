// Conv, ConvTranspose and BatchNormalization, for 1-, 2- and 3-D data.
//
// 2-D Conv becomes ConvBias when it has a bias (bias viewed as (1, OC, 1, 1)) and
// Convolution otherwise; groups use sparse=GROUP with the weights viewed as
// (G, OC/G, IC/G, KH, KW): same bytes, so weights stay views into the model.
// 1-D is the 2-D operator over an inserted unit axis (N, C, 1, L) with a (.., 1, K)
// kernel: the same sums. 3-D is Convolution3D (+ Elemwise ADD of the bias).
// MegEngine pads both sides alike; ONNX's asymmetric remainder is a zero Padding
// first. A BatchNormalization whose input is a Conv output read by nothing else is
// folded into that Conv (see formats/onnx/batch_norm.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "formats/onnx/batch_norm.h"
#include "formats/onnx/conv_mapping.h"
#include "formats/onnx/onnx_proto.h"
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

// How an ONNX convolution of `spatial` axes sits on MegEngine's operators: the
// data lifted to 2-D for 1-D, the weight's view, the bias's view, the params.
struct ConvLayout {
    size_t spatial;
    bool lifted() const { return spatial == 1; }
    // (OC or IC, per-group channels, K...) → MegEngine's view: a unit axis for
    // 1-D, a leading group axis for sparse=GROUP.
    Shape weight(const Shape& w, int64_t group) const {
        Shape s = w;
        if (lifted()) s.insert(s.begin() + 2, 1);
        if (group > 1) {
            s[0] /= group;
            s.insert(s.begin(), group);
        }
        return s;
    }
    Shape bias(int64_t channels) const {
        Shape s(lifted() ? 4 : spatial + 2, 1);
        s[1] = channels;
        return s;
    }
    // (N, C, L) → (N, C, 1, L); others unchanged.
    Shape data(const Shape& x) const {
        if (!lifted()) return x;
        return {x[0], x[1], 1, x[2]};
    }
    // pad/stride/dilate params for symmetric pads `pad` per axis.
    ir::ParamArgs params(const Window& w, const std::vector<int64_t>& pad, int64_t group) const {
        ir::ParamArgs p;
        static const char* const kAxes3[] = {"d", "h", "w"};
        static const char* const kAxes2[] = {"h", "w"};
        const bool three = spatial == 3;
        const size_t n = three ? 3 : 2;
        for (size_t k = 0; k < n; ++k) {
            const char* a = three ? kAxes3[k] : kAxes2[k];
            // The lifted unit axis (k == 0 for 1-D): no pad, stride 1, dilation 1.
            const bool unit = lifted() && k == 0;
            const size_t i = lifted() ? k - 1 : k;
            p.push_back(int_param(fmt::format("pad_{}", a), unit ? 0 : pad[i]));
            p.push_back(int_param(fmt::format("stride_{}", a), unit ? 1 : w.strides[i]));
            p.push_back(int_param(fmt::format("dilate_{}", a), unit ? 1 : w.dilations[i]));
        }
        p.emplace_back("sparse", group == 1 ? "DENSE" : "GROUP");
        return p;
    }
};

void check_ranks(Importer& c, const Value& x, const Value& w) {
    if (x.shape.size() < 3 || x.shape.size() > 5)
        c.fail(fmt::format("data (input #0) must have rank 3, 4 or 5 (N, C, spatial...), has {}", x.shape.size()));
    if (w.shape.size() != x.shape.size())
        c.fail(fmt::format("weight (input #1) must have rank {} like the data, has {}", x.shape.size(),
                           w.shape.size()));
}

std::vector<int64_t> kernel_of(Importer& c, const Value& w) {
    std::vector<int64_t> from_weight(w.shape.begin() + 2, w.shape.end());
    auto kernel = c.attr_ints("kernel_shape", from_weight);
    if (kernel != from_weight)
        c.fail(fmt::format("kernel_shape [{}] does not match the weight [{}]", fmt::join(kernel, ","),
                           fmt::join(w.shape, ",")));
    return kernel;
}

}  // namespace

// Conv's mapping; `with_bias` false (ConvInteger, QLinearConv: their inputs #2.. are
// zero points and scales) reads no bias and folds no BatchNormalization.
ConvResult conv_mapped(Importer& c, bool with_bias) {
    c.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
    const Value &x = c.input(0), &w = c.input(1);
    check_ranks(c, x, w);
    const int64_t group = c.attr_int("group", 1);
    const int64_t oc = w.shape[0];
    if (group < 1 || oc % group != 0 || x.shape[1] != w.shape[1] * group)
        c.fail(fmt::format("group {} does not divide the channels (input {}, weight [{}])", group, x.shape[1],
                           fmt::join(w.shape, ",")));
    const std::vector<int64_t> kernel = kernel_of(c, w);
    const Window win = read_window(c, x.shape, kernel);
    const ConvLayout layout{win.dims()};
    // Asymmetric pads (TensorFlow's SAME): the remainder as a zero Padding first.
    Shape in_shape = x.shape;
    ir::VarId in = pad_asymmetric(c, c.var(0), in_shape, win, 0.0);
    Shape out{x.shape[0], oc};
    std::vector<int64_t> pad;
    for (size_t k = 0; k < win.dims(); ++k) {
        pad.push_back(win.sym_pad(k));
        out.push_back(window_out(in_shape[2 + k], pad[k], kernel[k], win.strides[k], win.dilations[k]));
    }
    if (layout.lifted()) in = c.reshape(in, layout.data(in_shape));
    const Shape wshape = layout.weight(w.shape, group);
    const ir::ParamArgs params = layout.params(win, pad, group);

    ir::VarId wv;
    std::optional<ir::VarId> bv;
    std::optional<FoldedConv> folded;
    if (with_bias && c.options().fold_batch_norm) folded = fold_following_batch_norm(c);
    if (folded) {
        folded->weight.shape = wshape;
        folded->bias.shape = layout.bias(oc);
        wv = c.materialize(folded->weight, c.node().input(1));
        bv = c.materialize(folded->bias, "bias");
    } else {
        wv = reshaped(c, 1, wshape);
        if (with_bias && c.has_input(2)) {
            if (c.input(2).shape != Shape{oc}) c.fail(fmt::format("bias (input #2) must have shape [{}]", oc));
            bv = reshaped(c, 2, layout.bias(oc));
        }
    }
    ir::VarId y;
    if (layout.spatial == 3) {
        y = c.emit("Convolution3D", {in, wv}, params);
        if (bv) y = c.emit("Elemwise", {y, *bv}, {{"mode", "ADD"}});
    } else {
        y = bv ? c.emit("ConvBias", {in, wv, *bv}, params) : c.emit("Convolution", {in, wv}, params);
    }
    if (layout.lifted()) y = c.reshape(y, out);
    if (folded) {
        c.set_output_var(0, y, x.elem_type, out);
        c.fused_batch_norms()[folded->batch_norm_output] = c.node().output(0);
        c.alias_output_name(folded->batch_norm_output, 0);
    }
    return {y, out};
}

namespace {

void conv(Importer& c) {
    ConvResult r = conv_mapped(c, /*with_bias=*/true);
    c.set_output_var(0, r.var, c.input(0).elem_type, r.shape);
}

int64_t floor_div2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

// ConvTranspose as ConvolutionBackwardData(filter, data) (Convolution3DBackwardData
// for 3-D): MegEngine's conv_transpose. ONNX's weight (C, M/G, K...) is MegEngine's
// layout; groups view it as (G, C/G, M/G, K...). The full transposed convolution
// along an axis has F = (in - 1)·stride + (K - 1)·dilation + 1 elements; ONNX keeps
// [pad_begin, pad_begin + L) of it, L = F + output_padding - pad_begin - pad_end
// (pads may come from output_shape or auto_pad, and may then be negative). MegEngine
// crops min(pad_begin, pad_end − output_padding) from both ends; the rest is a
// Subtensor of the asymmetric remainder and a zero Padding of what lies beyond F,
// then the bias.
void conv_transpose(Importer& c) {
    c.check_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", "output_padding",
                   "output_shape"});
    const Value &x = c.input(0), &w = c.input(1);
    check_ranks(c, x, w);
    const int64_t group = c.attr_int("group", 1);
    if (group < 1 || w.shape[0] % group != 0 || x.shape[1] != w.shape[0])
        c.fail(fmt::format("group {} does not match the channels (input {}, weight [{}])", group, x.shape[1],
                           fmt::join(w.shape, ",")));
    const std::vector<int64_t> kernel = kernel_of(c, w);
    const Window win = read_window(c, x.shape, kernel, /*resolve_auto_pad=*/false);
    const size_t n = win.dims();
    const ConvLayout layout{n};
    const auto output_padding = c.attr_ints("output_padding", std::vector<int64_t>(n, 0));
    if (output_padding.size() != n) c.fail(fmt::format("output_padding must describe {} spatial axes", n));
    std::vector<int64_t> output_shape = c.attr_ints("output_shape");
    if (output_shape.size() == n + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
    const std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
    if (output_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER"))
        for (size_t k = 0; k < n; ++k) output_shape.push_back(x.shape[2 + k] * win.strides[k]);
    if (!output_shape.empty() && output_shape.size() != n)
        c.fail(fmt::format("output_shape [{}] must describe {} spatial axes", fmt::join(output_shape, ","), n));
    std::vector<int64_t> full(n), pb(n), pe(n), len(n);
    for (size_t k = 0; k < n; ++k) {
        if (output_padding[k] < 0) c.fail("negative output_padding");
        full[k] = (x.shape[2 + k] - 1) * win.strides[k] + (kernel[k] - 1) * win.dilations[k] + 1;
        if (!output_shape.empty()) {
            // ONNX's rule for pads from output_shape (floor halves; SAME_UPPER puts the odd one last).
            const int64_t total = full[k] + output_padding[k] - output_shape[k];
            pb[k] = auto_pad == "SAME_UPPER" ? floor_div2(total) : total - floor_div2(total);
            pe[k] = total - pb[k];
        } else if (auto_pad == "VALID") {
            pb[k] = pe[k] = 0;
        } else {
            pb[k] = win.pads_begin[k], pe[k] = win.pads_end[k];
        }
        len[k] = full[k] + output_padding[k] - pb[k] - pe[k];
        if (len[k] < 1) c.fail(fmt::format("the output's spatial axis {} would have {} elements", k, len[k]));
    }
    const int64_t oc = w.shape[1] * group;
    std::vector<int64_t> pad(n);
    Shape shape{x.shape[0], oc};  // of MegEngine's result, before the crop
    for (size_t k = 0; k < n; ++k) {
        // What ONNX drops at the end of the full result is pe − output_padding.
        pad[k] = std::max<int64_t>(0, std::min(pb[k], pe[k] - output_padding[k]));
        shape.push_back(full[k] - 2 * pad[k]);
    }
    ir::VarId in = layout.lifted() ? c.reshape(c.var(0), layout.data(x.shape)) : c.var(0);
    ir::VarId y = c.emit(n == 3 ? "Convolution3DBackwardData" : "ConvolutionBackwardData",
                         {reshaped(c, 1, layout.weight(w.shape, group)), in}, layout.params(win, pad, group));
    if (layout.lifted()) y = c.reshape(y, shape);
    // ONNX's [pb, pb + len) in the coordinates of MegEngine's result, which begins at `pad`.
    std::vector<ir::VarId> crop_inputs{y};
    std::vector<ir::IndexDescMaskItem> items;
    std::vector<int64_t> front(n, 0), back(n, 0);
    Shape out = shape;
    for (size_t k = 0; k < n; ++k) {
        const int64_t begin = pb[k] - pad[k], end = begin + len[k];
        const int64_t lo = std::max<int64_t>(begin, 0), hi = std::min(end, shape[2 + k]);
        if (lo > 0 || hi < shape[2 + k]) {
            items.push_back({static_cast<int8_t>(2 + k), true, true, false, false});
            crop_inputs.push_back(c.const_i32({lo}));
            crop_inputs.push_back(c.const_i32({hi}));
            out[2 + k] = hi - lo;
        }
        front[k] = lo - begin;
        back[k] = end - hi;
    }
    if (!items.empty()) y = c.emit("Subtensor", crop_inputs, {{"items", items}});
    y = pad_spatial(c, y, out, front, back, 0.0);
    if (c.has_input(2)) {
        if (c.input(2).shape != Shape{oc}) c.fail(fmt::format("bias (input #2) must have shape [{}]", oc));
        Shape bias(out.size(), 1);
        bias[1] = oc;
        y = c.emit("Elemwise", {y, reshaped(c, 2, bias)}, {{"mode", "ADD"}});
    }
    c.set_output_var(0, y, x.elem_type, out);
}

// Not after a foldable Conv: y = x * scale' + bias' as one FUSE_MUL_ADD3, with
// scale' and bias' computed at import time.
void batch_norm(Importer& c) {
    if (c.attr_int("training_mode", 0) != 0) return batch_norm_training(c);
    for (size_t i = 1; i < 5; ++i)
        if (c.has_input(i) && !c.is_const(i)) return batch_norm_of_runtime_statistics(c);
    BatchNormScale bn = read_batch_norm(c);
    const Value& x = c.input(0);
    Shape s(x.shape.size(), 1);
    if (s.size() < 2) c.fail("input must have a channel axis");
    s[1] = static_cast<int64_t>(bn.scale.size());
    // In X's dtype: Float32 constants made a Float16 input's output Float32
    // (MegEngine's make promotes), which the import refused.
    Value scale = float_const_as(x.elem_type, bn.scale, s), bias = float_const_as(x.elem_type, bn.bias, s);
    scale.param_name = c.node().output(0) + ".scale";
    bias.param_name = c.node().output(0) + ".bias";
    ir::VarId y = c.emit("Elemwise",
                         {c.var(0), c.materialize(scale, scale.param_name), c.materialize(bias, bias.param_name)},
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
