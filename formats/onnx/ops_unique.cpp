// Unique (11): numpy.unique with return_index, return_inverse and return_counts
// (ONNX's definition and test data), of the flattened input or of the slices
// along `axis`, sorted or in order of first occurrence. The input's shape is
// known at import time; how many distinct slices it holds only when it runs.
//
// The input is seen as N slices of M elements ([N, M]: the axis moved first and
// the rest flattened; without an axis, N elements of 1). From pairwise
// comparisons of all slices, each 0 or 1 in Float32 (exact):
//   same[i, j]   every element equal (ElemwiseMultiType EQ, Reduce MIN over M);
//   before[i, j] slice i sorts before slice j: lexicographically, the first
//                element that differs decides (LT where every earlier element is
//                equal: an exclusive Cumsum of the differences is 0);
//   first[i]     no earlier slice is the same: i is a first occurrence;
//   rank[i]      the position of i's value among the distinct values: how many
//                first occurrences sort before it (sorted), or come before its own
//                first occurrence (not sorted);
//   count[i]     how many slices are the same as i.
// The first occurrences' positions come from CondTake of `first`, in input
// order; their values, positions and counts are then written to their ranks
// (IndexingSetMultiAxisVec of a permutation: every entry written once), which
// gives Y, indices and counts; inverse_indices is rank itself.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// The pairwise tensors are N·N·M elements.
constexpr int64_t kMaxPairElements = int64_t{1} << 24;

ir::VarId sum_over(Importer& c, ir::VarId v, int64_t axis, const Shape& kept) {
    return c.reshape(reduce_axes(c, v, "SUM", {axis}), kept);
}

ir::VarId gather_rows(Importer& c, ir::VarId v, ir::VarId rows) {
    const ir::IndexDescMaskItem along_rows{0, false, false, false, true};
    return c.emit("IndexingMultiAxisVec", {v, rows}, {{"items", std::vector{along_rows}}});
}

// `v` with row rank[k] set to its row k: rows reordered by a permutation.
ir::VarId to_ranks(Importer& c, ir::VarId v, ir::VarId ranks) {
    const ir::IndexDescMaskItem along_rows{0, false, false, false, true};
    return c.emit("IndexingSetMultiAxisVec", {v, v, ranks}, {{"items", std::vector{along_rows}}});
}

void unique(Importer& c) {
    c.check_attrs({"axis", "sorted"});
    const Value& x = c.input(0);
    if (!is_float_type(x.elem_type) && !is_integer_type(x.elem_type) && x.elem_type != P::BOOL)
        c.fail(fmt::format("element type {} is not supported", onnx_elem_name(x.elem_type)));
    const bool sorted = c.attr_int("sorted", 1) != 0;
    const Shape shape = x.shape.empty() ? Shape{1} : x.shape;
    if (element_count(shape) == 0)
        c.fail(fmt::format("the input [{}] has no elements: MegEngine holds no empty tensor", fmt::join(shape, ",")));
    // The axis whose slices are compared, or −1: the elements of the flattened input.
    const int64_t axis =
        c.has_attr("axis") ? normalize_axis(c.attr_int("axis", 0), static_cast<int64_t>(shape.size()), c, "axis") : -1;

    // The slices as rows of [n, m], and the shape Y's rows come back to.
    const int64_t n = axis >= 0 ? shape[static_cast<size_t>(axis)] : element_count(shape);
    const int64_t m = element_count(shape) / n;
    if (n * n * m > kMaxPairElements)
        c.fail(fmt::format("{} slices of {} elements: the pairwise comparisons would hold {} elements, more than {}", n,
                           m, n * n * m, kMaxPairElements));
    ir::VarId rows = c.var(0);
    Shape row_shape;  // a slice's shape, axis removed
    std::vector<int32_t> to_front;  // the axis first, then the others in order
    if (axis >= 0) {
        for (int64_t a = 0; a < static_cast<int64_t>(shape.size()); ++a)
            if (a != axis) row_shape.push_back(shape[static_cast<size_t>(a)]);
        to_front.push_back(static_cast<int32_t>(axis));
        for (int32_t a = 0; a < static_cast<int32_t>(shape.size()); ++a)
            if (a != axis) to_front.push_back(a);
        if (axis != 0) rows = c.emit("Dimshuffle", {rows}, {{"pattern", to_front}});
    }
    rows = c.reshape(rows, {n, m});

    // Pairwise, [n, n, m]: element k of slices i and j.
    const ir::VarId xi = with_unit_axis(c, rows, 1), xj = with_unit_axis(c, rows, 0);
    auto as_float = [&](ir::VarId b) { return type_cvt(c, b, ir::DTypeEnum::Float32); };
    const ir::VarId equal = as_float(bool_elemwise(c, "EQ", {xi, xj}));
    const ir::VarId same = c.reshape(reduce_axes(c, equal, "MIN", {2}), {n, n});
    const ir::VarId one = c.const_f32(1.0f), zero = c.const_f32(0.0f);
    // Element k decides where every earlier element is equal (a single element always does).
    ir::VarId less = as_float(bool_elemwise(c, "LT", {xi, xj}));
    if (m > 1) {
        const ir::VarId differs = elemwise(c, "SUB", {one, equal});
        const ir::VarId differed_before =
            c.emit("Cumsum", {differs}, {int_param("axis", 2), {"exclusive", true}, {"reverse", false}});
        less = elemwise(c, "MUL", {less, elemwise(c, "EQ", {differed_before, zero})});
    }
    const ir::VarId before = c.reshape(reduce_axes(c, less, "MAX", {2}), {n, n});

    const ir::VarId earlier = earlier_mask(c, n, 0);
    // first[i] = 1 − max_j same[i, j]·[j < i]
    const ir::VarId first = elemwise(
        c, "SUB", {one, c.reshape(reduce_axes(c, elemwise(c, "MUL", {same, earlier}), "MAX", {1}), {n})});
    const ir::VarId first_row = c.reshape(first, {1, n});  // first[j] along j
    ir::VarId rank;
    if (sorted) {
        // Σ_j first[j]·before[j, i]: before transposed, so that j runs along axis 1.
        const ir::VarId after = c.emit("Dimshuffle", {before}, {{"pattern", std::vector<int32_t>{1, 0}}});
        rank = sum_over(c, elemwise(c, "MUL", {after, first_row}), 1, {n});
    } else {
        // Σ_j first[j]·[j comes before i's first occurrence]: no slice same as i up to j.
        const ir::VarId seen = c.emit("Cumsum", {same}, {int_param("axis", 1), {"exclusive", false}, {"reverse", false}});
        rank = sum_over(c, elemwise(c, "MUL", {elemwise(c, "EQ", {seen, zero}), first_row}), 1, {n});
    }
    const ir::VarId rank_i32 = type_cvt(c, rank, ir::DTypeEnum::Int32);

    const ir::OprId take = c.emit_opr("CondTake", {first, first}, {{"mode", "EQ"}, {"val", 1.0f}}, 2);
    const ir::VarId positions = c.graph().output_var(take, 1);  // first occurrences, in input order
    const ir::VarId ranks = gather_rows(c, rank_i32, positions);
    const auto wants = [&](size_t i) { return i < c.output_count() && !c.node().output(static_cast<int>(i)).empty(); };

    if (wants(0)) {
        ir::VarId y = to_ranks(c, gather_rows(c, rows, positions), ranks);  // [k, m]
        size_t rank_of_y = 1;
        if (axis >= 0) {
            // [k, slice dims], then the axis back in place.
            std::vector<ir::VarId> dims{element(c, c.emit("GetVarShape", {y}), 0)};
            if (!row_shape.empty()) dims.push_back(c.const_i32(row_shape));
            y = c.emit("Reshape", {y, concat(c, dims, 0)});
            if (axis != 0) {
                std::vector<int32_t> back_pattern(to_front.size());
                for (size_t k = 0; k < to_front.size(); ++k) back_pattern[static_cast<size_t>(to_front[k])] = static_cast<int32_t>(k);
                y = c.emit("Dimshuffle", {y}, {{"pattern", back_pattern}});
            }
            rank_of_y = shape.size();
        } else {
            const std::vector<ir::AxisDesc> drop{{ir::AxisDescMethod::REMOVE, 1}};  // [k, 1] → [k]
            y = c.emit("AxisAddRemove", {y}, {{"desc", drop}});
        }
        set_runtime_output(c, 0, y, x.elem_type, rank_of_y);
    }
    if (wants(1)) set_runtime_output(c, 1, to_ranks(c, positions, ranks), P::INT64, 1);
    if (wants(2)) c.set_output_var(2, rank_i32, P::INT64, {n});
    if (wants(3)) {
        const ir::VarId counts = type_cvt(c, sum_over(c, same, 1, {n}), ir::DTypeEnum::Int32);
        set_runtime_output(c, 3, to_ranks(c, gather_rows(c, counts, positions), ranks), P::INT64, 1);
    }
}

constexpr OpHandler kHandlers[] = {
    {"Unique", unique},
};

}  // namespace

std::span<const OpHandler> unique_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
