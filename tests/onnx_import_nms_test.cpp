// NonMaxSuppression, unrolled into selection rounds (formats/onnx/ops_nms.cpp).
// The boxes, scores and expected rows of the first tests are those of ONNX's
// generator (onnx/backend/test/case/node/nonmaxsuppression.py); the others are
// worked by hand from ONNX's reference (its suppress_by_iou and the order it
// sorts candidates in), as each test's comment shows. ONNX's nine test models
// run in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

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

    expect_refused(shaped({1, 257, 4}, {1, 1, 257}),
                   "257 boxes: the selection is unrolled one round per box, up to 256 boxes");

    OnnxModel two_thresholds(11);
    two_thresholds.input("boxes", {1, 6, 4}).input("scores", {1, 1, 6}).input("iou", {2});
    two_thresholds.output("selected", OnnxType::INT64);
    two_thresholds.initializer_i64("limit", {1}, {3});
    two_thresholds.node("NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"}, "nms");
    expect_refused(two_thresholds, "iou_threshold (input #3) has shape [2]; it must hold one value");
}

}  // namespace
}  // namespace mgedump::test
