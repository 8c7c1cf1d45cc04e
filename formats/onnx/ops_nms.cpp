// NonMaxSuppression (opsets 10, 11): ONNX's greedy selection, for every batch
// and class at once, in MegEngine operators. ONNX's reference (a port of ONNX
// Runtime's kernel) does, per batch b and class c:
//   candidates = the boxes whose score is above score_threshold (every box when
//                it is not given), highest score first, ties by lower index;
//   repeatedly take the first candidate, keep it unless its IoU with a box kept
//   before is above iou_threshold, until max_output_boxes_per_class are kept;
// and outputs the rows (b, c, box) in batch, class and selection order.
//
// The same result, written as rounds the graph can unroll: a candidate is
// dropped exactly when it overlaps a kept box of higher priority, so keeping
// the best live candidate and then killing every candidate that overlaps it
// selects the same boxes in the same order. With N boxes:
//   - overlap [B, N, N]: 1 where ONNX's suppress_by_iou holds (each of its
//     conditions an Elemwise comparison giving 0 or 1, multiplied together, so
//     a zero union's division never reaches the product);
//   - priority [B, C, N]: N minus how many boxes come before a box (a higher
//     score, or the same score and a lower index): distinct whole numbers 1..N,
//     exact in Float32;
//   - round r: the live candidate of highest priority (Argmax of priority ·
//     live, a dead box giving 0), valid when some candidate lives and r is below
//     max_output_boxes_per_class; the winner and every box it overlaps (its row
//     of the overlap matrix, a BatchedMatrixMul by its one-hot vector: one
//     nonzero term, exact) die.
// The rounds' winners and validity are concatenated to [B, C, rounds]; valid
// entries form a prefix of each (b, c) row, so CondTake of the validity gives
// their flat positions in ONNX's output order, and b, c and the box index follow
// from each position. The output's length is known only when it runs.
//
// One round per box, so the box count is bounded (kMaxBoxes); a constant
// max_output_boxes_per_class also bounds the rounds.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// Rounds of about a dozen operators each, and an N×N overlap matrix product per
// round at run time.
constexpr int64_t kMaxBoxes = 256;

// The corners of every box, [B, N] each, from ONNX's two box layouts.
struct Corners {
    ir::VarId x_min, x_max, y_min, y_max;
};

Corners corners_of(Importer& c, ir::VarId boxes, bool center_point_box) {
    auto component = [&](int64_t k) { return pick_along(c, boxes, 2, k); };
    if (!center_point_box) {  // [y1, x1, y2, x2], any diagonal pair of corners
        const ir::VarId y1 = component(0), x1 = component(1), y2 = component(2), x2 = component(3);
        return {elemwise(c, "MIN", {x1, x2}), elemwise(c, "MAX", {x1, x2}), elemwise(c, "MIN", {y1, y2}),
                elemwise(c, "MAX", {y1, y2})};
    }
    // [x_center, y_center, width, height]; halving is exact, as the reference's / 2.
    const ir::VarId half = c.const_f32(0.5f);
    const ir::VarId x = component(0), y = component(1);
    const ir::VarId half_w = elemwise(c, "MUL", {component(2), half}), half_h = elemwise(c, "MUL", {component(3), half});
    return {elemwise(c, "SUB", {x, half_w}), elemwise(c, "ADD", {x, half_w}), elemwise(c, "SUB", {y, half_h}),
            elemwise(c, "ADD", {y, half_h})};
}

// overlap[b, i, j] = 1 where ONNX's suppress_by_iou(box i, box j) holds, else 0.
ir::VarId overlap_matrix(Importer& c, ir::VarId boxes, bool center_point_box, ir::VarId iou_threshold) {
    const Corners k = corners_of(c, boxes, center_point_box);
    auto rows = [&](ir::VarId v) { return with_unit_axis(c, v, 2); };  // [B, N, 1]: box i
    auto cols = [&](ir::VarId v) { return with_unit_axis(c, v, 1); };  // [B, 1, N]: box j
    const ir::VarId zero = c.const_f32(0.0f);
    auto positive = [&](ir::VarId v) { return elemwise(c, "LT", {zero, v}); };
    const ir::VarId ix_min = elemwise(c, "MAX", {rows(k.x_min), cols(k.x_min)});
    const ir::VarId ix_max = elemwise(c, "MIN", {rows(k.x_max), cols(k.x_max)});
    const ir::VarId iy_min = elemwise(c, "MAX", {rows(k.y_min), cols(k.y_min)});
    const ir::VarId iy_max = elemwise(c, "MIN", {rows(k.y_max), cols(k.y_max)});
    const ir::VarId inter =
        elemwise(c, "MUL", {elemwise(c, "SUB", {ix_max, ix_min}), elemwise(c, "SUB", {iy_max, iy_min})});
    // The reference's area: (x_max − x_min) · (y_max − y_min).
    const ir::VarId area = elemwise(c, "MUL", {elemwise(c, "SUB", {k.x_max, k.x_min}), elemwise(c, "SUB", {k.y_max, k.y_min})});
    const ir::VarId area_i = rows(area), area_j = cols(area);
    const ir::VarId union_area = elemwise(c, "SUB", {elemwise(c, "ADD", {area_i, area_j}), inter});
    const ir::VarId iou_above =
        elemwise(c, "LT", {iou_threshold, elemwise(c, "TRUE_DIV", {inter, union_area})});
    ir::VarId overlap = elemwise(c, "LT", {ix_min, ix_max});
    for (ir::VarId condition : {elemwise(c, "LT", {iy_min, iy_max}), positive(inter), positive(area_i),
                                positive(area_j), positive(union_area), iou_above})
        overlap = elemwise(c, "MUL", {overlap, condition});
    return overlap;
}

// priority[b, c, i] = N − #{j : score j > score i, or equal with j < i}: the
// reference's order as distinct whole numbers, the first to take the largest.
ir::VarId priority_of(Importer& c, ir::VarId scores, int64_t b, int64_t classes, int64_t n) {
    const ir::VarId s_i = with_unit_axis(c, scores, 3), s_j = with_unit_axis(c, scores, 2);
    const ir::VarId tie_before = elemwise(c, "MUL", {elemwise(c, "EQ", {s_i, s_j}), earlier_mask(c, n, 2)});
    const ir::VarId before = elemwise(c, "ADD", {elemwise(c, "LT", {s_i, s_j}), tie_before});
    const ir::VarId count = c.reshape(reduce_axes(c, before, "SUM", {3}), {b, classes, n});
    return elemwise(c, "SUB", {c.const_f32(static_cast<float>(n)), count});
}

// One scalar input (rank 0, or one element) of FLOAT, a [1] var; `fallback`
// when the input is omitted.
ir::VarId float_scalar_input(Importer& c, size_t i, std::string_view what, float fallback) {
    if (!c.has_input(i)) return c.const_f32(fallback);
    const Value& v = c.input(i);
    if (v.elem_type != P::FLOAT) c.fail(fmt::format("{} (input #{}) is {}, not FLOAT", what, i, onnx_elem_name(v.elem_type)));
    if (v.shape.size() > 1 || element_count(v.shape) != 1)
        c.fail(fmt::format("{} (input #{}) has shape [{}]; it must hold one value", what, i, fmt::join(v.shape, ",")));
    return c.var(i);  // a rank-0 value is a [1] var already
}

void non_max_suppression(Importer& c) {
    c.check_attrs({"center_point_box"});
    const int64_t center_point_box = c.attr_int("center_point_box", 0);
    if (center_point_box != 0 && center_point_box != 1)
        c.fail(fmt::format("center_point_box {} is not 0 ([y1, x1, y2, x2]) or 1 ([x_center, y_center, width, "
                           "height])",
                           center_point_box));
    const Value& boxes = c.input(0);
    const Value& scores = c.input(1);
    for (size_t i : {size_t{0}, size_t{1}})
        if (c.input(i).elem_type != P::FLOAT)
            c.fail(fmt::format("{} (input #{}) is {}, not FLOAT", i == 0 ? "boxes" : "scores", i,
                               onnx_elem_name(c.input(i).elem_type)));
    if (boxes.shape.size() != 3 || boxes.shape[2] != 4)
        c.fail(fmt::format("boxes has shape [{}]; it must be [batches, boxes, 4]", fmt::join(boxes.shape, ",")));
    const int64_t batches = boxes.shape[0], n = boxes.shape[1];
    if (scores.shape.size() != 3 || scores.shape[0] != batches || scores.shape[2] != n)
        c.fail(fmt::format("scores has shape [{}]; with boxes [{}] it must be [{}, classes, {}]",
                           fmt::join(scores.shape, ","), fmt::join(boxes.shape, ","), batches, n));
    const int64_t classes = scores.shape[1];
    if (batches == 0 || classes == 0 || n == 0)
        c.fail(fmt::format("scores [{}] has no elements: MegEngine holds no empty tensor", fmt::join(scores.shape, ",")));
    if (n > kMaxBoxes)
        c.fail(fmt::format("{} boxes: the selection is unrolled one round per box, up to {} boxes", n, kMaxBoxes));

    // The rounds: every box, or a constant limit's count; a limit known only at
    // run time also masks each round's validity.
    int64_t rounds = n;
    std::optional<ir::VarId> runtime_limit;
    if (!c.has_input(2))
        c.fail("max_output_boxes_per_class (input #2) is not given: ONNX then selects no box, an empty output "
               "MegEngine cannot hold");
    if (operand_length(c, 2, "max_output_boxes_per_class") != 1)
        c.fail("max_output_boxes_per_class (input #2) must hold one value");
    if (is_runtime_value(c, 2)) {
        runtime_limit = int32_var(c, 2, "max_output_boxes_per_class");
    } else {
        const int64_t limit = c.const_ints(2, "max_output_boxes_per_class").at(0);
        if (limit <= 0)
            c.fail(fmt::format("max_output_boxes_per_class is {}: ONNX then selects no box, an empty output "
                               "MegEngine cannot hold",
                               limit));
        rounds = std::min(rounds, limit);
    }
    const ir::VarId iou_threshold = float_scalar_input(c, 3, "iou_threshold", 0.0f);

    const ir::VarId overlap = overlap_matrix(c, c.var(0), center_point_box == 1, iou_threshold);
    const ir::VarId priority = priority_of(c, c.var(1), batches, classes, n);
    // Live candidates as 0 or 1 (every box when score_threshold is not given).
    std::optional<ir::VarId> live;
    if (c.has_input(4))
        live = elemwise(c, "LT", {float_scalar_input(c, 4, "score_threshold", 0.0f), c.var(1)});

    std::vector<float> positions(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) positions[static_cast<size_t>(i)] = static_cast<float>(i);
    const ir::VarId box_positions = float32_tensor(c, positions, {1, 1, n});
    const ir::VarId zero = c.const_f32(0.0f), one = c.const_f32(1.0f);
    std::vector<ir::VarId> winners, valid;
    for (int64_t r = 0; r < rounds; ++r) {
        const ir::VarId ranked = live ? elemwise(c, "MUL", {priority, *live}) : priority;
        const ir::VarId winner = c.emit("Argmax", {ranked}, {int_param("axis", 2)});  // [B, C, 1]
        ir::VarId found = elemwise(c, "LT", {zero, reduce_axes(c, ranked, "MAX", {2})});
        if (runtime_limit)
            found = elemwise(c, "MUL", {found, type_cvt(c, int_op(c, "LT", {c.const_i32({r}), *runtime_limit}), ir::DTypeEnum::Float32)});
        winners.push_back(winner);
        valid.push_back(found);
        if (r + 1 == rounds) break;
        const ir::VarId winner_at = type_cvt(c, winner, ir::DTypeEnum::Float32);
        const ir::VarId one_hot = elemwise(c, "EQ", {box_positions, winner_at});  // [B, C, N]
        const ir::VarId overlapped = c.emit("BatchedMatrixMul", {one_hot, overlap});
        const ir::VarId survives = elemwise(c, "SUB", {one, elemwise(c, "MAX", {one_hot, overlapped})});
        live = live ? elemwise(c, "MUL", {*live, survives}) : survives;
    }

    const int64_t entries = batches * classes * rounds;
    const ir::VarId valid_flat = c.reshape(concat(c, valid, 2), {entries});
    const ir::VarId winners_flat = c.reshape(concat(c, winners, 2), {entries});
    const ir::OprId take = c.emit_opr("CondTake", {valid_flat, valid_flat}, {{"mode", "EQ"}, {"val", 1.0f}}, 2);
    const ir::VarId at = c.graph().output_var(take, 1);  // Int32 flat positions, in output order
    const ir::IndexDescMaskItem along_entries{0, false, false, false, true};
    const ir::VarId box = c.emit("IndexingMultiAxisVec", {winners_flat, at}, {{"items", std::vector{along_entries}}});
    const ir::VarId batch = int_op(c, "FLOOR_DIV", {at, c.const_i32({classes * rounds})});
    const ir::VarId cls = int_op(c, "MOD", {int_op(c, "FLOOR_DIV", {at, c.const_i32({rounds})}), c.const_i32({classes})});
    const ir::VarId rows = concat(c, {with_unit_axis(c, batch, 1), with_unit_axis(c, cls, 1), with_unit_axis(c, box, 1)}, 1);
    set_runtime_output(c, 0, rows, P::INT64, 2);
}

constexpr OpHandler kHandlers[] = {
    {"NonMaxSuppression", non_max_suppression},
};

}  // namespace

std::span<const OpHandler> nms_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
