// Pools, reductions and Softmax. MaxPool's ceil_mode pads the bottom/right edge
// with -inf first (a Padding operator), since MegEngine's Pooling floors.
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>

#include "formats/onnx_values.h"
#include "formats/onnx_window.h"

namespace mgedump::formats::onnx_import {
namespace {

// PyTorch's ceil-mode output size (the last window must start inside the input or its left padding).
int64_t ceil_out(int64_t in, int64_t pad, int64_t k, int64_t stride) {
    int64_t out = (in + 2 * pad - k + stride - 1) / stride + 1;
    if ((out - 1) * stride >= in + pad) --out;
    return out;
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
    Window2d w = read_window(c, x.shape, kernel);
    if (w.dilate_h != 1 || w.dilate_w != 1) c.fail("dilations other than 1 are not supported");
    const bool ceil = c.attr_int("ceil_mode", 0) != 0;
    Shape out{x.shape[0], x.shape[1], window_out(x.shape[2], w.pad_h, kernel[0], w.stride_h, 1),
              window_out(x.shape[3], w.pad_w, kernel[1], w.stride_w, 1)};
    ir::VarId in = c.var(0);
    if (ceil) {
        Shape wanted{x.shape[0], x.shape[1], ceil_out(x.shape[2], w.pad_h, kernel[0], w.stride_h),
                     ceil_out(x.shape[3], w.pad_w, kernel[1], w.stride_w)};
        if (wanted != out) {
            if (!is_max) c.fail("ceil_mode with a partial last window is only supported for MaxPool");
            int64_t extra_h = (wanted[2] - 1) * w.stride_h + kernel[0] - (x.shape[2] + 2 * w.pad_h);
            int64_t extra_w = (wanted[3] - 1) * w.stride_w + kernel[1] - (x.shape[3] + 2 * w.pad_w);
            in = c.emit("Padding", {in},
                        {int_param("back_offset_dim2", std::max<int64_t>(0, extra_h)),
                         int_param("back_offset_dim3", std::max<int64_t>(0, extra_w)),
                         float_param("padding_val", -std::numeric_limits<double>::infinity()),
                         {"padding_mode", "CONSTANT"}});
            out = wanted;
        }
    }
    const char* mode = is_max                               ? "MAX"
                       : c.attr_int("count_include_pad", 0) ? "AVERAGE"
                                                            : "AVERAGE_COUNT_EXCLUDE_PADDING";
    ir::VarId y = c.emit("Pooling", {in},
                         {{"mode", mode},
                          int_param("pad_h", w.pad_h),
                          int_param("pad_w", w.pad_w),
                          int_param("stride_h", w.stride_h),
                          int_param("stride_w", w.stride_w),
                          int_param("window_h", kernel[0]),
                          int_param("window_w", kernel[1]),
                          {"format", "NCHW"}});
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
