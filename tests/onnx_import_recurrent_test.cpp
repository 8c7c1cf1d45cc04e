// RNN, GRU and LSTM unrolled over time (formats/onnx/ops_recurrent.cpp): numbers
// against ONNX's equations worked by hand on tiny weights (hidden size 1), the
// directions, layout 1, sequence_lens, the outputs built only when read, and the
// refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::vector<double> values(const engine::eval::EvalOutput& o) { return engine::eval::to_doubles(o.value); }

inline void set_strings(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& s : v) a->add_strings(s);
}

TEST(OnnxRecurrent, OneRnnStepIsTanhOfBothProductsAndBiases) {
    // Ht = tanh(Xt·Wᵀ + Ht−1·Rᵀ + Wb + Rb) = tanh(1·0.5 + 2·(−0.25) + 0.5·2 + 0.1 + 0.2).
    OnnxModel m(14);
    m.input("x", {1, 1, 2}).output("y").output("y_h");
    m.initializer("w", {1, 1, 2}, {0.5f, -0.25f});
    m.initializer("r", {1, 1, 1}, {2.0f});
    m.initializer("b", {1, 2}, {0.1f, 0.2f});
    m.initializer("h0", {1, 1, 1}, {0.5f});
    set_attr(m.node("RNN", {"x", "w", "r", "b", "", "h0"}, {"y", "y_h"}), "hidden_size", int64_t{1});
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"x", {1, 2}}});
    ASSERT_EQ(out.size(), 2u);
    expect_near_all(values(out[0]), {std::tanh(1.3)});
    expect_near_all(values(out[1]), {std::tanh(1.3)});
    expect_same_ops_after_round_trip(g);
}

TEST(OnnxRecurrent, BidirectionalRunsTheReverseDirectionFromTheLastStep) {
    // Relu cells, input and hidden size 1, X = (1, 2) over two steps, no bias.
    // Forward (W 1, R 0.5): h = relu(1) = 1, then relu(2 + 0.5·1) = 2.5.
    // Reverse (W 2, R 0.25): step 1 first: relu(4) = 4, then step 0: relu(2 + 0.25·4) = 3.
    // Y[t][d]: (1, 3, 2.5, 4); Y_h: forward after step 1, reverse after step 0.
    OnnxModel m(14);
    m.input("x", {2, 1, 1}).output("y").output("y_h");
    m.initializer("w", {2, 1, 1}, {1.0f, 2.0f});
    m.initializer("r", {2, 1, 1}, {0.5f, 0.25f});
    auto& n = m.node("RNN", {"x", "w", "r"}, {"y", "y_h"});
    set_attr(n, "direction", "bidirectional");
    set_strings(n, "activations", {"Relu", "Relu"});
    auto out = evaluate(m.import(), {{"x", {1, 2}}});
    expect_near_all(values(out[0]), {1, 3, 2.5, 4});
    expect_near_all(values(out[1]), {2.5, 3});
}

TEST(OnnxRecurrent, ReverseAloneAlignsYWithTheInputSteps) {
    OnnxModel m(14);
    m.input("x", {2, 1, 1}).output("y");
    m.initializer("w", {1, 1, 1}, {2.0f});
    m.initializer("r", {1, 1, 1}, {0.25f});
    auto& n = m.node("RNN", {"x", "w", "r"}, {"y"});
    set_attr(n, "direction", "reverse");
    set_strings(n, "activations", {"Relu"});
    expect_near_all(evaluate_values(m.import(), {{"x", {1, 2}}}), {3, 4});
}

TEST(OnnxRecurrent, LayoutOneIsBatchFirstForXYAndYh) {
    // Two sequences (1, 2) and (3, 4), Relu, W 1, R 0.5: (1, 2.5) and (3, 4 + 1.5).
    OnnxModel m(14);
    m.input("x", {2, 2, 1}).output("y").output("y_h");
    m.initializer("w", {1, 1, 1}, {1.0f});
    m.initializer("r", {1, 1, 1}, {0.5f});
    auto& n = m.node("RNN", {"x", "w", "r"}, {"y", "y_h"});
    set_attr(n, "layout", int64_t{1});
    set_strings(n, "activations", {"Relu"});
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"x", {1, 2, 3, 4}}});
    const auto y_dims = out[0].value.shape().dims();
    EXPECT_EQ(std::vector<uint32_t>(y_dims.begin(), y_dims.end()), (std::vector<uint32_t>{2, 2, 1, 1}));
    expect_near_all(values(out[0]), {1, 2.5, 3, 5.5});
    expect_near_all(values(out[1]), {2.5, 5.5});
}

TEST(OnnxRecurrent, ClipBoundsTheActivationInput) {
    OnnxModel m(14);
    m.input("x", {1, 1, 1}).output("y");
    m.initializer("w", {1, 1, 1}, {1.0f});
    m.initializer("r", {1, 1, 1}, {1.0f});
    auto& n = m.node("RNN", {"x", "w", "r"}, {"y"});
    set_strings(n, "activations", {"Relu"});
    set_attr(n, "clip", 0.5f);
    EXPECT_EQ(evaluate_values(m.import(), {{"x", {2}}}), D{0.5});
}

// One GRU step, input and hidden size 1: W (z, r, h) = (0.5, −1, 0.2), R = (1, 2, 0.5),
// Wb = (0.1, 0.2, 0.3), Rb = (0.4, 0.5, 0.6), X = 1, H0 = 0.5.
double gru_step(bool linear_before_reset) {
    const double z = sigmoid(0.5 + 1 * 0.5 + 0.1 + 0.4), r = sigmoid(-1 + 2 * 0.5 + 0.2 + 0.5);
    const double h = linear_before_reset ? std::tanh(0.2 + r * (0.5 * 0.5 + 0.6) + 0.3)
                                         : std::tanh(0.2 + (r * 0.5) * 0.5 + 0.6 + 0.3);
    return (1 - z) * h + z * 0.5;
}

D run_gru(bool linear_before_reset) {
    OnnxModel m(14);
    m.input("x", {1, 1, 1}).output("y_h");
    m.initializer("w", {1, 3, 1}, {0.5f, -1.0f, 0.2f});
    m.initializer("r", {1, 3, 1}, {1.0f, 2.0f, 0.5f});
    m.initializer("b", {1, 6}, {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
    m.initializer("h0", {1, 1, 1}, {0.5f});
    auto& n = m.node("GRU", {"x", "w", "r", "b", "", "h0"}, {"", "y_h"});
    set_attr(n, "linear_before_reset", int64_t{linear_before_reset ? 1 : 0});
    return evaluate_values(m.import(), {{"x", {1}}});
}

TEST(OnnxRecurrent, GruStepFollowsTheResetGateEquation) {
    expect_near_all(run_gru(false), {gru_step(false)});
    expect_near_all(run_gru(true), {gru_step(true)});
    EXPECT_GT(std::abs(gru_step(false) - gru_step(true)), 1e-3);  // the two differ on these weights
}

TEST(OnnxRecurrent, LstmStepWithPeepholesGivesYYhAndYc) {
    // W (i, o, f, c) = (0.5, −0.5, 1, 2), R = (0.1, 0.2, 0.3, 0.4), Wb = (.01, .02, .03, .04),
    // Rb = (.05, .06, .07, .08), P (i, o, f) = (0.3, 0.2, 0.1), X = 1, H0 = 0.5, C0 = −1.
    const double i = sigmoid(0.5 + 0.1 * 0.5 + 0.3 * -1 + 0.01 + 0.05);
    const double f = sigmoid(1 + 0.3 * 0.5 + 0.1 * -1 + 0.03 + 0.07);
    const double cg = std::tanh(2 + 0.4 * 0.5 + 0.04 + 0.08);
    const double cell = f * -1 + i * cg;
    const double o = sigmoid(-0.5 + 0.2 * 0.5 + 0.2 * cell + 0.02 + 0.06);
    const double h = o * std::tanh(cell);
    OnnxModel m(14);
    m.input("x", {1, 1, 1}).output("y").output("y_h").output("y_c");
    m.initializer("w", {1, 4, 1}, {0.5f, -0.5f, 1.0f, 2.0f});
    m.initializer("r", {1, 4, 1}, {0.1f, 0.2f, 0.3f, 0.4f});
    m.initializer("b", {1, 8}, {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f, 0.08f});
    m.initializer("h0", {1, 1, 1}, {0.5f});
    m.initializer("c0", {1, 1, 1}, {-1.0f});
    m.initializer("p", {1, 3}, {0.3f, 0.2f, 0.1f});
    m.node("LSTM", {"x", "w", "r", "b", "", "h0", "c0", "p"}, {"y", "y_h", "y_c"});
    ir::Graph g = m.import();
    auto out = evaluate(g, {{"x", {1}}});
    ASSERT_EQ(out.size(), 3u);
    expect_near_all(values(out[0]), {h});
    expect_near_all(values(out[1]), {h});
    expect_near_all(values(out[2]), {cell});
    expect_same_ops_after_round_trip(g);
}

TEST(OnnxRecurrent, SequenceLensEqualToTheSequenceLengthIsAccepted) {
    OnnxModel m(14);
    m.input("x", {2, 2, 1}).output("y_h");
    m.initializer("w", {1, 1, 1}, {1.0f});
    m.initializer("r", {1, 1, 1}, {0.5f});
    m.initializer_bytes("lens", {2}, OnnxType::INT32, std::vector<int32_t>{2, 2}.data(), 8);
    set_strings(m.node("RNN", {"x", "w", "r", "", "lens"}, {"", "y_h"}), "activations", {"Relu"});
    // batch entries (1, 3) then (2, 4): 2 + 0.5·1 and 4 + 0.5·3.
    expect_near_all(evaluate_values(m.import(), {{"x", {1, 3, 2, 4}}}), {2.5, 5.5});
}

TEST(OnnxRecurrent, OnlyTheOutputsThatAreReadAreBuilt) {
    auto model = [](bool with_y) {
        OnnxModel m(14);
        m.input("x", {3, 1, 1}).output("y_h");
        if (with_y) m.output("y");
        m.initializer("w", {1, 1, 1}, {1.0f});
        m.initializer("r", {1, 1, 1}, {0.5f});
        m.node("RNN", {"x", "w", "r"}, {with_y ? "y" : "", "y_h"});
        return m.import();
    };
    EXPECT_EQ(count_ops(model(false), "Concat"), 0u);
    EXPECT_EQ(count_ops(model(true), "Concat"), 1u);
}

OnnxModel lstm_model() {
    OnnxModel m(14);
    m.input("x", {2, 2, 1}).output("y_h");
    m.initializer("w", {1, 4, 1}, {1, 1, 1, 1});
    m.initializer("r", {1, 4, 1}, {1, 1, 1, 1});
    return m;
}

// Relu cells, W 1, R 0.5, bidirectional, X[t][b] = t0: (1, 3), t1: (2, 4), lengths (1, 2).
// Forward: entry 0 stops after step 0 (h 1, Y at step 1 is 0), entry 1: 3, 4 + 0.5·3.
// Reverse: entry 0 starts at step 0 from 0: relu(1) = 1, step 1 is 0; entry 1: relu(4),
// then relu(3 + 0.5·4) = 5. Y[t][d][b]: (1, 3, 1, 5, 0, 5.5, 0, 4); Y_h[d][b]: (1, 5.5, 1, 5).
OnnxModel masked_rnn(bool lens_at_run_time) {
    OnnxModel m(14);
    m.input("x", {2, 2, 1}).output("y").output("y_h");
    if (lens_at_run_time)
        m.input("lens", {2}, OnnxType::INT32);
    else
        m.initializer_i64("lens", {2}, {1, 2});
    m.initializer("w", {2, 1, 1}, {1, 1});
    m.initializer("r", {2, 1, 1}, {0.5f, 0.5f});
    auto& n = m.node("RNN", {"x", "w", "r", "", "lens"}, {"y", "y_h"});
    set_attr(n, "direction", "bidirectional");
    set_strings(n, "activations", {"Relu", "Relu"});
    return m;
}

TEST(OnnxRecurrent, ShorterSequencesStopAtTheirLengthInBothDirections) {
    for (bool run_time : {false, true}) {
        ir::Graph g = masked_rnn(run_time).import();
        EXPECT_EQ(count_ops(g, "Where"), 2u * (2 * 2 + 1));  // per direction: Y and H per step, Y_h
        std::map<std::string, std::vector<double>> feeds{{"x", {1, 3, 2, 4}}};
        if (run_time) feeds["lens"] = {1, 2};
        auto out = evaluate(g, feeds);
        expect_near_all(values(out[0]), {1, 3, 1, 5, 0, 5.5, 0, 4});
        expect_near_all(values(out[1]), {1, 5.5, 1, 5});
    }
}

TEST(OnnxRecurrent, ALengthOfZeroGivesZeroOutputsAndStates) {
    // LSTM with C0 = H0 = 1: entry 0 (length 0) gives zeros, entry 1 (length 1) a real step.
    OnnxModel m(14);
    m.input("x", {1, 2, 1}).input("lens", {2}, OnnxType::INT32).output("y").output("y_h").output("y_c");
    m.initializer("w", {1, 4, 1}, {1, 1, 1, 1});
    m.initializer("r", {1, 4, 1}, {1, 1, 1, 1});
    m.initializer("h0", {1, 2, 1}, {1, 1});
    m.initializer("c0", {1, 2, 1}, {1, 1});
    m.node("LSTM", {"x", "w", "r", "", "lens", "h0", "c0"}, {"y", "y_h", "y_c"});
    auto out = evaluate(m.import(), {{"x", {1, 1}}, {"lens", {0, 1}}});
    // Entry 1: every gate's input is 1·1 + 1·1 = 2: C = σ(2)·1 + σ(2)·tanh(2), H = σ(2)·tanh(C).
    const double cell = sigmoid(2) + sigmoid(2) * std::tanh(2.0), h = sigmoid(2) * std::tanh(cell);
    expect_near_all(values(out[0]), {0, h});
    expect_near_all(values(out[1]), {0, h});
    expect_near_all(values(out[2]), {0, cell});
}

TEST(OnnxRecurrent, RefusesConstantLengthsOutsideTheSequence) {
    OnnxModel m = lstm_model();
    m.initializer_i64("lens", {2}, {3, 2});
    m.node("LSTM", {"x", "w", "r", "", "lens"}, {"", "y_h"});
    EXPECT_NE(import_error(m).find("sequence_lens [3,2] has a length outside [0, 2]"), std::string::npos);
}

TEST(OnnxRecurrent, RefusesParameterizedActivationsByName) {
    OnnxModel m = lstm_model();
    set_strings(m.node("LSTM", {"x", "w", "r"}, {"", "y_h"}), "activations", {"Sigmoid", "Affine", "Tanh"});
    EXPECT_NE(import_error(m).find("activation 'Affine' is not supported"), std::string::npos);
}

TEST(OnnxRecurrent, RefusesCoupledInputAndForgetGates) {
    OnnxModel m = lstm_model();
    set_attr(m.node("LSTM", {"x", "w", "r"}, {"", "y_h"}), "input_forget", int64_t{1});
    EXPECT_NE(import_error(m).find("input_forget=1"), std::string::npos);
}

TEST(OnnxRecurrent, RefusesWeightsOfTheWrongShape) {
    OnnxModel m(14);
    m.input("x", {2, 2, 1}).output("y_h");
    m.initializer("w", {1, 3, 1}, {1, 1, 1});  // 3 rows: a GRU's, not an LSTM's 4
    m.initializer("r", {1, 4, 1}, {1, 1, 1, 1});
    m.node("LSTM", {"x", "w", "r"}, {"", "y_h"});
    EXPECT_NE(import_error(m).find("W (input #1) has shape [1,3,1], expected [1,4,1]"), std::string::npos);
}

}  // namespace
}  // namespace mgedump::test
