// DFT and STFT (opset 17): one MatrixMul by the transform's coefficients. Expected values
// are worked from the definition, X_k = Σ x_t e^(−2πi·kt/L): the spectrum of
// [1, 2, 3, 4] is 10, −2 + 2i, −2, −2 − 2i. ONNX's own test models (test_dft,
// test_dft_axis, test_dft_inverse) run in tests/eval/onnx_testdata_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

using D = std::vector<double>;

void expect_near(const D& got, const D& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
}

OnnxModel dft_model(std::vector<int64_t> dims, int64_t inverse, int64_t onesided,
                    std::optional<int64_t> length, int64_t axis = 1) {
    OnnxModel m(17);
    m.input("x", std::move(dims)).output("y");
    std::vector<std::string> inputs{"x"};
    if (length) {
        m.initializer_i64("n", {}, {*length});
        inputs.push_back("n");
    }
    auto& node = m.node("DFT", inputs, {"y"}, "dft");
    set_attr(node, "inverse", inverse);
    set_attr(node, "onesided", onesided);
    set_attr(node, "axis", axis);
    return m;
}

TEST(OnnxDft, ARealSignalsSpectrumAndItsOnesidedHalf) {
    const D x{1, 2, 3, 4};
    expect_near(evaluate_values(dft_model({1, 4, 1}, 0, 0, std::nullopt).import(), {{"x", x}}),
                D{10, 0, -2, 2, -2, 0, -2, -2});
    expect_near(evaluate_values(dft_model({1, 4, 1}, 0, 1, std::nullopt).import(), {{"x", x}}),
                D{10, 0, -2, 2, -2, 0});
}

TEST(OnnxDft, TheInverseOfAComplexSpectrumIsTheSignal) {
    expect_near(evaluate_values(dft_model({1, 4, 2}, 1, 0, std::nullopt).import(),
                                {{"x", D{10, 0, -2, 2, -2, 0, -2, -2}}}),
                D{1, 0, 2, 0, 3, 0, 4, 0});
}

// dft_length truncates the signal ([1, 2]: 3, −1) or pads it with zeros (length 6:
// X_1 = 1 + 2e^(−iπ/3) + 3e^(−2iπ/3) + 4e^(−iπ) = −3.5 − 2.5√3·i).
TEST(OnnxDft, DftLengthTruncatesOrPads) {
    expect_near(evaluate_values(dft_model({1, 4, 1}, 0, 0, 2).import(), {{"x", D{1, 2, 3, 4}}}),
                D{3, 0, -1, 0});
    const D padded = evaluate_values(dft_model({1, 4, 1}, 0, 0, 6).import(), {{"x", D{1, 2, 3, 4}}});
    ASSERT_EQ(padded.size(), 12u);
    expect_near(D(padded.begin(), padded.begin() + 4), D{10, 0, -3.5, -2.5 * std::sqrt(3.0)});
}

// The transform runs along `axis` of every other position: a [1, 2, 3, 1] input along
// axis 2 is two spectra of three samples; along axis 1, three of two.
TEST(OnnxDft, AlongAnyAxisOfTheSignalDims) {
    // Columns (1, 4), (2, 5), (3, 6): each [a + b, a − b].
    expect_near(evaluate_values(dft_model({1, 2, 3, 1}, 0, 0, std::nullopt, 1).import(),
                                {{"x", D{1, 2, 3, 4, 5, 6}}}),
                D{5, 0, 7, 0, 9, 0, -3, 0, -3, 0, -3, 0});
    // Rows [1, 2, 3] and [4, 5, 6]: 6 and −1.5 ± (√3/2)i, 15 and the same.
    const double h = std::sqrt(3.0) / 2;
    expect_near(evaluate_values(dft_model({1, 2, 3, 1}, 0, 0, std::nullopt, -2).import(),
                                {{"x", D{1, 2, 3, 4, 5, 6}}}),
                D{6, 0, -1.5, h, -1.5, -h, 15, 0, -1.5, h, -1.5, -h});
}

// STFT: frame f of signal 0..7 with step 2 and length 4 is [2f, 2f+1, 2f+2, 2f+3],
// whose spectrum is that of [0, 1, 2, 3] (6, −2 + 2i, −2) plus 4·2f in bin 0. With
// the window [1, 0, 0, 1] a frame is [a, 0, 0, a + 3]: X_0 = 2a + 3,
// X_1 = a + (a + 3)·e^(−3πi/2) = a + (a + 3)i, X_2 = a − (a + 3) = −3.
OnnxModel stft_model(bool window, bool runtime_window) {
    OnnxModel m(17);
    m.input("x", {1, 8, 1}).output("y");
    m.initializer_i64("step", {}, {2});
    std::vector<std::string> inputs{"x", "step"};
    if (window) {
        if (runtime_window)
            m.input("w", {4});
        else
            m.initializer("w", {4}, {1, 0, 0, 1});
        inputs.push_back("w");
    } else {
        m.initializer_i64("length", {}, {4});
        inputs.insert(inputs.end(), {"", "length"});
    }
    m.node("STFT", inputs, {"y"}, "stft");
    return m;
}

TEST(OnnxStft, FramesOfTheSignalEachTransformed) {
    const D x{0, 1, 2, 3, 4, 5, 6, 7};
    const auto out = evaluate(stft_model(false, false).import(), {{"x", x}});
    EXPECT_EQ(out.at(0).value.shape(), ir::Shape::of({1, 3, 3, 2}));
    expect_near(engine::eval::to_doubles(out.at(0).value),
                D{6, 0, -2, 2, -2, 0, 14, 0, -2, 2, -2, 0, 22, 0, -2, 2, -2, 0});
    const D windowed{3, 0, 0, 3, -3, 0, 7, 0, 2, 5, -3, 0, 11, 0, 4, 7, -3, 0};
    expect_near(evaluate_values(stft_model(true, false).import(), {{"x", x}}), windowed);
    expect_near(evaluate_values(stft_model(true, true).import(), {{"x", x}, {"w", {1, 0, 0, 1}}}), windowed);
}

// A transform whose matrix would not fit in memory is refused before anything is
// allocated (dft_length is the model's to choose).
TEST(OnnxDft, RefusesAMatrixTooLargeToHold) {
    EXPECT_EQ(
        import_error(dft_model({1, 4, 1}, 0, 0, int64_t{1} << 40)),
        "test.onnx: node 'dft' (DFT): the transform's matrix would hold 4x2199023255552 coefficients, more "
        "than 134217728");
}

TEST(OnnxDft, RefusesWhatItCannotWrite) {
    EXPECT_EQ(import_error(dft_model({1, 4, 2}, 0, 1, std::nullopt)),
              "test.onnx: node 'dft' (DFT): onesided is supported for the forward transform of a real signal "
              "only (the "
              "conjugate-symmetric half of its spectrum)");
    EXPECT_EQ(import_error(dft_model({4, 3}, 0, 0, std::nullopt)),
              "test.onnx: node 'dft' (DFT): the input must be [batch, signal dims..., 1 or 2] (real or "
              "complex), has "
              "shape [4,3]");
    // An empty signal axis (the fuzzer found its division by the bin count:
    // tests/fuzz/regressions/fuzz_onnx/dft-of-an-empty-signal).
    EXPECT_EQ(import_error(dft_model({1, 0, 1}, 0, 0, std::nullopt)),
              "test.onnx: node 'dft' (DFT): the input [1,0,1] has no elements: MegEngine holds no empty tensor");
}

}  // namespace
}  // namespace mgedump::test
