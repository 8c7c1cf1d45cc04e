// Axes known only at run time (formats/onnx/runtime_axes.h). The input's rank r is
// static and the axes operand has a static length m, so everything they decide is
// computed on Int32 vars, exactly:
//   listed[d] = max_j EQ(axes[j] + r·LT(axes[j], 0), d)          (d < r)
//   valid     = EQ(Σ_d listed[d], m): the m axes are distinct and in [−r, r), as
//               ONNX requires; an invalid list zeroes the computed shape, which
//               Reduce and Reshape then refuse at run time (unless the input is empty)
//   pos[d]    = exclusive Cumsum of keep = 1 − listed: how many kept axes precede d
//   sel[k, d] = keep[d]·EQ(pos[d], k): kept axis d is axis k of the shorter shape.
#include "formats/onnx/runtime_axes.h"

#include <fmt/format.h>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

std::vector<int64_t> zero_to(int64_t n) {
    std::vector<int64_t> ids(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) ids[static_cast<size_t>(k)] = k;
    return ids;
}

// How many values the axes operand (input #1) holds.
int64_t axes_length(const Importer& c) { return operand_length(c, 1, "axes"); }

ir::VarId reduce_along(Importer& c, ir::VarId v, const char* mode, int64_t axis) {
    return c.emit("Reduce", {v}, {{"mode", mode}, int_param("axis", axis)});
}

struct ListedAxes {
    ir::VarId listed;  // [rank] Int32: 1 at each listed axis
    ir::VarId valid;   // [1] Int32: 1 when the m axes are distinct and in range
};

// The axes (input #1, m values) over an axis count of `rank`.
ListedAxes listed_axes(Importer& c, int64_t rank, int64_t m) {
    ir::VarId axes = int32_var(c, 1, "axes");
    axes = int_op(c, "ADD", {axes, int_op(c, "MUL", {int_op(c, "LT", {axes, c.const_i32({0})}), c.const_i32({rank})})});
    const ir::VarId hits = int_op(c, "EQ", {c.reshape(axes, {1, m}), c.reshape(c.const_i32(zero_to(rank)), {rank, 1})});
    const ir::VarId listed = c.reshape(reduce_along(c, hits, "MAX", 1), {rank});
    const ir::VarId valid = int_op(c, "EQ", {reduce_along(c, listed, "SUM", 0), c.const_i32({m})});
    return {listed, valid};
}

// sel[k, d] (n × len) for the kept positions keep[d] (1 or 0).
ir::VarId kept_selection(Importer& c, ir::VarId keep, int64_t len, int64_t n) {
    const ir::VarId pos = c.emit("Cumsum", {keep}, {int_param("axis", 0), {"exclusive", true}, {"reverse", false}});
    const ir::VarId at = int_op(c, "EQ", {c.reshape(pos, {1, len}), c.reshape(c.const_i32(zero_to(n)), {n, 1})});
    return int_op(c, "MUL", {at, c.reshape(keep, {1, len})});
}

ir::VarId one_minus(Importer& c, ir::VarId v) { return int_op(c, "SUB", {c.const_i32({1}), v}); }

// The dims of `shape` at the kept positions, in order: out[k] = Σ_d sel[k, d]·dims[d].
ir::VarId kept_dims(Importer& c, ir::VarId keep, const Shape& shape, int64_t n) {
    const int64_t r = static_cast<int64_t>(shape.size());
    const ir::VarId sel = kept_selection(c, keep, r, n);
    const ir::VarId picked = int_op(c, "MUL", {sel, c.reshape(c.const_i32(shape), {1, r})});
    return c.reshape(reduce_along(c, picked, "SUM", 1), {n});
}

// A scalar output (every axis removed): the one element as [1].
void scalar_output(Importer& c) {
    const Value& x = c.input(0);
    if (element_count(x.shape) != 1)
        c.fail(fmt::format("every axis is removed, but the input has {} elements", element_count(x.shape)));
    c.set_output_var(0, c.reshape(c.var(0), {1}), x.elem_type, {});
}

}  // namespace

std::optional<std::vector<int64_t>> axes_fixed_by_length(const Importer& c, int64_t rank) {
    const int64_t m = axes_length(c);
    if (m > rank)
        c.fail(fmt::format("axes (input #1) holds {} values for an input of rank {}: an axis would repeat, which "
                           "ONNX does not allow",
                           m, rank));
    if (m == 0) return std::vector<int64_t>{};
    if (m == rank) return zero_to(rank);
    return std::nullopt;
}

// The target keeps each dim that is not listed and makes the listed ones 1:
// dims + listed·(1 − dims), zeroed by `valid`. MegEngine's Reduce with a target
// shape reduces exactly the axes where target and input differ (a listed axis of
// length 1 is the same either way).
void reduce_over_runtime_axes(Importer& c, const char* before, const char* mode, const char* after) {
    const Value& x = c.input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size()), m = axes_length(c);
    const ListedAxes a = listed_axes(c, r, m);
    const ir::VarId dims = c.const_i32(x.shape);
    ir::VarId target = int_op(c, "ADD", {dims, int_op(c, "MUL", {a.listed, one_minus(c, dims)})});
    target = int_op(c, "MUL", {target, a.valid});
    ir::VarId y = c.var(0);
    if (before) y = elemwise(c, before, {y});
    y = c.emit("Reduce", {y, target}, {{"mode", mode}});
    if (after) y = elemwise(c, after, {y});
    if (c.attr_int("keepdims", 1)) return set_runtime_output(c, 0, y, x.elem_type, static_cast<size_t>(r));
    const ir::VarId out = kept_dims(c, one_minus(c, a.listed), x.shape, r - m);
    set_runtime_output(c, 0, c.emit("Reshape", {y, out}), x.elem_type, static_cast<size_t>(r - m));
}

// The kept dims, zeroed by `valid`; removing an axis whose length is not 1 (which
// ONNX refuses) changes the element count, which Reshape refuses at run time.
void squeeze_runtime_axes(Importer& c) {
    const Value& x = c.input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size()), m = axes_length(c);
    if (m == 0)
        c.fail("axes (input #1) is empty: ONNX's text (remove every axis of length 1) and its reference (remove "
               "none) disagree; not supported");
    if (m > r)
        c.fail(fmt::format("axes (input #1) holds {} values for an input of rank {}: an axis would repeat", m, r));
    if (m == r) return scalar_output(c);  // distinct axes: all of them
    const ListedAxes a = listed_axes(c, r, m);
    const ir::VarId out = int_op(c, "MUL", {kept_dims(c, one_minus(c, a.listed), x.shape, r - m), a.valid});
    set_runtime_output(c, 0, c.emit("Reshape", {c.var(0), out}), x.elem_type, static_cast<size_t>(r - m));
}

// Output rank R = r + m: 1 at the inserted positions, the input's dims in order at
// the others: out[p] = inserted[p] + Σ_k sel[k, p]·dims[k], zeroed by `valid`.
void unsqueeze_runtime_axes(Importer& c) {
    const Value& x = c.input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size()), m = axes_length(c);
    const int64_t rank = r + m;
    if (m == 0) return c.set_output(0, x);
    if (r == 0) {
        // Every output axis is an inserted 1, whichever the axes are.
        const Shape ones(static_cast<size_t>(m), 1);
        return c.set_output_var(0, c.reshape(c.var(0), ones), x.elem_type, ones);
    }
    const ListedAxes a = listed_axes(c, rank, m);
    const ir::VarId sel = kept_selection(c, one_minus(c, a.listed), rank, r);
    const ir::VarId placed = int_op(c, "MUL", {sel, c.reshape(c.const_i32(x.shape), {r, 1})});
    ir::VarId out = int_op(c, "ADD", {a.listed, c.reshape(reduce_along(c, placed, "SUM", 0), {rank})});
    out = int_op(c, "MUL", {out, a.valid});
    set_runtime_output(c, 0, c.emit("Reshape", {c.var(0), out}), x.elem_type, static_cast<size_t>(rank));
}

// Where selects, element by element, the Cumsum along the given axis (no arithmetic
// mixing: NaN and infinities stay as they are). An axis outside [−r, r), which ONNX
// rejects, selects none: the result is the Cumsum along axis 0.
void cumsum_along_runtime_axis(Importer& c, bool exclusive, bool reverse) {
    const Value& x = c.input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size());
    operand_length(c, 1, "axis", 1);
    auto along = [&](int64_t k) {
        return c.emit("Cumsum", {c.var(0)}, {int_param("axis", k), {"exclusive", exclusive}, {"reverse", reverse}});
    };
    ir::VarId y = along(0);
    if (r > 1) {
        ir::VarId axis = int32_var(c, 1, "axis");
        axis = int_op(c, "ADD", {axis, int_op(c, "MUL", {int_op(c, "LT", {axis, c.const_i32({0})}), c.const_i32({r})})});
        const ir::VarId shape = c.const_i32(x.shape);
        for (int64_t k = 1; k < r; ++k) {
            const ir::VarId is_k = c.emit("Broadcast", {bool_elemwise(c, "EQ", {axis, c.const_i32({k})}), shape});
            y = c.emit("Where", {is_k, along(k), y});
        }
    }
    c.set_output_var(0, y, x.elem_type, x.shape);
}

namespace {

ir::VarId gather_along(Importer& c, ir::VarId x, int64_t axis, ir::VarId index) {
    const ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, false, true};
    return c.emit("IndexingMultiAxisVec", {x, index}, {{"items", std::vector{item}}});
}

}  // namespace

// One axis after the other. Negative pads remove elements first, as ONNX Runtime
// does (ONNX's reference hands them to np.pad, which rejects them): with cb, ce the
// elements removed at the front and the back and pf the front padding, the kept
// length is d' = d − cb − ce and output position i (of n = d + b + e) reads the kept
// element j = i − pf, or beyond it: edge clamps j to [0, d' − 1]; reflect folds it
// back by the period p = 2(d' − 1) (np.pad's repeated reflection; p = 1 for
// d' = 1: the one element), m = j − p·⌊j/p⌋, j' = (d' − 1) − |(d' − 1) − m|; constant
// reads the clamped j and, where 0 ≤ j < d' fails, Where puts the value instead.
// The gather is IndexingMultiAxisVec at cb + j' along the axis.
void pad_by_runtime_pads(Importer& c, const std::string& mode) {
    const Value& x = c.input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size());
    if (r == 0) c.fail("cannot pad a scalar");
    operand_length(c, 1, "pads", 2 * r);
    const ir::VarId pads = int32_var(c, 1, "pads");
    const bool constant = mode == "constant";
    ir::VarId fill;
    if (constant && c.has_input(2)) {
        if (c.input(2).elem_type != x.elem_type)
            c.fail(fmt::format("constant_value (input #2) is {}, the input is {}", onnx_elem_name(c.input(2).elem_type),
                               onnx_elem_name(x.elem_type)));
        operand_length(c, 2, "constant_value", 1);
        fill = c.var(2);
    } else if (constant) {
        fill = scalar_as(c, c.attr_float("value", 0.0), x.elem_type);
    }
    const ir::VarId zero = c.const_i32({0}), one = c.const_i32({1});
    ir::VarId y = c.var(0);
    for (int64_t a = 0; a < r; ++a) {
        const ir::VarId b = element(c, pads, a), e = element(c, pads, a + r), d = c.const_i32({x.shape[a]});
        const ir::VarId cb = int_op(c, "MAX", {int_op(c, "NEGATE", {b}), zero});
        const ir::VarId ce = int_op(c, "MAX", {int_op(c, "NEGATE", {e}), zero});
        const ir::VarId last = int_op(c, "SUB", {int_op(c, "SUB", {int_op(c, "SUB", {d, cb}), ce}), one});
        const ir::VarId n = int_op(c, "ADD", {int_op(c, "ADD", {d, b}), e});
        const ir::VarId j = int_op(c, "SUB", {iota(c, n), int_op(c, "MAX", {b, zero})});
        ir::VarId src;
        if (mode == "reflect") {
            const ir::VarId p = int_op(c, "MAX", {int_op(c, "MUL", {last, c.const_i32({2})}), one});
            const ir::VarId m = int_op(c, "SUB", {j, int_op(c, "MUL", {p, int_op(c, "FLOOR_DIV", {j, p})})});
            src = int_op(c, "SUB", {last, int_op(c, "ABS", {int_op(c, "SUB", {last, m})})});
        } else {
            src = int_op(c, "MIN", {int_op(c, "MAX", {j, zero}), last});
        }
        y = gather_along(c, y, a, int_op(c, "ADD", {cb, src}));
        if (!constant) continue;
        // 1 where j is a kept element: −1 < j and j ≤ last; seen as (1, .., n, .., 1).
        const ir::VarId inside = int_op(c, "MUL", {int_op(c, "LT", {c.const_i32({-1}), j}),
                                                   int_op(c, "LT", {j, int_op(c, "ADD", {last, one})})});
        std::vector<int64_t> ones(static_cast<size_t>(r), 1), at(static_cast<size_t>(r), 0);
        ones[static_cast<size_t>(a)] = 0;
        at[static_cast<size_t>(a)] = 1;
        const ir::VarId view = int_op(c, "ADD", {c.const_i32(ones), int_op(c, "MUL", {c.const_i32(at), n})});
        const ir::VarId shape = c.emit("GetVarShape", {y});
        const ir::VarId mask = c.emit("Broadcast", {c.emit("Reshape", {bool_elemwise(c, "EQ", {inside, one}), view}), shape});
        y = c.emit("Where", {mask, y, c.emit("Broadcast", {fill, shape})});
    }
    set_runtime_output(c, 0, y, x.elem_type, static_cast<size_t>(r));
}

}  // namespace mgedump::formats::onnx_import
