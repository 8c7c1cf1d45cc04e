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
//
// More boxes, or a box count known only at run time (boxes a mask selected), go
// through MegEngine's own NMSKeep (src/opr/impl/standalone/nms_opr.cpp, its CPU
// kernel standalone/nms_cpu.cpp): per row of boxes in the order given, it keeps
// each box that overlaps no box kept before it, up to max_output. With the rows
// sorted by score that is the reference's selection; non_max_suppression_by_nms_keep
// says what else it takes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "ir/dim_bounds.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// Rounds of about a dozen operators each, and an N×N overlap matrix product per
// round at run time.
constexpr int64_t kMaxBoxes = 256;

// NMSKeep's output holds max_output entries per batch and class whatever the
// count kept, and the mapping's position tables as many: their product is
// bounded (64 MB of Int32).
constexpr int64_t kMaxKeptEntries = int64_t{1} << 24;

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

// `x` flattened to one axis, of `count` elements (-1: known only at run time).
ir::VarId flattened(Importer& c, ir::VarId x, int64_t count) { return reshaped(c, x, {count}); }

// table[at] of a 1-D table by 1-D Int32 positions (IndexingMultiAxisVec).
ir::VarId gathered(Importer& c, ir::VarId table, ir::VarId at) {
    const ir::IndexDescMaskItem along_entries{0, false, false, false, true};
    return c.emit("IndexingMultiAxisVec", {table, at}, {{"items", std::vector{along_entries}}});
}

// A [rows, 1] Int32 of r_k · n for row r_k = k / per (the row's first entry in a
// flat table of n entries a row): a constant for a known n, else n's var times
// the constant.
ir::VarId row_starts(Importer& c, int64_t rows, int64_t per, int64_t n, ir::VarId n_var) {
    std::vector<int64_t> starts(static_cast<size_t>(rows));
    for (int64_t k = 0; k < rows; ++k) starts[static_cast<size_t>(k)] = (k / per) * (n >= 0 ? n : 1);
    const ir::VarId table = int32_tensor(c, starts, {rows, 1});
    return n >= 0 ? table : int_op(c, "MUL", {table, n_var});
}

// The most boxes a box count known only at run time can reach: the smaller of
// the bounds the operators that made boxes (#0, axis 1) and scores (#1, axis 2)
// allow (ir/dim_bounds.h); nullopt when neither has one.
std::optional<int64_t> most_boxes(Importer& c) {
    std::optional<int64_t> most;
    for (auto [input, axis] : {std::pair{size_t{0}, size_t{1}}, std::pair{size_t{1}, size_t{2}}}) {
        const auto bounds = ir::dim_upper_bounds(c.graph(), c.var(input));
        if (!bounds || bounds->size() != 3) continue;
        const int64_t b = static_cast<int64_t>((*bounds)[axis]);
        most = most ? std::min(*most, b) : b;
    }
    return most;
}

// The reference's selection by NMSKeep, for `n` boxes (-1: known only at run
// time), per (batch, class) row:
//   - the boxes sorted by score, highest first, ties by lower index: TopK of the
//     negated scores, all n of them (VALUE_IDX_SORTED, whose smallest k put the
//     lower index first among equal values, as ONNX's order does), and the boxes
//     gathered in that order as NMSKeep reads them, [x_min, y_min, x_max, y_max];
//   - NMSKeep over the sorted rows, max_output the limit (and at most n);
//   - of its kept positions, those below its count (the rest of a row repeats
//     the last one) whose score is above score_threshold. The kept positions
//     ascend, so their scores descend and these are a prefix of the row: boxes
//     at or below the threshold come after every box above it and suppress none
//     of them, so taking them out afterwards leaves ONNX's selection.
// A box count known only at run time may be 0; see the sentinel below.
// NMSKeep's overlap test is ONNX's suppress_by_iou for boxes with corners in
// order (corners_of puts them so) and iou_threshold >= 0, as the intersection
// over union above the threshold written as a product (intersection > union ·
// threshold, in Float32): the two can differ only where the quotient rounds
// across the threshold.
void non_max_suppression_by_nms_keep(Importer& c, bool center_point_box, int64_t batches, int64_t classes,
                                     int64_t n) {
    const bool runtime_n = n < 0;
    const std::string count_is =
        runtime_n ? std::string("a box count known only at run time")
                  : fmt::format("{} boxes (more than the {} the rounds unroll)", n, kMaxBoxes);
    float iou_threshold = 0.0f;
    if (c.has_input(3)) {
        if (is_runtime_value(c, 3))
            c.fail(
                fmt::format("iou_threshold (input #3) must be a constant known at import time with {}: it is "
                            "MegEngine's NMSKeep's iou_thresh param",
                            count_is));
        if (c.input(3).elem_type != P::FLOAT)
            c.fail(fmt::format("iou_threshold (input #3) is {}, not FLOAT",
                               onnx_elem_name(c.input(3).elem_type)));
        const std::vector<double> v = c.const_floats(3, "iou_threshold");
        if (v.size() != 1)
            c.fail(fmt::format("iou_threshold (input #3) has shape [{}]; it must hold one value",
                               fmt::join(c.input(3).shape, ",")));
        iou_threshold = static_cast<float>(v[0]);
    }
    if (!(iou_threshold >= 0.0f))
        c.fail(fmt::format(
            "iou_threshold {} is below 0 with {}: NMSKeep's product test would then suppress boxes "
            "that do not overlap, which ONNX's never does",
            iou_threshold, count_is));
    // Checked before they are multiplied: the dims are declared, not data.
    if (batches > kMaxKeptEntries || classes > kMaxKeptEntries || batches * classes > kMaxKeptEntries)
        c.fail(
            fmt::format("{} batches of {} classes: NMSKeep's output holds at least one entry for each, more "
                        "than the {} supported",
                        batches, classes, kMaxKeptEntries));
    const int64_t rows = batches * classes;
    // The limit: a constant, at most n; a limit known only at run time masks
    // the kept positions (NMSKeep then keeps up to every box).
    std::optional<ir::VarId> runtime_limit;
    int64_t max_output = n;
    if (is_runtime_value(c, 2)) {
        if (runtime_n)
            c.fail(
                fmt::format("max_output_boxes_per_class (input #2) must be a constant known at import time "
                            "with {}: it sizes NMSKeep's output",
                            count_is));
        runtime_limit = int32_var(c, 2, "max_output_boxes_per_class");
    } else {
        const int64_t limit = c.const_ints(2, "max_output_boxes_per_class").at(0);
        if (limit <= 0)
            c.fail(
                fmt::format("max_output_boxes_per_class is {}: ONNX then selects no box, an empty output "
                            "MegEngine cannot hold",
                            limit));
        max_output = runtime_n ? limit : std::min(limit, n);
        if (runtime_n) {
            // What the operators that selected the boxes allow (a mask over a
            // fixed set of anchors: at most that many), so that a limit of "every
            // box" (torchvision's nms exports the largest int64) sizes the output
            // by the boxes there can be.
            const std::optional<int64_t> most = most_boxes(c);
            if (most) max_output = std::min(limit, std::max<int64_t>(*most, 1));
            if (max_output > kMaxKeptEntries || rows * max_output > kMaxKeptEntries)
                c.fail(fmt::format(
                    "max_output_boxes_per_class {} with {}{}: NMSKeep's output holds that many "
                    "entries for each of the {} batch and class rows, more than the {} supported",
                    limit, count_is,
                    most ? fmt::format(" of at most {}", *most)
                         : std::string(" and no bound on it from the operators that made the boxes"),
                    rows, kMaxKeptEntries));
        }
    }
    if (!runtime_n && rows * max_output > kMaxKeptEntries)
        c.fail(
            fmt::format("max_output_boxes_per_class {} with {}: NMSKeep's output holds that many entries for "
                        "each of the {} batch and class rows, more than the {} supported",
                        max_output, count_is, rows, kMaxKeptEntries));
    if (!runtime_n && rows * n > int64_t{INT32_MAX})
        c.fail(fmt::format("{} batch and class rows of {} boxes: their Int32 positions would overflow", rows,
                           n));

    // A box count known only at run time may be 0 (a mask that selected
    // nothing), and MegEngine's TopK takes no empty input. Such boxes get one
    // more, a sentinel: a box of no area (it overlaps nothing, so it suppresses
    // no box) scoring the lowest float (it sorts after every real box, and among
    // equal scores after them by its index), left out of the selection by its
    // index below. `n_boxes` is the real count, `n_var` the rows' length.
    ir::VarId boxes_in = c.var(0), scores_in = c.var(1), n_boxes = c.const_i32({n});
    if (runtime_n) {
        n_boxes = element(c, c.emit("GetVarShape", {scores_in}), 2);
        boxes_in = concat(
            c, {boxes_in, float32_tensor(c, std::vector<float>(batches * 4, 0.0f), {batches, 1, 4})}, 1);
        scores_in = concat(
            c,
            {scores_in, float32_tensor(c, std::vector<float>(rows, std::numeric_limits<float>::lowest()),
                                       {batches, classes, 1})},
            2);
    }
    const ir::VarId n_var = runtime_n ? int_op(c, "ADD", {n_boxes, c.const_i32({1})}) : n_boxes;
    // The boxes as NMSKeep reads them, [batches, n, 4].
    const Corners k = corners_of(c, boxes_in, center_point_box);
    const ir::VarId boxes = concat(c,
                                   {with_unit_axis(c, k.x_min, 2), with_unit_axis(c, k.y_min, 2),
                                    with_unit_axis(c, k.x_max, 2), with_unit_axis(c, k.y_max, 2)},
                                   2);
    const ir::VarId negated = reshaped(c, elemwise(c, "NEGATE", {scores_in}), {rows, n});
    const ir::OprId sort = c.emit_opr("TopK", {negated, n_var}, {{"mode", "VALUE_IDX_SORTED"}}, 2);
    const ir::VarId sorted_negated = c.graph().output_var(sort, 0), order = c.graph().output_var(sort, 1);
    const int64_t entries = runtime_n ? -1 : rows * n;
    // The row's boxes in score order: its batch's boxes at the sorted positions.
    const ir::VarId box_at =
        flattened(c, int_op(c, "ADD", {order, row_starts(c, rows, classes, n, n_var)}), entries);
    const ir::VarId sorted_boxes =
        reshaped(c, gathered(c, reshaped(c, boxes, {runtime_n ? -1 : batches * n, 4}), box_at), {rows, n, 4});

    const ir::OprId keep = c.emit_opr(
        "NMSKeep", {sorted_boxes}, {{"iou_thresh", iou_threshold}, int_param("max_output", max_output)}, 2);
    const ir::VarId kept = c.graph().output_var(keep, 0), kept_count = c.graph().output_var(keep, 1);
    std::vector<int64_t> columns(static_cast<size_t>(max_output));
    for (int64_t j = 0; j < max_output; ++j) columns[static_cast<size_t>(j)] = j;
    const ir::VarId column = int32_tensor(c, columns, {1, max_output});
    ir::VarId within = int_op(c, "LT", {column, c.reshape(kept_count, {rows, 1})});
    if (runtime_limit) within = int_op(c, "MUL", {within, int_op(c, "LT", {column, *runtime_limit})});
    ir::VarId valid = c.reshape(type_cvt(c, within, ir::DTypeEnum::Float32), {rows * max_output});
    // Each kept entry's place in the sorted rows, flat, and its box.
    const ir::VarId kept_at =
        flattened(c, int_op(c, "ADD", {kept, row_starts(c, rows, 1, n, n_var)}), rows * max_output);
    const ir::VarId kept_box = gathered(c, flattened(c, order, entries), kept_at);
    if (runtime_n)  // the sentinel is box n_boxes
        valid = elemwise(c, "MUL",
                         {valid, type_cvt(c, int_op(c, "LT", {kept_box, n_boxes}), ir::DTypeEnum::Float32)});
    if (c.has_input(4)) {
        // score > threshold, as −score < −threshold (negation is exact).
        const ir::VarId kept_negated = gathered(c, flattened(c, sorted_negated, entries), kept_at);
        const ir::VarId threshold =
            elemwise(c, "NEGATE", {float_scalar_input(c, 4, "score_threshold", 0.0f)});
        valid = elemwise(c, "MUL", {valid, elemwise(c, "LT", {kept_negated, threshold})});
    }

    const ir::OprId take = c.emit_opr("CondTake", {valid, valid}, {{"mode", "EQ"}, {"val", 1.0f}}, 2);
    const ir::VarId at = c.graph().output_var(take, 1);  // Int32 flat entries, in output order
    const ir::VarId box = gathered(c, kept_box, at);
    const ir::VarId batch = int_op(c, "FLOOR_DIV", {at, c.const_i32({classes * max_output})});
    const ir::VarId cls =
        int_op(c, "MOD", {int_op(c, "FLOOR_DIV", {at, c.const_i32({max_output})}), c.const_i32({classes})});
    const ir::VarId selected =
        concat(c, {with_unit_axis(c, batch, 1), with_unit_axis(c, cls, 1), with_unit_axis(c, box, 1)}, 1);
    set_runtime_output(c, 0, selected, P::INT64, 2);
}

void non_max_suppression(Importer& c) {
    c.check_attrs({"center_point_box"});
    const int64_t center_point_box = c.attr_int("center_point_box", 0);
    if (center_point_box != 0 && center_point_box != 1)
        c.fail(fmt::format("center_point_box {} is not 0 ([y1, x1, y2, x2]) or 1 ([x_center, y_center, width, "
                           "height])",
                           center_point_box));
    // Boxes and scores may have a box count known only at run time (what a
    // mask selected); their batch and class counts must be known.
    const Value& boxes = c.runtime_input(0);
    const Value& scores = c.runtime_input(1);
    for (size_t i : {size_t{0}, size_t{1}})
        if (c.runtime_input(i).elem_type != P::FLOAT)
            c.fail(fmt::format("{} (input #{}) is {}, not FLOAT", i == 0 ? "boxes" : "scores", i,
                               onnx_elem_name(c.runtime_input(i).elem_type)));
    // A box count known only at run time may come with a last dim known only
    // then too (retinanet reshapes its boxes to a shape it computes): NMSKeep
    // checks that it is 4 when it runs (nms_opr.cpp).
    const bool last_dim_at_run_time = boxes.shape.size() == 3 && boxes.shape[1] < 0 && boxes.shape[2] < 0;
    if (boxes.shape.size() != 3 || (boxes.shape[2] != 4 && !last_dim_at_run_time) || boxes.shape[0] < 0)
        c.fail(
            fmt::format("boxes has shape [{}]; it must be [batches, boxes, 4] (-1: known only at run time), "
                        "its batch count known at import time",
                        fmt::join(boxes.shape, ",")));
    const int64_t batches = boxes.shape[0], n = boxes.shape[1];
    if (scores.shape.size() != 3 || scores.shape[0] != batches || scores.shape[2] != n || scores.shape[1] < 0)
        c.fail(fmt::format("scores has shape [{}]; with boxes [{}] it must be [{}, classes, {}]",
                           fmt::join(scores.shape, ","), fmt::join(boxes.shape, ","), batches, n));
    const int64_t classes = scores.shape[1];
    if (batches == 0 || classes == 0 || n == 0)
        c.fail(fmt::format("scores [{}] has no elements: MegEngine holds no empty tensor",
                           fmt::join(scores.shape, ",")));
    if (!c.has_input(2))
        c.fail("max_output_boxes_per_class (input #2) is not given: ONNX then selects no box, an empty output "
               "MegEngine cannot hold");
    if (operand_length(c, 2, "max_output_boxes_per_class") != 1)
        c.fail("max_output_boxes_per_class (input #2) must hold one value");
    if (n < 0 || n > kMaxBoxes)
        return non_max_suppression_by_nms_keep(c, center_point_box == 1, batches, classes, n);

    // The rounds: every box, or a constant limit's count; a limit known only at
    // run time also masks each round's validity.
    int64_t rounds = n;
    std::optional<ir::VarId> runtime_limit;
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
    const ir::VarId box = gathered(c, winners_flat, at);
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
