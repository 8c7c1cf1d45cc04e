// Pools, reductions and Softmax. MegEngine's Pooling pads both sides alike and
// floors the output size; asymmetric pads and ceil_mode's partial last window
// extend the input first (a Padding operator: -inf for MaxPool, zeros for
// AveragePool, whose per-window divisor is then corrected by a constant factor).
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>

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

void pool(Importer& c, bool is_max) {
    if (is_max)
        c.check_attrs(
            {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "storage_order"});
    else
        c.check_attrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
    const Value& x = c.input(0);
    if (c.output_count() > 1 && !c.node().output(1).empty())
        c.fail("the Indices output (#1) is not supported");
    if (c.attr_int("storage_order", 0) != 0) c.fail("storage_order=1 is not supported");
    auto kernel = c.attr_ints("kernel_shape");
    if (kernel.size() != 2) c.fail("kernel_shape must describe 2 spatial axes");
    Window2d w = read_window(c, x.shape, kernel, /*allow_asymmetric=*/true);
    if (w.dilate_h != 1 || w.dilate_w != 1) c.fail("dilations other than 1 are not supported");
    const bool ceil = c.attr_int("ceil_mode", 0) != 0;
    const bool include_pad = c.attr_int("count_include_pad", 0) != 0;
    const PoolAxis h = pool_axis(c, x.shape[2], kernel[0], w.stride_h, w.pad_h + w.extra_top,
                                 w.pad_h + w.extra_bottom, ceil);
    const PoolAxis v = pool_axis(c, x.shape[3], kernel[1], w.stride_w, w.pad_w + w.extra_left,
                                 w.pad_w + w.extra_right, ceil);
    const Shape out{x.shape[0], x.shape[1], h.out, v.out};
    ir::VarId in = c.var(0);
    // Windows MegEngine's symmetric, flooring Pooling cannot place (asymmetric pads,
    // a partial last ceil_mode window): the input extended first, with -inf for MAX,
    // with zeros for AVERAGE, whose divisor is then corrected below.
    const bool extended = h.front || h.back || v.front || v.back;
    if (extended) {
        if (!is_max && x.elem_type != onnx::TensorProto::FLOAT)
            c.fail(fmt::format(
                "asymmetric pads or a partial ceil_mode window on {} are not supported (FLOAT only)",
                onnx_elem_name(x.elem_type)));
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
                          int_param("stride_h", w.stride_h),
                          int_param("stride_w", w.stride_w),
                          int_param("window_h", kernel[0]),
                          int_param("window_w", kernel[1]),
                          {"format", "NCHW"}});
    if (extended && !is_max) {
        // AVERAGE divided every window by KH·KW; ONNX divides by what `divisor`
        // counts: one factor KH/count per output row and KW/count per column.
        for (auto [axis, shape] :
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
            Value f = float_const(factor, shape);
            y = c.emit("Elemwise", {y, c.materialize(f, "pool divisor")}, {{"mode", "MUL"}});
        }
    }
    c.set_output_var(0, y, x.elem_type, out);
}

void max_pool(Importer& c) { pool(c, true); }
void average_pool(Importer& c) { pool(c, false); }

// One window covering the whole plane.
void global_pool(Importer& c, const char* mode) {
    c.check_attrs({});
    const Value& x = c.input(0);
    if (x.shape.size() != 4)
        c.fail(fmt::format("only 2-D (NCHW) inputs are supported, input has rank {}", x.shape.size()));
    ir::VarId y = c.emit("Pooling", {c.var(0)},
                         {{"mode", mode},
                          int_param("stride_h", x.shape[2]),
                          int_param("stride_w", x.shape[3]),
                          int_param("window_h", x.shape[2]),
                          int_param("window_w", x.shape[3]),
                          {"format", "NCHW"}});
    c.set_output_var(0, y, x.elem_type, {x.shape[0], x.shape[1], 1, 1});
}

void global_average_pool(Importer& c) { global_pool(c, "AVERAGE"); }
void global_max_pool(Importer& c) { global_pool(c, "MAX"); }

// One Reduce per axis (MegEngine reduces one axis and keeps it as size 1), then
// AxisAddRemove drops the axes when keepdims=0.
void reduce(Importer& c, const char* mode) {
    c.check_attrs({"axes", "keepdims", "noop_with_empty_axes"});
    const Value& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = c.attr_ints("axes");
    if (c.has_input(1)) axes = c.const_ints(1, "axes");
    if (axes.empty()) {
        if (c.attr_int("noop_with_empty_axes", 0)) return c.set_output(0, x);
        for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    for (int64_t& a : axes) a = normalize_axis(a, rank, c, "axis");
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    ir::VarId y = c.var(0);
    Shape shape = x.shape;
    for (int64_t a : axes) {
        y = c.emit("Reduce", {y}, {{"mode", mode}, int_param("axis", a)});
        shape[a] = 1;
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
    c.set_output_var(0, y, x.elem_type, shape);
}

void reduce_mean(Importer& c) { reduce(c, "MEAN"); }
void reduce_sum(Importer& c) { reduce(c, "SUM"); }
void reduce_max(Importer& c) { reduce(c, "MAX"); }

// Before opset 13 Softmax flattened the axes from `axis` on; that is the same as
// a one-axis softmax only when `axis` is the last axis.
void softmax(Importer& c) {
    c.check_attrs({"axis"});
    const Value& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    int64_t axis = normalize_axis(c.attr_int("axis", c.opset() >= 13 ? -1 : 1), rank, c, "axis");
    if (c.opset() < 13 && axis != rank - 1)
        c.fail(fmt::format("opset {} Softmax over axes {}.. (not only the last) is not supported", c.opset(),
                           axis));
    c.set_output_var(0, c.emit("Softmax", {c.var(0)}, {int_param("axis", axis)}), x.elem_type, x.shape);
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
