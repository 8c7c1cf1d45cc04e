// The quantization operators (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger) on MegEngine's plain dtypes
// (Uint8, Int8, Int16, Int32, Float32) with TypeCvt and Elemwise, not its quantized
// dtypes: ONNX's zero points and scales are tensors (graph inputs in ONNX's tests), and
// each formula is written as ONNX defines it.
//
// Exactness. A difference x − zp of two UINT8 or INT8 values lies in [−255, 255]:
// exact in Int16 and in Float32. Integer products: MegEngine's MatrixMul takes Int16 ×
// Int16 → Int32 (dnn/src/common/matrix_mul.cpp), exact for any K; BatchedMatrixMul and
// Convolution take no Int16 (Int8 only, which cannot hold [−255, 255]), so there the
// products are summed in Float32, exact while every partial sum stays below 2²⁴:
// K·255·255 < 2²⁴, K ≤ 258 (K the number of products per output), checked at import.
// Requantization (QLinearMatMul, QLinearConv) is ONNX Runtime's: the Int32 sum as
// Float32 times the Float32 multiplier (a_scale·b_scale)/y_scale, rounded half to even,
// plus the zero point, saturated.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "formats/onnx/conv_mapping.h"
#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;
using E = ir::DTypeEnum;

// The most products per output whose partial sums stay exact in Float32:
// 258·255² = 16,776,450 < 2²⁴ = 16,777,216 < 259·255².
constexpr int64_t kMaxFloatExactProducts = 258;


bool is_q8(int32_t t) { return t == P::UINT8 || t == P::INT8; }

void require_type(Importer& c, size_t i, std::string_view what, std::initializer_list<int32_t> types) {
    const int32_t t = c.input(i).elem_type;
    for (int32_t ok : types)
        if (t == ok) return;
    std::vector<std::string> names;
    for (int32_t ok : types) names.emplace_back(onnx_elem_name(ok));
    c.fail(fmt::format("{} (input #{}) is {}; supported: {}", what, i, onnx_elem_name(t), fmt::join(names, ", ")));
}

void require_same_type(Importer& c, size_t value, size_t zero_point, std::string_view what) {
    if (!c.has_input(zero_point)) return;
    if (c.input(zero_point).elem_type != c.input(value).elem_type)
        c.fail(fmt::format("{} (input #{}) is {}, its value (input #{}) {}; ONNX requires one type", what,
                           zero_point, onnx_elem_name(c.input(zero_point).elem_type), value,
                           onnx_elem_name(c.input(value).elem_type)));
}

// Input #i (a scale or zero point) as a var that broadcasts against a value of shape
// `shape`: one element is per-tensor; with `per_axis` a 1-D of shape[axis] elements
// is laid along `axis`.
ir::VarId along_axis(Importer& c, size_t i, std::string_view what, const Shape& shape,
                     std::optional<int64_t> per_axis) {
    const Value& v = c.input(i);
    const int64_t n = element_count(v.shape);
    if (n == 1) return v.shape.size() <= 1 ? c.var(i) : c.reshape(c.var(i), {1});
    if (!per_axis || v.shape.size() != 1 || v.shape[0] != shape[*per_axis])
        c.fail(fmt::format("{} (input #{}) of shape [{}] is neither one value{}", what, i, fmt::join(v.shape, ","),
                           per_axis ? fmt::format(" nor one per element of axis {} ({})", *per_axis, shape[*per_axis])
                                    : " (only per-tensor is defined here)"));
    Shape s(shape.size(), 1);
    s[*per_axis] = n;
    return c.reshape(c.var(i), s);
}

// ONNX's saturate(round(v) + zp) into a UINT8 or INT8 `out_type`: round half to
// even, the zero point (a whole number: the sum is exact below 2²⁴, and beyond it
// saturates alike), CLIP to the type's range (then whole numbers in range: the
// TypeCvt is exact).
ir::VarId quantize(Importer& c, ir::VarId v, std::optional<ir::VarId> zero_point_f32, int32_t out_type) {
    ir::VarId r = round_half_to_even(c, v, P::FLOAT);
    if (zero_point_f32) r = elemwise(c, "ADD", {r, *zero_point_f32});
    const bool u8 = out_type == P::UINT8;
    r = elemwise(c, "CLIP", {r, c.const_f32(u8 ? 0.0f : -128.0f), c.const_f32(u8 ? 255.0f : 127.0f)});
    return type_cvt(c, r, u8 ? E::Uint8 : E::Int8);
}

// The axis of per-axis scales (opset 13: attribute axis, default 1; opset 10, and a
// one-element scale (#scale_in): none).
std::optional<int64_t> quant_axis(Importer& c, const Shape& shape, size_t scale_in) {
    if (c.opset() < 13 || shape.empty() || element_count(c.input(scale_in).shape) == 1) return std::nullopt;
    return normalize_axis(c.attr_int("axis", 1), static_cast<int64_t>(shape.size()), c, "axis");
}

// y = saturate(round(x / y_scale) + y_zero_point) (10, 13: per-axis scales).
void quantize_linear(Importer& c) {
    if (c.opset() >= 13)
        c.check_attrs({"axis"});
    else
        c.check_attrs({});
    require_type(c, 0, "x", {P::FLOAT});
    require_type(c, 1, "y_scale", {P::FLOAT});
    const Value& x = c.input(0);
    const int32_t out_type = c.has_input(2) ? c.input(2).elem_type : P::UINT8;
    if (c.has_input(2)) require_type(c, 2, "y_zero_point", {P::UINT8, P::INT8});
    const auto axis = quant_axis(c, x.shape, 1);
    ir::VarId scaled = elemwise(c, "TRUE_DIV", {c.var(0), along_axis(c, 1, "y_scale", x.shape, axis)});
    std::optional<ir::VarId> zp;
    if (c.has_input(2)) zp = type_cvt(c, along_axis(c, 2, "y_zero_point", x.shape, axis), E::Float32);
    c.set_output_var(0, quantize(c, scaled, zp, out_type), out_type, x.shape);
}

bool all_zero(const Value& v) {
    auto ints = decode_ints(v);
    return ints && std::all_of(ints->begin(), ints->end(), [](int64_t k) { return k == 0; });
}

// y = (x − x_zero_point) · x_scale (10, 13: per-axis scales). The difference of
// UINT8 / INT8 values is exact in Float32; INT32 x has no zero point (ONNX: it is 0),
// and x itself is converted as ONNX's reference converts it.
void dequantize_linear(Importer& c) {
    if (c.opset() >= 13)
        c.check_attrs({"axis"});
    else
        c.check_attrs({});
    require_type(c, 0, "x", {P::UINT8, P::INT8, P::INT32});
    require_type(c, 1, "x_scale", {P::FLOAT});
    require_same_type(c, 0, 2, "x_zero_point");
    const Value& x = c.input(0);
    const auto axis = quant_axis(c, x.shape, 1);
    ir::VarId d = type_cvt(c, c.var(0), E::Float32);
    if (c.has_input(2)) {
        if (x.elem_type == P::INT32) {
            if (!c.input(2).is_const || !all_zero(c.input(2)))
                c.fail("an INT32 x takes no zero point other than 0 (ONNX's definition); x − zp in Float32 would "
                       "round");
        } else {
            d = elemwise(c, "SUB", {d, type_cvt(c, along_axis(c, 2, "x_zero_point", x.shape, axis), E::Float32)});
        }
    }
    ir::VarId y = elemwise(c, "MUL", {d, along_axis(c, 1, "x_scale", x.shape, axis)});
    c.set_output_var(0, y, P::FLOAT, x.shape);
}

// ONNX's function body (opset 11): x_min = min(0, ReduceMin(x)), x_max = max(0,
// ReduceMax(x)), y_scale = (x_max − x_min) / 255, y_zero_point = Cast(Round(Clip(0 −
// x_min / y_scale, 0, 255))), y = QuantizeLinear(x, y_scale, y_zero_point), in that
// order of Float32 operations.
void dynamic_quantize_linear(Importer& c) {
    c.check_attrs({});
    require_type(c, 0, "x", {P::FLOAT});
    const Value& x = c.input(0);
    std::vector<int64_t> axes(x.shape.size());
    for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
    auto whole = [&](std::string_view mode) {
        ir::VarId r = axes.empty() ? c.var(0) : reduce_axes(c, c.var(0), mode, axes);
        return x.shape.size() > 1 ? c.reshape(r, {1}) : r;
    };
    ir::VarId zero = c.const_f32(0.0f);
    ir::VarId lo = elemwise(c, "MIN", {whole("MIN"), zero});
    ir::VarId hi = elemwise(c, "MAX", {whole("MAX"), zero});
    ir::VarId scale = elemwise(c, "TRUE_DIV", {elemwise(c, "SUB", {hi, lo}), c.const_f32(255.0f)});
    ir::VarId zp_fp = elemwise(c, "SUB", {zero, elemwise(c, "TRUE_DIV", {lo, scale})});
    zp_fp = elemwise(c, "CLIP", {zp_fp, zero, c.const_f32(255.0f)});
    zp_fp = round_half_to_even(c, zp_fp, P::FLOAT);
    ir::VarId y = quantize(c, elemwise(c, "TRUE_DIV", {c.var(0), scale}), zp_fp, P::UINT8);
    c.set_output_var(0, y, P::UINT8, x.shape);
    if (c.output_count() > 1) c.set_output_var(1, scale, P::FLOAT, {});
    if (c.output_count() > 2) c.set_output_var(2, type_cvt(c, zp_fp, E::Uint8), P::UINT8, {});
}

// A matrix operand minus its zero point, in `dtype` (Int16 or Float32, exact).
// `zp_view` lays a per-row / per-column zero point along the right axis.
ir::VarId centered(Importer& c, size_t value, size_t zero_point, E dtype, const std::optional<Shape>& zp_view,
                   std::string_view what) {
    ir::VarId v = type_cvt(c, c.var(value), dtype);
    if (!c.has_input(zero_point)) return v;
    const Value& zp = c.input(zero_point);
    ir::VarId z;
    if (element_count(zp.shape) == 1)
        z = zp.shape.size() <= 1 ? c.var(zero_point) : c.reshape(c.var(zero_point), {1});
    else if (zp_view && zp.shape.size() == 1 && zp.shape[0] == element_count(*zp_view))
        z = c.reshape(c.var(zero_point), *zp_view);
    else
        c.fail(fmt::format("{} (input #{}) of shape [{}] is neither one value nor one per {}", what, zero_point,
                           fmt::join(zp.shape, ","), zp_view ? "row / column" : "tensor"));
    return elemwise(c, "SUB", {v, type_cvt(c, z, dtype)});
}

struct IntMatMul {
    ir::VarId var;  // Int32
    Shape shape;
};

int64_t product(const Shape& s, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t k = begin; k < end; ++k) n *= s[k];
    return n;
}

// Σ_k (A − a_zp)[.., m, k] · (B − b_zp)[.., k, n] exactly in Int32, numpy's matmul
// shapes: (..., M, K) × (K, N) folds the leading axes into M and is one Int16 ×
// Int16 → Int32 MatrixMul; equal batch axes are one BatchedMatrixMul in Float32
// (K ≤ 258). a_zp may be per row (M), b_zp per column (N).
IntMatMul integer_matmul(Importer& c, size_t a_in, size_t azp_in, size_t b_in, size_t bzp_in) {
    const Value &a = c.input(a_in), &b = c.input(b_in);
    if (!is_q8(a.elem_type) || !is_q8(b.elem_type))
        c.fail(fmt::format("A and B must be UINT8 or INT8, are {} and {}", onnx_elem_name(a.elem_type),
                           onnx_elem_name(b.elem_type)));
    require_same_type(c, a_in, azp_in, "A's zero point");
    require_same_type(c, b_in, bzp_in, "B's zero point");
    if (a.shape.size() < 2 || b.shape.size() < 2)
        c.fail(fmt::format("operands of rank 1 are not supported (A [{}], B [{}])", fmt::join(a.shape, ","),
                           fmt::join(b.shape, ",")));
    const int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = b.shape.back();
    if (b.shape[b.shape.size() - 2] != k)
        c.fail(fmt::format("inner dimensions differ: [{}] x [{}]", fmt::join(a.shape, ","), fmt::join(b.shape, ",")));
    const Shape row_view{m, 1}, col_view{n};
    Shape out(a.shape.begin(), a.shape.end() - 1);
    out.push_back(n);
    if (b.shape.size() == 2) {
        ir::VarId da = centered(c, a_in, azp_in, E::Int16, row_view, "A's zero point");
        ir::VarId db = centered(c, b_in, bzp_in, E::Int16, col_view, "B's zero point");
        const int64_t rows = product(a.shape, 0, a.shape.size() - 1);
        if (a.shape.size() != 2) da = c.reshape(da, {rows, k});
        ir::VarId y = c.emit("MatrixMul", {da, db});
        if (a.shape.size() != 2) y = c.reshape(y, out);
        return {y, out};
    }
    if (a.shape.size() != b.shape.size() || !std::equal(a.shape.begin(), a.shape.end() - 2, b.shape.begin()))
        c.fail(fmt::format("batch axes of [{}] and [{}] differ; broadcasting batched products is not supported",
                           fmt::join(a.shape, ","), fmt::join(b.shape, ",")));
    if (k > kMaxFloatExactProducts)
        c.fail(fmt::format("a batched integer product with K = {} is not supported: MegEngine's BatchedMatrixMul "
                           "takes no Int16, and in Float32 its sums are exact only for K <= {} (K·255² < 2^24)",
                           k, kMaxFloatExactProducts));
    const int64_t batch = product(a.shape, 0, a.shape.size() - 2);
    ir::VarId da = c.reshape(centered(c, a_in, azp_in, E::Float32, row_view, "A's zero point"), {batch, m, k});
    ir::VarId db = c.reshape(centered(c, b_in, bzp_in, E::Float32, col_view, "B's zero point"), {batch, k, n});
    ir::VarId y = type_cvt(c, c.emit("BatchedMatrixMul", {da, db}), E::Int32);
    return {c.reshape(y, out), out};
}

// MatMulInteger (10): Y = (A − a_zero_point) · (B − b_zero_point) in INT32.
void matmul_integer(Importer& c) {
    c.check_attrs({});
    IntMatMul r = integer_matmul(c, 0, 2, 1, 3);
    c.set_output_var(0, r.var, P::INT32, r.shape);
}

// A per-tensor or per-`what` Float32 scale (input #i) viewed as `view` when it has
// more than one element.
ir::VarId scale_view(Importer& c, size_t i, std::string_view what, const Shape& view) {
    require_type(c, i, what, {P::FLOAT});
    const Value& s = c.input(i);
    if (element_count(s.shape) == 1) return s.shape.size() <= 1 ? c.var(i) : c.reshape(c.var(i), {1});
    if (s.shape.size() != 1 || s.shape[0] != element_count(view))
        c.fail(fmt::format("{} (input #{}) of shape [{}] is neither one value nor one per [{}]", what, i,
                           fmt::join(s.shape, ","), fmt::join(view, ",")));
    return c.reshape(c.var(i), view);
}

// The Int32 sum as Float32 times (s_a·s_b)/s_y, then saturate(round(·) + y_zp).
ir::VarId requantize(Importer& c, ir::VarId acc, ir::VarId s_a, ir::VarId s_b, ir::VarId s_y, size_t yzp_in) {
    ir::VarId multiplier = elemwise(c, "TRUE_DIV", {elemwise(c, "MUL", {s_a, s_b}), s_y});
    ir::VarId v = elemwise(c, "MUL", {type_cvt(c, acc, E::Float32), multiplier});
    const int32_t out_type = c.input(yzp_in).elem_type;
    if (!is_q8(out_type))
        c.fail(fmt::format("y_zero_point (input #{}) is {}, must be UINT8 or INT8", yzp_in, onnx_elem_name(out_type)));
    ir::VarId zp = type_cvt(c, along_axis(c, yzp_in, "y_zero_point", {1}, std::nullopt), E::Float32);
    return quantize(c, v, zp, out_type);
}

// QLinearMatMul (10): a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point. Per-row a / per-column b scales and zero points, per-tensor y.
void qlinear_matmul(Importer& c) {
    c.check_attrs({});
    const Value &a = c.input(0), &b = c.input(3);
    if (a.shape.size() < 2 || b.shape.size() < 2) c.fail("operands of rank 1 are not supported");
    const Shape row_view{a.shape[a.shape.size() - 2], 1}, col_view{b.shape.back()};
    ir::VarId s_a = scale_view(c, 1, "a_scale", row_view), s_b = scale_view(c, 4, "b_scale", col_view);
    if (element_count(c.input(6).shape) != 1) c.fail("y_scale (input #6) must be one value (per-tensor)");
    if (element_count(c.input(7).shape) != 1) c.fail("y_zero_point (input #7) must be one value (per-tensor)");
    ir::VarId s_y = scale_view(c, 6, "y_scale", {1});
    IntMatMul r = integer_matmul(c, 0, 2, 3, 5);
    c.set_output_var(0, requantize(c, r.var, s_a, s_b, s_y, 7), c.input(7).elem_type, r.shape);
}

// The integer convolution of x (#x_in) and w (#w_in) minus their zero points, in Int32:
// Conv's mapping on the Float32 differences (exact: K = IC/group · ∏kernel ≤ 258;
// ONNX pads x with its zero point, which is a zero difference). The overrides make
// the node's inputs #0 and #1 those differences for conv_mapped.
ConvResult integer_conv(Importer& c, size_t x_in, size_t xzp_in, size_t w_in, size_t wzp_in) {
    const Value x = c.input(x_in), w = c.input(w_in);
    if (!is_q8(x.elem_type) || !is_q8(w.elem_type))
        c.fail(fmt::format("x and w must be UINT8 or INT8, are {} and {}", onnx_elem_name(x.elem_type),
                           onnx_elem_name(w.elem_type)));
    require_same_type(c, x_in, xzp_in, "x's zero point");
    require_same_type(c, w_in, wzp_in, "w's zero point");
    if (w.shape.size() < 3 || x.shape.size() != w.shape.size())
        c.fail(fmt::format("x [{}] and w [{}] must be (N, C, spatial...) and (OC, C/group, kernel...)",
                           fmt::join(x.shape, ","), fmt::join(w.shape, ",")));
    const int64_t k = product(w.shape, 1, w.shape.size());
    if (k > kMaxFloatExactProducts)
        c.fail(fmt::format("an integer convolution with {} products per output (C/group·kernel) is not supported: "
                           "MegEngine's Convolution takes no Int16, and in Float32 its sums are exact only up to {} "
                           "(K·255² < 2^24)",
                           k, kMaxFloatExactProducts));
    Shape oc_view(w.shape.size(), 1);
    oc_view[0] = w.shape[0];
    ir::VarId dx = centered(c, x_in, xzp_in, E::Float32, std::nullopt, "x's zero point");
    ir::VarId dw = centered(c, w_in, wzp_in, E::Float32, oc_view, "w's zero point");
    c.override_input(0, Value{P::FLOAT, x.shape, dx});
    c.override_input(1, Value{P::FLOAT, w.shape, dw});
    ConvResult r = conv_mapped(c, /*with_bias=*/false);
    r.var = type_cvt(c, r.var, E::Int32);
    return r;
}

// ConvInteger (10): x, w, x_zero_point (per-tensor), w_zero_point (per-tensor or per
// output channel); Conv's attributes; INT32 output.
void conv_integer(Importer& c) {
    ConvResult r = integer_conv(c, 0, 2, 1, 3);
    c.set_output_var(0, r.var, P::INT32, r.shape);
}

// QLinearConv (10): x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, B (INT32, per output channel, added to the integer sum).
void qlinear_conv(Importer& c) {
    const Shape w_shape = c.input(3).shape;
    if (w_shape.size() < 3) c.fail("w (input #3) must be (OC, C/group, kernel...)");
    const int64_t oc = w_shape[0];
    const size_t rank = w_shape.size();
    Shape oc_view(rank, 1);
    oc_view[1] = oc;
    if (element_count(c.input(2).shape) != 1) c.fail("x_zero_point (input #2) must be one value (per-tensor)");
    if (element_count(c.input(6).shape) != 1) c.fail("y_scale (input #6) must be one value (per-tensor)");
    if (element_count(c.input(7).shape) != 1) c.fail("y_zero_point (input #7) must be one value (per-tensor)");
    if (element_count(c.input(1).shape) != 1) c.fail("x_scale (input #1) must be one value (per-tensor)");
    // Read before the overrides replace inputs #0 and #1.
    ir::VarId s_x = scale_view(c, 1, "x_scale", {1});
    ir::VarId s_w = scale_view(c, 4, "w_scale", oc_view);
    ir::VarId s_y = scale_view(c, 6, "y_scale", {1});
    std::optional<ir::VarId> bias;
    if (c.input_count() > 8 && c.has_input(8)) {
        require_type(c, 8, "B", {P::INT32});
        if (c.input(8).shape != Shape{oc}) c.fail(fmt::format("B (input #8) must have shape [{}]", oc));
        bias = c.reshape(c.var(8), oc_view);
    }
    ConvResult r = integer_conv(c, 0, 2, 3, 5);
    if (bias) r.var = elemwise(c, "ADD", {r.var, *bias});
    c.set_output_var(0, requantize(c, r.var, s_x, s_w, s_y, 7), c.input(7).elem_type, r.shape);
}

constexpr OpHandler kHandlers[] = {
    {"QuantizeLinear", quantize_linear},
    {"DequantizeLinear", dequantize_linear},
    {"DynamicQuantizeLinear", dynamic_quantize_linear},
    {"MatMulInteger", matmul_integer},
    {"QLinearMatMul", qlinear_matmul},
    {"ConvInteger", conv_integer},
    {"QLinearConv", qlinear_conv},
};

}  // namespace

std::span<const OpHandler> quantize_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
