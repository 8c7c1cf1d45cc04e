// DFT (opset 17) as one matrix product: the signal axis and the complex pair are
// brought last and flattened, (M, n·C) × W with W the transform's cos / sin
// coefficients (n·C, K·2) made at import time in double, then the result laid back
// out as [..., K, 2]. A constant dft_length pads with zeros or truncates, as ONNX's
// reference (onnx/reference/ops/op_dft.py) does, by the rows of W. STFT is the
// same product on the signal's frames, gathered by a constant index table.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// W of (n·C, K·2): row t·C + 0 takes the real part of sample t, row t·C + 1 (C = 2)
// its imaginary part; column k·2 + 0 gives the real part of bin k, k·2 + 1 its
// imaginary part. Forward: X_k = Σ x_t e^(−2πi·kt/L); inverse: (1/L) Σ x_t e^(+2πi·kt/L).
// Samples at t ≥ L (truncation) have zero rows; t < L past the signal (padding) has
// no row at all. The angle is reduced to kt mod L in integers first, so that every
// coefficient is the double value of its exact angle rounded once to Float32.
// Coefficients in one transform's matrix at most (512 MiB of Float32): a 4096-sample
// complex DFT has 2^26; a model asking for far more is refused, not allocated.
constexpr int64_t kMaxCoefficients = int64_t{1} << 27;

void check_matrix_size(Importer& c, int64_t n, int64_t channels, int64_t bins) {
    if (bins > kMaxCoefficients || n > kMaxCoefficients / (channels * bins * 2))
        c.fail(fmt::format("the transform's matrix would hold {}x{} coefficients, more than {}", n * channels,
                           bins * 2, kMaxCoefficients));
}

std::vector<std::byte> dft_matrix(int64_t n, int64_t channels, int64_t length, int64_t bins, bool inverse) {
    std::vector<float> w(static_cast<size_t>(n * channels * bins * 2), 0.0f);
    const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
    const double sign = inverse ? 1.0 : -1.0;  // of the exponent
    for (int64_t t = 0; t < std::min(n, length); ++t)
        for (int64_t k = 0; k < bins; ++k) {
            const double angle =
                2.0 * std::numbers::pi * static_cast<double>((k * t) % length) / static_cast<double>(length);
            const double re = std::cos(angle) * scale, im = sign * std::sin(angle) * scale;
            // (a + ib)(re + i·im) = (a·re − b·im) + i(a·im + b·re)
            const auto at = [&](int64_t row, int64_t col) -> float& {
                return w[static_cast<size_t>((t * channels + row) * bins * 2 + k * 2 + col)];
            };
            at(0, 0) = static_cast<float>(re);
            at(0, 1) = static_cast<float>(im);
            if (channels == 2) {
                at(1, 0) = static_cast<float>(-im);
                at(1, 1) = static_cast<float>(re);
            }
        }
    std::vector<std::byte> bytes(w.size() * sizeof(float));
    std::memcpy(bytes.data(), w.data(), bytes.size());
    return bytes;
}

void dft(Importer& c) {
    c.check_attrs({"axis", "inverse", "onesided"});
    const Value& x = c.input(0);
    if (x.elem_type != P::FLOAT && x.elem_type != P::DOUBLE)
        c.fail(fmt::format("element type {} is not supported (FLOAT, or DOUBLE held as Float32)",
                           onnx_elem_name(x.elem_type)));
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank < 3 || (x.shape.back() != 1 && x.shape.back() != 2))
        c.fail(
            fmt::format("the input must be [batch, signal dims..., 1 or 2] (real or complex), has shape [{}]",
                        fmt::join(x.shape, ",")));
    // An empty signal axis would make a transform of no bins (and a division by
    // them in the size check): the fuzzer's regressions/fuzz_onnx/dft-of-an-empty-signal.
    if (element_count(x.shape) == 0)
        c.fail(fmt::format("the input [{}] has no elements: MegEngine holds no empty tensor",
                           fmt::join(x.shape, ",")));
    int64_t axis = c.attr_int("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 1 || axis > rank - 2)
        c.fail(fmt::format("axis {} is not a signal axis of a rank-{} input (1 to {})", c.attr_int("axis", 1),
                           rank, rank - 2));
    const bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
    const int64_t channels = x.shape.back(), n = x.shape[static_cast<size_t>(axis)];
    if (onesided && (inverse || channels == 2))
        c.fail(
            "onesided is supported for the forward transform of a real signal only (the conjugate-symmetric "
            "half of its spectrum)");
    int64_t length = n;
    if (c.has_input(1)) {
        const std::vector<int64_t> l = c.const_ints(1, "dft_length");
        if (l.size() != 1 || l[0] < 1)
            c.fail(fmt::format("dft_length must be one positive value, is [{}]", fmt::join(l, ",")));
        length = l[0];
    }
    const int64_t bins = onesided ? length / 2 + 1 : length;
    check_matrix_size(c, n, channels, bins);

    // x with the signal axis just before the complex pair: [others..., n, C].
    std::vector<int32_t> to_last;
    Shape others;
    for (int64_t d = 0; d < rank - 1; ++d)
        if (d != axis) {
            to_last.push_back(static_cast<int32_t>(d));
            others.push_back(x.shape[static_cast<size_t>(d)]);
        }
    to_last.push_back(static_cast<int32_t>(axis));
    to_last.push_back(static_cast<int32_t>(rank - 1));
    ir::VarId v = c.var(0);
    if (axis != rank - 2) v = c.emit("Dimshuffle", {v}, {{"pattern", to_last}});
    const int64_t rows = element_count(others);
    v = c.reshape(v, {rows, n * channels});
    const ir::VarId w = c.const_var(ir::DTypeEnum::Float32, {n * channels, bins * 2},
                                    dft_matrix(n, channels, length, bins, inverse));
    ir::VarId y = c.emit("MatrixMul", {v, w});
    Shape laid = others;
    laid.push_back(bins);
    laid.push_back(2);
    y = c.reshape(y, laid);
    // Back to the input's order: the bins where the signal axis was.
    Shape out = x.shape;
    out[static_cast<size_t>(axis)] = bins;
    out.back() = 2;
    if (axis != rank - 2) {
        std::vector<int32_t> back(static_cast<size_t>(rank));
        for (size_t k = 0; k < to_last.size(); ++k)
            back[static_cast<size_t>(to_last[k])] = static_cast<int32_t>(k);
        y = c.emit("Dimshuffle", {y}, {{"pattern", back}});
    }
    c.set_output_var(0, y, x.elem_type, out);
}

// STFT (17) of [batch, n, 1 or 2]: frame f is samples f·step .. f·step + L − 1
// (one IndexingMultiAxisVec of the signal axis by a constant index table), times
// the window, transformed by DFT's W: (batch·frames, L·C) × W. A constant window is
// folded into W's rows; one known only at run time multiplies the frames (Elemwise).
// frame_step and frame_length fix the output's shape, so they must be constants.
void stft(Importer& c) {
    c.check_attrs({"onesided"});
    const Value& x = c.input(0);
    if (x.elem_type != P::FLOAT && x.elem_type != P::DOUBLE)
        c.fail(fmt::format("element type {} is not supported (FLOAT, or DOUBLE held as Float32)",
                           onnx_elem_name(x.elem_type)));
    if (x.shape.size() != 3 || (x.shape[2] != 1 && x.shape[2] != 2))
        c.fail(fmt::format("the signal must be [batch, length, 1 or 2] (real or complex), has shape [{}]",
                           fmt::join(x.shape, ",")));
    const int64_t batch = x.shape[0], n = x.shape[1], channels = x.shape[2];
    const std::vector<int64_t> steps = c.const_ints(1, "frame_step");
    if (steps.size() != 1 || steps[0] < 1)
        c.fail(fmt::format("frame_step must be one positive value, is [{}]", fmt::join(steps, ",")));
    const int64_t step = steps[0];
    const bool windowed = c.has_input(2);
    int64_t length = 0;
    if (windowed) {
        const Value& w = c.input(2);
        if (w.shape.size() != 1)
            c.fail(fmt::format("the window must be 1-D, has shape [{}]", fmt::join(w.shape, ",")));
        length = w.shape[0];
    }
    if (c.has_input(3)) {
        const std::vector<int64_t> l = c.const_ints(3, "frame_length");
        if (l.size() != 1 || l[0] < 1)
            c.fail(fmt::format("frame_length must be one positive value, is [{}]", fmt::join(l, ",")));
        if (windowed && l[0] != length)
            c.fail(fmt::format("frame_length {} differs from the window's length {}", l[0], length));
        length = l[0];
    }
    if (length == 0) c.fail("neither a window nor frame_length gives the frame length");
    if (length > n) c.fail(fmt::format("frames of {} samples do not fit a signal of {}", length, n));
    const bool onesided = c.attr_int("onesided", 1) != 0;
    if (onesided && channels == 2)
        c.fail(
            "onesided is supported for a real signal only (the conjugate-symmetric half of its spectrum); "
            "set "
            "onesided to 0 for a complex one");
    const int64_t frames = (n - length) / step + 1, bins = onesided ? length / 2 + 1 : length;
    check_matrix_size(c, length, channels, bins);
    if (frames > kMaxCoefficients / length)
        c.fail(fmt::format("{} frames of {} samples would take an index table of more than {} entries",
                           frames, length, kMaxCoefficients));

    std::vector<std::byte> index(static_cast<size_t>(frames * length) * 4);
    for (int64_t f = 0; f < frames; ++f)
        for (int64_t t = 0; t < length; ++t) {
            const auto at = static_cast<int32_t>(f * step + t);
            std::memcpy(index.data() + 4 * static_cast<size_t>(f * length + t), &at, 4);
        }
    const ir::IndexDescMaskItem along_signal{1, false, false, false, true};
    ir::VarId v = c.emit("IndexingMultiAxisVec",
                         {c.var(0), c.const_var(ir::DTypeEnum::Int32, {frames * length}, std::move(index))},
                         {{"items", std::vector{along_signal}}});  // [batch, frames·L, C]
    std::vector<std::byte> w = dft_matrix(length, channels, length, bins, false);
    if (windowed && c.input(2).is_const) {
        const std::optional<std::vector<double>> window = decode_floats(c.input(2));
        if (!window) c.fail("the window's values cannot be read");
        auto* coefficients = reinterpret_cast<float*>(w.data());
        for (int64_t t = 0; t < length; ++t)
            for (int64_t k = 0; k < channels * bins * 2; ++k)
                coefficients[t * channels * bins * 2 + k] *=
                    static_cast<float>((*window)[static_cast<size_t>(t)]);
    } else if (windowed) {
        v = c.reshape(v, {batch, frames, length, channels});
        v = elemwise(c, "MUL", {v, c.reshape(c.var(2), {1, 1, length, 1})});
    }
    v = c.reshape(v, {batch * frames, length * channels});
    ir::VarId y = c.emit(
        "MatrixMul", {v, c.const_var(ir::DTypeEnum::Float32, {length * channels, bins * 2}, std::move(w))});
    y = c.reshape(y, {batch, frames, bins, 2});
    c.set_output_var(0, y, x.elem_type, {batch, frames, bins, 2});
}

constexpr OpHandler kHandlers[] = {
    {"DFT", dft},
    {"STFT", stft},
};

}  // namespace

std::span<const OpHandler> spectral_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
