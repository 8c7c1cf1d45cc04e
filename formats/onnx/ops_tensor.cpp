// Tensor construction and rearrangement: Expand (Broadcast), Tile (Reshape,
// Broadcast, Reshape), ConstantOfShape / Range / Size / NonZero of known values
// (import-time constants, like Shape), EyeLike (a constant of the input's static
// shape), Trilu (MaskedFill with a constant mask),
// OneHot (Elemwise EQ against a constant 0..depth-1), TopK, DepthToSpace and
// SpaceToDepth (Reshape, Dimshuffle, Reshape). Shapes are static, so every target
// shape is known at import time.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

std::vector<int64_t> strides_of(const Shape& s) {
    std::vector<int64_t> st(s.size(), 1);
    for (size_t k = s.size(); k-- > 1;) st[k - 1] = st[k] * s[k];
    return st;
}

// A scalar (or one-element) constant input as an integer.
int64_t scalar_int(Importer& c, size_t i, std::string_view what) {
    const Value& v = c.input(i);
    if (!v.is_const) c.fail(fmt::format("{} (input #{}) must be a constant known at import time", what, i));
    auto ints = decode_ints(v);
    std::vector<int64_t> out;
    if (ints) {
        out = *ints;
    } else {
        // A float constant must hold a whole number an int64 holds: the
        // conversion of NaN or of one past int64 is undefined behaviour.
        for (double d : c.const_floats(i, what)) {
            if (!(d == std::trunc(d) && d >= -0x1p63 && d < 0x1p63))
                c.fail(fmt::format("{} (input #{}) is {}, not a whole number", what, i, d));
            out.push_back(static_cast<int64_t>(d));
        }
    }
    if (out.size() != 1) c.fail(fmt::format("{} (input #{}) must hold one value, holds {}", what, i, out.size()));
    return out[0];
}

// --- Expand, Tile ----------------------------------------------------------------

void expand(Importer& c) {
    c.check_attrs({});
    if (is_runtime_value(c, 1) || c.runtime_input(0).runtime_shape) return expand_to_runtime_shape(c);
    const Value& x = c.input(0);
    const std::vector<int64_t> target = c.const_ints(1, "shape");
    auto out = broadcast_shapes(x.shape, target);
    if (!out)
        c.fail(fmt::format("input [{}] does not broadcast with shape [{}]", fmt::join(x.shape, ","),
                           fmt::join(target, ",")));
    if (*out == x.shape) return c.set_output(0, x);
    c.set_output_var(0, c.emit("Broadcast", {c.var(0), c.const_i32(*out)}), x.elem_type, *out);
}

// Tile repeats the whole tensor r_k times along axis k: x seen with a unit axis
// before each repeated axis, (.., 1, d_k, ..), broadcast to (.., r_k, d_k, ..),
// seen as (.., r_k·d_k, ..). When that would pass MegEngine's 7 axes, one axis at
// a time.
void tile(Importer& c) {
    c.check_attrs({});
    if (is_runtime_value(c, 1)) return tile_to_runtime_repeats(c);
    const Value& x = c.input(0);
    const std::vector<int64_t> repeats = c.const_ints(1, "repeats");
    if (repeats.size() != x.shape.size())
        c.fail(fmt::format("repeats has {} entries for rank {}", repeats.size(), x.shape.size()));
    Shape out;
    size_t repeated = 0;
    for (size_t k = 0; k < repeats.size(); ++k) {
        if (repeats[k] < 0) c.fail(fmt::format("repeats[{}] = {} is negative", k, repeats[k]));
        out.push_back(repeats[k] * x.shape[k]);
        repeated += repeats[k] != 1;
    }
    if (out == x.shape) return c.set_output(0, x);
    const bool at_once = x.shape.size() + repeated <= 7;
    ir::VarId y = c.var(0);
    Shape cur = x.shape;
    for (size_t first = 0; first < repeats.size();) {
        // The axes of this pass: all of them, or the next repeated one.
        size_t last = repeats.size();
        if (!at_once) {
            while (first < repeats.size() && repeats[first] == 1) ++first;
            if (first == repeats.size()) break;
            last = first + 1;
        }
        Shape split, tiled;
        for (size_t k = 0; k < cur.size(); ++k) {
            const bool rep = k >= first && k < last && repeats[k] != 1;
            if (rep) split.push_back(1), tiled.push_back(repeats[k]);
            split.push_back(cur[k]);
            tiled.push_back(cur[k]);
        }
        y = c.emit("Broadcast", {c.reshape(y, split), c.const_i32(tiled)});
        for (size_t k = first; k < last; ++k) cur[k] *= repeats[k];
        y = c.reshape(y, cur);
        first = last;
    }
    c.set_output_var(0, y, x.elem_type, out);
}

// --- values known at import time -----------------------------------------------

void constant_of_shape(Importer& c) {
    c.check_attrs({"value"});
    if (is_runtime_value(c, 0)) return constant_of_runtime_shape(c);
    const std::vector<int64_t> shape = c.const_ints(0, "shape");
    for (int64_t d : shape)
        if (d < 0) c.fail(fmt::format("shape [{}] has a negative dimension", fmt::join(shape, ",")));
    Value fill = float_const({0.f}, {1});
    if (const auto* a = c.attr("value")) fill = tensor_const(c.tensors().read(a->t()));
    const size_t elem = onnx_elem_size(fill.elem_type);
    if (fill.bytes.size() != elem) c.fail("value must hold one element");
    const auto count = static_cast<size_t>(element_count(shape));
    auto bytes = std::make_shared<std::vector<std::byte>>(count * elem);
    for (size_t k = 0; k < count; ++k) std::memcpy(bytes->data() + k * elem, fill.bytes.data(), elem);
    c.set_output(0, bytes_const(fill.elem_type, shape, bytes));
}

template <class T>
std::shared_ptr<std::vector<std::byte>> bytes_of(const std::vector<T>& v) {
    auto bytes = std::make_shared<std::vector<std::byte>>(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(bytes->data(), v.data(), bytes->size());
    return bytes;
}

// np.arange(start, limit, delta) in the inputs' type: ⌈(limit − start) / delta⌉
// elements start + k·delta.
void range(Importer& c) {
    c.check_attrs({});
    for (size_t i = 0; i < 3; ++i)
        if (is_runtime_value(c, i)) return range_of_runtime_values(c);
    const int32_t t = c.input(0).elem_type;
    const std::vector<double> start = c.const_floats(0, "start"), limit = c.const_floats(1, "limit"),
                              delta = c.const_floats(2, "delta");
    if (start.size() != 1 || limit.size() != 1 || delta.size() != 1) c.fail("start, limit and delta must be scalars");
    if (delta[0] == 0) c.fail("delta is 0");
    const auto n = static_cast<int64_t>(std::max(0.0, std::ceil((limit[0] - start[0]) / delta[0])));
    std::vector<double> v;
    for (int64_t k = 0; k < n; ++k) v.push_back(start[0] + static_cast<double>(k) * delta[0]);
    switch (t) {
        case P::FLOAT:
            return c.set_output(0, bytes_const(t, {n}, bytes_of(std::vector<float>(v.begin(), v.end()))));
        case P::DOUBLE:
            return c.set_output(0, bytes_const(t, {n}, bytes_of(v)));
        case P::INT64:
            return c.set_output(0, bytes_const(t, {n}, bytes_of(std::vector<int64_t>(v.begin(), v.end()))));
        case P::INT32:
            return c.set_output(0, bytes_const(t, {n}, bytes_of(std::vector<int32_t>(v.begin(), v.end()))));
        case P::INT16:
            return c.set_output(0, bytes_const(t, {n}, bytes_of(std::vector<int16_t>(v.begin(), v.end()))));
        default:
            c.fail(fmt::format("Range of {} is not supported", onnx_elem_name(t)));
    }
}

void size(Importer& c) {
    c.check_attrs({});
    c.set_output(0, int64_const({element_count(c.input(0).shape)}, {}));
}

// EyeLike: ones on diagonal k (j − i = k) of the 2-D input's static shape, zeros
// elsewhere, in `dtype` (default: the input's type); the input's values are not
// read, so the output is an import-time constant.
void eye_like(Importer& c) {
    c.check_attrs({"dtype", "k"});
    const Value& x = c.input(0);
    if (x.shape.size() != 2) c.fail(fmt::format("the input has rank {}; EyeLike takes a 2-D tensor", x.shape.size()));
    const auto type = static_cast<int32_t>(c.attr_int("dtype", x.elem_type));
    // The bytes of one 1 in `type` (little-endian).
    std::vector<std::byte> one;
    auto put = [&one](auto v) {
        one.resize(sizeof(v));
        std::memcpy(one.data(), &v, sizeof(v));
    };
    switch (type) {
        case P::FLOAT: put(1.0f); break;
        case P::DOUBLE: put(1.0); break;
        case P::FLOAT16: put(uint16_t{0x3C00}); break;
        case P::BFLOAT16: put(uint16_t{0x3F80}); break;
        case P::BOOL: case P::INT8: case P::UINT8: put(uint8_t{1}); break;
        case P::INT16: case P::UINT16: put(uint16_t{1}); break;
        case P::INT32: case P::UINT32: put(uint32_t{1}); break;
        case P::INT64: case P::UINT64: put(uint64_t{1}); break;
        default: c.fail(fmt::format("dtype {} is not a type EyeLike produces", onnx_elem_name(type)));
    }
    const int64_t rows = x.shape[0], cols = x.shape[1], k = c.attr_int("k", 0);
    auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(rows * cols) * one.size());
    for (int64_t i = 0; i < rows; ++i)
        if (const int64_t j = i + k; j >= 0 && j < cols)
            std::memcpy(bytes->data() + static_cast<size_t>(i * cols + j) * one.size(), one.data(), one.size());
    c.set_output(0, bytes_const(type, x.shape, bytes));
}

// NonZero of a value known only at run time: CondTake of a Bool "is zero" mask
// (ElemwiseMultiType EQ with 0, so NaN counts as nonzero, as numpy's; a BOOL
// input is its own mask) gives the flat positions of the nonzero elements, in
// order, as Int32, their count known only when it runs. Coordinate a of each is
// FLOOR_DIV by the stride of axis a, MOD its dim (exact: non-negative Int32);
// the rows, each given a leading unit axis, are concatenated into (rank, count).
// A 1-D input whose length only the run time knows (a second mask over a
// selection) needs no stride: its flat positions are its coordinates.
void runtime_non_zero(Importer& c) {
    const Value& x = c.runtime_input(0);
    if (x.runtime_shape && x.shape.size() != 1)
        c.fail(fmt::format("an input of rank {} with dims known only at run time is not supported (rank 1 is: "
                           "the coordinates of more axes need their strides)",
                           x.shape.size()));
    const Shape shape = x.shape.empty() ? Shape{1} : x.shape;
    // An empty axis would make a zero stride, a divisor below.
    if (!x.runtime_shape && element_count(shape) == 0)
        c.fail(fmt::format("the input [{}] has no elements: MegEngine holds no empty tensor", fmt::join(shape, ",")));
    ir::VarId flat = c.var(0);
    if (shape.size() != 1) flat = c.reshape(flat, {element_count(shape)});
    ir::OprId take;
    if (x.elem_type == P::BOOL) {
        take = c.emit_opr("CondTake", {flat, flat}, {{"mode", "EQ"}, {"val", 1.0f}}, 2);
    } else {
        if (!is_float_type(x.elem_type) && !is_integer_type(x.elem_type))
            c.fail(fmt::format("element type {} is not supported", onnx_elem_name(x.elem_type)));
        const ir::VarId is_zero = bool_elemwise(c, "EQ", {flat, scalar_as(c, 0, x.elem_type)});
        take = c.emit_opr("CondTake", {is_zero, is_zero}, {{"mode", "EQ"}, {"val", 0.0f}}, 2);
    }
    const ir::VarId position = c.graph().output_var(take, 1);
    const auto strides = strides_of(shape);
    std::vector<ir::VarId> rows;
    for (size_t a = 0; a < shape.size(); ++a) {
        ir::VarId coord = position;
        if (strides[a] != 1) coord = int_op(c, "FLOOR_DIV", {coord, c.const_i32({strides[a]})});
        if (a != 0) coord = int_op(c, "MOD", {coord, c.const_i32({shape[a]})});
        rows.push_back(with_unit_axis(c, coord, 0));
    }
    const ir::VarId y = concat(c, rows, 0);
    set_runtime_output(c, 0, y, P::INT64, Shape{static_cast<int64_t>(shape.size()), -1});
}

// NonZero's output length depends on the values: a constant's is computed here,
// anything else's at run time (runtime_non_zero).
void non_zero(Importer& c) {
    c.check_attrs({});
    if (!c.runtime_input(0).is_const) return runtime_non_zero(c);
    const Value& x = c.input(0);
    auto values = decode_floats(x);
    if (!values) c.fail(fmt::format("element type {} is not supported", onnx_elem_name(x.elem_type)));
    const Shape shape = x.shape.empty() ? Shape{1} : x.shape;
    const auto st = strides_of(shape);
    std::vector<int64_t> hits;
    for (size_t k = 0; k < values->size(); ++k)
        if ((*values)[k] != 0) hits.push_back(static_cast<int64_t>(k));
    const auto nnz = static_cast<int64_t>(hits.size());
    std::vector<int64_t> out(shape.size() * hits.size());
    for (size_t a = 0; a < shape.size(); ++a)
        for (size_t j = 0; j < hits.size(); ++j) out[a * hits.size() + j] = hits[j] / st[a] % shape[a];
    c.set_output(0, int64_const(out, {static_cast<int64_t>(shape.size()), nnz}));
}

// --- Trilu, OneHot ---------------------------------------------------------------

// MaskedFill(x, mask) with 0 where the triangle excludes an element (exact for
// every value, NaN and infinities included). MaskedFill's mask covers x's leading
// axes, so the matrix axes are moved to the front and back around it. A k known
// only at run time compares the constant grid j − i with it: the mask is
// LT(j − i, k) for the upper triangle, LT(k, j − i) for the lower.
void trilu(Importer& c) {
    c.check_attrs({"upper"});
    const Value& x = c.input(0);
    const size_t r = x.shape.size();
    if (r < 2) c.fail(fmt::format("input must have rank >= 2, has {}", r));
    const bool runtime_k = is_runtime_value(c, 1);
    const int64_t k = c.has_input(1) && !runtime_k ? scalar_int(c, 1, "k") : 0;
    const bool upper = c.attr_int("upper", 1) != 0;
    const int64_t rows = x.shape[r - 2], cols = x.shape[r - 1];
    // An empty matrix has nothing to zero: the output is the input. Its mask (or
    // grid) would be an empty constant, which neither of MegEngine's loaders takes.
    if (rows * cols == 0) return c.set_output(0, x);
    std::vector<std::byte> mask(static_cast<size_t>(rows * cols));
    std::vector<int64_t> diagonal(static_cast<size_t>(rows * cols));
    bool any = false;
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            const bool keep = upper ? j - i >= k : j - i <= k;
            mask[static_cast<size_t>(i * cols + j)] = std::byte{keep ? uint8_t{0} : uint8_t{1}};
            diagonal[static_cast<size_t>(i * cols + j)] = j - i;
            any = any || !keep;
        }
    if (!any && !runtime_k) return c.set_output(0, x);
    ir::VarId drop;
    if (runtime_k) {
        operand_length(c, 1, "k", 1);
        const ir::VarId kv = int32_var(c, 1, "k"), grid = int32_tensor(c, diagonal, {rows, cols});
        drop = bool_elemwise(c, "LT", upper ? std::vector<ir::VarId>{grid, kv} : std::vector<ir::VarId>{kv, grid});
    } else {
        drop = c.const_var(ir::DTypeEnum::Bool, {rows, cols}, std::move(mask));
    }
    std::vector<int32_t> front{static_cast<int32_t>(r - 2), static_cast<int32_t>(r - 1)}, back;
    for (size_t a = 0; a + 2 < r; ++a) front.push_back(static_cast<int32_t>(a));
    for (size_t a = 0; a + 2 < r; ++a) back.push_back(static_cast<int32_t>(a + 2));
    back.push_back(0);
    back.push_back(1);
    ir::VarId y = c.var(0);
    if (r > 2) y = c.emit("Dimshuffle", {y}, {{"pattern", front}});
    y = c.emit("MaskedFill", {y, drop}, {float_param("value", 0.0)});
    if (r > 2) y = c.emit("Dimshuffle", {y}, {{"pattern", back}});
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// out = on where index == position along `axis` (a negative index counting from
// depth), else off: m = EQ(index, 0..depth-1) (or EQ with −depth..−1), then
// m·on + (1 − m)·off, each product exact (a value or 0). A depth known only at
// run time gives the positions as an exclusive Cumsum of depth ones (and the
// output's axis is then known only at run time).
void one_hot(Importer& c) {
    c.check_attrs({"axis"});
    const Value& ind = c.input(0);
    const Value& vals = c.input(2);
    const bool runtime_depth = is_runtime_value(c, 1);
    const int64_t depth = runtime_depth ? 1 : scalar_int(c, 1, "depth");
    if (depth < 1) c.fail(fmt::format("depth {} must be positive", depth));
    const int64_t rank = static_cast<int64_t>(ind.shape.size()) + 1;
    const int64_t axis = normalize_axis(c.attr_int("axis", -1), rank, c, "axis");
    if (element_count(vals.shape) != 2) c.fail("values must hold two elements (off, on)");
    Shape out = ind.shape;
    out.insert(out.begin() + axis, depth);
    Shape ind_shape = ind.shape;
    ind_shape.insert(ind_shape.begin() + axis, 1);
    Shape pos_shape(static_cast<size_t>(rank), 1);
    pos_shape[static_cast<size_t>(axis)] = depth;
    std::vector<int64_t> pos(static_cast<size_t>(depth)), neg(static_cast<size_t>(depth));
    for (int64_t k = 0; k < depth; ++k) pos[k] = k, neg[k] = k - depth;
    ir::VarId index = c.var(0);
    if (onnx_var_dtype(ind.elem_type, c) != ir::DTypeEnum::Int32)
        index = type_cvt(c, index, ir::DTypeEnum::Int32);
    index = c.reshape(index, ind_shape);
    // MegEngine's EQ keeps the Int32 type (0 or 1); an index equals at most one of
    // the two positions, so their sum is the hit.
    ir::VarId positions = int32_tensor(c, pos, pos_shape), negatives = int32_tensor(c, neg, pos_shape);
    if (runtime_depth) {
        operand_length(c, 1, "depth", 1);
        const ir::VarId d = int32_var(c, 1, "depth");
        Shape runtime_pos_shape = pos_shape;
        runtime_pos_shape[static_cast<size_t>(axis)] = -1;
        positions = reshaped(c, iota(c, d), runtime_pos_shape);
        negatives = int_op(c, "SUB", {positions, d});
    }
    ir::VarId hit = c.emit("Elemwise",
                           {c.emit("Elemwise", {index, positions}, {{"mode", "EQ"}}),
                            c.emit("Elemwise", {index, negatives}, {{"mode", "EQ"}})},
                           {{"mode", "ADD"}});
    ir::VarId miss = c.emit("Elemwise", {c.const_i32({1}), hit}, {{"mode", "SUB"}});
    const ir::DTypeEnum vt = onnx_var_dtype(vals.elem_type, c);
    auto as_values = [&](ir::VarId v) {
        return vt == ir::DTypeEnum::Int32 ? v : type_cvt(c, v, vt);
    };
    // off and on as (1)-shaped slices of the values.
    ir::VarId off = slice_1d(c, c.var(2), 0, 1);
    ir::VarId on = slice_1d(c, c.var(2), 1, 2);
    if (vals.shape.size() != 1) off = c.reshape(off, {1}), on = c.reshape(on, {1});
    ir::VarId y = c.emit("Elemwise", {c.emit("Elemwise", {as_values(hit), on}, {{"mode", "MUL"}}),
                                      c.emit("Elemwise", {as_values(miss), off}, {{"mode", "MUL"}})},
                         {{"mode", "ADD"}});
    if (runtime_depth) return set_runtime_output(c, 0, y, vals.elem_type, out.size());
    c.set_output_var(0, y, vals.elem_type, out);
}

// --- TopK --------------------------------------------------------------------------

// x mapped so that its order reverses: -x for floats, -1 - x for signed integers
// (~x, which never wraps, where -x does at the type's minimum), MAX - x for
// unsigned ones. Each map is its own inverse.
ir::VarId order_reversed(Importer& c, ir::VarId x, int32_t elem_type) {
    if (is_float_type(elem_type)) return elemwise(c, "NEGATE", {x});
    const double top = elem_type == P::UINT8 ? 255 : elem_type == P::UINT16 ? 65535 : -1;
    return elemwise(c, "SUB", {scalar_as(c, is_unsigned_type(elem_type) ? top : -1, elem_type), x});
}

// MegEngine's TopK of `rows` (a matrix, the sorted axis last) by K: the constant
// `k`, or input #1 when `runtime_k`; the largest taken as the smallest of the
// order reversed, and their values mapped back (top_k below says why). Both
// outputs: values, indices.
std::array<ir::VarId, 2> top_k_of_rows(Importer& c, ir::VarId rows, int32_t elem_type, bool largest, bool runtime_k,
                                       int64_t k) {
    if (largest) rows = order_reversed(c, rows, elem_type);
    ir::VarId kv = c.const_i32({k});
    if (runtime_k) {
        operand_length(c, 1, "K", 1);
        kv = int32_var(c, 1, "K");
    }
    ir::OprId o = c.emit_opr("TopK", {rows, kv}, {{"mode", "VALUE_IDX_SORTED"}}, 2);
    std::array<ir::VarId, 2> out{c.graph().output_var(o, 0), c.graph().output_var(o, 1)};
    if (largest) out[0] = order_reversed(c, out[0], elem_type);
    return out;
}

// The top K of a row ([1, n], n possibly 0) for a K known only at run time
// (input #1, possibly 0: torchvision ranks what a mask selected by min(k, n)),
// as top_k_of_rows takes them. MegEngine's TopK takes neither an empty input
// nor k = 0, so the row gets one more value, a sentinel sorting after every
// real one (the dtype's largest finite value in the order TopK sorts: equal
// values sort by index, and it is last), TopK takes K + 1, and both outputs
// keep their first K (a Subtensor slice, which may be empty). The slice comes
// last: MegEngine's Elemwise asserts that an empty output has an empty input
// (basic_arith.cpp:297), and an empty slice of a tensor is a view of its
// storage, which is not empty. Exact unless more than n - K of the values sort
// after the sentinel (infinities or NaN).
std::array<ir::VarId, 2> top_k_of_a_row_that_may_be_empty(Importer& c, ir::VarId row, int32_t elem_type,
                                                          bool largest) {
    operand_length(c, 1, "K", 1);
    const ir::VarId kv = int32_var(c, 1, "K");
    const double largest_value =
        is_float_type(elem_type) ? static_cast<double>(std::numeric_limits<float>::max())
                                 : static_cast<double>(integer_range(onnx_var_dtype(elem_type, c)).second);
    if (largest) row = order_reversed(c, row, elem_type);
    const ir::VarId padded =
        concat(c, {row, with_unit_axis(c, scalar_as(c, largest_value, elem_type), 0)}, 1);
    const ir::OprId o = c.emit_opr("TopK", {padded, int_op(c, "ADD", {kv, c.const_i32({1})})},
                                   {{"mode", "VALUE_IDX_SORTED"}}, 2);
    std::array<ir::VarId, 2> top{c.graph().output_var(o, 0), c.graph().output_var(o, 1)};
    if (largest) top[0] = order_reversed(c, top[0], elem_type);
    const ir::IndexDescMaskItem first_k{1, false, true, false, false};
    for (ir::VarId& v : top) v = c.emit("Subtensor", {v, kv}, {{"items", std::vector{first_k}}});
    return top;
}

// TopK of a 1-D value whose length only the run time knows (the scores a mask
// selected, as detection post-processing ranks them): one row (a unit axis in
// front), its K a constant or a runtime value (the largest taken as top_k below
// takes them, by order_reversed), and the row axis removed from both outputs. A
// constant K past the length fails when the graph runs (MegEngine's TopK checks
// it), as ONNX's reference does; a K known only at run time may be 0, and the
// value empty (top_k_of_a_row_that_may_be_empty).
void top_k_of_runtime_length(Importer& c) {
    const Value& x = c.runtime_input(0);
    if (x.shape.size() != 1)
        c.fail(fmt::format("an input of rank {} with dims known only at run time is not supported (rank 1 is)",
                           x.shape.size()));
    (void)normalize_axis(c.attr_int("axis", -1), 1, c, "axis");
    const bool runtime_k = c.opset() >= 10 && is_runtime_value(c, 1);
    const int64_t k = c.opset() < 10 ? c.attr_int("k", 0) : runtime_k ? -1 : scalar_int(c, 1, "K");
    if (!runtime_k && k < 1) c.fail(fmt::format("K = {} is out of range: it must be at least 1", k));
    const bool largest = c.attr_int("largest", 1) != 0;
    std::array<ir::VarId, 2> top;
    if (runtime_k) {
        top = top_k_of_a_row_that_may_be_empty(c, with_unit_axis(c, c.var(0), 0), x.elem_type, largest);
    } else {
        top = top_k_of_rows(c, with_unit_axis(c, c.var(0), 0), x.elem_type, largest, false, k);
    }
    const std::vector<ir::AxisDesc> row{{ir::AxisDescMethod::REMOVE, 0}};
    for (uint32_t i = 0; i < 2; ++i) {
        const ir::VarId v = c.emit("AxisAddRemove", {top[i]}, {{"desc", row}});
        set_runtime_output(c, i, v, i == 0 ? x.elem_type : P::INT64, Shape{k});
    }
}

// MegEngine's TopK works along the last axis of a matrix and takes the smallest k
// for k > 0, the largest for k < 0: the axis is moved last (Dimshuffle), the rest
// folded into rows (Reshape), and both back. Values come sorted (ONNX leaves the
// order to the implementation when sorted = 0).
//
// Of equal values, ONNX puts the one with the lower index first (TopK-11), as
// MegEngine's smallest k do (its naive kernel sorts (value, index) pairs); its
// largest k sort the pairs descending, the higher index first. So the largest k
// are taken as the smallest k of x with its order reversed (order_reversed), and
// their values mapped back.
void top_k(Importer& c) {
    c.check_attrs({"axis", "largest", "sorted", "k"});
    if (c.runtime_input(0).runtime_shape) return top_k_of_runtime_length(c);
    const Value& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = normalize_axis(c.attr_int("axis", -1), rank, c, "axis");
    // Checked before anything divides by the axis's length (a runtime K skips the
    // range check below; fuzz_onnx found the division by zero).
    if (x.shape[axis] < 1)
        c.fail(fmt::format("axis {} of the input [{}] has no elements: MegEngine holds no empty tensor", axis,
                           fmt::join(x.shape, ",")));
    // A K known only at run time is TopK's k var (negated for the largest), and
    // the output's axis is then known only at run time too.
    const bool runtime_k = c.opset() >= 10 && is_runtime_value(c, 1);
    const int64_t k = c.opset() < 10 ? c.attr_int("k", 0) : runtime_k ? 0 : scalar_int(c, 1, "K");
    if (!runtime_k && (k < 1 || k > x.shape[axis]))
        c.fail(fmt::format("K = {} is out of range for axis {} of size {}", k, axis, x.shape[axis]));
    const bool largest = c.attr_int("largest", 1) != 0;
    std::vector<int32_t> to_last, from_last(static_cast<size_t>(rank));
    Shape moved;
    for (int64_t a = 0; a < rank; ++a)
        if (a != axis) to_last.push_back(static_cast<int32_t>(a)), moved.push_back(x.shape[a]);
    to_last.push_back(static_cast<int32_t>(axis));
    moved.push_back(x.shape[axis]);
    for (int64_t a = 0; a < rank; ++a) from_last[to_last[a]] = static_cast<int32_t>(a);
    const bool shuffle = axis != rank - 1;
    ir::VarId y = c.var(0);
    if (shuffle) y = c.emit("Dimshuffle", {y}, {{"pattern", to_last}});
    const int64_t rows = element_count(moved) / x.shape[axis];
    const auto top = top_k_of_rows(c, c.reshape(y, {rows, x.shape[axis]}), x.elem_type, largest, runtime_k, k);
    Shape out = x.shape;
    out[axis] = k;
    Shape moved_out = moved;
    moved_out.back() = runtime_k ? -1 : k;  // with a runtime K, known only at run time
    for (uint32_t i = 0; i < 2; ++i) {
        ir::VarId v = reshaped(c, top[i], moved_out);
        if (shuffle) v = c.emit("Dimshuffle", {v}, {{"pattern", from_last}});
        if (runtime_k)
            set_runtime_output(c, i, v, i == 0 ? x.elem_type : P::INT64, out.size());
        else
            c.set_output_var(i, v, i == 0 ? x.elem_type : P::INT64, out);
    }
}

// --- DepthToSpace, SpaceToDepth ------------------------------------------------

void rearrange(Importer& c, const Shape& split, const std::vector<int32_t>& perm, const Shape& out) {
    const Value& x = c.input(0);
    ir::VarId y = c.reshape(c.var(0), split);
    y = c.emit("Dimshuffle", {y}, {{"pattern", perm}});
    c.set_output_var(0, c.reshape(y, out), x.elem_type, out);
}

void depth_to_space(Importer& c) {
    c.check_attrs({"blocksize", "mode"});
    const Value& x = c.input(0);
    if (x.shape.size() != 4) c.fail(fmt::format("input must have rank 4 (N, C, H, W), has {}", x.shape.size()));
    const int64_t b = c.attr_int("blocksize", 0);
    const std::string mode = c.attr_string("mode", "DCR");
    const int64_t n = x.shape[0], ch = x.shape[1], h = x.shape[2], w = x.shape[3];
    if (b < 1 || ch % (b * b) != 0) c.fail(fmt::format("blocksize {} does not divide the {} channels", b, ch));
    const Shape out{n, ch / (b * b), h * b, w * b};
    if (mode == "DCR") return rearrange(c, {n, b, b, ch / (b * b), h, w}, {0, 3, 4, 1, 5, 2}, out);
    if (mode == "CRD") return rearrange(c, {n, ch / (b * b), b, b, h, w}, {0, 1, 4, 2, 5, 3}, out);
    c.fail(fmt::format("mode '{}' is not supported (DCR, CRD)", mode));
}

void space_to_depth(Importer& c) {
    c.check_attrs({"blocksize"});
    const Value& x = c.input(0);
    if (x.shape.size() != 4) c.fail(fmt::format("input must have rank 4 (N, C, H, W), has {}", x.shape.size()));
    const int64_t b = c.attr_int("blocksize", 0);
    const int64_t n = x.shape[0], ch = x.shape[1], h = x.shape[2], w = x.shape[3];
    if (b < 1 || h % b != 0 || w % b != 0)
        c.fail(fmt::format("blocksize {} does not divide the spatial size {}x{}", b, h, w));
    rearrange(c, {n, ch, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4}, {n, ch * b * b, h / b, w / b});
}

constexpr OpHandler kHandlers[] = {
    {"Expand", expand},
    {"Tile", tile},
    {"ConstantOfShape", constant_of_shape},
    {"Range", range},
    {"Size", size},
    {"NonZero", non_zero},
    {"EyeLike", eye_like},
    {"Trilu", trilu},
    {"OneHot", one_hot},
    {"TopK", top_k},
    {"DepthToSpace", depth_to_space},
    {"SpaceToDepth", space_to_depth},
};

}  // namespace

std::span<const OpHandler> tensor_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
