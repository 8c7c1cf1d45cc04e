// NonMaxSuppression, unrolled into selection rounds, or through MegEngine's
// NMSKeep for more boxes or a box count known only at run time
// (formats/onnx/ops_nms.cpp).
// The boxes, scores and expected rows of the first tests are those of ONNX's
// generator (onnx/backend/test/case/node/nonmaxsuppression.py); the others are
// worked by hand from ONNX's reference (its suppress_by_iou and the order it
// sorts candidates in), as each test's comment shows. ONNX's nine test models
// run in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

#include <map>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

// ONNX's six boxes ([y1, x1, y2, x2]): 0, 1 and 2 overlap (IoU 0.82 between 0
// and 1 or 2), 3 and 4 overlap (IoU 0.82), 5 stands alone.
const std::vector<float> kBoxes{0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
const std::vector<float> kScores{0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

D as_doubles(const std::vector<float>& v) { return D(v.begin(), v.end()); }

// NMS over boxes [1, 6, 4] and scores [1, classes, 6]; the limit and thresholds
// are graph inputs (known only at run time), or constants when given.
struct NmsInputs {
    std::optional<int64_t> limit;
    std::optional<float> iou, score;
};
OnnxModel nms_model(int64_t classes, const NmsInputs& constants = {}, bool with_score_threshold = true) {
    OnnxModel m(11);
    m.input("boxes", {1, 6, 4}).input("scores", {1, classes, 6});
    if (constants.limit) m.initializer_i64("limit", {1}, {*constants.limit});
    else m.input("limit", {1}, OnnxType::INT64);
    if (constants.iou) m.initializer("iou", {1}, {*constants.iou});
    else m.input("iou", {1});
    std::vector<std::string> inputs{"boxes", "scores", "limit", "iou"};
    if (with_score_threshold) {
        if (constants.score) m.initializer("score", {1}, {*constants.score});
        else m.input("score", {1});
        inputs.push_back("score");
    }
    m.output("selected", OnnxType::INT64);
    m.node("NonMaxSuppression", inputs, {"selected"}, "nms");
    return m;
}

std::vector<uint32_t> rows_of(size_t n) { return {static_cast<uint32_t>(n), 3}; }

// Dumped in both formats, as is and with the compatibility rewrites, and loaded
// back: the rounds are independent chains the dump may order its own way, so
// the operators compare as multisets.
void expect_dumps_and_loads(const ir::Graph& g) {
    expect_same_ops_after_round_trip(g);
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2})
        EXPECT_FALSE(compute_ops(dumped_and_loaded(g, format, false).graph).empty());
}

TEST(OnnxNms, ConstantLimitAndThresholdsSelectAsOnnxsSuppressByIou) {
    const ir::Graph g = nms_model(1, {.limit = 3, .iou = 0.5f, .score = 0.0f}).import();
    // One round per box the constant limit allows.
    EXPECT_EQ(count_ops(g, "Argmax"), 3u);
    EXPECT_TRUE(g.var_shape(g.outputs.at(0)).empty());  // its length is known only at run time
    expect_dumps_and_loads(g);
    const auto out = evaluate(g, {{"boxes", as_doubles(kBoxes)}, {"scores", as_doubles(kScores)}});
    // test_nonmaxsuppression_suppress_by_IOU: [[0, 0, 3], [0, 0, 0], [0, 0, 5]].
    EXPECT_EQ(dims_of(out.at(0)), rows_of(3));
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(OnnxNms, RuntimeLimitAndThresholdsTakeEffectWhenTheGraphRuns) {
    const ir::Graph g = nms_model(2).import();
    EXPECT_EQ(count_ops(g, "Argmax"), 6u);  // every box: the limit is known only at run time
    expect_dumps_and_loads(g);
    D scores = as_doubles(kScores);
    scores.insert(scores.end(), scores.begin(), scores.end());  // two classes, the same scores
    auto run = [&](double limit, double score_threshold) {
        return evaluate(g, {{"boxes", as_doubles(kBoxes)},
                            {"scores", scores},
                            {"limit", {limit}},
                            {"iou", {0.5}},
                            {"score", {score_threshold}}});
    };
    // test_nonmaxsuppression_two_classes: limit 2, rows (0,0,3) (0,0,0) (0,1,3) (0,1,0).
    auto out = run(2, 0);
    EXPECT_EQ(dims_of(out.at(0)), rows_of(4));
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0}));
    // The same graph, limit 1: the best box of each class.
    out = run(1, 0);
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 0, 3, 0, 1, 3}));
    // A limit of 6 and score threshold 0.4 (test_nonmaxsuppression_suppress_by_IOU_and_scores,
    // per class): 3 and 0 are above it, 5 (0.3) is not.
    out = run(6, 0.4);
    EXPECT_EQ(engine::eval::to_doubles(out.at(0).value), (D{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0}));
}

// Equal scores go by lower index first (the reference's BoxInfo order): boxes 0
// and 1 are the same square, so 0 is kept and suppresses 1; box 2 lies apart.
// Without score_threshold every box is a candidate, negative scores too.
TEST(OnnxNms, TiesGoToTheLowerIndexAndNoScoreThresholdKeepsEveryCandidate) {
    OnnxModel m(11);
    m.input("boxes", {1, 3, 4}).input("scores", {1, 1, 3}).output("selected", OnnxType::INT64);
    m.initializer_i64("limit", {1}, {3});
    m.initializer("iou", {1}, {0.5f});
    m.node("NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"}, "nms");
    const ir::Graph g = m.import();
    const D boxes{0, 0, 1, 1, 0, 0, 1, 1, 5, 5, 6, 6};
    EXPECT_EQ(evaluate_values(g, {{"boxes", boxes}, {"scores", {-2, -2, -1}}}), (D{0, 0, 2, 0, 0, 0}));
    // The same boxes, box 1 now first by score: it suppresses 0.
    EXPECT_EQ(evaluate_values(g, {{"boxes", boxes}, {"scores", {-2, -1.5, -3}}}), (D{0, 0, 1, 0, 0, 2}));
}

// center_point_box = 1: [x_center, y_center, width, height]. Boxes 0 and 1 (2×2
// squares whose centres are 0.5 apart in x) overlap 1.5·2 = 3 of a union 5
// (IoU 0.6); box 2 is far. iou_threshold 0.5 suppresses 1, 0.7 keeps it.
TEST(OnnxNms, CenterPointBoxesAreCentresAndSizes) {
    OnnxModel m(11);
    m.input("boxes", {1, 3, 4}).input("scores", {1, 1, 3}).input("iou", {1}).output("selected", OnnxType::INT64);
    m.initializer_i64("limit", {1}, {3});
    auto& n = m.node("NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"}, "nms");
    set_attr(n, "center_point_box", int64_t{1});
    const ir::Graph g = m.import();
    const D boxes{0, 0, 2, 2, 0.5, 0, 2, 2, 10, 10, 2, 2};
    const D scores{0.9, 0.8, 0.7};
    EXPECT_EQ(evaluate_values(g, {{"boxes", boxes}, {"scores", scores}, {"iou", {0.5}}}), (D{0, 0, 0, 0, 0, 2}));
    EXPECT_EQ(evaluate_values(g, {{"boxes", boxes}, {"scores", scores}, {"iou", {0.7}}}),
              (D{0, 0, 0, 0, 0, 1, 0, 0, 2}));
}

// 300 boxes ([y1, x1, y2, x2]) in 150 pairs: pair p is the unit square at x = 10p
// and the same square 0.1 to the right (IoU 0.9 / 1.1 = 0.82 > 0.5, so the pair's
// lower-scored box is suppressed; squares of different pairs are apart). Pair p
// scores 0.001·(p+1) and 0.001·(p+1) + 0.0005, the higher on its second box when p
// is even, on its first when p is odd. ONNX's selection is every pair's winner,
// highest score (largest p) first.
struct PairedBoxes {
    D boxes, scores;
    static int64_t winner(int64_t p) { return p % 2 == 0 ? 2 * p + 1 : 2 * p; }
};
PairedBoxes paired_boxes() {
    PairedBoxes b;
    for (int p = 0; p < 150; ++p) {
        for (double shift : {0.0, 0.1})
            b.boxes.insert(b.boxes.end(), {0, 10.0 * p + shift, 1, 10.0 * p + shift + 1});
        const double low = 0.001 * (p + 1), high = low + 0.0005;
        b.scores.push_back(p % 2 == 0 ? low : high);
        b.scores.push_back(p % 2 == 0 ? high : low);
    }
    return b;
}

// Rows (0, 0, winner(p)) for p from `first` down to `last`.
D paired_rows(int64_t first, int64_t last) {
    D rows;
    for (int64_t p = first; p >= last; --p)
        rows.insert(rows.end(), {0, 0, static_cast<double>(PairedBoxes::winner(p))});
    return rows;
}

TEST(OnnxNms, MoreBoxesThanTheRoundsUnrollGoThroughNMSKeep) {
    const PairedBoxes in = paired_boxes();
    auto import_with = [](int64_t limit, std::optional<float> score) {
        OnnxModel m(11);
        m.input("boxes", {1, 300, 4}).input("scores", {1, 1, 300}).output("selected", OnnxType::INT64);
        m.initializer_i64("limit", {1}, {limit});
        m.initializer("iou", {1}, {0.5f});
        std::vector<std::string> inputs{"boxes", "scores", "limit", "iou"};
        if (score) m.initializer("score", {1}, {*score}), inputs.push_back("score");
        m.node("NonMaxSuppression", inputs, {"selected"}, "nms");
        return m.import();
    };
    // Every winner: no limit short of 150, no score threshold.
    const ir::Graph all = import_with(1000, std::nullopt);
    EXPECT_EQ(count_ops(all, "NMSKeep"), 1u);
    EXPECT_EQ(count_ops(all, "Argmax"), 0u);
    expect_dumps_and_loads(all);
    EXPECT_EQ(evaluate_values(all, {{"boxes", in.boxes}, {"scores", in.scores}}), paired_rows(149, 0));
    // A limit of 20: the 20 best winners.
    EXPECT_EQ(evaluate_values(import_with(20, std::nullopt), {{"boxes", in.boxes}, {"scores", in.scores}}),
              paired_rows(149, 130));
    // score_threshold 0.0502: winners score 0.001·(p+1) + 0.0005, above it from p = 49 on.
    EXPECT_EQ(evaluate_values(import_with(1000, 0.0502f), {{"boxes", in.boxes}, {"scores", in.scores}}),
              paired_rows(149, 49));
}

// How the selected boxes reach the NMS: as selected; reshaped to
// [Shape(boxes)[1], -1] (RetinaNet); or, as Faster R-CNN's decoded boxes, viewed
// as (count, -1, 4) by a target made of their count and then as rows of 4.
enum class BoxesView { kAsSelected, kByTheirShape, kAsGroupsOfFour };

// ONNX's six boxes and their scores as graph inputs, the boxes a BOOL mask input
// picks (NonZero, Gather along the box axis) going into the NMS: a box count known
// only at run time. The limit is a constant, or a graph input when not given;
// iou_threshold and score_threshold are constants when given.
OnnxModel masked_nms_model(std::optional<int64_t> limit, std::optional<float> iou = std::nullopt,
                           std::optional<float> score = std::nullopt,
                           BoxesView view = BoxesView::kAsSelected) {
    OnnxModel m(11);
    m.input("all_boxes", {1, 6, 4}).input("all_scores", {1, 1, 6}).input("mask", {6}, OnnxType::BOOL);
    m.output("selected", OnnxType::INT64);
    m.initializer_i64("flat", {1}, {-1});
    if (limit)
        m.initializer_i64("limit", {1}, {*limit});
    else
        m.input("limit", {1}, OnnxType::INT64);
    std::vector<std::string> inputs{"boxes", "scores", "limit"};
    if (iou) m.initializer("iou", {1}, {*iou}), inputs.push_back("iou");
    if (score) m.initializer("score", {1}, {*score}), inputs.push_back("score");
    m.node("NonZero", {"mask"}, {"nz"});
    m.node("Reshape", {"nz", "flat"}, {"picked"});
    set_attr(m.node("Gather", {"all_boxes", "picked"}, {"boxes"}), "axis", int64_t{1});
    set_attr(m.node("Gather", {"all_scores", "picked"}, {"scores"}), "axis", int64_t{2});
    if (view == BoxesView::kByTheirShape) {
        // Reshaped to [Shape(boxes)[1], -1], a target known only at run time,
        // and given the batch axis back (Unsqueeze): [1, ?, ?].
        m.node("Shape", {"boxes"}, {"boxes_shape"});
        m.initializer_i64("box_axis", {1}, {1});
        m.node("Gather", {"boxes_shape", "box_axis"}, {"box_count"});
        set_attr(m.node("Concat", {"box_count", "flat"}, {"boxes_target"}), "axis", int64_t{0});
        m.node("Reshape", {"boxes", "boxes_target"}, {"boxes_flat"});
        set_attr(m.node("Unsqueeze", {"boxes_flat"}, {"boxes_viewed"}), "axes", std::vector<int64_t>{0});
        inputs[0] = "boxes_viewed";
    } else if (view == BoxesView::kAsGroupsOfFour) {
        // [count, 4] reshaped to Concat(Shape(rows)[0], [-1, 4]), every dim then
        // known only at run time, back to rows of 4 and given the batch axis.
        set_attr(m.node("Squeeze", {"boxes"}, {"rows"}), "axes", std::vector<int64_t>{0});
        m.node("Shape", {"rows"}, {"rows_shape"});
        m.initializer_i64("count_axis", {1}, {0});
        m.node("Gather", {"rows_shape", "count_axis"}, {"row_count"});
        m.initializer_i64("groups_of_4", {2}, {-1, 4});
        set_attr(m.node("Concat", {"row_count", "groups_of_4"}, {"groups_target"}), "axis", int64_t{0});
        m.node("Reshape", {"rows", "groups_target"}, {"groups"});
        m.node("Reshape", {"groups", "groups_of_4"}, {"rows_again"});
        set_attr(m.node("Unsqueeze", {"rows_again"}, {"boxes_viewed"}), "axes", std::vector<int64_t>{0});
        inputs[0] = "boxes_viewed";
        // The scores likewise: as Concat(Shape(scores)[2], [-1]), a column of
        // the count, then back to [1, 1, -1].
        m.node("Shape", {"scores"}, {"scores_shape"});
        m.initializer_i64("score_axis", {1}, {2});
        m.node("Gather", {"scores_shape", "score_axis"}, {"score_count"});
        set_attr(m.node("Concat", {"score_count", "flat"}, {"column_target"}), "axis", int64_t{0});
        m.node("Reshape", {"scores", "column_target"}, {"score_column"});
        m.initializer_i64("one_row", {3}, {1, 1, -1});
        m.node("Reshape", {"score_column", "one_row"}, {"scores_viewed"});
        inputs[1] = "scores_viewed";
    }
    m.node("NonMaxSuppression", inputs, {"selected"}, "nms");
    return m;
}

// A masked model's inputs: ONNX's six boxes and scores, and `mask` choosing among them.
std::map<std::string, D> masked_inputs(D mask) {
    return {
        {"all_boxes", as_doubles(kBoxes)}, {"all_scores", as_doubles(kScores)}, {"mask", std::move(mask)}};
}

// The mask {1, 1, 0, 1, 0, 1} keeps boxes 0, 1, 3 and 5 (scores 0.9, 0.75, 0.95,
// 0.3): the second overlaps the first (IoU 0.82), so with a limit of 3 or more
// the selection is the third, the first and the fourth of the selected boxes.
const D kMask0135{1, 1, 0, 1, 0, 1};
const D kSelectedOfMask0135{0, 0, 2, 0, 0, 0, 0, 0, 3};

// Boxes a mask selected (NonZero, Gather along the box axis), so their count is
// known only at run time (kMask0135's selection above).
TEST(OnnxNms, ABoxCountKnownOnlyAtRunTimeGoesThroughNMSKeep) {
    const ir::Graph g = masked_nms_model(3, 0.5f, 0.0f).import();
    EXPECT_EQ(count_ops(g, "NMSKeep"), 1u);
    expect_dumps_and_loads(g);
    EXPECT_EQ(evaluate_values(g, masked_inputs(kMask0135)), kSelectedOfMask0135);
    // Another mask over the same graph: boxes 3 and 4 (0.95, 0.5) overlap, 5 stands alone.
    EXPECT_EQ(evaluate_values(g, masked_inputs({0, 0, 0, 1, 1, 1})), (D{0, 0, 0, 0, 0, 2}));
}

// torchvision's nms exports "every box" as the largest int64. Over boxes a mask
// of 6 selected there are at most 6 (the CondTake behind NonZero holds at most
// its input's elements: ir/dim_bounds.h), so NMSKeep keeps at most 6, and
// kMask0135's selection is that of the limit-3 graph above.
TEST(OnnxNms, EveryBoxOfAMaskedSelectionIsBoundedByTheMask) {
    const ir::Graph g = masked_nms_model(INT64_MAX, 0.5f).import();
    EXPECT_EQ(int_field(g, find_opr(g, "NMSKeep"), "max_output"), 6);
    expect_dumps_and_loads(g);
    EXPECT_EQ(evaluate_values(g, masked_inputs(kMask0135)), kSelectedOfMask0135);
    // Every box selected: boxes 0, 3 and 5 survive (1 and 2 overlap 0, 4 overlaps 3).
    EXPECT_EQ(evaluate_values(g, masked_inputs({1, 1, 1, 1, 1, 1})), (D{0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

// Faster R-CNN's boxes pass through a view as (count, -1, 4) whose every dim
// only the run time knows: bounded per dim, each would take the whole element
// count (the -1 up to 24, the count up to 12 through the importer's target
// arithmetic), and rows of 4 of their product 288; the scores, viewed as a
// column the same way ((7, 6) by the dims), 42. Their element counts, 6 boxes of
// 4 and 6 scores, are what bound NMSKeep (ir/dim_bounds.h). kMask0135's
// selection is the one above.
TEST(OnnxNms, BoxesViewedThroughARunTimeTargetAreBoundedByTheirElementCount) {
    const ir::Graph g = masked_nms_model(INT64_MAX, 0.5f, std::nullopt, BoxesView::kAsGroupsOfFour).import();
    EXPECT_EQ(int_field(g, find_opr(g, "NMSKeep"), "max_output"), 6);
    expect_dumps_and_loads(g);
    EXPECT_EQ(evaluate_values(g, masked_inputs(kMask0135)), kSelectedOfMask0135);
}

// A mask that selects no box: ONNX selects nothing, [0, 3]. MegEngine's TopK
// takes no empty input, so the NMSKeep path sorts one more box, a sentinel of no
// area scoring the lowest float, and leaves it out by its index. With one box
// selected the sentinel is the second and must not show up either.
TEST(OnnxNms, AMaskThatSelectsNoBoxSelectsNothing) {
    const ir::Graph g = masked_nms_model(3, 0.5f).import();
    const auto none = evaluate(g, masked_inputs({0, 0, 0, 0, 0, 0}));
    ASSERT_EQ(none.size(), 1u);
    EXPECT_EQ(dims_of(none[0]), rows_of(0));
    // Box 4 alone (score 0.5): the selection is its row and nothing else.
    EXPECT_EQ(evaluate_values(g, masked_inputs({0, 0, 0, 0, 1, 0})), (D{0, 0, 0}));
    // The same with a score threshold above every score of the selected boxes.
    const ir::Graph above = masked_nms_model(3, 0.5f, 0.99f).import();
    EXPECT_EQ(dims_of(evaluate(above, masked_inputs({1, 1, 1, 1, 1, 1})).at(0)), rows_of(0));
    expect_dumps_and_loads(g);
}

// RetinaNet reshapes its selected boxes to a shape computed from Shape, so their
// last dim, 4, is known only at run time too; NMSKeep checks it when it runs.
// kMask0135 selects as above.
TEST(OnnxNms, BoxesWhoseLastDimOnlyTheRunTimeKnows) {
    const ir::Graph g = masked_nms_model(3, 0.5f, 0.0f, BoxesView::kByTheirShape).import();
    EXPECT_EQ(count_ops(g, "NMSKeep"), 1u);
    EXPECT_EQ(evaluate_values(g, masked_inputs(kMask0135)), kSelectedOfMask0135);
}

TEST(OnnxNms, RefusesWhatItCannotSelectWithTheFieldAtFault) {
    auto expect_refused = [](const OnnxModel& m, const std::string& what) {
        const std::string e = import_error(m);
        EXPECT_NE(e.find("node 'nms' (NonMaxSuppression): " + what), std::string::npos) << e;
    };
    OnnxModel center(11);
    center.input("boxes", {1, 6, 4}).input("scores", {1, 1, 6}).output("selected", OnnxType::INT64);
    center.initializer_i64("limit", {1}, {3});
    set_attr(center.node("NonMaxSuppression", {"boxes", "scores", "limit"}, {"selected"}, "nms"), "center_point_box",
             int64_t{2});
    expect_refused(center, "center_point_box 2 is not 0");

    // boxes and scores of the given shapes, limit 3.
    auto shaped = [](std::vector<int64_t> boxes, std::vector<int64_t> scores) {
        OnnxModel m(11);
        m.input("boxes", std::move(boxes)).input("scores", std::move(scores)).output("selected", OnnxType::INT64);
        m.initializer_i64("limit", {1}, {3});
        m.node("NonMaxSuppression", {"boxes", "scores", "limit"}, {"selected"}, "nms");
        return m;
    };
    expect_refused(shaped({1, 6, 4}, {1, 1, 5}),
                   "scores has shape [1,1,5]; with boxes [1,6,4] it must be [1, classes, 6]");

    OnnxModel no_limit(11);
    no_limit.input("boxes", {1, 6, 4}).input("scores", {1, 1, 6}).output("selected", OnnxType::INT64);
    no_limit.node("NonMaxSuppression", {"boxes", "scores"}, {"selected"}, "nms");
    expect_refused(no_limit, "max_output_boxes_per_class (input #2) is not given");

    expect_refused(nms_model(1, {.limit = 0}), "max_output_boxes_per_class is 0: ONNX then selects no box");

    OnnxModel two_thresholds(11);
    two_thresholds.input("boxes", {1, 6, 4}).input("scores", {1, 1, 6}).input("iou", {2});
    two_thresholds.output("selected", OnnxType::INT64);
    two_thresholds.initializer_i64("limit", {1}, {3});
    two_thresholds.node("NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"}, "nms");
    expect_refused(two_thresholds, "iou_threshold (input #3) has shape [2]; it must hold one value");

    // Through NMSKeep: iou_threshold is its param, so a constant, and at least 0.
    OnnxModel runtime_iou(11);
    runtime_iou.input("boxes", {1, 257, 4}).input("scores", {1, 1, 257}).input("iou", {1});
    runtime_iou.output("selected", OnnxType::INT64);
    runtime_iou.initializer_i64("limit", {1}, {3});
    runtime_iou.node("NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"}, "nms");
    expect_refused(
        runtime_iou,
        "iou_threshold (input #3) must be a constant known at import time with 257 boxes (more than the "
        "256 the rounds unroll): it is MegEngine's NMSKeep's iou_thresh param");
    OnnxModel negative_iou(11);
    negative_iou.input("boxes", {1, 257, 4}).input("scores", {1, 1, 257}).output("selected", OnnxType::INT64);
    negative_iou.initializer_i64("limit", {1}, {3});
    negative_iou.initializer("iou", {1}, {-0.5f});
    negative_iou.node("NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"}, "nms");
    expect_refused(negative_iou, "iou_threshold -0.5 is below 0 with 257 boxes");
    // NMSKeep's output: max_output entries per batch and class, at most 2^24 in all
    // (60,000 classes of 300 boxes, all kept: 18 million).
    OnnxModel many_classes(11);
    many_classes.input("boxes", {1, 300, 4})
        .input("scores", {1, 60000, 300})
        .output("selected", OnnxType::INT64);
    many_classes.initializer_i64("limit", {1}, {1000});
    many_classes.node("NonMaxSuppression", {"boxes", "scores", "limit"}, {"selected"}, "nms");
    expect_refused(
        many_classes,
        "max_output_boxes_per_class 300 with 300 boxes (more than the 256 the rounds unroll): NMSKeep's "
        "output holds that many entries for each of the 60000 batch and class rows, more than the "
        "16777216 supported");

    // A box count known only at run time: the limit sizes NMSKeep's output.
    auto masked = [](std::optional<int64_t> limit) { return masked_nms_model(limit); };
    // The first n boxes, n a graph input: Range's length has no bound the graph
    // states (a Broadcast to n ones, then Cumsum), so "every box" cannot size
    // NMSKeep's output.
    OnnxModel first_n(11);
    first_n.input("all_boxes", {1, 6, 4}).input("all_scores", {1, 1, 6}).input("n", {}, OnnxType::INT64);
    first_n.output("selected", OnnxType::INT64);
    first_n.initializer_i64("zero", {}, {0});
    first_n.initializer_i64("one", {}, {1});
    first_n.initializer_i64("limit", {1}, {INT64_MAX});
    first_n.node("Range", {"zero", "n", "one"}, {"picked"});
    set_attr(first_n.node("Gather", {"all_boxes", "picked"}, {"boxes"}), "axis", int64_t{1});
    set_attr(first_n.node("Gather", {"all_scores", "picked"}, {"scores"}), "axis", int64_t{2});
    first_n.node("NonMaxSuppression", {"boxes", "scores", "limit"}, {"selected"}, "nms");
    expect_refused(
        first_n,
        "max_output_boxes_per_class 9223372036854775807 with a box count known only at run time and no "
        "bound on it from the operators that made the boxes: NMSKeep's output holds that many entries");
    expect_refused(
        masked(std::nullopt),
        "max_output_boxes_per_class (input #2) must be a constant known at import time with a box count "
        "known only at run time");
}

}  // namespace
}  // namespace mgedump::test
