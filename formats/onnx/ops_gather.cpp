// Element-wise gathers and scatters as MegEngine's vector indexing:
// IndexingMultiAxisVec indexes several axes with index tensors that broadcast
// together (numpy's advanced indexing; MegDNN wraps a negative index once, as
// ONNX allows), and IndexingSetMultiAxisVec / IndexingIncrMultiAxisVec write
// through the same indexing.
//   GatherElements(data, idx, axis): every axis indexed, `axis` by idx, each
//     other axis d by 0..n_d-1 laid along d: out[i] = data[.., idx[i], ..].
//   GatherND(data, idx, batch_dims b): the batch axes by 0..n-1, then axis b + j
//     by idx[..., j].
//   ScatterND(data, idx, updates, reduction none / add): the GatherND indexing
//     written: Set, or Incr (which accumulates duplicates, as ONNX's add does);
//     mul / max / min of constant indices: Sets combined by Elemwise, in rounds.
//   ScatterElements / Scatter(data, idx, updates, axis, reduction ...): the
//     GatherElements indexing written, likewise.
//   ReverseSequence(x, lens): batch and time axes indexed, time by the reversed step.
//   MaxUnpool(x, idx[, output_shape]): x Set at idx into flattened zeros.
//   Compress(x, condition, axis): `axis` (of x flattened, without one) indexed
//     by the positions where condition holds: constants at import time, else
//     CondTake's indices, whose count only the run knows.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"
#include "ir/infer/values.h"
#include "ir/opr_fields.h"

namespace mgedump::formats::onnx_import {
namespace {

// 0..n-1 laid along axis `axis` of a rank-`rank` tensor (1 elsewhere).
ir::VarId arange_along(Importer& c, int64_t n, size_t axis, size_t rank) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[k] = k;
    Shape s(rank, 1);
    s[axis] = n;
    return int32_tensor(c, v, s);
}

ir::IndexDescMaskItem index_item(size_t axis) { return {static_cast<int8_t>(axis), false, false, false, true}; }

void check_int_indices(Importer& c, size_t i) {
    const int32_t t = c.runtime_input(i).elem_type;
    if (t != onnx::TensorProto::INT64 && t != onnx::TensorProto::INT32)
        c.fail(fmt::format("indices (input #{}) are {}, expected INT32 or INT64", i, onnx_elem_name(t)));
}

// MegEngine's loader takes at most this many index items (IndexDescMaskItem) per operator.
constexpr size_t kMaxIndexItems = 6;

// GatherElements of more axes than an indexing takes: runs of adjacent axes other
// than `axis` where the indices span the whole data axis are one axis of a Reshape
// of both (row-major order keeps each element's place); the result is seen back in
// the indices' shape.
void gather_elements_merged(Importer& c, size_t axis) {
    const Value &x = c.input(0), &ind = c.input(1);
    const size_t r = x.shape.size();
    Shape data, index;
    std::vector<bool> whole;  // per merged axis: a run of whole non-gathered axes
    size_t merged_axis = 0;
    for (size_t d = 0; d < r; ++d) {
        const bool full = d != axis && ind.shape[d] == x.shape[d];
        if (full && !whole.empty() && whole.back()) {
            data.back() *= x.shape[d];
            index.back() *= ind.shape[d];
            continue;
        }
        if (d == axis) merged_axis = data.size();
        data.push_back(x.shape[d]);
        index.push_back(ind.shape[d]);
        whole.push_back(full);
    }
    const size_t m = data.size();
    if (m > kMaxIndexItems)
        c.fail(fmt::format("GatherElements over {} axes ({} after merging the whole ones) needs more index items "
                           "than MegEngine's indexing takes ({})",
                           r, m, kMaxIndexItems));
    std::vector<ir::VarId> inputs{c.reshape(c.var(0), data)};
    std::vector<ir::IndexDescMaskItem> items;
    for (size_t d = 0; d < m; ++d) {
        inputs.push_back(d == merged_axis ? c.reshape(c.var(1), index) : arange_along(c, index[d], d, m));
        items.push_back(index_item(d));
    }
    const ir::VarId y = c.emit("IndexingMultiAxisVec", inputs, {{"items", items}});
    c.set_output_var(0, c.reshape(y, ind.shape), x.elem_type, ind.shape);
}

void gather_elements(Importer& c) {
    c.check_attrs({"axis"});
    const Value &x = c.input(0), &ind = c.input(1);
    check_int_indices(c, 1);
    const size_t r = x.shape.size();
    if (ind.shape.size() != r)
        c.fail(fmt::format("indices [{}] must have the data's rank {}", fmt::join(ind.shape, ","), r));
    const auto axis = static_cast<size_t>(normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(r), c, "axis"));
    for (size_t d = 0; d < r; ++d)
        if (d != axis && ind.shape[d] > x.shape[d])
            c.fail(fmt::format("indices [{}] are larger than the data [{}] at axis {}", fmt::join(ind.shape, ","),
                               fmt::join(x.shape, ","), d));
    if (r > kMaxIndexItems) return gather_elements_merged(c, axis);
    std::vector<ir::VarId> inputs{c.var(0)};
    std::vector<ir::IndexDescMaskItem> items;
    for (size_t d = 0; d < r; ++d) {
        inputs.push_back(d == axis ? c.var(1) : arange_along(c, ind.shape[d], d, r));
        items.push_back(index_item(d));
    }
    c.set_output_var(0, c.emit("IndexingMultiAxisVec", inputs, {{"items", items}}), x.elem_type, ind.shape);
}

// Scatter reductions MegEngine's indexing cannot write (it sets or adds): mul,
// max and min (opsets 16 and 18), of constant indices. `positions` are the
// written positions, normalized, one tuple of the data's first k axes per row of
// the updates (input #2) seen as `rows`: [n, the data's axes after k]. They are applied in
// rounds, round j taking the j-th write of each position in the indices' order
// (ONNX's reference applies them in that order), so that no round writes a
// position twice: each round sets its rows into ones (mul) or the running result
// (max, min) with IndexingSetMultiAxisVec and combines that with the running
// result by Elemwise MUL, MAX or MIN; elsewhere the combination keeps the value.
ir::VarId scatter_reduced_in_rounds(Importer& c, const std::string& reduction,
                                    const std::vector<std::vector<int64_t>>& positions, const Shape& rows_shape) {
    const Value& x = c.input(0);
    std::map<std::vector<int64_t>, size_t> writes;
    std::vector<std::vector<size_t>> rounds;
    for (size_t e = 0; e < positions.size(); ++e) {
        size_t& count = writes[positions[e]];
        if (count == rounds.size()) rounds.emplace_back();
        rounds[count++].push_back(e);
    }
    const std::string_view combine = reduction == "mul" ? "MUL" : reduction == "max" ? "MAX" : "MIN";
    // Emitted in the order a dump lists them (the ones, then the rows), so that a
    // file read back has the operators in the order built.
    const ir::VarId ones = reduction == "mul" ? broadcast_to(c, scalar_as(c, 1, x.elem_type), {1}, x.shape) : ir::VarId{};
    const ir::VarId rows = c.input(2).shape == rows_shape ? c.var(2) : c.reshape(c.var(2), rows_shape);
    ir::VarId y = c.var(0);
    for (const std::vector<size_t>& round : rounds) {
        std::vector<int64_t> picked(round.begin(), round.end());
        ir::VarId values = rows;
        if (round.size() != positions.size())
            values = c.emit("IndexingMultiAxisVec", {rows, c.const_i32(picked)}, {{"items", std::vector{index_item(0)}}});
        std::vector<ir::VarId> inputs{reduction == "mul" ? ones : y, values};
        std::vector<ir::IndexDescMaskItem> items;
        for (size_t j = 0; j < positions.front().size(); ++j) {
            std::vector<int64_t> component;
            for (size_t e : round) component.push_back(positions[e][j]);
            inputs.push_back(c.const_i32(component));
            items.push_back(index_item(j));
        }
        const ir::VarId written = c.emit("IndexingSetMultiAxisVec", inputs, {{"items", items}});
        y = elemwise(c, combine, {y, written});
    }
    return y;
}

// The constant indices of a reduction scatter_reduced_in_rounds applies, or its
// refusal: indices known only at run time may write a position twice, which no
// set-and-combine of one write per position reproduces.
void require_reducible(Importer& c, const std::string& reduction, size_t index_items) {
    if (c.input(0).elem_type == onnx::TensorProto::BOOL) c.fail(fmt::format("reduction '{}' of BOOL is not defined", reduction));
    if (!c.is_const(1))
        c.fail(fmt::format("reduction '{}' with indices known only at run time is not supported (MegEngine writes "
                           "through indexing by setting or adding only; constant indices are applied in rounds that "
                           "write each position once)",
                           reduction));
    if (index_items > kMaxIndexItems)
        c.fail(fmt::format("reduction '{}' indexes {} axes; MegEngine's loader takes at most {} index items",
                           reduction, index_items, kMaxIndexItems));
}

// The scatter's `reduction` attribute (default none), refused unless ONNX's.
std::string scatter_reduction(Importer& c) {
    std::string reduction = c.attr_string("reduction", "none");
    if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
        c.fail(fmt::format("reduction '{}' is not one of ONNX's (none, add, mul, max, min)", reduction));
    return reduction;
}

// Index v of an axis of `dim` elements, negative counting from the end, as a
// position in [0, dim); a constant outside [-dim, dim) is refused.
int64_t normalized_index(Importer& c, int64_t v, int64_t dim, size_t axis) {
    const std::optional<int64_t> position = counted_from_end(v, dim);
    if (!position) c.fail(fmt::format("index {} of axis {} is outside [{}, {})", v, axis, -dim, dim));
    return *position;
}

// 0..n-1 laid along axis `axis` of a rank-`rank` tensor, n the dim of `of` there
// read when the graph runs (GetVarShape, then an exclusive Cumsum of ones).
ir::VarId runtime_arange_along(Importer& c, ir::VarId of, size_t axis, size_t rank) {
    const ir::VarId n = c.emit("GetVarShape", {of}, {int_param("axis", static_cast<int64_t>(axis))});
    Shape laid(rank, 1);
    laid[axis] = -1;
    return rank == 1 ? iota(c, n) : reshaped(c, iota(c, n), laid);
}

// Data written through indexing with one more leading element on each of
// `axes` (ascending), which the write skips and a [1:] slice drops afterwards.
struct FrontPadded {
    ir::VarId data;
    std::vector<size_t> axes;
};

// MegEngine stops on a write through indexing (IndexingSetMultiAxisVec,
// IndexingIncrMultiAxisVec) into empty data made by a Broadcast, a Copy or a
// Subtensor ("assertion `cur_shape > 0'", TensorLayout::is_non_overlapping_strong),
// seen with a MegEngine built from source on torchvision's MultiScaleRoIAlign
// with no rois, whose zeros of the rois' count, (0, C, 7, 7), each level writes
// into in turn. (Empty data an IndexingMultiAxisVec gathered was written
// through.) So the data of such a write, when an axis's dim is known only at run
// time, is given one more leading element on each of those axes, where it is
// free: zeros of a run-time shape (a Broadcast of one element) broadcast to the
// target plus one there, and the data of a [1:] slice of those axes (the level
// before) is that slice's input, whose first elements nothing reads. Nullopt for
// other data, written as it is.
std::optional<FrontPadded> front_padded(Importer& c, ir::VarId data, const Shape& dims) {
    const ir::Graph& g = c.graph();
    FrontPadded out;
    for (size_t d = 0; d < dims.size(); ++d)
        if (dims[d] < 0) out.axes.push_back(d);
    const ir::OprId o = ir::maker_of(g, data);
    if (out.axes.empty() || !o.valid()) return std::nullopt;
    const std::string_view type = ir::type_name_of(g, o);
    const std::span<const ir::VarId> in = g.inputs_of(o);
    if (type == "Broadcast" && in.size() == 2) {
        const std::span<const uint32_t> fill = g.var_shape(in[0]);
        if (fill.empty() || !std::ranges::all_of(fill, [](uint32_t n) { return n == 1; }))
            return std::nullopt;
        std::vector<int64_t> one_more(dims.size(), 0);
        for (size_t d : out.axes) one_more[d] = 1;
        out.data = c.emit("Broadcast", {in[0], elemwise(c, "ADD", {in[1], c.const_i32(one_more)})});
        return out;
    }
    if (type == "Subtensor") {
        const auto* items = ir::field_as<std::vector<ir::IndexDescMaskItem>>(g, o, "items");
        if (!items || items->size() != out.axes.size() || in.size() != 1 + out.axes.size())
            return std::nullopt;
        for (size_t k = 0; k < out.axes.size(); ++k) {
            const ir::IndexDescMaskItem from_second{static_cast<int8_t>(out.axes[k]), true, false, false,
                                                    false};
            std::array<int32_t, 2> begin{};
            if ((*items)[k] != from_second || ir::small_int32_constant(g, in[1 + k], begin) != 1 ||
                begin[0] != 1)
                return std::nullopt;
        }
        out.data = in[0];
        return out;
    }
    return std::nullopt;
}

// ScatterElements of values whose dims only the run time knows (torchvision's
// MultiScaleRoIAlign writes each level's pooled rois into zeros of the rois'
// count): the same indexing, the other axes' ranges read from the indices'
// dims when the graph runs, their sizes checked by MegEngine's indexing then.
void scatter_elements_of_runtime_dims(Importer& c, const std::string& reduction) {
    const Value &x = c.runtime_input(0), &ind = c.runtime_input(1), &upd = c.runtime_input(2);
    if (reduction != "none" && reduction != "add")
        c.fail(
            fmt::format("reduction '{}' with dims known only at run time is not supported (MegEngine writes "
                        "through indexing by setting or adding only)",
                        reduction));
    if (upd.elem_type != x.elem_type) c.fail("updates must have the data's element type");
    const size_t r = x.shape.size();
    if (r == 0) c.fail("cannot scatter into a scalar");
    if (ind.shape.size() != r || upd.shape.size() != r)
        c.fail(fmt::format("indices (rank {}) and updates (rank {}) must have the data's rank {}",
                           ind.shape.size(), upd.shape.size(), r));
    const auto axis =
        static_cast<size_t>(normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(r), c, "axis"));
    const std::optional<FrontPadded> padded = front_padded(c, c.var(0), x.shape);
    std::vector<ir::VarId> inputs{padded ? padded->data : c.var(0), c.var(2)};
    std::vector<ir::IndexDescMaskItem> items;
    const ir::VarId indices = c.var(1);
    for (size_t d = 0; d < r; ++d) {
        ir::VarId index = d == axis ? indices : runtime_arange_along(c, indices, d, r);
        if (padded && std::ranges::find(padded->axes, d) != padded->axes.end()) {
            // One element further on; a negative index counts from the end, which
            // the padding does not move. (An index below −dim, which MegEngine would
            // refuse, now reaches the padding: ONNX leaves it undefined.)
            const ir::VarId not_negative = elemwise(c, "LEQ", {c.const_i32({0}), index});
            index = elemwise(c, "ADD", {index, d == axis ? not_negative : c.const_i32({1})});
        }
        inputs.push_back(index);
        items.push_back(index_item(d));
    }
    const char* op = reduction == "add" ? "IndexingIncrMultiAxisVec" : "IndexingSetMultiAxisVec";
    ir::VarId written = c.emit(op, inputs, {{"items", items}});
    if (padded) {
        std::vector<ir::VarId> sliced{written};
        std::vector<ir::IndexDescMaskItem> from_second;
        for (size_t d : padded->axes) {
            sliced.push_back(c.const_i32({1}));
            from_second.push_back({static_cast<int8_t>(d), true, false, false, false});
        }
        written = c.emit("Subtensor", sliced, {{"items", from_second}});
    }
    set_runtime_output(c, 0, written, x.elem_type, x.shape);
}

// ScatterElements (and Scatter, opset 9 and 10, the same operator): the
// GatherElements indexing written, updates having the indices' shape:
// IndexingSetMultiAxisVec, or IndexingIncrMultiAxisVec for reduction add (which
// accumulates duplicate indices, as add does; with reduction none ONNX leaves
// duplicates undefined).
void scatter_elements(Importer& c) {
    c.check_attrs({"axis", "reduction"});
    check_int_indices(c, 1);
    const std::string reduction = scatter_reduction(c);
    if (any_runtime_shape(c, 3)) return scatter_elements_of_runtime_dims(c, reduction);
    const Value &x = c.input(0), &ind = c.input(1), &upd = c.input(2);
    if (upd.elem_type != x.elem_type) c.fail("updates must have the data's element type");
    const size_t r = x.shape.size();
    if (r == 0) c.fail("cannot scatter into a scalar");
    if (ind.shape.size() != r)
        c.fail(fmt::format("indices [{}] must have the data's rank {}", fmt::join(ind.shape, ","), r));
    if (upd.shape != ind.shape)
        c.fail(fmt::format("updates [{}] must have the indices' shape [{}]", fmt::join(upd.shape, ","),
                           fmt::join(ind.shape, ",")));
    const auto axis = static_cast<size_t>(normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(r), c, "axis"));
    for (size_t d = 0; d < r; ++d)
        if (d != axis && ind.shape[d] > x.shape[d])
            c.fail(fmt::format("indices [{}] are larger than the data [{}] at axis {}", fmt::join(ind.shape, ","),
                               fmt::join(x.shape, ","), d));
    if (element_count(ind.shape) == 0) return c.set_output(0, x);  // nothing written
    if (reduction != "none" && reduction != "add") {
        // Each element of the indices writes the position of its own coordinates,
        // `axis` replaced by its value.
        require_reducible(c, reduction, r);
        const std::vector<int64_t> all = c.const_ints(1, "indices");
        std::vector<std::vector<int64_t>> positions(all.size(), std::vector<int64_t>(r));
        std::vector<int64_t> at(r, 0);  // the element's coordinates, odometer-style
        for (size_t e = 0; e < all.size(); ++e) {
            for (size_t d = 0; d < r; ++d)
                positions[e][d] = d == axis ? normalized_index(c, all[e], x.shape[d], d) : at[d];
            for (size_t d = r; d-- > 0;)
                if (++at[d] < ind.shape[d]) break;
                else at[d] = 0;
        }
        return c.set_output_var(0, scatter_reduced_in_rounds(c, reduction, positions, {static_cast<int64_t>(all.size())}),
                                x.elem_type, x.shape);
    }
    std::vector<ir::VarId> inputs{c.var(0), c.var(2)};
    std::vector<ir::IndexDescMaskItem> items;
    for (size_t d = 0; d < r; ++d) {
        inputs.push_back(d == axis ? c.var(1) : arange_along(c, ind.shape[d], d, r));
        items.push_back(index_item(d));
    }
    const char* op = reduction == "add" ? "IndexingIncrMultiAxisVec" : "IndexingSetMultiAxisVec";
    c.set_output_var(0, c.emit(op, inputs, {{"items", items}}), x.elem_type, x.shape);
}

// ReverseSequence: entry b of the batch axis has its first L_b = sequence_lens[b]
// steps of the time axis reversed and the rest kept. One IndexingMultiAxisVec over
// both axes (0 and 1 in some order): the batch axis by 0..B−1, the time axis by
// t + LT(t, L)·(L − 1 − 2t) (Int32, exact; t the constant 0..T−1), both laid along
// their own axis so that they broadcast to (d0, d1), which puts the result in x's shape.
void reverse_sequence(Importer& c) {
    c.check_attrs({"batch_axis", "time_axis"});
    const Value& x = c.input(0);
    check_int_indices(c, 1);
    const size_t r = x.shape.size();
    if (r < 2) c.fail(fmt::format("the input has rank {}; ReverseSequence needs at least 2", r));
    const int64_t batch_axis = c.attr_int("batch_axis", 1), time_axis = c.attr_int("time_axis", 0);
    if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
        c.fail(fmt::format("batch_axis {} and time_axis {} must be 0 and 1 in some order", batch_axis, time_axis));
    const auto b_axis = static_cast<size_t>(batch_axis), t_axis = static_cast<size_t>(time_axis);
    const int64_t batch = x.shape[b_axis], steps = x.shape[t_axis];
    if (c.input(1).shape != Shape{batch})
        c.fail(fmt::format("sequence_lens has shape [{}], expected [{}] (the batch axis)",
                           fmt::join(c.input(1).shape, ","), batch));
    Shape along_batch(2, 1);
    along_batch[b_axis] = batch;
    // INT64 is held as Int32: no TypeCvt, which MegEngine's make would drop anyway.
    const ir::VarId len = c.reshape(int32_var(c, 1, "sequence_lens"), along_batch);
    const ir::VarId t = arange_along(c, steps, t_axis, 2);
    auto op = [&](const char* mode, std::vector<ir::VarId> in) {
        return c.emit("Elemwise", std::move(in), {{"mode", mode}});
    };
    const ir::VarId reversed = op("SUB", {op("SUB", {len, c.const_i32({1})}), op("MUL", {t, c.const_i32({2})})});
    const ir::VarId time_index = op("ADD", {t, op("MUL", {op("LT", {t, len}), reversed})});
    std::vector<ir::VarId> inputs{c.var(0), {}, {}};
    inputs[1 + t_axis] = time_index;
    inputs[1 + b_axis] = arange_along(c, batch, b_axis, 2);
    c.set_output_var(0, c.emit("IndexingMultiAxisVec", inputs, {{"items", std::vector{index_item(0), index_item(1)}}}),
                     x.elem_type, x.shape);
}

// MaxUnpool: zeros of the output shape with X written at I, the indices into the
// flattened default output D (in − 1)·stride − pad_begin − pad_end + kernel per
// spatial axis (as MaxPool's Indices output gives them): on the flattened zeros (a
// Broadcast of 0) one IndexingSetMultiAxisVec of X flattened at I flattened, then a
// Reshape to the output shape. A given output_shape O (#2, a constant or known only
// at run time: its product a Reduce PRODUCT) keeps each element at its coordinates
// in D (ONNX's reference: the extra rows and columns are zeros at the end), so each
// index is split into D's coordinates (FLOOR_DIV) and recomposed with O's dims, on Int32.
void max_unpool(Importer& c) {
    c.check_attrs({"kernel_shape", "pads", "strides"});
    const Value &x = c.input(0), &ind = c.input(1);
    check_int_indices(c, 1);
    const size_t r = x.shape.size();
    if (r < 3) c.fail(fmt::format("X has rank {}; MaxUnpool needs (N, C, spatial..)", r));
    if (ind.shape != x.shape)
        c.fail(fmt::format("I [{}] must have X's shape [{}]", fmt::join(ind.shape, ","), fmt::join(x.shape, ",")));
    const size_t spatial = r - 2;
    const std::vector<int64_t> kernel = c.attr_ints("kernel_shape");
    const std::vector<int64_t> strides = c.attr_ints("strides", std::vector<int64_t>(spatial, 1));
    const std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * spatial, 0));
    if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
        c.fail(fmt::format("kernel_shape, strides and pads must have {} spatial entries ({} for pads)", spatial,
                           2 * spatial));
    Shape dflt{x.shape[0], x.shape[1]};
    for (size_t k = 0; k < spatial; ++k)
        dflt.push_back((x.shape[k + 2] - 1) * strides[k] - pads[k] - pads[k + spatial] + kernel[k]);
    const int64_t n = element_count(x.shape);
    // The flat index `at` in D re-laid in the output dims `dims` (k → its [1] var).
    auto relaid = [&](ir::VarId at, const std::function<ir::VarId(size_t)>& dims) {
        std::vector<ir::VarId> coord(r);
        ir::VarId rest = at;
        for (size_t k = r; k-- > 1;) {
            const ir::VarId d = c.const_i32({dflt[k]});
            const ir::VarId q = c.emit("Elemwise", {rest, d}, {{"mode", "FLOOR_DIV"}});
            coord[k] = c.emit("Elemwise", {rest, c.emit("Elemwise", {q, d}, {{"mode", "MUL"}})}, {{"mode", "SUB"}});
            rest = q;
        }
        ir::VarId flat = rest;
        for (size_t k = 1; k < r; ++k)
            flat = c.emit("Elemwise", {flat, dims(k), coord[k]}, {{"mode", "FUSE_MUL_ADD3"}});
        return flat;
    };
    // Emitted in the order a dump lists them: the zeros, X, then the indices.
    auto scatter = [&](ir::VarId count, const std::function<ir::VarId(ir::VarId)>& place) {
        const ir::VarId zeros = c.emit("Broadcast", {scalar_as(c, 0.0, x.elem_type), count});
        const ir::VarId value = c.reshape(c.var(0), {n});
        const ir::VarId at = place(c.reshape(int32_var(c, 1, "I"), {n}));
        return c.emit("IndexingSetMultiAxisVec", {zeros, value, at}, {{"items", std::vector{index_item(0)}}});
    };
    if (is_runtime_value(c, 2)) {
        operand_length(c, 2, "output_shape", static_cast<int64_t>(r));
        const ir::VarId shape = int32_var(c, 2, "output_shape");
        const ir::VarId count = c.emit("Reduce", {shape}, {{"mode", "PRODUCT"}, int_param("axis", 0)});
        const ir::VarId y = scatter(count, [&](ir::VarId at) {
            return relaid(at, [&](size_t k) { return element(c, shape, static_cast<int64_t>(k)); });
        });
        return set_runtime_output(c, 0, c.emit("Reshape", {y, shape}), x.elem_type, r);
    }
    Shape out = dflt;
    if (c.has_input(2)) {
        out = c.const_ints(2, "output_shape");
        if (out.size() != r) c.fail(fmt::format("output_shape has {} entries for rank {}", out.size(), r));
    }
    for (int64_t d : out)
        if (d <= 0) c.fail(fmt::format("the output shape [{}] has a dim that is not positive", fmt::join(out, ",")));
    const ir::VarId y = scatter(c.const_i32({element_count(out)}), [&](ir::VarId at) {
        return out == dflt ? at : relaid(at, [&](size_t k) { return c.const_i32({out[k]}); });
    });
    c.set_output_var(0, c.reshape(y, out), x.elem_type, out);
}

// The index vars of GatherND / ScatterND's indexing (batch aranges, then one per
// index component) and the shape MegEngine's indexing gives.
struct NdIndexing {
    std::vector<ir::VarId> indices;
    std::vector<ir::IndexDescMaskItem> items;
    Shape onnx_shape, mge_shape;
};

NdIndexing nd_indexing(Importer& c, size_t idx_input, int64_t batch_dims) {
    const Value &x = c.input(0), &ind = c.input(idx_input);
    check_int_indices(c, idx_input);
    const size_t r = x.shape.size(), q = ind.shape.size();
    if (q < 1) c.fail("indices must have rank >= 1");
    const int64_t m = ind.shape.back();
    if (batch_dims < 0 || static_cast<size_t>(batch_dims) >= std::min(r, q))
        c.fail(fmt::format("batch_dims {} is out of range", batch_dims));
    const auto b = static_cast<size_t>(batch_dims);
    if (m < 1 || b + static_cast<size_t>(m) > r)
        c.fail(fmt::format("index tuples of length {} do not fit data of rank {} (batch_dims {})", m, r, b));
    for (size_t k = 0; k < b; ++k)
        if (ind.shape[k] != x.shape[k])
            c.fail(fmt::format("batch axis {} has {} in the indices and {} in the data", k, ind.shape[k], x.shape[k]));
    NdIndexing out;
    const Shape lead(ind.shape.begin(), ind.shape.end() - 1);  // indices.shape[:-1]
    for (size_t k = 0; k < b; ++k) {
        out.indices.push_back(arange_along(c, x.shape[k], k, lead.size()));
        out.items.push_back(index_item(k));
    }
    for (int64_t j = 0; j < m; ++j) {
        ir::VarId comp;
        if (ind.is_const) {
            const std::vector<int64_t> all = c.const_ints(idx_input, "indices");
            std::vector<int64_t> part;
            for (size_t e = static_cast<size_t>(j); e < all.size(); e += static_cast<size_t>(m)) part.push_back(all[e]);
            comp = int32_tensor(c, part, lead);
        } else {
            ir::IndexDescMaskItem pick{static_cast<int8_t>(q - 1), false, false, false, true};
            comp = c.emit("Subtensor", {c.var(idx_input), c.const_i32({j})}, {{"items", std::vector{pick}}});
        }
        out.indices.push_back(comp);
        out.items.push_back(index_item(b + static_cast<size_t>(j)));
    }
    out.onnx_shape = lead;
    out.onnx_shape.insert(out.onnx_shape.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(b) + m, x.shape.end());
    // MegEngine: the broadcast index shape (at least one axis), then the rest.
    out.mge_shape = lead.empty() ? Shape{1} : lead;
    out.mge_shape.insert(out.mge_shape.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(b) + m, x.shape.end());
    return out;
}

// GatherND by indices whose count only the run time knows (NonZero's coordinates
// transposed, as torch exports x[mask]), or of data whose dims only the run time
// knows (a mask over a selection): one index var per tuple component (a
// Subtensor of the indices' last axis, which must be known), of the indices'
// leading dims; MegEngine's indexing gives those dims, then the data's rest.
void gather_nd_of_runtime_dims(Importer& c) {
    const Value& x = c.runtime_input(0);
    const Value& ind = c.runtime_input(1);
    check_int_indices(c, 1);
    if (c.attr_int("batch_dims", 0) != 0)
        c.fail("batch_dims with indices whose shape is known only at run time is not supported");
    const size_t r = x.shape.size(), q = ind.shape.size();
    const int64_t m = ind.shape.back();
    if (m < 0) c.fail("the indices' last dim (the index tuple length) is known only at run time; it must be known");
    if (m < 1 || static_cast<size_t>(m) > r)
        c.fail(fmt::format("index tuples of length {} do not fit data of rank {}", m, r));
    if (q < 2)
        c.fail("indices of rank 1 (one tuple) with dims known only at run time are not supported: MegEngine's "
               "indexing keeps an axis for it that ONNX drops");
    std::vector<ir::VarId> inputs{c.var(0)};
    std::vector<ir::IndexDescMaskItem> items;
    for (int64_t j = 0; j < m; ++j) {
        const ir::IndexDescMaskItem pick{static_cast<int8_t>(q - 1), false, false, false, true};
        inputs.push_back(c.emit("Subtensor", {c.var(1), c.const_i32({j})}, {{"items", std::vector{pick}}}));
        items.push_back(index_item(static_cast<size_t>(j)));
    }
    Shape out(ind.shape.begin(), ind.shape.end() - 1);
    out.insert(out.end(), x.shape.begin() + m, x.shape.end());
    set_runtime_output(c, 0, c.emit("IndexingMultiAxisVec", inputs, {{"items", items}}), x.elem_type, out);
}

void gather_nd(Importer& c) {
    c.check_attrs({"batch_dims"});
    if (any_runtime_shape(c, 2)) return gather_nd_of_runtime_dims(c);
    const Value& x = c.input(0);
    NdIndexing nd = nd_indexing(c, 1, c.attr_int("batch_dims", 0));
    std::vector<ir::VarId> inputs{c.var(0)};
    inputs.insert(inputs.end(), nd.indices.begin(), nd.indices.end());
    ir::VarId y = c.emit("IndexingMultiAxisVec", inputs, {{"items", nd.items}});
    if (nd.mge_shape != nd.onnx_shape) y = c.reshape(y, nd.onnx_shape.empty() ? Shape{1} : nd.onnx_shape);
    c.set_output_var(0, y, x.elem_type, nd.onnx_shape);
}

void scatter_nd(Importer& c) {
    c.check_attrs({"reduction"});
    const Value &x = c.input(0), &upd = c.input(2);
    const std::string reduction = scatter_reduction(c);
    if (upd.elem_type != x.elem_type) c.fail("updates must have the data's element type");
    if (reduction != "none" && reduction != "add") {
        // Each index tuple writes a slice of the data's axes after its length k.
        check_int_indices(c, 1);
        const Shape& ind = c.input(1).shape;
        if (ind.empty() || ind.back() < 1 || static_cast<size_t>(ind.back()) > x.shape.size())
            c.fail(fmt::format("indices of shape [{}] do not index data of rank {}", fmt::join(ind, ","),
                               x.shape.size()));
        const auto k = static_cast<size_t>(ind.back());
        Shape want(ind.begin(), ind.end() - 1);
        want.insert(want.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(k), x.shape.end());
        if (upd.shape != want)
            c.fail(fmt::format("updates have shape [{}], the indexing gives [{}]", fmt::join(upd.shape, ","),
                               fmt::join(want, ",")));
        require_reducible(c, reduction, k);
        const std::vector<int64_t> all = c.const_ints(1, "indices");
        std::vector<std::vector<int64_t>> positions(all.size() / k, std::vector<int64_t>(k));
        for (size_t e = 0; e < positions.size(); ++e)
            for (size_t j = 0; j < k; ++j) positions[e][j] = normalized_index(c, all[e * k + j], x.shape[j], j);
        if (positions.empty()) return c.set_output(0, x);  // nothing written
        Shape rows{static_cast<int64_t>(positions.size())};
        rows.insert(rows.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(k), x.shape.end());
        return c.set_output_var(0, scatter_reduced_in_rounds(c, reduction, positions, rows), x.elem_type, x.shape);
    }
    NdIndexing nd = nd_indexing(c, 1, 0);
    if (upd.shape != nd.onnx_shape)
        c.fail(fmt::format("updates have shape [{}], the indexing gives [{}]", fmt::join(upd.shape, ","),
                           fmt::join(nd.onnx_shape, ",")));
    ir::VarId value = c.var(2);
    if (nd.mge_shape != nd.onnx_shape) value = c.reshape(value, nd.mge_shape);
    std::vector<ir::VarId> inputs{c.var(0), value};
    inputs.insert(inputs.end(), nd.indices.begin(), nd.indices.end());
    const char* op = reduction == "add" ? "IndexingIncrMultiAxisVec" : "IndexingSetMultiAxisVec";
    c.set_output_var(0, c.emit(op, inputs, {{"items", nd.items}}), x.elem_type, x.shape);
}

// Compress (9, 11): the slices of the input along `axis` (of the input
// flattened, without the attribute) where `condition` (1-D BOOL, at most as long
// as that axis: ONNX drops the slices past it) is true. A constant condition is
// read at import time: one IndexingMultiAxisVec at the positions it selects. One
// known only at run time: CondTake of the condition by itself (EQ 1, exact on
// Bool) gives the positions as Int32, their count known only when it runs, and
// the same indexing takes them.
void compress(Importer& c) {
    c.check_attrs({"axis"});
    if (any_runtime_shape(c, 2)) c.fail("an input whose shape is known only at run time is not supported");
    const Value &x = c.input(0), &cond = c.input(1);
    if (cond.elem_type != onnx::TensorProto::BOOL)
        c.fail(fmt::format("condition is {}, must be BOOL", onnx_elem_name(cond.elem_type)));
    if (cond.shape.size() != 1) c.fail(fmt::format("condition has rank {}, must be 1-D", cond.shape.size()));
    ir::VarId data = c.var(0);
    Shape shape = x.shape;
    size_t axis = 0;
    if (c.has_attr("axis")) {
        if (shape.empty()) c.fail("a scalar has no axis to compress");
        axis = static_cast<size_t>(normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(shape.size()), c, "axis"));
    } else {
        shape = {element_count(x.shape)};
        if (shape != x.shape) data = c.reshape(data, shape);
    }
    if (cond.shape[0] > shape[axis])
        c.fail(fmt::format("condition has {} entries for {} slices (axis {} of [{}]): ONNX allows at most as many",
                           cond.shape[0], shape[axis], axis, fmt::join(shape, ",")));
    const std::vector<ir::IndexDescMaskItem> items{index_item(axis)};
    if (c.is_const(1)) {
        const std::vector<int64_t> truth = c.const_ints(1, "condition");
        std::vector<int64_t> picked;
        for (size_t k = 0; k < truth.size(); ++k)
            if (truth[k] != 0) picked.push_back(static_cast<int64_t>(k));
        if (picked.empty()) c.fail("the condition selects nothing: MegEngine holds no empty tensor");
        shape[axis] = static_cast<int64_t>(picked.size());
        const ir::VarId y = c.emit("IndexingMultiAxisVec", {data, c.const_i32(picked)}, {{"items", items}});
        return c.set_output_var(0, y, x.elem_type, shape);
    }
    const ir::OprId take = c.emit_opr("CondTake", {c.var(1), c.var(1)}, {{"mode", "EQ"}, {"val", 1.0f}}, 2);
    const ir::VarId y =
        c.emit("IndexingMultiAxisVec", {data, c.graph().output_var(take, 1)}, {{"items", items}});
    set_runtime_output(c, 0, y, x.elem_type, shape.size());
}

constexpr OpHandler kHandlers[] = {
    {"GatherElements", gather_elements},
    {"GatherND", gather_nd},
    {"ScatterND", scatter_nd},
    {"ScatterElements", scatter_elements},
    {"Scatter", scatter_elements},
    {"ReverseSequence", reverse_sequence},
    {"MaxUnpool", max_unpool},
    {"Compress", compress},
};

}  // namespace

std::span<const OpHandler> gather_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
