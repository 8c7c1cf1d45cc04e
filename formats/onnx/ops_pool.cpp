// Pools, reductions and Softmax. MegEngine's Pooling pads both sides alike and
// floors the output size; asymmetric pads and ceil_mode's partial last window
// extend the input first (a Padding operator: -inf for MaxPool, zeros for
// AveragePool, whose per-window divisor is then corrected by a constant factor).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "formats/onnx/maxpool_indices.h"
#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_axes.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"
#include "formats/onnx/window.h"

namespace mgedump::formats::onnx_import {
namespace {

// One spatial axis of an ONNX pool: input size, window, stride, the pads before
// and after, and the output size.
struct PoolAxis {
    int64_t in, k, stride, pad_begin, pad_end, out;
    // MegEngine's Pooling pads both sides alike (pad) and floors; the ONNX windows
    // are those of `pad` on the input extended by `front` before and `back` after.
    int64_t pad, front, back;
    // The elements ONNX divides window o's sum by: those inside the input, or with
    // count_include_pad those inside the padded input (not the part of a ceil_mode
    // window beyond it, as PyTorch's avg_pool and ONNX Runtime count).
    int64_t divisor(int64_t o, bool include_pad) const {
        const int64_t start = o * stride - pad_begin, end = start + k;
        const int64_t lo = include_pad ? start : std::max<int64_t>(start, 0);
        const int64_t hi = std::min(end, include_pad ? in + pad_end : in);
        return std::max<int64_t>(hi - lo, 0);
    }
};

// The output size: floor, or with ceil_mode ceil unless the last window would
// start beyond the input and its begin padding (PyTorch's rule, which ONNX's
// reference implementation follows).
PoolAxis pool_axis(const Importer& c, int64_t in, int64_t k, int64_t stride, int64_t pad_begin,
                   int64_t pad_end, bool ceil) {
    PoolAxis a{in, k, stride, pad_begin, pad_end, 0, std::min(pad_begin, pad_end), 0, 0};
    const int64_t span = in + pad_begin + pad_end - k;
    if (span < 0)
        c.fail(fmt::format("kernel {} is larger than the padded input ({})", k, in + pad_begin + pad_end));
    a.out = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil && (a.out - 1) * stride >= in + pad_begin) --a.out;
    a.front = pad_begin - a.pad;
    a.back = std::max<int64_t>(0, (a.out - 1) * stride + k - (in + pad_begin + a.pad));
    return a;
}

// One 2-D Pooling over axes 2 and 3 of `in` (rank 4) placing the
// windows `h` and `v` describe; returns the var of shape (N, C, h.out, v.out).
ir::VarId pool2d(Importer& c, ir::VarId in, const PoolAxis& h, const PoolAxis& v, bool is_max, bool include_pad,
                 int32_t elem_type) {
    // Windows MegEngine's symmetric, flooring Pooling cannot place (asymmetric pads,
    // a partial last ceil_mode window): the input extended first, with -inf for MAX,
    // with zeros for AVERAGE, whose divisor is then corrected below.
    const bool extended = h.front || h.back || v.front || v.back;
    if (extended) {
        if (!is_max && elem_type != onnx::TensorProto::FLOAT)
            c.fail(fmt::format(
                "asymmetric pads or a partial ceil_mode window on {} are not supported (FLOAT only)",
                onnx_elem_name(elem_type)));
        in = c.emit("Padding", {in},
                    {int_param("front_offset_dim2", h.front),
                     int_param("front_offset_dim3", v.front),
                     int_param("back_offset_dim2", h.back),
                     int_param("back_offset_dim3", v.back),
                     float_param("padding_val", is_max ? -std::numeric_limits<double>::infinity() : 0.0),
                     {"padding_mode", "CONSTANT"}});
    }
    const char* mode = is_max ? "MAX" : include_pad || extended ? "AVERAGE" : "AVERAGE_COUNT_EXCLUDE_PADDING";
    ir::VarId y = c.emit("Pooling", {in},
                         {{"mode", mode},
                          int_param("pad_h", h.pad),
                          int_param("pad_w", v.pad),
                          int_param("stride_h", h.stride),
                          int_param("stride_w", v.stride),
                          int_param("window_h", h.k),
                          int_param("window_w", v.k),
                          {"format", "NCHW"}});
    if (extended && !is_max) {
        // AVERAGE divided every window by KH·KW; ONNX divides by what `divisor`
        // counts: one factor KH/count per output row and KW/count per column.
        for (auto [axis, fshape] :
             {std::pair{&h, Shape{1, 1, h.out, 1}}, std::pair{&v, Shape{1, 1, 1, v.out}}}) {
            std::vector<float> factor(static_cast<size_t>(axis->out));
            bool all_one = true;
            for (int64_t o = 0; o < axis->out; ++o) {
                const int64_t n = axis->divisor(o, include_pad);
                if (n == 0)
                    c.fail(fmt::format("a pooling window lies entirely in the padding (output {})", o));
                factor[o] = static_cast<float>(static_cast<double>(axis->k) / static_cast<double>(n));
                all_one = all_one && n == axis->k;
            }
            if (all_one) continue;
            Value f = float_const(factor, fshape);
            y = c.emit("Elemwise", {y, c.materialize(f, "pool divisor")}, {{"mode", "MUL"}});
        }
    }
    return y;
}

// The lowest value of an element type: MaxPool's padding.
double lowest(int32_t elem_type) {
    using P = onnx::TensorProto;
    switch (elem_type) {
        case P::UINT8:
        case P::UINT16:
            return 0;
        case P::INT8:
            return std::numeric_limits<int8_t>::lowest();
        case P::INT16:
            return std::numeric_limits<int16_t>::lowest();
        case P::INT32:
        case P::INT64:
            return std::numeric_limits<int32_t>::lowest();
        default:
            return -std::numeric_limits<double>::infinity();
    }
}

// MaxPool with dilations (MegEngine's Pooling has none) or of an integer type
// (which Pooling refuses): the maximum of K strided Subtensors per axis, axis by
// axis (a maximum over a box is the maximum over each of its axes in turn), on the
// input padded with the type's lowest value.
ir::VarId sliced_max_pool(Importer& c, const Value& x, const std::vector<PoolAxis>& axes,
                          const std::vector<int64_t>& dilations) {
    Shape shape = x.shape;
    std::vector<int64_t> front, back;
    for (size_t a = 0; a < axes.size(); ++a) {
        const PoolAxis& p = axes[a];
        const int64_t span = (p.out - 1) * p.stride + (p.k - 1) * dilations[a] + 1;
        front.push_back(p.pad_begin);
        back.push_back(std::max<int64_t>(0, span - (p.in + p.pad_begin)));
    }
    ir::VarId y = pad_spatial(c, c.var(0), shape, front, back, lowest(x.elem_type));
    for (size_t a = 0; a < axes.size(); ++a) {
        const PoolAxis& p = axes[a];
        std::optional<ir::VarId> acc;
        for (int64_t j = 0; j < p.k; ++j) {
            const int64_t begin = j * dilations[a];
            ir::IndexDescMaskItem item{static_cast<int8_t>(2 + a), true, true, p.stride != 1, false};
            std::vector<ir::VarId> in{y, c.const_i32({begin}), c.const_i32({begin + (p.out - 1) * p.stride + 1})};
            if (item.step) in.push_back(c.const_i32({p.stride}));
            ir::VarId part = c.emit("Subtensor", in, {{"items", std::vector{item}}});
            acc = acc ? c.emit("Elemwise", {*acc, part}, {{"mode", "MAX"}}) : part;
        }
        y = *acc;
        shape[2 + a] = p.out;
    }
    return y;
}

// MaxPool / AveragePool over 1, 2 or 3 spatial axes. 2-D is one Pooling (see
// pool2d); 1-D the same over an inserted unit axis; 3-D two Poolings, over (H, W)
// with the data seen as (N, C·D, H, W), then over D seen as (N, C, D, H'·W'): a
// maximum, and an average whose divisor is a product of per-axis counts, are
// separable that way.
void pool(Importer& c, bool is_max) {
    if (is_max)
        c.check_attrs(
            {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "storage_order"});
    else
        c.check_attrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
    const Value& x = c.input(0);
    if (is_max && c.output_count() > 1 && !c.node().output(1).empty() && c.consumers(c.node().output(1)) > 0)
        return max_pool_with_indices(c);
    if (c.output_count() > 1 && !c.node().output(1).empty())
        c.fail("the Indices output (#1) is not supported");
    if (c.attr_int("storage_order", 0) != 0) c.fail("storage_order=1 is not supported");
    const auto kernel = c.attr_ints("kernel_shape");
    const Window w = read_window(c, x.shape, kernel);
    const size_t n = w.dims();
    const bool ceil = c.attr_int("ceil_mode", 0) != 0;
    const bool include_pad = c.attr_int("count_include_pad", 0) != 0;
    bool dilated = false;
    std::vector<PoolAxis> axes;
    Shape out{x.shape[0], x.shape[1]};
    for (size_t k = 0; k < n; ++k) {
        dilated = dilated || w.dilations[k] != 1;
        // The output size counts the dilated extent; a dilated window is only sliced.
        PoolAxis a = pool_axis(c, x.shape[2 + k], (kernel[k] - 1) * w.dilations[k] + 1, w.strides[k],
                               w.pads_begin[k], w.pads_end[k], ceil);
        a.k = kernel[k];
        axes.push_back(a);
        out.push_back(a.out);
    }
    const bool is_float = x.elem_type == onnx::TensorProto::FLOAT || x.elem_type == onnx::TensorProto::FLOAT16;
    ir::VarId y;
    if (is_max && (dilated || !is_float)) {
        y = sliced_max_pool(c, x, axes, w.dilations);
    } else if (n == 1) {
        const PoolAxis unit = pool_axis(c, 1, 1, 1, 0, 0, false);
        const Shape lifted{x.shape[0], x.shape[1], 1, x.shape[2]};
        y = pool2d(c, c.reshape(c.var(0), lifted), unit, axes[0], is_max, include_pad, x.elem_type);
        y = c.reshape(y, out);
    } else if (n == 2) {
        y = pool2d(c, c.var(0), axes[0], axes[1], is_max, include_pad, x.elem_type);
    } else {
        const Shape planes{x.shape[0], x.shape[1] * x.shape[2], x.shape[3], x.shape[4]};
        y = pool2d(c, c.reshape(c.var(0), planes), axes[1], axes[2], is_max, include_pad, x.elem_type);
        const int64_t hw = out[3] * out[4];
        const Shape depth{x.shape[0], x.shape[1], x.shape[2], hw};
        const PoolAxis unit = pool_axis(c, hw, 1, 1, 0, 0, false);
        y = pool2d(c, c.reshape(y, depth), axes[0], unit, is_max, include_pad, x.elem_type);
        y = c.reshape(y, out);
    }
    c.set_output_var(0, y, x.elem_type, out);
}

void max_pool(Importer& c) { pool(c, true); }
void average_pool(Importer& c) { pool(c, false); }

// One window covering the whole plane (1-D and 3-D data seen as (N, C, 1, L)).
void global_pool(Importer& c, const char* mode) {
    c.check_attrs({});
    const Value& x = c.input(0);
    if (x.shape.size() < 3)
        c.fail(fmt::format("input must have spatial axes (N, C, ...), has rank {}", x.shape.size()));
    Shape plane = x.shape;
    ir::VarId in = c.var(0);
    if (x.shape.size() != 4) {
        plane = {x.shape[0], x.shape[1], 1, element_count(Shape(x.shape.begin() + 2, x.shape.end()))};
        in = c.reshape(in, plane);
    }
    ir::VarId y = c.emit("Pooling", {in},
                         {{"mode", mode},
                          int_param("stride_h", plane[2]),
                          int_param("stride_w", plane[3]),
                          int_param("window_h", plane[2]),
                          int_param("window_w", plane[3]),
                          {"format", "NCHW"}});
    Shape out(x.shape.size(), 1);
    out[0] = x.shape[0], out[1] = x.shape[1];
    if (x.shape.size() != 4) y = c.reshape(y, out);
    c.set_output_var(0, y, x.elem_type, out);
}

void global_average_pool(Importer& c) { global_pool(c, "AVERAGE"); }
void global_max_pool(Importer& c) { global_pool(c, "MAX"); }

// The mean of integer x over several `axes` (sorted, unique), kept as size 1:
// one Reduce MEAN over the axes moved last (Dimshuffle) and merged (Reshape).
// Integer MEAN truncates, so one Reduce per axis truncated each partial mean:
// the mean of INT32 [[2,1],[1,0]] came out 0, where ONNX's (numpy's mean, cast
// back) is trunc(4 / 4) = 1.
ir::VarId integer_mean(Importer& c, ir::VarId x, const std::vector<int64_t>& axes) {
    const Shape& in = c.input(0).shape;
    std::vector<int32_t> pattern;
    Shape merged, kept = in;
    int64_t count = 1;
    for (int64_t a = 0; a < static_cast<int64_t>(in.size()); ++a)
        if (!std::binary_search(axes.begin(), axes.end(), a)) {
            pattern.push_back(static_cast<int32_t>(a));
            merged.push_back(in[a]);
        }
    for (int64_t a : axes) {
        pattern.push_back(static_cast<int32_t>(a));
        count *= in[a];
        kept[a] = 1;
    }
    merged.push_back(count);
    bool moved = false;
    for (size_t k = 0; k < pattern.size(); ++k) moved = moved || pattern[k] != static_cast<int32_t>(k);
    ir::VarId y = moved ? c.emit("Dimshuffle", {x}, {{"pattern", pattern}}) : x;
    y = c.reshape(y, merged);
    y = c.emit("Reduce", {y}, {{"mode", "MEAN"}, int_param("axis", static_cast<int64_t>(merged.size()) - 1)});
    return c.reshape(y, kept);
}

// One Reduce per axis (MegEngine reduces one axis and keeps it as size 1), then
// AxisAddRemove drops the axes when keepdims=0. Reduce takes any dims, so an
// input whose dims only the run time knows (a mask's selection) is reduced too.
void reduce(Importer& c, const char* mode) {
    c.check_attrs({"axes", "keepdims", "noop_with_empty_axes"});
    const Value& x = c.runtime_input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = c.attr_ints("axes");
    if (c.has_input(1)) {
        // Axes known only at run time: formats/onnx/runtime_axes.cpp, unless their length fixes them.
        if (!is_runtime_value(c, 1)) axes = c.const_ints(1, "axes");
        else if (auto fixed = axes_fixed_by_length(c, rank)) axes = *fixed;
        else return reduce_over_runtime_axes(c, nullptr, mode, nullptr);  // needs x's dims (c.input)
    }
    if (axes.empty()) {
        if (c.attr_int("noop_with_empty_axes", 0)) return c.set_output(0, x);
        for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    for (int64_t& a : axes) a = normalize_axis(a, rank, c, "axis");
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    ir::VarId y = c.var(0);
    Shape shape = x.shape;
    if (std::string_view(mode) == "MEAN" && axes.size() > 1 && is_integer_type(x.elem_type)) {
        y = integer_mean(c, y, axes);
        for (int64_t a : axes) shape[a] = 1;
    } else {
        y = padded_for_empty_extremes(c, y, x, mode, axes);
        for (int64_t a : axes) {
            y = c.emit("Reduce", {y}, {{"mode", mode}, int_param("axis", a)});
            shape[a] = 1;
        }
    }
    if (!c.attr_int("keepdims", 1)) {
        std::vector<ir::AxisDesc> desc;
        for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
            if (desc.size() + 1 == shape.size()) break;  // MegEngine keeps at least one axis
            desc.push_back({ir::AxisDescMethod::REMOVE, static_cast<int32_t>(*it)});
        }
        for (auto it = axes.rbegin(); it != axes.rend(); ++it) shape.erase(shape.begin() + *it);
        if (!desc.empty()) y = c.emit("AxisAddRemove", {y}, {{"desc", desc}});
    }
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, shape);
    c.set_output_var(0, y, x.elem_type, shape);
}

void reduce_mean(Importer& c) { reduce(c, "MEAN"); }
void reduce_sum(Importer& c) { reduce(c, "SUM"); }
void reduce_max(Importer& c) { reduce(c, "MAX"); }

// Before opset 13 Softmax normalizes over every axis from `axis` on: one Softmax
// over axis 1 of the input seen as 2-D (softmax_view).
void softmax(Importer& c) {
    c.check_attrs({"axis"});
    const Value& x = c.runtime_input(0);  // softmax_view says which dims it needs known
    const SoftmaxView view = softmax_view(c);
    const ir::VarId v = view.var;
    const Shape& work = view.shape;
    const int64_t axis = view.axis;
    ir::VarId y = c.emit("Softmax", {v}, {int_param("axis", axis)});
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, x.shape);
    if (work != x.shape) y = c.reshape(y, x.shape);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

constexpr OpHandler kHandlers[] = {
    {"MaxPool", max_pool},
    {"AveragePool", average_pool},
    {"GlobalAveragePool", global_average_pool},
    {"GlobalMaxPool", global_max_pool},
    {"ReduceMean", reduce_mean},
    {"ReduceSum", reduce_sum},
    {"ReduceMax", reduce_max},
    {"Softmax", softmax},
};

}  // namespace

std::span<const OpHandler> pool_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
