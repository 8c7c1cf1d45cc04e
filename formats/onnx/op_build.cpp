#include "formats/onnx/op_build.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {

using P = onnx::TensorProto;

SoftmaxView softmax_view(Importer& c) {
    // Dims only the run time knows are fine along one axis (opset 13's softmax,
    // or the last axis before it); the 2-D view of older opsets needs them known.
    const Value& x = c.runtime_input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) c.fail("needs an input of rank ≥ 1");
    SoftmaxView view{c.var(0), x.shape, normalize_axis(c.attr_int("axis", c.opset() >= 13 ? -1 : 1), rank, c, "axis")};
    if (c.opset() < 13 && view.axis != rank - 1) {
        if (x.runtime_shape)
            c.fail(fmt::format("opset {} normalizes over axes {} to {} seen as one, and the input's dims are known "
                               "only at run time",
                               c.opset(), view.axis, rank - 1));
        int64_t outer = 1, inner = 1;
        for (int64_t d = 0; d < rank; ++d) (d < view.axis ? outer : inner) *= x.shape[d];
        view.shape = {outer, inner};
        view.var = c.reshape(view.var, view.shape);
        view.axis = 1;
    }
    return view;
}

ir::VarId log_softmax_over(Importer& c, ir::VarId v, int64_t axis) {
    ir::VarId shifted = elemwise(c, "SUB", {v, reduce_axes(c, v, "MAX", {axis})});
    ir::VarId log_sum = elemwise(c, "LOG", {reduce_axes(c, elemwise(c, "EXP", {shifted}), "SUM", {axis})});
    return elemwise(c, "SUB", {shifted, log_sum});
}

ir::VarId elemwise(Importer& c, std::string_view mode, std::vector<ir::VarId> inputs) {
    return c.emit("Elemwise", std::move(inputs), {{"mode", std::string(mode)}});
}

ir::VarId type_cvt(Importer& c, ir::VarId v, ir::DTypeEnum to) {
    return c.emit("TypeCvt", {v}, {{"dtype", ir::DType::of(to)}});
}

ir::VarId bool_elemwise(Importer& c, std::string_view mode, std::vector<ir::VarId> inputs) {
    return c.emit_as(ir::DType::of(ir::DTypeEnum::Bool), "ElemwiseMultiType", std::move(inputs),
                     {{"mode", std::string(mode)}});
}

ir::VarId int32_tensor(Importer& c, const std::vector<int64_t>& values, const Shape& shape) {
    std::vector<std::byte> bytes(values.size() * 4);
    for (size_t k = 0; k < values.size(); ++k) {
        const auto v = static_cast<int32_t>(values[k]);
        std::memcpy(bytes.data() + 4 * k, &v, 4);
    }
    return c.const_var(ir::DTypeEnum::Int32, shape.empty() ? Shape{1} : shape, std::move(bytes));
}

ir::VarId pick_along(Importer& c, ir::VarId x, int64_t axis, int64_t k) {
    const ir::IndexDescMaskItem pick{static_cast<int8_t>(axis), false, false, false, true};
    return c.emit("Subtensor", {x, c.const_i32({k})}, {{"items", std::vector{pick}}});
}

ir::VarId slice_1d(Importer& c, ir::VarId v, int64_t begin, int64_t end) {
    const ir::IndexDescMaskItem range{0, true, true, false, false};
    return c.emit("Subtensor", {v, c.const_i32({begin}), c.const_i32({end})},
                  {{"items", std::vector{range}}});
}

ir::VarId float32_tensor(Importer& c, const std::vector<float>& values, const Shape& shape) {
    std::vector<std::byte> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return c.const_var(ir::DTypeEnum::Float32, shape.empty() ? Shape{1} : shape, std::move(bytes));
}

ir::VarId earlier_mask(Importer& c, int64_t n, size_t leading) {
    std::vector<float> mask(static_cast<size_t>(n * n), 0.0f);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < i; ++j) mask[static_cast<size_t>(i * n + j)] = 1.0f;
    Shape shape(leading, 1);
    shape.push_back(n);
    shape.push_back(n);
    return float32_tensor(c, mask, shape);
}

ir::VarId with_unit_axis(Importer& c, ir::VarId v, int32_t axis) {
    const std::vector<ir::AxisDesc> add{{ir::AxisDescMethod::ADD_1, axis}};
    return c.emit("AxisAddRemove", {v}, {{"desc", add}});
}

ir::VarId reshaped(Importer& c, ir::VarId x, Shape dims) {
    const auto unknown = std::find(dims.begin(), dims.end(), int64_t{-1});
    if (unknown == dims.end()) return c.reshape(x, dims);
    const int64_t axis = unknown - dims.begin();
    *unknown = 1;
    return c.emit("Reshape", {x, c.const_i32(dims)}, {int_param("axis", axis)});
}

ir::VarId concat(Importer& c, const std::vector<ir::VarId>& parts, int64_t axis) {
    return parts.size() == 1 ? parts[0] : c.emit("Concat", parts, {int_param("axis", axis)});
}

std::pair<int64_t, int64_t> integer_range(ir::DTypeEnum t) {
    switch (t) {
        case ir::DTypeEnum::Int8: return {std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max()};
        case ir::DTypeEnum::Uint8: return {0, std::numeric_limits<uint8_t>::max()};
        case ir::DTypeEnum::Int16: return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
        case ir::DTypeEnum::Uint16: return {0, std::numeric_limits<uint16_t>::max()};
        default: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    }
}

ir::VarId scalar_as(Importer& c, double value, int32_t elem_type) {
    const ir::DTypeEnum dtype = onnx_var_dtype(elem_type, c);
    if (dtype == ir::DTypeEnum::Float32) return c.const_f32(static_cast<float>(value));
    if (dtype == ir::DTypeEnum::Float16 || dtype == ir::DTypeEnum::BFloat16)
        return type_cvt(c, c.const_f32(static_cast<float>(value)), dtype);
    if (dtype == ir::DTypeEnum::Bool) c.fail("a Bool operand has no numeric constant");
    // Checked before any cast: casting a NaN or a value past int64 is undefined
    // (fuzz_onnx found Shrink's lambd NaN on Int8), and a value past the operand's
    // dtype would wrap in the TypeCvt and compare or add as another number.
    if (!std::isfinite(value) || value != std::trunc(value))
        c.fail(fmt::format("the constant {} is not a whole number, the operand is {}", value,
                           onnx_elem_name(elem_type)));
    const auto [lowest, highest] = integer_range(dtype);
    if (value < lowest || value > highest)
        c.fail(fmt::format("the constant {} does not fit the {} operand (held as {}: {} to {})", value,
                           onnx_elem_name(elem_type), ir::dtype_name(dtype), lowest, highest));
    ir::VarId v = c.const_i32({static_cast<int64_t>(value)});
    if (dtype == ir::DTypeEnum::Int32) return v;
    return type_cvt(c, v, dtype);
}

// MegEngine's ROUND (roundf) and ONNX's round half to even differ only at ties,
// where x − ROUND(x) is ±0.5 (exact: ROUND(x) is x itself, 0, or within a factor 2
// of x). At a tie k + ½ the even neighbour is 2·ROUND(x/2) (x/2 = k/2 + ¼ rounds to
// k/2 for even k, to (k+1)/2 for odd k; x/2 is exact). Infinities and NaN give NaN
// for x − ROUND(x), so no tie, and keep ROUND(x).
ir::VarId round_half_to_even(Importer& c, ir::VarId x, int32_t elem_type) {
    ir::VarId away = elemwise(c, "ROUND", {x});
    ir::VarId off = elemwise(c, "ABS", {elemwise(c, "SUB", {x, away})});
    ir::VarId tie = bool_elemwise(c, "EQ", {off, scalar_as(c, 0.5, elem_type)});
    ir::VarId half = elemwise(c, "ROUND", {elemwise(c, "MUL", {x, scalar_as(c, 0.5, elem_type)})});
    ir::VarId even = elemwise(c, "MUL", {half, scalar_as(c, 2, elem_type)});
    return c.emit("Where", {tie, even, away});
}

ir::VarId broadcast_to(Importer& c, ir::VarId v, const Shape& from, const Shape& to) {
    if (from == to) return v;
    if (to.empty()) return v;  // a rank-0 target is [1], which a broadcastable input already is
    // Broadcast aligns a lower-rank input on the trailing axes, as numpy does.
    return c.emit("Broadcast", {v, c.const_i32(to)});
}

Shape broadcast_inputs(Importer& c, size_t first, size_t count) {
    Shape out = c.input(first).shape;
    for (size_t i = first + 1; i < first + count; ++i) {
        auto s = broadcast_shapes(out, c.input(i).shape);
        if (!s)
            c.fail(fmt::format("input #{} of shape [{}] does not broadcast with [{}]", i,
                               fmt::join(c.input(i).shape, ","), fmt::join(out, ",")));
        out = *s;
    }
    return out;
}

ir::VarId reduce_axes(Importer& c, ir::VarId x, std::string_view mode, const std::vector<int64_t>& axes) {
    for (int64_t a : axes) x = c.emit("Reduce", {x}, {{"mode", std::string(mode)}, int_param("axis", a)});
    return x;
}

namespace {

// x with one more entry along `axis`, MAX's identity (the lowest value) or
// MIN's (the highest): MegEngine's Reduce refuses MAX and MIN of an empty input
// (basic_arith.cpp: "empty input is not allowed for reduce mode"), and an axis
// only the run time knows may be empty. ONNX's ReduceMax of no values is −∞ or
// the dtype's lowest (opset 18), and so is this; a graph that runs it where
// PyTorch's would raise (torchvision's batched_nms takes boxes.max() in the
// branch an If leaves for boxes that are not empty, and MegEngine computes both
// branches) gets a value it then discards. Floats get ±∞, computed when the
// graph runs (LOG of 0), so the file holds no non-finite param for MegEngine's
// dumper to warn about.
ir::VarId with_extreme_identity(Importer& c, ir::VarId x, int64_t rank, int64_t axis, bool max,
                                int32_t elem_type) {
    std::vector<int64_t> others(static_cast<size_t>(rank), 1), here(static_cast<size_t>(rank), 0);
    others[static_cast<size_t>(axis)] = 0;
    here[static_cast<size_t>(axis)] = 1;
    // x's shape with 1 along `axis`.
    const ir::VarId pad_shape =
        elemwise(c, "ADD",
                 {elemwise(c, "MUL", {c.emit("GetVarShape", {x}), int32_tensor(c, others, {rank})}),
                  int32_tensor(c, here, {rank})});
    ir::VarId identity;
    if (is_float_type(elem_type)) {
        identity = elemwise(c, "LOG", {scalar_as(c, 0.0, elem_type)});  // −∞
        if (!max) identity = elemwise(c, "NEGATE", {identity});
    } else {
        const auto [lowest, highest] = integer_range(onnx_var_dtype(elem_type, c));
        identity = scalar_as(c, static_cast<double>(max ? lowest : highest), elem_type);
    }
    return concat(c, {x, c.emit("Broadcast", {identity, pad_shape})}, axis);
}

}  // namespace

ir::VarId padded_for_empty_extremes(Importer& c, ir::VarId y, const Value& x, std::string_view mode,
                                    const std::vector<int64_t>& axes) {
    if (mode != "MAX" && mode != "MIN") return y;
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    for (int64_t a : axes)
        if (x.shape[static_cast<size_t>(a)] < 0)
            y = with_extreme_identity(c, y, rank, a, mode == "MAX", x.elem_type);
    return y;
}

ir::VarId drop_axes(Importer& c, ir::VarId y, const std::vector<int64_t>& axes, Shape& shape) {
    std::vector<ir::AxisDesc> desc;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
        if (desc.size() + 1 == shape.size()) break;  // MegEngine keeps at least one axis
        desc.push_back({ir::AxisDescMethod::REMOVE, static_cast<int32_t>(*it)});
    }
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) shape.erase(shape.begin() + *it);
    if (desc.empty()) return y;
    return c.emit("AxisAddRemove", {y}, {{"desc", desc}});
}

bool is_float_type(int32_t t) {
    return t == P::FLOAT || t == P::DOUBLE || t == P::FLOAT16 || t == P::BFLOAT16;
}

bool is_integer_type(int32_t t) {
    return t == P::INT8 || t == P::INT16 || t == P::INT32 || t == P::INT64 || t == P::UINT8 ||
           t == P::UINT16 || t == P::UINT32 || t == P::UINT64;
}

bool is_unsigned_type(int32_t t) { return t == P::UINT8 || t == P::UINT16 || t == P::UINT32 || t == P::UINT64; }

bool is_integer_or_bool_type(int32_t t) { return is_integer_type(t) || t == P::BOOL; }

IntegerBounds onnx_integer_bounds(int32_t t) {
    if (!is_integer_type(t))
        throw std::logic_error(fmt::format("onnx_integer_bounds: {} is not an integer type", onnx_elem_name(t)));
    const int bits = static_cast<int>(8 * onnx_elem_size(t));
    if (is_unsigned_type(t)) return {0, std::ldexp(1.0, bits)};
    return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1)};
}

ir::VarId remainder_sign_differs(Importer& c, ir::VarId a, ir::VarId r, int32_t elem_type) {
    ir::VarId signs = elemwise(c, "MUL", {elemwise(c, "SIGN", {a}), elemwise(c, "SIGN", {r})});
    return elemwise(c, "LT", {signs, scalar_as(c, 0, elem_type)});
}

void require_float(Importer& c, size_t i) {
    const int32_t t = c.runtime_input(i).elem_type;  // the type only: any shape may follow
    if (!is_float_type(t))
        c.fail(fmt::format("input #{} is {}; only float element types are supported", i, onnx_elem_name(t)));
}

}  // namespace mgedump::formats::onnx_import
