// The signal windows of opset 17: HannWindow, HammingWindow, BlackmanWindow (ONNX's
// function bodies, in their order of Float32 operations) and MelWeightMatrix (ONNX's
// reference computation). A constant size makes the window an import-time constant;
// a size known only at run time builds the function body from Elemwise on the
// positions 0..N−1 (an exclusive Cumsum of N ones), so its length is the run-time N.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// The cosine-sum window a0 − a1·cos(x) + a2·cos(2x), x = 2π·n / N_1 (ONNX's
// function body: N_1 = N when periodic, N − 1 when symmetric).
struct CosineSum {
    float a0, a1, a2;
};

// 2π as ONNX's function body holds it (Float32).
constexpr float kTau = 6.2831854820251465f;

// The window output in output_datatype (default FLOAT; the body ends with a Cast).
int32_t output_type(Importer& c) {
    const int32_t to = static_cast<int32_t>(c.attr_int("output_datatype", P::FLOAT));
    if (!is_float_type(to) && !is_integer_type(to))
        c.fail(fmt::format("output_datatype {} is not a numeric type", onnx_elem_name(to)));
    return to;
}

// Output #0 = `y` (Float32) cast to `to` as ONNX's Cast does (TypeCvt; DOUBLE is held
// as Float32 and needs none).
void set_cast(Importer& c, ir::VarId y, int32_t to, const Shape* shape) {
    const ir::DTypeEnum dtype = onnx_var_dtype(to, c);
    if (dtype != ir::DTypeEnum::Float32) y = type_cvt(c, y, dtype);
    if (shape)
        c.set_output_var(0, y, to, *shape);
    else
        set_runtime_output(c, 0, y, to, 1);
}

void cosine_window(Importer& c, CosineSum w) {
    c.check_attrs({"periodic", "output_datatype"});
    const bool periodic = c.attr_int("periodic", 1) != 0;
    const int32_t to = output_type(c);
    const Value& size = c.runtime_input(0);
    if (!is_integer_type(size.elem_type) || element_count(size.shape) != 1)
        c.fail("size (input #0) must be one integer");
    if (size.is_const) {
        const int64_t n = c.const_ints(0, "size").front();
        if (n < 0) c.fail(fmt::format("size {} is negative", n));
        const float size_fp = periodic ? static_cast<float>(n) : static_cast<float>(n) - 1.0f;
        const float increment = kTau / size_fp;
        std::vector<float> values(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k) {
            const float angle = static_cast<float>(k) * increment;
            float v = w.a0 - w.a1 * std::cos(angle);
            if (w.a2 != 0.0f) v = v + w.a2 * std::cos(angle * 2.0f);
            values[static_cast<size_t>(k)] = v;
        }
        Value y = float_const(values, {n});
        const Shape shape{n};
        if (to == P::FLOAT) return c.set_output(0, std::move(y));
        return set_cast(c, c.materialize(y, c.node().output(0)), to, &shape);
    }
    ir::VarId n = int32_var(c, 0, "size");
    constexpr ir::DTypeEnum f32 = ir::DTypeEnum::Float32;
    ir::VarId size_fp = type_cvt(c, n, f32);
    if (!periodic) size_fp = elemwise(c, "SUB", {size_fp, c.const_f32(1.0f)});
    ir::VarId increment = elemwise(c, "TRUE_DIV", {c.const_f32(kTau), size_fp});
    ir::VarId positions = type_cvt(c, iota(c, n), f32);
    ir::VarId angle = elemwise(c, "MUL", {positions, increment});
    ir::VarId y = elemwise(c, "SUB", {c.const_f32(w.a0), elemwise(c, "MUL", {c.const_f32(w.a1), elemwise(c, "COS", {angle})})});
    if (w.a2 != 0.0f) {
        ir::VarId twice = elemwise(c, "COS", {elemwise(c, "MUL", {angle, c.const_f32(2.0f)})});
        y = elemwise(c, "ADD", {y, elemwise(c, "MUL", {c.const_f32(w.a2), twice})});
    }
    set_cast(c, y, to, nullptr);
}

void hann_window(Importer& c) { cosine_window(c, {0.5f, 0.5f, 0.0f}); }
void hamming_window(Importer& c) {
    cosine_window(c, {static_cast<float>(25.0 / 46.0), static_cast<float>(21.0 / 46.0), 0.0f});
}
void blackman_window(Importer& c) { cosine_window(c, {0.42f, 0.5f, 0.08f}); }

// MelWeightMatrix as ONNX's reference computes it, in double: num_mel_bins + 2 points
// equally spaced in mel (2595·log10(1 + f/700)) from lower_edge_hertz to
// upper_edge_hertz, back to hertz, bin ⌊(dft_length + 1)·f / sample_rate⌋; triangle i
// rises from bin i to bin i+1 ((j − l)/(c − l), a 1 where they coincide) and falls to
// bin i+2 ((h − j)/(h − c)). Its inputs must be constants: the bins are floors of
// double-precision values, which Float32 at run time can round differently.
void mel_weight_matrix(Importer& c) {
    c.check_attrs({"output_datatype"});
    const int32_t to = output_type(c);
    static const char* const kNames[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
                                         "upper_edge_hertz"};
    for (size_t i = 0; i < 5; ++i) {
        if (!c.is_const(i))
            c.fail(fmt::format("{} (input #{}) must be a constant known at import time: the bins are floors of "
                               "double-precision values (ONNX's reference), which Float32 at run time can round "
                               "differently",
                               kNames[i], i));
        if (element_count(c.input(i).shape) != 1) c.fail(fmt::format("{} (input #{}) must be one value", kNames[i], i));
    }
    const int64_t mel_bins = c.const_ints(0, kNames[0]).front(), dft_length = c.const_ints(1, kNames[1]).front(),
                  sample_rate = c.const_ints(2, kNames[2]).front();
    const double lower = c.const_floats(3, kNames[3]).front(), upper = c.const_floats(4, kNames[4]).front();
    if (mel_bins < 1 || dft_length < 1 || sample_rate < 1)
        c.fail(fmt::format("num_mel_bins {}, dft_length {} and sample_rate {} must be positive", mel_bins, dft_length,
                           sample_rate));
    const int64_t spectrogram_bins = dft_length / 2 + 1;
    const double low_mel = 2595 * std::log10(1 + lower / 700), high_mel = 2595 * std::log10(1 + upper / 700);
    const double mel_step = (high_mel - low_mel) / static_cast<double>(mel_bins + 2);
    std::vector<int64_t> bins(static_cast<size_t>(mel_bins + 2));
    for (int64_t k = 0; k < mel_bins + 2; ++k) {
        const double mel = static_cast<double>(k) * mel_step + low_mel;
        const double hertz = 700 * (std::pow(10.0, mel / 2595) - 1);
        const double bin = std::floor(static_cast<double>(dft_length + 1) * hertz / static_cast<double>(sample_rate));
        // Checked before the conversion, undefined for NaN (lower_edge_hertz
        // below -700 Hz, a NaN edge) and past int64; a bin outside the
        // spectrogram is refused below, where a filter reaches it.
        if (!(bin >= -0x1p62 && bin <= 0x1p62))
            c.fail(fmt::format("lower_edge_hertz {} and upper_edge_hertz {} give mel bin {}", lower, upper, bin));
        bins[static_cast<size_t>(k)] = static_cast<int64_t>(bin);
    }
    std::vector<float> out(static_cast<size_t>(spectrogram_bins * mel_bins), 0.0f);
    auto at = [&](int64_t j, int64_t i) -> float& {
        if (j < 0 || j >= spectrogram_bins)
            c.fail(fmt::format("mel bin {} of filter {} lies outside the {} spectrogram bins (upper_edge_hertz "
                               "beyond sample_rate / 2)",
                               j, i, spectrogram_bins));
        return out[static_cast<size_t>(j * mel_bins + i)];
    };
    for (int64_t i = 0; i < mel_bins; ++i) {
        const int64_t lo = bins[static_cast<size_t>(i)], mid = bins[static_cast<size_t>(i + 1)],
                      hi = bins[static_cast<size_t>(i + 2)];
        if (mid == lo)
            at(mid, i) = 1.0f;
        else
            for (int64_t j = lo; j <= mid; ++j)
                at(j, i) = static_cast<float>(static_cast<double>(j - lo) / static_cast<double>(mid - lo));
        for (int64_t j = mid; j < hi; ++j)
            at(j, i) = static_cast<float>(static_cast<double>(hi - j) / static_cast<double>(hi - mid));
    }
    const Shape shape{spectrogram_bins, mel_bins};
    Value y = float_const(out, shape);
    if (to == P::FLOAT) return c.set_output(0, std::move(y));
    set_cast(c, c.materialize(y, c.node().output(0)), to, &shape);
}

constexpr OpHandler kHandlers[] = {
    {"HannWindow", hann_window},
    {"HammingWindow", hamming_window},
    {"BlackmanWindow", blackman_window},
    {"MelWeightMatrix", mel_weight_matrix},
};

}  // namespace

std::span<const OpHandler> window_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
