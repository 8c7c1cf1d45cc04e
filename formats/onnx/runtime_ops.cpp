// Operators whose shape-like operands are known only at run time, mapped onto
// MegEngine operators that take those operands as vars (formats/onnx/runtime_values.h).
// ONNX's rules on the operand values (Reshape's 0 and -1, Slice's clamping,
// Expand's bidirectional broadcast, Range's element count) are computed with
// Elemwise on Int32 vars, exactly.
#include <fmt/format.h>

#include <algorithm>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// The [1] var of a one-element input, in the input's own MegEngine dtype.
ir::VarId scalar_operand(Importer& c, size_t i, std::string_view what) {
    operand_length(c, i, what, 1);
    return c.var(i);
}

ir::VarId reduce_sum(Importer& c, ir::VarId v, int64_t axis) {
    return c.emit("Reduce", {v}, {{"mode", "SUM"}, int_param("axis", axis)});
}

}  // namespace

// min(max(x, min), max): MegEngine's MAX and MIN take the bound as a [1] operand of
// x's dtype (ONNX gives the bounds x's type). A min above max gives max, as ONNX says.
void clip_to_runtime_bounds(Importer& c) {
    c.check_attrs({});
    const Value& x = c.input(0);
    ir::VarId y = c.var(0);
    for (size_t i : {size_t{1}, size_t{2}}) {
        if (!c.has_input(i)) continue;
        const std::string_view what = i == 1 ? "min" : "max";
        if (c.input(i).elem_type != x.elem_type)
            c.fail(fmt::format("{} (input #{}) is {}, the input is {}", what, i, onnx_elem_name(c.input(i).elem_type),
                               onnx_elem_name(x.elem_type)));
        y = elemwise(c, i == 1 ? "MAX" : "MIN", {y, scalar_operand(c, i, what)});
    }
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// The target computed from the shape operand t (length n) and the input's static
// dims: without allowzero a 0 copies the input's dim at that position
// (t + EQ(t, 0)·dims, where dims is 0 past the input's rank, leaving an invalid 0
// for MegEngine to refuse); a -1 becomes total / (product of the others), computed
// as the product of t with the -1 counted as 1 (t + 2·EQ(t, −1)). An input whose
// dims only the run time knows (what a mask selected) gives its dims and element
// count by GetVarShape instead.
void reshape_to_runtime_shape(Importer& c) {
    c.check_attrs({"allowzero"});
    const Value& x = c.runtime_input(0);
    const int64_t n = operand_length(c, 1, "shape");
    if (n == 0) c.fail("shape (input #1) is empty: the output would be a scalar, which a runtime shape cannot say");
    if (c.input(1).shape.size() != 1) c.fail("shape (input #1) must be a 1-D tensor");
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::optional<ir::VarId> x_shape;
    if (x.runtime_shape) x_shape = c.emit("GetVarShape", {c.var(0)});
    ir::VarId t = int32_var(c, 1, "shape");
    if (c.attr_int("allowzero", 0) == 0) {
        ir::VarId zero = int_op(c, "EQ", {t, c.const_i32({0})});
        ir::VarId dims;
        if (!x_shape) {
            std::vector<int64_t> known(static_cast<size_t>(n), 0);
            for (size_t k = 0; k < known.size() && k < x.shape.size(); ++k) known[k] = x.shape[k];
            dims = c.const_i32(known);
        } else if (n == rank) {
            dims = *x_shape;
        } else if (n > rank) {  // 0 past the input's rank
            dims = c.emit("Concat", {*x_shape, c.const_i32(std::vector<int64_t>(n - rank, 0))},
                          {int_param("axis", 0)});
        } else {  // the first n
            const ir::IndexDescMaskItem first_n{0, false, true, false, false};
            dims = c.emit("Subtensor", {*x_shape, c.const_i32({n})}, {{"items", std::vector{first_n}}});
        }
        t = int_op(c, "ADD", {t, int_op(c, "MUL", {zero, dims})});
    }
    ir::VarId infer = int_op(c, "EQ", {t, c.const_i32({-1})});
    ir::VarId others = c.emit("Reduce", {int_op(c, "ADD", {t, int_op(c, "MUL", {infer, c.const_i32({2})})})},
                              {{"mode", "PRODUCT"}, int_param("axis", 0)});
    // At least 1: a 0 among the others leaves nothing to infer, and no division by 0.
    others = int_op(c, "MAX", {others, c.const_i32({1})});
    const ir::VarId total = x_shape
                                ? c.emit("Reduce", {*x_shape}, {{"mode", "PRODUCT"}, int_param("axis", 0)})
                                : c.const_i32({element_count(x.shape)});
    ir::VarId missing = int_op(c, "FLOOR_DIV", {total, others});
    t = int_op(c, "ADD", {t, int_op(c, "MUL", {infer, int_op(c, "ADD", {missing, c.const_i32({1})})})});
    set_runtime_output(c, 0, c.emit("Reshape", {c.var(0), t}), x.elem_type, static_cast<size_t>(n));
}

// ONNX's Expand broadcasts both ways: the output dims are the larger of the
// input's and the shape operand's after right-aligning them (each pair equal or
// one of them 1; MegEngine's Broadcast refuses any other pair at run time). An
// input whose dims only the run time knows (torchvision's MultiScaleRoIAlign
// expands the positions of the rois of each level) gives them by GetVarShape.
void expand_to_runtime_shape(Importer& c) {
    c.check_attrs({});
    const Value& x = c.runtime_input(0);
    const int64_t n = operand_length(c, 1, "shape");
    if (c.input(1).shape.size() != 1) c.fail("shape (input #1) must be a 1-D tensor");
    const int64_t rank = std::max<int64_t>(n, static_cast<int64_t>(x.shape.size()));
    if (rank == 0) return c.set_output(0, x);
    ir::VarId t = int32_var(c, 1, "shape");
    if (n < rank) t = c.emit("Concat", {c.const_i32(std::vector<int64_t>(rank - n, 1)), t}, {int_param("axis", 0)});
    std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
    std::copy(x.shape.begin(), x.shape.end(), dims.end() - static_cast<int64_t>(x.shape.size()));
    ir::VarId x_dims = c.const_i32(dims);
    if (x.runtime_shape) {
        x_dims = c.emit("GetVarShape", {c.var(0)});
        if (x.shape.size() < static_cast<size_t>(rank))
            x_dims = c.emit("Concat", {c.const_i32(std::vector<int64_t>(rank - x.shape.size(), 1)), x_dims},
                            {int_param("axis", 0)});
    }
    t = int_op(c, "MAX", {t, x_dims});
    set_runtime_output(c, 0, c.emit("Broadcast", {c.var(0), t}), x.elem_type, static_cast<size_t>(rank));
}

// Tile one axis k at a time, so that no view passes MegEngine's 7 axes: the
// tensor so far seen as (A, 1, M), A the (already tiled) dims before k and
// M = d_k·…·d_(r−1) (not tiled yet: static), broadcast to (A, repeats[k], M)
// (A from GetVarShape), which in row-major order is repeats[k] copies of each
// block along axis k; at the end a Reshape to repeats·dims.
void tile_to_runtime_repeats(Importer& c) {
    c.check_attrs({});
    const Value& x = c.input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size());
    operand_length(c, 1, "repeats", r);
    if (c.input(1).shape.size() != 1) c.fail("repeats (input #1) must be a 1-D tensor");
    if (r == 0) c.fail("cannot tile a scalar");
    const ir::VarId repeats = int32_var(c, 1, "repeats");
    ir::VarId y = c.var(0);
    for (int64_t k = 0; k < r; ++k) {
        const int64_t m = element_count(Shape(x.shape.begin() + k, x.shape.end()));
        y = reshaped(c, y, {-1, 1, m});
        const ir::VarId a = c.emit("GetVarShape", {y}, {int_param("axis", 0)});
        const ir::VarId target = c.emit("Concat", {a, element(c, repeats, k), c.const_i32({m})}, {int_param("axis", 0)});
        y = c.emit("Broadcast", {y, target});
    }
    y = c.emit("Reshape", {y, int_op(c, "MUL", {repeats, c.const_i32(x.shape)})});
    set_runtime_output(c, 0, y, x.elem_type, static_cast<size_t>(r));
}

// The one-element `value` (default float 0) broadcast to the shape operand.
void constant_of_runtime_shape(Importer& c) {
    c.check_attrs({"value"});
    const int64_t n = operand_length(c, 0, "shape");
    if (c.input(0).shape.size() != 1) c.fail("shape (input #0) must be a 1-D tensor");
    Value fill = float_const({0.f}, {1});
    if (const auto* a = c.attr("value")) fill = tensor_const(c.tensors().read(a->t()));
    if (fill.bytes.size() != onnx_elem_size(fill.elem_type)) c.fail("value must hold one element");
    if (n == 0) {
        // An empty shape is a scalar whatever the run time gives (nothing to give).
        fill.shape = {};
        return c.set_output(0, fill);
    }
    fill.shape = {1};
    ir::VarId v = c.materialize(fill, "value");
    // The dims the import knows of the shape operand stay known.
    Shape dims = known_elements_of(c, 0);
    if (dims.size() != static_cast<size_t>(n)) dims.assign(static_cast<size_t>(n), -1);
    set_runtime_output(c, 0, c.emit("Broadcast", {v, int32_var(c, 0, "shape")}), fill.elem_type, dims);
}

// start + k·delta for k in [0, n), n = max(⌈(limit − start) / delta⌉, 0): for
// integers ⌈a / d⌉ = −⌊−a / d⌋ (FLOOR_DIV), for floats CEIL of the quotient; the
// k from an exclusive Cumsum of ones.
void range_of_runtime_values(Importer& c) {
    c.check_attrs({});
    const int32_t t = c.input(0).elem_type;
    for (size_t i = 1; i < 3; ++i)
        if (c.input(i).elem_type != t) c.fail("start, limit and delta must have one element type");
    if (t != P::FLOAT && t != P::INT32 && t != P::INT64)
        c.fail(fmt::format("Range of {} with runtime operands is not supported (FLOAT, INT32, INT64)",
                           onnx_elem_name(t)));
    const ir::VarId start = scalar_operand(c, 0, "start"), limit = scalar_operand(c, 1, "limit"),
                    delta = scalar_operand(c, 2, "delta");
    const ir::VarId span = elemwise(c, "SUB", {limit, start});
    ir::VarId n;
    if (t == P::FLOAT) {
        ir::VarId q = elemwise(c, "CEIL", {elemwise(c, "TRUE_DIV", {span, delta})});
        n = type_cvt(c, q, ir::DTypeEnum::Int32);
    } else {
        n = int_op(c, "NEGATE", {int_op(c, "FLOOR_DIV", {int_op(c, "NEGATE", {span}), delta})});
    }
    n = int_op(c, "MAX", {n, c.const_i32({0})});
    ir::VarId k = iota(c, n);
    if (t == P::FLOAT) k = type_cvt(c, k, ir::DTypeEnum::Float32);
    set_runtime_output(c, 0, elemwise(c, "ADD", {start, elemwise(c, "MUL", {k, delta})}), t, 1);
}

// Every axis gets a slice item whose begin, end and step are computed at run time.
// The operands (length m) are spread over the r axes with the selection matrix
// M[a, j] = EQ(axes[j] normalized, a) (ONNX's axes are unique): for axis a,
// Σ_j M[a, j]·v[j] where listed, else the default (0, dim, 1). ONNX's clamping
// (step > 0: start and end to [0, dim]; step < 0: start to [0, dim − 1], end to
// [−1, dim − 1], after adding dim to a negative one) then gives the slice exactly;
// MegEngine's Slice::apply adds dim to a negative end once more, so the end −1
// ("before index 0") is written −1 − dim.
void slice_with_runtime_bounds(Importer& c) {
    c.check_attrs({});
    // An input whose dims only the run time knows too (torchvision splits the
    // decoded boxes per image at a count computed when it runs).
    const Value& x = c.runtime_input(0);
    const int64_t r = static_cast<int64_t>(x.shape.size());
    if (r == 0) c.fail("cannot slice a scalar");
    const int64_t m = operand_length(c, 1, "starts");
    operand_length(c, 2, "ends", m);
    if (c.has_input(3)) operand_length(c, 3, "axes", m);
    if (c.has_input(4)) operand_length(c, 4, "steps", m);
    std::vector<int64_t> first_axes(static_cast<size_t>(m)), axis_ids(static_cast<size_t>(r));
    for (int64_t j = 0; j < m; ++j) first_axes[j] = j;
    for (int64_t a = 0; a < r; ++a) axis_ids[a] = a;
    const ir::VarId one = c.const_i32({1}), zero = c.const_i32({0});
    ir::VarId axes = c.has_input(3) ? int32_var(c, 3, "axes") : c.const_i32(first_axes);
    axes = int_op(c, "ADD", {axes, int_op(c, "MUL", {int_op(c, "LT", {axes, zero}), c.const_i32({r})})});
    const ir::VarId sel = int_op(c, "EQ", {c.reshape(axes, {1, m}), c.reshape(c.const_i32(axis_ids), {r, 1})});
    const ir::VarId unlisted = int_op(c, "SUB", {one, c.reshape(reduce_sum(c, sel, 1), {r})});
    auto spread = [&](ir::VarId v, ir::VarId fallback) {
        ir::VarId listed = c.reshape(reduce_sum(c, int_op(c, "MUL", {sel, c.reshape(v, {1, m})}), 1), {r});
        return int_op(c, "ADD", {listed, int_op(c, "MUL", {unlisted, fallback})});
    };
    const ir::VarId dims = x.runtime_shape ? c.emit("GetVarShape", {c.var(0)}) : c.const_i32(x.shape);
    const ir::VarId step = spread(c.has_input(4) ? int32_var(c, 4, "steps") : c.const_i32(std::vector<int64_t>(m, 1)), one);
    ir::VarId begin = spread(int32_var(c, 1, "starts"), zero);
    ir::VarId end = spread(int32_var(c, 2, "ends"), dims);
    const ir::VarId forward = int_op(c, "LT", {zero, step});                        // 1 for step > 0
    const ir::VarId hi = int_op(c, "SUB", {int_op(c, "ADD", {dims, forward}), one});  // dim or dim − 1
    auto wrap = [&](ir::VarId v) { return int_op(c, "ADD", {v, int_op(c, "MUL", {int_op(c, "LT", {v, zero}), dims})}); };
    begin = int_op(c, "MIN", {int_op(c, "MAX", {wrap(begin), zero}), hi});
    end = int_op(c, "MIN", {int_op(c, "MAX", {wrap(end), int_op(c, "SUB", {forward, one})}), hi});
    end = int_op(c, "SUB", {end, int_op(c, "MUL", {int_op(c, "LT", {end, zero}), dims})});
    std::vector<ir::VarId> inputs{c.var(0)};
    std::vector<ir::IndexDescMaskItem> items;
    for (int64_t a = 0; a < r; ++a) {
        items.push_back(ir::IndexDescMaskItem{static_cast<int8_t>(a), true, true, true, false});
        inputs.push_back(element(c, begin, a));
        inputs.push_back(element(c, end, a));
        inputs.push_back(element(c, step, a));
    }
    set_runtime_output(c, 0, c.emit("Subtensor", inputs, {{"items", items}}), x.elem_type, static_cast<size_t>(r));
}

// MegEngine's Split takes the part sizes as scalar vars: the elements of `split`.
void split_to_runtime_sizes(Importer& c, int64_t axis) {
    const Value& x = c.input(0);
    const int64_t n = static_cast<int64_t>(c.output_count());
    operand_length(c, 1, "split", n);
    const ir::VarId sizes = int32_var(c, 1, "split");
    std::vector<ir::VarId> inputs{c.var(0)};
    for (int64_t k = 0; k < n; ++k) inputs.push_back(element(c, sizes, k));
    ir::OprId o = c.emit_opr("Split", inputs, {int_param("axis", axis)}, static_cast<uint32_t>(n));
    for (int64_t k = 0; k < n; ++k)
        set_runtime_output(c, static_cast<size_t>(k), c.graph().output_var(o, static_cast<uint32_t>(k)), x.elem_type,
                           x.shape.size());
}

}  // namespace mgedump::formats::onnx_import
