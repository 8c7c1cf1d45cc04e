// HannWindow, HammingWindow, BlackmanWindow (opset 17) as import-time constants for a
// constant size and as their function body on Elemwise for a size known only at run
// time; MelWeightMatrix as an import-time constant. Expected window values are the
// operator definitions, a0 − a1·cos(2πk/N₁) + a2·cos(4πk/N₁) (N₁ = N periodic, N − 1
// symmetric), worked out by hand; MelWeightMatrix's are ONNX's test data
// (test_melweightmatrix/test_data_set_0/output_0.pb).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

TEST(OnnxSignalWindow, HannOfAConstantSizeIsAConstant) {
    OnnxModel m(17);
    m.output("y");
    m.initializer_i64("n", {}, {4});
    m.node("HannWindow", {"n"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{});
    // Periodic, N₁ = 4: .5 − .5·cos(πk/2).
    expect_near_all(evaluate_values(g, {}), D{0, 0.5, 1, 0.5}, 1e-6);
}

TEST(OnnxSignalWindow, HammingPeriodicOfTwo) {
    OnnxModel m(17);
    m.output("y");
    m.initializer_bytes("n", {}, OnnxType::INT32, std::vector<int32_t>{2}.data(), 4);
    m.node("HammingWindow", {"n"}, {"y"});
    // 25/46 − 21/46·cos(πk): 4/46, 1.
    expect_near_all(evaluate_values(m.import(), {}), D{4.0 / 46, 1}, 1e-6);
}

TEST(OnnxSignalWindow, SymmetricBlackmanOfARuntimeSizeIsTheFunctionBody) {
    OnnxModel m(17);
    m.input("n", {}, OnnxType::INT64).output("y");
    set_attr(m.node("BlackmanWindow", {"n"}, {"y"}), "periodic", int64_t{0});
    ir::Graph g = m.import();
    EXPECT_GE(count_ops(g, "Cumsum"), 1u);  // the positions 0..N−1
    // N₁ = 2: .42 − .5·cos(πk) + .08·cos(2πk): 0, 1, 0.
    expect_near_all(evaluate_values(g, {{"n", {3}}}), D{0, 1, 0}, 1e-6);
    expect_near_all(evaluate_values(g, {{"n", {2}}}), D{0, 0}, 1e-6);  // N₁ = 1: cos(2πk) = 1
}

TEST(OnnxSignalWindow, MelWeightMatrixOfConstantsMatchesOnnxsTestData) {
    OnnxModel m(17);
    m.output("y");
    m.initializer_bytes("bins", {}, OnnxType::INT32, std::vector<int32_t>{8}.data(), 4);
    m.initializer_bytes("dft", {}, OnnxType::INT32, std::vector<int32_t>{16}.data(), 4);
    m.initializer_bytes("rate", {}, OnnxType::INT32, std::vector<int32_t>{8192}.data(), 4);
    m.initializer("lo", {}, {0.0f});
    m.initializer("hi", {}, {4096.0f});
    m.node("MelWeightMatrix", {"bins", "dft", "rate", "lo", "hi"}, {"y"});
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), std::vector<std::string>{});
    D want(9 * 8, 0.0);
    // Rows (spectrogram bins) × columns (mel filters): 1 at (0,0) (0,1) (1,2) (1,3) (2,4) (3,5) (4,6) (5,7).
    for (auto [j, i] : std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}})
        want[static_cast<size_t>(j * 8 + i)] = 1;
    EXPECT_EQ(evaluate_values(g, {}), want);
}

TEST(OnnxSignalWindow, MelWeightMatrixRefusesEdgesThatGiveNoBin) {
    // Below -700 Hz the mel scale's log10(1 + f/700) is NaN, and so is a NaN edge:
    // the bin's conversion to an integer was undefined behaviour.
    for (float lo : {-1000.0f, std::nanf("")}) {
        OnnxModel m(17);
        m.output("y");
        m.initializer_bytes("bins", {}, OnnxType::INT32, std::vector<int32_t>{8}.data(), 4);
        m.initializer_bytes("dft", {}, OnnxType::INT32, std::vector<int32_t>{16}.data(), 4);
        m.initializer_bytes("rate", {}, OnnxType::INT32, std::vector<int32_t>{8192}.data(), 4);
        m.initializer("lo", {}, {lo});
        m.initializer("hi", {}, {4096.0f});
        m.node("MelWeightMatrix", {"bins", "dft", "rate", "lo", "hi"}, {"y"}, "mel");
        const std::string error = import_error(m);
        EXPECT_NE(error.find(fmt::format("node 'mel' (MelWeightMatrix): lower_edge_hertz {} and upper_edge_hertz "
                                         "4096 give mel bin nan",
                                         lo)),
                  std::string::npos)
            << error;
    }
}

TEST(OnnxSignalWindow, MelWeightMatrixRefusesRuntimeInputs) {
    OnnxModel m(17);
    m.input("bins", {}, OnnxType::INT32).output("y");
    m.initializer_bytes("dft", {}, OnnxType::INT32, std::vector<int32_t>{16}.data(), 4);
    m.initializer_bytes("rate", {}, OnnxType::INT32, std::vector<int32_t>{8192}.data(), 4);
    m.initializer("lo", {}, {0.0f});
    m.initializer("hi", {}, {4096.0f});
    m.node("MelWeightMatrix", {"bins", "dft", "rate", "lo", "hi"}, {"y"}, "mel");
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'mel' (MelWeightMatrix): num_mel_bins (input #0) must be a constant known at import "
              "time: the bins are floors of double-precision values (ONNX's reference), which Float32 at run time "
              "can round differently");
}

// ONNX's expanded window models: Elemwise operators on a Range whose length is known
// only at run time (the one-element operands broadcast as numpy does).
TEST(OnnxSignalWindow, ElementwiseOperatorsTakeARuntimeShapedOperand) {
    OnnxModel m(17);
    m.input("n", {}).output("y");
    m.initializer("zero", {}, {0.0f});
    m.initializer("one", {}, {1.0f});
    m.initializer("two", {}, {2.0f});
    m.node("Range", {"zero", "n", "one"}, {"r"});
    m.node("Mul", {"r", "two"}, {"r2"});
    m.node("Cos", {"r2"}, {"c"});
    m.node("Sub", {"one", "c"}, {"y"});
    ir::Graph g = m.import();
    // 1 − cos(2k) for k = 0, 1, 2.
    expect_near_all(evaluate_values(g, {{"n", {3}}}), D{0, 1 - std::cos(2.0), 1 - std::cos(4.0)}, 1e-6);
}

}  // namespace
}  // namespace mgedump::test
