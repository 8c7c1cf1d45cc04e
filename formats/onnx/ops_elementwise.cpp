// Element-wise ONNX operators → MegEngine Elemwise modes (and TypeCvt for Cast).
// Integer arithmetic on constants (the Shape → Gather → Mul → Reshape chains
// torch.onnx.export writes) is folded at import time instead.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// Both inputs constant integers: compute the result with numpy broadcasting, in
// the operands' type (ONNX's Add, Sub, Mul and Div take two of one type): modulo
// 2^64, then wrapped to the type's width, as numpy computes in that width. In
// unsigned 64-bit arithmetic, where signed overflow (INT64 constants) would be
// undefined behaviour.
bool fold_integer_binary(Importer& c, std::string_view op, const Shape& out_shape) {
    const int32_t type = c.input(0).elem_type;
    auto foldable = [](int32_t t) { return is_integer_or_bool_type(t) && t != P::UINT64; };  // UINT64: not decoded
    if (!c.is_const(0) || !c.is_const(1) || !foldable(type) || !foldable(c.input(1).elem_type)) return false;
    std::vector<int64_t> a = c.const_ints(0, "operand"), b = c.const_ints(1, "operand");
    const Shape &sa = c.input(0).shape, &sb = c.input(1).shape;
    std::vector<int64_t> out(static_cast<size_t>(element_count(out_shape)));
    // Index of output element k in an operand of shape s (broadcast dims read 0).
    auto index_in = [&](const Shape& s, int64_t k) {
        int64_t idx = 0, stride = 1;
        for (size_t d = 0; d < out_shape.size(); ++d) {
            size_t od = out_shape.size() - 1 - d;
            int64_t coord = k % out_shape[od];
            k /= out_shape[od];
            if (d < s.size()) {
                int64_t sd = s[s.size() - 1 - d];
                idx += (sd == 1 ? 0 : coord) * stride;
                stride *= sd;
            }
        }
        return idx;
    };
    for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
        const int64_t x = a[index_in(sa, k)], y = b[index_in(sb, k)];
        const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
        if (op == "Add")
            out[k] = static_cast<int64_t>(ux + uy);
        else if (op == "Sub")
            out[k] = static_cast<int64_t>(ux - uy);
        else if (op == "Mul")
            out[k] = static_cast<int64_t>(ux * uy);
        else if (op == "Div") {
            if (y == 0) c.fail("integer division by zero in a constant");
            // Truncating, as numpy's divide cast back; the one quotient past
            // INT64 wraps to the dividend.
            out[k] = (x == INT64_MIN && y == -1) ? x : x / y;
        } else
            return false;
    }
    c.set_output(0, int_const_as(type, out, out_shape));
    return true;
}

template <const char* kMode>
void binary(Importer& c) {
    c.check_attrs({});
    if (any_runtime_shape(c, 2)) return elemwise_of_runtime_shapes(c, kMode, 2, /*float_only=*/false);
    const Value &a = c.input(0), &b = c.input(1);
    auto shape = broadcast_shapes(a.shape, b.shape);
    if (!shape)
        c.fail(fmt::format("input shapes [{}] and [{}] do not broadcast", fmt::join(a.shape, ","),
                           fmt::join(b.shape, ",")));
    if (fold_integer_binary(c, c.node().op_type(), *shape)) return;
    int32_t elem = a.elem_type;
    c.set_output_var(0, c.emit("Elemwise", {c.var(0), c.var(1)}, {{"mode", kMode}}), elem, *shape);
}

template <const char* kMode>
void unary(Importer& c) {
    c.check_attrs({});
    if (any_runtime_shape(c, 1)) return elemwise_of_runtime_shapes(c, kMode, 1, /*float_only=*/false);
    const Value& x = c.input(0);
    c.set_output_var(0, c.emit("Elemwise", {c.var(0)}, {{"mode", kMode}}), x.elem_type, x.shape);
}

// ONNX's integer Div truncates toward zero (onnx.reference: np.divide, then cast
// back to the input type; ONNX Runtime divides in C). MegEngine's int division is
// FLOOR_DIV, the same for unsigned types; for signed ones the floor is one below
// the truncation where the division is inexact and the quotient negative, that
// is where r = MOD(a, b) (the divisor's sign, 0 when exact) and a differ in sign.
// Not sign(a)·sign(b)·⌊|a| / |b|⌋: |a| wraps for the type's minimum (Int8 −128).
// Inputs of one integer type (else a refusal naming both); the quotient.
ir::VarId integer_quotient(Importer& c, int32_t elem, int32_t other) {
    if (elem != other)
        c.fail(fmt::format("inputs are {} and {}; Div takes one type", onnx_elem_name(elem),
                           onnx_elem_name(other)));
    if (elem == P::BOOL) c.fail("Div of BOOL is not defined");
    if (is_unsigned_type(elem)) return elemwise(c, "FLOOR_DIV", {c.var(0), c.var(1)});
    ir::VarId r = elemwise(c, "MOD", {c.var(0), c.var(1)});
    ir::VarId below = remainder_sign_differs(c, c.var(0), r, elem);
    return elemwise(c, "ADD", {elemwise(c, "FLOOR_DIV", {c.var(0), c.var(1)}), below});
}

void divide(Importer& c) {
    c.check_attrs({});
    if (any_runtime_shape(c, 2)) {
        // Values a mask selected: torchvision's retinanet divides top-k indices
        // by the class count (Int64) to find their anchors.
        const int32_t elem = c.runtime_input(0).elem_type, other = c.runtime_input(1).elem_type;
        if (is_float_type(elem) || is_float_type(other))
            return elemwise_of_runtime_shapes(c, "TRUE_DIV", 2, /*float_only=*/true);
        return set_runtime_output(c, 0, integer_quotient(c, elem, other), elem, broadcast_runtime_dims(c, 2));
    }
    const Value &a = c.input(0), &b = c.input(1);
    auto shape = broadcast_shapes(a.shape, b.shape);
    if (!shape)
        c.fail(fmt::format("input shapes [{}] and [{}] do not broadcast", fmt::join(a.shape, ","),
                           fmt::join(b.shape, ",")));
    if (fold_integer_binary(c, "Div", *shape)) return;
    const int32_t elem = a.elem_type;
    if (is_float_type(elem) || is_float_type(b.elem_type))
        return c.set_output_var(0, elemwise(c, "TRUE_DIV", {c.var(0), c.var(1)}), elem, *shape);
    c.set_output_var(0, integer_quotient(c, elem, b.elem_type), elem, *shape);
}

// The constant exponent n when input 1 is one integer value (a scalar, or every
// element equal) in [1, 64].
std::optional<int64_t> small_integer_exponent(Importer& c) {
    if (!c.is_const(1)) return std::nullopt;
    auto v = decode_floats(c.input(1));
    if (!v || v->empty()) return std::nullopt;
    const double n = v->front();
    if (n != std::floor(n) || n < 1 || n > 64 ||
        std::any_of(v->begin(), v->end(), [&](double x) { return x != n; }))
        return std::nullopt;
    return static_cast<int64_t>(n);
}

// ONNX's Pow keeps the type of X whatever the type of Y (onnx.reference:
// np.power, then cast to X's type). Float X: Elemwise POW (an integer Y is
// converted to X's dtype by MegEngine's promotion, as its make does). Integer X:
// a constant exponent n in [1, 64] is exact integer arithmetic (x·x·…, by
// squaring); any other exponent is POW in Float32 converted back by TypeCvt,
// which truncates toward zero as the cast does.
void power(Importer& c) {
    c.check_attrs({});
    const Value &a = c.input(0), &b = c.input(1);
    auto shape = broadcast_shapes(a.shape, b.shape);
    if (!shape)
        c.fail(fmt::format("input shapes [{}] and [{}] do not broadcast", fmt::join(a.shape, ","),
                           fmt::join(b.shape, ",")));
    const int32_t elem = a.elem_type;
    const ir::DTypeEnum dtype = onnx_var_dtype(elem, c);
    if (elem == P::BOOL || b.elem_type == P::BOOL) c.fail("Pow of BOOL is not defined");
    ir::VarId y;
    if (is_float_type(elem)) {
        y = elemwise(c, "POW", {c.var(0), c.var(1)});
    } else if (auto n = small_integer_exponent(c); n && *shape == a.shape) {
        ir::VarId base = c.var(0);
        std::optional<ir::VarId> acc;
        for (int64_t e = *n;; e >>= 1) {
            if (e & 1) acc = acc ? elemwise(c, "MUL", {*acc, base}) : base;
            if (e <= 1) break;
            base = elemwise(c, "MUL", {base, base});
        }
        y = *acc;
    } else {
        constexpr ir::DTypeEnum f32 = ir::DTypeEnum::Float32;
        ir::VarId x = type_cvt(c, c.var(0), f32);
        ir::VarId e = c.var(1);
        if (!is_float_type(b.elem_type)) e = type_cvt(c, e, f32);
        y = elemwise(c, "POW", {x, e});
    }
    if (c.graph().vars.dtype[y.value].type != dtype)
        y = type_cvt(c, y, dtype);
    c.set_output_var(0, y, elem, *shape);
}

constexpr char kAdd[] = "ADD", kSub[] = "SUB", kMul[] = "MUL";
constexpr char kRelu[] = "RELU", kSigmoid[] = "SIGMOID", kTanh[] = "TANH", kExp[] = "EXP", kLog[] = "LOG",
               kSqrt[] = "SQRT", kAbs[] = "ABS", kNeg[] = "NEGATE", kErf[] = "ERF", kHSwish[] = "H_SWISH";

// opset < 11 gives the bounds as attributes, later opsets as optional inputs.
void clip(Importer& c) {
    c.check_attrs({"min", "max"});
    if (is_runtime_value(c, 1) || is_runtime_value(c, 2)) return clip_to_runtime_bounds(c);
    const Value& x = c.runtime_input(0);  // Elemwise takes dims only the run time knows (boxes clamped)
    std::optional<double> lo, hi;
    if (c.has_attr("min")) lo = c.attr_float("min", 0);
    if (c.has_attr("max")) hi = c.attr_float("max", 0);
    auto bound = [&](size_t i, std::optional<double>& out) {
        if (!c.has_input(i)) return;
        auto v = c.const_floats(i, i == 1 ? "min" : "max");
        if (v.size() != 1) c.fail(fmt::format("{} must be a scalar", i == 1 ? "min" : "max"));
        out = v[0];
    };
    bound(1, lo);
    bound(2, hi);
    // The bounds are operands of x's dtype (scalar_as): Float32 constants made
    // an integer or Float16 input's output Float32 (MegEngine's make promotes),
    // which the import then refused. An integer bound outside the dtype x is
    // held in (INT64 as Int32) bounds nothing on that side: clamped to the dtype.
    const bool integer = is_integer_type(x.elem_type);
    auto operand = [&](double b) {
        if (integer) {
            const auto [lowest, highest] = integer_range(onnx_var_dtype(x.elem_type, c));
            b = std::clamp(b, static_cast<double>(lowest), static_cast<double>(highest));
        }
        return scalar_as(c, b, x.elem_type);
    };
    ir::VarId y;
    if (lo && hi && *lo == 0 && *hi == 6 && !integer)
        y = c.emit("Elemwise", {c.var(0)}, {{"mode", "RELU6"}});
    else if (lo && hi && *lo <= *hi)
        y = c.emit("Elemwise", {c.var(0), operand(*lo), operand(*hi)}, {{"mode", "CLIP"}});
    else if (lo && hi)  // ONNX: every value becomes max; MegEngine's CLIP gives min below it
        y = c.emit("Elemwise", {c.emit("Elemwise", {c.var(0), operand(*lo)}, {{"mode", "MAX"}}), operand(*hi)},
                   {{"mode", "MIN"}});
    else if (lo)
        y = c.emit("Elemwise", {c.var(0), operand(*lo)}, {{"mode", "MAX"}});
    else if (hi)
        y = c.emit("Elemwise", {c.var(0), operand(*hi)}, {{"mode", "MIN"}});
    else {
        c.set_output(0, x);
        return;
    }
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, x.shape);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// y = clip(alpha * x + beta, 0, 1); MegEngine's HSIGMOID is the alpha = 1/6, beta = 1/2 case.
void hard_sigmoid(Importer& c) {
    c.check_attrs({"alpha", "beta"});
    const Value& x = c.input(0);
    const double alpha = c.attr_float("alpha", 0.2), beta = c.attr_float("beta", 0.5);
    ir::VarId y;
    if (std::abs(alpha - 1.0 / 6) < 1e-7 && beta == 0.5) {
        y = c.emit("Elemwise", {c.var(0)}, {{"mode", "HSIGMOID"}});
    } else {
        // Constants of x's dtype (scalar_as): Float32 ones made a Float16 input's
        // output Float32 (MegEngine's make promotes), which the import refused.
        const int32_t t = x.elem_type;
        ir::VarId lin = c.emit("Elemwise", {c.var(0), scalar_as(c, alpha, t), scalar_as(c, beta, t)},
                               {{"mode", "FUSE_MUL_ADD3"}});
        y = c.emit("Elemwise", {lin, scalar_as(c, 0, t), scalar_as(c, 1, t)}, {{"mode", "CLIP"}});
    }
    c.set_output_var(0, y, x.elem_type, x.shape);
}

void leaky_relu(Importer& c) {
    c.check_attrs({"alpha"});
    const Value& x = c.input(0);
    // The slope in x's dtype, as HardSigmoid's constants.
    const ir::VarId slope = scalar_as(c, static_cast<float>(c.attr_float("alpha", 0.01)), x.elem_type);
    c.set_output_var(0, c.emit("Elemwise", {c.var(0), slope}, {{"mode", "PRELU"}}), x.elem_type, x.shape);
}

// The same value, a shape only the run time knows included (torchvision's
// MultiScaleRoIAlign passes the boxes a proposal selection kept through one).
void identity(Importer& c) {
    c.check_attrs({});
    c.set_output(0, c.runtime_input(0));
}

// Inference Dropout is the identity. From opset 12 on its mask output is defined
// there too: all true (ONNX's reference returns np.ones(x.shape, bool)), an
// import-time constant; Dropout-7/10 leave the mask of inference unspecified.
// Training mode with a ratio of 0 is the identity as well (ONNX's definition drops
// nothing then; PyTorch exports swin_t's attention dropout so); any other ratio
// draws random masks, which no MegEngine graph reproduces.
void dropout(Importer& c) {
    c.check_attrs({"ratio", "seed"});
    const bool mask_used = c.output_count() > 1 && !c.node().output(1).empty() && c.consumers(c.node().output(1)) > 0;
    if (mask_used && c.opset() < 12)
        c.fail(fmt::format("the mask output (#1) is used; Dropout of opset {} does not define the mask of "
                           "inference, only output #0 is supported",
                           c.opset()));
    // A constant ratio of 0 drops nothing in either mode: training_mode need not be
    // known (ONNX's tests give it as a graph input).
    std::optional<std::vector<double>> ratio;
    if (c.has_input(1) && !is_runtime_value(c, 1)) ratio = decode_floats(c.input(1));
    const bool drops_nothing = ratio && *ratio == std::vector<double>{0.0};
    if (c.has_input(2) && !drops_nothing) {
        const std::string ratio_text = !c.has_input(1)              ? std::string("the default 0.5")
                                       : ratio && ratio->size() == 1 ? fmt::format("{}", ratio->front())
                                                                     : std::string("known only at run time");
        if (is_runtime_value(c, 2))
            c.fail(fmt::format("training_mode is known only at run time and the ratio is {}: in training mode the "
                               "outputs are random samples; only a ratio of 0 (the identity) or inference Dropout is "
                               "supported",
                               ratio_text));
        if (c.const_ints(2, "training_mode") != std::vector<int64_t>{0})
            c.fail(fmt::format("training_mode is true and the ratio is {}: the outputs are random samples; only a "
                               "ratio of 0 (the identity) or inference Dropout is supported",
                               ratio_text));
    }
    c.set_output(0, c.input(0));
    // The mask as ONNX defines it whenever it is named, read or not (an unread
    // import-time constant is never written; its Bool type is what a reader of the
    // graph's types sees).
    if (mask_used || (c.opset() >= 12 && c.output_count() > 1 && !c.node().output(1).empty())) {
        const Shape& shape = c.input(0).shape;
        auto ones = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(element_count(shape)), std::byte{1});
        c.set_output(1, bytes_const(P::BOOL, shape, ones));
        return;
    }
    for (size_t k = 1; k < c.output_count(); ++k)
        if (!c.node().output(static_cast<int>(k)).empty()) c.set_output(k, c.input(0));
}

// A float constant's element cast to integer type `to`, truncated toward zero,
// as numpy's astype. ONNX leaves a value outside the type undefined (and in C++
// the conversion is undefined behaviour): refused, with the value.
int64_t float_to_int(const Importer& c, double d, int32_t to) {
    if (to == P::BOOL) return d != 0;  // NaN is true, as numpy's
    const double t = std::trunc(d);
    const auto [lowest, past_highest] = onnx_integer_bounds(to);
    if (!(t >= lowest && t < past_highest))  // NaN fails both
        c.fail(fmt::format("Cast of the constant {} to {}: the value is outside the type, where ONNX leaves "
                           "the result undefined",
                           d, onnx_elem_name(to)));
    return t >= 0x1p63 ? static_cast<int64_t>(static_cast<uint64_t>(t)) : static_cast<int64_t>(t);
}

// Input 0 as element type `to` (Cast's `to`, CastLike's input 1's type).
void cast_to(Importer& c, int32_t to) {
    if (const Value& rx = c.runtime_input(0); rx.runtime_shape) {
        const ir::DTypeEnum dtype = onnx_var_dtype(to, c);
        if (dtype == onnx_var_dtype(rx.elem_type, c)) {
            Value v = rx;
            v.elem_type = to;
            v.var = c.var(0);
            return c.set_output(0, v);
        }
        ir::VarId y = type_cvt(c, c.var(0), dtype);
        return set_runtime_output(c, 0, y, to, rx.shape.size());
    }
    const Value& x = c.input(0);
    if (to == x.elem_type) return c.set_output(0, x);
    // A constant is cast here, when its values can be read (FLOAT16 ones, say,
    // are not: a TypeCvt below). Also to DOUBLE: relabelled as one below, a FLOAT
    // constant's bytes were read as doubles by the next node that read its values.
    if (x.is_const) {
        const std::optional<std::vector<int64_t>> ints = decode_ints(x);
        const std::optional<std::vector<double>> floats = ints ? std::nullopt : decode_floats(x);
        if (is_integer_or_bool_type(to) && (ints || floats)) {
            std::vector<int64_t> values;
            if (ints)
                values = *ints;
            else
                for (double d : *floats) values.push_back(float_to_int(c, d, to));
            return c.set_output(0, int_const_as(to, values, x.shape));
        }
        if ((to == P::FLOAT || to == P::DOUBLE) && (ints || floats)) {
            const std::vector<double> values = floats ? *floats : std::vector<double>(ints->begin(), ints->end());
            return c.set_output(0, to == P::FLOAT ? float_const(std::vector<float>(values.begin(), values.end()), x.shape)
                                                  : double_const(values, x.shape));
        }
    }
    ir::DTypeEnum dtype = onnx_var_dtype(to, c);
    if (dtype == onnx_var_dtype(x.elem_type, c)) {  // e.g. INT64 → INT32: both Int32 here
        Value v = x;
        v.elem_type = to;
        v.var = c.var(0);
        return c.set_output(0, v);
    }
    c.set_output_var(0, type_cvt(c, c.var(0), dtype), to, x.shape);
}

void cast(Importer& c) {
    c.check_attrs({"to", "saturate"});
    cast_to(c, static_cast<int32_t>(c.attr_int("to", 0)));
}

// CastLike (opset 15): Cast to input 1's element type; input 1's values are not read.
void cast_like(Importer& c) {
    c.check_attrs({"saturate"});
    cast_to(c, c.input(1).elem_type);
}

// Integer constants (ONNX's LayerNormalization function negates its axis to get
// the count of normalized axes) are negated at import; anything else is NEGATE.
void negate(Importer& c) {
    const int32_t type = c.input(0).elem_type;
    if (c.is_const(0) && is_integer_type(type) && type != P::UINT64) {
        c.check_attrs({});
        std::vector<int64_t> v = c.const_ints(0, "input");
        // Modulo 2^64, then in the input's width: -(-128) is -128 in INT8, as numpy's.
        for (int64_t& x : v) x = static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x));
        return c.set_output(0, int_const_as(type, v, c.input(0).shape));
    }
    unary<kNeg>(c);
}

constexpr OpHandler kHandlers[] = {
    {"Add", binary<kAdd>},
    {"Sub", binary<kSub>},
    {"Mul", binary<kMul>},
    {"Div", divide},
    {"Pow", power},
    {"Relu", unary<kRelu>},
    {"Sigmoid", unary<kSigmoid>},
    {"Tanh", unary<kTanh>},
    {"Exp", unary<kExp>},
    {"Log", unary<kLog>},
    {"Sqrt", unary<kSqrt>},
    {"Abs", unary<kAbs>},
    {"Neg", negate},
    {"Erf", unary<kErf>},
    {"HardSwish", unary<kHSwish>},
    {"Clip", clip},
    {"HardSigmoid", hard_sigmoid},
    {"LeakyRelu", leaky_relu},
    {"Identity", identity},
    {"Dropout", dropout},
    {"Cast", cast},
    {"CastLike", cast_like},
};

}  // namespace

std::span<const OpHandler> elementwise_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
