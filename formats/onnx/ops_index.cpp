// Slice and Gather. On constants both are evaluated at import time (the shape
// arithmetic torch.onnx.export emits); on vars Slice becomes Subtensor, Gather
// with a scalar index Subtensor (which drops the axis) and with an index tensor
// (any rank) IndexingMultiAxisVec.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

struct AxisSlice {
    int64_t axis, begin, end, step;
    // Of an axis whose dim only the run time knows: a negative begin or end
    // counts from the end there, and `end` is not given when `open_end`.
    bool at_run_time = false, open_end = false;
};

// ONNX's clamping rules for one axis of size `dim`. A step longer than the axis
// takes at most one element, as a step of the axis's length does: clamped to it,
// so that the length computed from it cannot overflow (fuzz_onnx found a step
// of -(2^63 - 1): tests/fuzz/regressions/fuzz_onnx/slice-with-a-step-past-int64)
// and the Subtensor's Int32 step holds it.
AxisSlice clamp_slice(int64_t axis, int64_t start, int64_t end, int64_t step, int64_t dim) {
    const int64_t most = std::max<int64_t>(dim, 1);
    step = std::clamp(step, -most, most);
    auto fix = [&](int64_t v, int64_t lo, int64_t hi) {
        if (v < 0) v += dim;
        return std::clamp(v, lo, hi);
    };
    if (step > 0) return {axis, fix(start, 0, dim), fix(end, 0, dim), step};
    return {axis, fix(start, 0, dim - 1), fix(end, -1, dim - 1), step};
}

int64_t slice_len(const AxisSlice& s) {
    if (s.step > 0) return s.end > s.begin ? (s.end - s.begin + s.step - 1) / s.step : 0;
    return s.begin > s.end ? (s.begin - s.end - s.step - 1) / -s.step : 0;
}

// A new constant made of the elements of `x` at `picks` (flat indices).
Value pick(const Value& x, const std::vector<int64_t>& picks, Shape shape) {
    const size_t elem = onnx_elem_size(x.elem_type);
    auto bytes = std::make_shared<std::vector<std::byte>>(picks.size() * elem);
    for (size_t k = 0; k < picks.size(); ++k)
        std::copy_n(x.bytes.begin() + picks[k] * elem, elem, bytes->begin() + k * elem);
    return bytes_const(x.elem_type, std::move(shape), bytes);
}

// One slice of an axis whose dim only the run time knows. MegEngine's Subtensor
// (Slice::apply, src/core/impl/tensor.cpp) wraps a negative bound once and
// refuses one still negative, where ONNX clamps it to the axis; for a positive
// step and bounds from 0 on the two agree (the end is taken to at most the
// axis's dim, the start to at most the end: torchvision's box decoding takes
// every fourth column, 0::4). A negative bound is clamped as ONNX does when the
// graph runs (runtime_bound). A negative step is refused: Slice::apply refuses
// every one on an empty axis (its start must lie inside the axis), and a count
// only the run time knows may be 0. An end past Int32 is not given (to the end).
AxisSlice runtime_axis_slice(Importer& c, int64_t axis, int64_t start, int64_t end, int64_t step) {
    if (step < 1)
        c.fail(fmt::format(
            "axis {} has a dim known only at run time: step {} is not supported there (MegEngine's "
            "Subtensor refuses a negative step on an empty axis, and the axis may be empty)",
            axis, step));
    if (step > std::numeric_limits<int32_t>::max())
        c.fail(fmt::format("step {} of axis {} is past what MegEngine's Int32 step holds", step, axis));
    if (start > std::numeric_limits<int32_t>::max())
        c.fail(fmt::format("start {} of axis {} is past any dim MegEngine holds", start, axis));
    // Past ±(2^31 − 1) every bound clamps as that one does (a dim is below 2^31).
    constexpr int64_t kMost = std::numeric_limits<int32_t>::max();
    return {axis, std::max(start, -kMost), std::clamp(end, -kMost, kMost), step, true, end > kMost};
}

// Bound v of a slice of axis `axis` of input 0, whose dim d only the run time
// knows: v itself from 0 on (Slice::apply takes it to at most d), else ONNX's
// max(v + d, 0), computed when the graph runs.
ir::VarId runtime_bound(Importer& c, int64_t v, int64_t axis) {
    if (v >= 0) return c.const_i32({v});
    const ir::VarId dim = c.emit("GetVarShape", {c.var(0)}, {int_param("axis", axis)});
    return elemwise(c, "MAX", {elemwise(c, "ADD", {dim, c.const_i32({v})}), c.const_i32({0})});
}

void slice(Importer& c) {
    c.check_attrs({"starts", "ends", "axes"});
    // Subtensor takes dims only the run time knows too (the rows a mask selected).
    const Value& x = c.runtime_input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> starts, ends, axes, steps;
    if (c.opset() < 10) {
        starts = c.attr_ints("starts"), ends = c.attr_ints("ends"), axes = c.attr_ints("axes");
    } else {
        for (size_t i = 1; i < 5; ++i)
            if (is_runtime_value(c, i)) return slice_with_runtime_bounds(c);
        starts = c.const_ints(1, "starts"), ends = c.const_ints(2, "ends");
        if (c.has_input(3)) axes = c.const_ints(3, "axes");
        if (c.has_input(4)) steps = c.const_ints(4, "steps");
    }
    if (axes.empty())
        for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        c.fail("starts, ends, axes and steps differ in length");
    std::vector<AxisSlice> slices;
    Shape out = x.shape;
    std::vector<bool> sliced(rank, false);
    for (size_t k = 0; k < starts.size(); ++k) {
        int64_t a = normalize_axis(axes[k], rank, c, "axis");
        if (steps[k] == 0) c.fail("step 0");
        // ONNX leaves a repeated axis undefined.
        if (sliced[a]) c.fail(fmt::format("axis {} is sliced twice", a));
        sliced[a] = true;
        if (x.shape[a] < 0) {
            slices.push_back(runtime_axis_slice(c, a, starts[k], ends[k], steps[k]));
            continue;  // out[a] stays unknown
        }
        AxisSlice s = clamp_slice(a, starts[k], ends[k], steps[k], x.shape[a]);
        out[a] = slice_len(s);
        slices.push_back(s);
    }
    if (x.is_const && (rank == 1 || is_foldable_shape_const(x))) {
        // Every index of each axis, then the picks of the sliced ones.
        std::vector<std::vector<int64_t>> picks(rank);
        std::vector<int64_t> axes_in_order(rank);
        for (int64_t a = 0; a < rank; ++a) {
            axes_in_order[a] = a;
            for (int64_t i = 0; i < x.shape[a]; ++i) picks[a].push_back(i);
        }
        for (const AxisSlice& s : slices) {
            std::vector<int64_t> kept;
            for (int64_t i = s.begin; s.step > 0 ? i < s.end : i > s.end; i += s.step) kept.push_back(i);
            picks[s.axis] = std::move(kept);
        }
        return c.set_output(0, gather_const(x, picks, axes_in_order));
    }
    std::vector<ir::VarId> inputs{c.var(0)};
    std::vector<ir::IndexDescMaskItem> items;
    for (const AxisSlice& s : slices) {
        // The whole axis needs no item.
        if (s.begin == 0 && s.step == 1 && (s.at_run_time ? s.open_end : s.end == x.shape[s.axis])) continue;
        ir::IndexDescMaskItem item{static_cast<int8_t>(s.axis), true, true, s.step != 1, false};
        inputs.push_back(s.at_run_time ? runtime_bound(c, s.begin, s.axis) : c.const_i32({s.begin}));
        // A negative step's end of -1 means "before index 0", which only omitting end can say.
        if (s.at_run_time ? s.open_end : s.end < 0)
            item.end = false;
        else
            inputs.push_back(s.at_run_time ? runtime_bound(c, s.end, s.axis) : c.const_i32({s.end}));
        if (item.step) inputs.push_back(c.const_i32({s.step}));
        items.push_back(item);
    }
    if (items.empty()) return c.set_output(0, x);
    const ir::VarId y = c.emit("Subtensor", inputs, {{"items", items}});
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, out);
    c.set_output_var(0, y, x.elem_type, out);
}

// Gather where the data's or the indices' dims are known only at run time (the
// boxes a mask selected, picked by their scores' TopK indices): the same
// indexing, the output's dims those of the inputs that are known. Indices are
// checked against the axis when the graph runs (MegEngine's indexing does).
void gather_of_runtime_dims(Importer& c, int64_t axis_attr) {
    const Value &x = c.runtime_input(0), &ind = c.runtime_input(1);
    if (ind.elem_type != onnx::TensorProto::INT64 && ind.elem_type != onnx::TensorProto::INT32)
        c.fail(fmt::format("indices (input #1) are {}, expected INT32 or INT64", onnx_elem_name(ind.elem_type)));
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalize_axis(axis_attr, rank, c, "axis");
    Shape out(x.shape.begin(), x.shape.begin() + axis);
    out.insert(out.end(), ind.shape.begin(), ind.shape.end());
    out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
    const ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
    const char* op = ind.shape.empty() ? "Subtensor" : "IndexingMultiAxisVec";
    set_runtime_output(c, 0, c.emit(op, {c.var(0), c.var(1)}, {{"items", std::vector{item}}}), x.elem_type, out);
}

void gather(Importer& c) {
    c.check_attrs({"axis"});
    if (any_runtime_shape(c, 2)) return gather_of_runtime_dims(c, c.attr_int("axis", 0));
    const Value &x = c.input(0), &ind = c.input(1);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalize_axis(c.attr_int("axis", 0), rank, c, "axis");
    Shape out(x.shape.begin(), x.shape.begin() + axis);
    out.insert(out.end(), ind.shape.begin(), ind.shape.end());
    out.insert(out.end(), x.shape.begin() + axis + 1, x.shape.end());
    if (ind.is_const) {
        std::vector<int64_t> idx = c.const_ints(1, "indices");
        for (int64_t& i : idx) {
            if (i < -x.shape[axis] || i >= x.shape[axis])
                c.fail(
                    fmt::format("index {} is out of range for axis {} of size {}", i, axis, x.shape[axis]));
            if (i < 0) i += x.shape[axis];
        }
        // Dims of a shape the import knows (Value::known_elements): a constant.
        if (rank == 1 && x.known_elements.size() == static_cast<size_t>(x.shape[0]) &&
            std::ranges::all_of(idx,
                                [&](int64_t i) { return x.known_elements[static_cast<size_t>(i)] >= 0; })) {
            std::vector<int64_t> dims;
            for (int64_t i : idx) dims.push_back(x.known_elements[static_cast<size_t>(i)]);
            return c.set_output(0, int64_const(dims, out));
        }
        if (x.is_const) {
            const int64_t outer = element_count(Shape(x.shape.begin(), x.shape.begin() + axis));
            const int64_t inner = element_count(Shape(x.shape.begin() + axis + 1, x.shape.end()));
            std::vector<int64_t> picks;
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t i : idx)
                    for (int64_t k = 0; k < inner; ++k) picks.push_back((o * x.shape[axis] + i) * inner + k);
            return c.set_output(0, pick(x, picks, out));
        }
        if (ind.shape.empty()) {
            ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
            ir::VarId y =
                c.emit("Subtensor", {c.var(0), c.const_i32({idx[0]})}, {{"items", std::vector{item}}});
            if (out.empty()) out = {};  // MegEngine keeps a 1-element axis for a scalar result
            return c.set_output_var(0, y, x.elem_type, out);
        }
        // An index tensor of any rank: MegEngine's vector indexing puts its shape
        // in place of the axis, as Gather does.
        std::vector<std::byte> bytes(idx.size() * 4);
        for (size_t k = 0; k < idx.size(); ++k) {
            const auto v = static_cast<int32_t>(idx[k]);
            std::memcpy(bytes.data() + 4 * k, &v, 4);
        }
        ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
        ir::VarId y = c.emit("IndexingMultiAxisVec",
                             {c.var(0), c.const_var(ir::DTypeEnum::Int32, ind.shape, std::move(bytes))},
                             {{"items", std::vector{item}}});
        return c.set_output_var(0, y, x.elem_type, out);
    }
    ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
    const char* op = ind.shape.empty() ? "Subtensor" : "IndexingMultiAxisVec";
    c.set_output_var(0, c.emit(op, {c.var(0), c.var(1)}, {{"items", std::vector{item}}}), x.elem_type, out);
}

constexpr OpHandler kHandlers[] = {
    {"Slice", slice},
    {"Gather", gather},
};

}  // namespace

std::span<const OpHandler> index_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
