// Unary math and activations: ONNX operators with one Elemwise mode map to it;
// the others are exact compositions of Elemwise modes (and, where a result is
// chosen per element, Bool comparisons with Where), each written from the ONNX
// operator's definition.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

void set_like_input(Importer& c, ir::VarId y) {
    const Value& x = c.input(0);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// One Elemwise mode; ONNX defines these operators on floats only.
template <const char* kMode>
void float_unary(Importer& c) {
    c.check_attrs({});
    if (any_runtime_shape(c, 1)) return elemwise_of_runtime_shapes(c, kMode, 1, /*float_only=*/true);
    require_float(c, 0);
    set_like_input(c, elemwise(c, kMode, {c.var(0)}));
}

constexpr char kFloor[] = "FLOOR", kCeil[] = "CEIL", kSin[] = "SIN", kCos[] = "COS", kTan[] = "TAN",
               kAsin[] = "ASIN", kAcos[] = "ACOS", kSinh[] = "SINH", kCosh[] = "COSH", kAsinh[] = "ASINH",
               kAcosh[] = "ACOSH", kAtanh[] = "ATANH", kSoftplus[] = "SOFTPLUS";

// MegEngine has no ATAN; ATAN2(x, 1) = atan(x / 1).
void atan(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    const int32_t t = c.input(0).elem_type;
    set_like_input(c, elemwise(c, "ATAN2", {c.var(0), scalar_as(c, 1, t)}));
}

// SIGN is defined on floats and ints alike (−1, 0, 1).
void sign(Importer& c) {
    c.check_attrs({});
    const int32_t t = c.input(0).elem_type;
    if (!is_float_type(t) && !is_integer_type(t))
        c.fail(fmt::format("Sign of {} is not defined", onnx_elem_name(t)));
    set_like_input(c, elemwise(c, "SIGN", {c.var(0)}));
}

void reciprocal(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    set_like_input(c, elemwise(c, "TRUE_DIV", {scalar_as(c, 1, c.input(0).elem_type), c.var(0)}));
}

// ONNX rounds half to even; MegEngine's ROUND is roundf (half away from zero):
// round_half_to_even (op_build.h) corrects the ties exactly.
void round_half_even(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    set_like_input(c, round_half_to_even(c, c.var(0), c.input(0).elem_type));
}

// alpha·(exp(min(x, 0)) − 1) + max(x, 0): exp(x) − 1 where x ≤ 0, x where x > 0.
ir::VarId elu_of(Importer& c, ir::VarId x, double alpha, int32_t t) {
    ir::VarId neg = elemwise(c, "EXPM1", {elemwise(c, "MIN", {x, scalar_as(c, 0, t)})});
    return elemwise(c, "FUSE_MUL_ADD3", {neg, scalar_as(c, alpha, t), elemwise(c, "RELU", {x})});
}

void elu(Importer& c) {
    c.check_attrs({"alpha"});
    require_float(c, 0);
    set_like_input(c, elu_of(c, c.var(0), c.attr_float("alpha", 1.0), c.input(0).elem_type));
}

// max(0, x) + min(0, alpha·(exp(x/alpha) − 1)) = max(0, x) + alpha·expm1(min(x, 0)/alpha) for alpha > 0.
void celu(Importer& c) {
    c.check_attrs({"alpha"});
    require_float(c, 0);
    const double alpha = c.attr_float("alpha", 1.0);
    if (!(alpha > 0)) c.fail(fmt::format("alpha {} must be positive", alpha));
    const int32_t t = c.input(0).elem_type;
    ir::VarId x = c.var(0);
    ir::VarId scaled = elemwise(c, "TRUE_DIV", {elemwise(c, "MIN", {x, scalar_as(c, 0, t)}), scalar_as(c, alpha, t)});
    set_like_input(c, elemwise(c, "FUSE_MUL_ADD3",
                               {elemwise(c, "EXPM1", {scaled}), scalar_as(c, alpha, t), elemwise(c, "RELU", {x})}));
}

// gamma·(x > 0 ? x : alpha·(exp(x) − 1)).
void selu(Importer& c) {
    c.check_attrs({"alpha", "gamma"});
    require_float(c, 0);
    const int32_t t = c.input(0).elem_type;
    const double alpha = c.attr_float("alpha", 1.67326319217681884765625);
    const double gamma = c.attr_float("gamma", 1.05070102214813232421875);
    ir::VarId e = elu_of(c, c.var(0), alpha, t);
    set_like_input(c, elemwise(c, "MUL", {e, scalar_as(c, gamma, t)}));
}

// x > 0 ? x : slope·x, the slope broadcast to X (unidirectionally).
void prelu(Importer& c) {
    c.check_attrs({});
    const Value &x = c.input(0), &slope = c.input(1);
    if (!is_float_type(x.elem_type) && !is_integer_type(x.elem_type))
        c.fail(fmt::format("PRelu of {} is not defined", onnx_elem_name(x.elem_type)));
    if (slope.elem_type != x.elem_type)
        c.fail(fmt::format("slope is {}, X is {}; PRelu takes one type", onnx_elem_name(slope.elem_type),
                           onnx_elem_name(x.elem_type)));
    auto shape = broadcast_shapes(x.shape, slope.shape);
    if (!shape || *shape != x.shape)
        c.fail(fmt::format("slope of shape [{}] does not broadcast to X's [{}]", fmt::join(slope.shape, ","),
                           fmt::join(x.shape, ",")));
    set_like_input(c, elemwise(c, "PRELU", {c.var(0), c.var(1)}));
}

// x > alpha ? x : 0. SWITCH_GT0(x − alpha, x): x − alpha > 0 exactly when x > alpha
// (IEEE subtraction of finite values is 0 only for equal operands).
void thresholded_relu(Importer& c) {
    c.check_attrs({"alpha"});
    require_float(c, 0);
    const int32_t t = c.input(0).elem_type;
    ir::VarId x = c.var(0);
    const double alpha = c.attr_float("alpha", 1.0);
    ir::VarId over = alpha == 0 ? x : elemwise(c, "SUB", {x, scalar_as(c, alpha, t)});
    set_like_input(c, elemwise(c, "SWITCH_GT0", {over, x}));
}

// x < −lambd ? x + bias : (x > lambd ? x − bias : 0). With lambd ≥ 0 at most one
// side holds, so for floats the sum of SWITCH_GT0(−x − lambd, x + bias) and
// SWITCH_GT0(x − lambd, x − bias) is the result; integers compare instead (below).
void shrink(Importer& c) {
    c.check_attrs({"bias", "lambd"});
    const int32_t t = c.input(0).elem_type;
    if (!is_float_type(t) && !is_integer_type(t))
        c.fail(fmt::format("Shrink of {} is not defined", onnx_elem_name(t)));
    const double bias = c.attr_float("bias", 0.0), lambd = c.attr_float("lambd", 0.5);
    if (lambd < 0) c.fail(fmt::format("lambd {} is negative (both sides would overlap); not supported", lambd));
    ir::VarId x = c.var(0);
    ir::VarId l = scalar_as(c, lambd, t), b = scalar_as(c, bias, t);
    if (is_integer_type(t)) {
        // Compared, not subtracted: x − lambd wraps near the type's limits (in Int8,
        // −128 − 127 is 1), and SWITCH_GT0 of a wrapped difference took the wrong
        // side. LT gives 0 or 1 in x's dtype, which keeps x ± bias only where its
        // side's test holds. An unsigned x is never below −lambd ≤ 0.
        ir::VarId y = elemwise(c, "MUL", {elemwise(c, "LT", {l, x}), elemwise(c, "SUB", {x, b})});
        if (!is_unsigned_type(t)) {
            ir::VarId below = elemwise(c, "LT", {x, scalar_as(c, -lambd, t)});
            y = elemwise(c, "ADD", {elemwise(c, "MUL", {below, elemwise(c, "ADD", {x, b})}), y});
        }
        set_like_input(c, y);
        return;
    }
    ir::VarId low = elemwise(c, "SWITCH_GT0",
                             {elemwise(c, "SUB", {elemwise(c, "NEGATE", {x}), l}), elemwise(c, "ADD", {x, b})});
    ir::VarId high = elemwise(c, "SWITCH_GT0", {elemwise(c, "SUB", {x, l}), elemwise(c, "SUB", {x, b})});
    set_like_input(c, elemwise(c, "ADD", {low, high}));
}

// x / (1 + |x|).
void softsign(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    ir::VarId x = c.var(0);
    ir::VarId den = elemwise(c, "ADD", {elemwise(c, "ABS", {x}), scalar_as(c, 1, c.input(0).elem_type)});
    set_like_input(c, elemwise(c, "TRUE_DIV", {x, den}));
}

// x · tanh(softplus(x)) (opset 18).
void mish(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    ir::VarId x = c.var(0);
    set_like_input(c, elemwise(c, "MUL", {x, elemwise(c, "TANH", {elemwise(c, "SOFTPLUS", {x})})}));
}

// Gelu (opset 20). approximate "none": x·Φ(x) = ½x(1 + erf(x/√2)), MegEngine's
// own GELU (x·normcdf(x)); "tanh": ½x(1 + tanh(√(2/π)(x + 0.044715x³))), written
// out in Elemwise, the constants in x's dtype.
void gelu(Importer& c) {
    c.check_attrs({"approximate"});
    const std::string approximate = c.attr_string("approximate", "none");
    if (approximate == "none") {
        if (any_runtime_shape(c, 1)) return elemwise_of_runtime_shapes(c, "GELU", 1, /*float_only=*/true);
        require_float(c, 0);
        return set_like_input(c, elemwise(c, "GELU", {c.var(0)}));
    }
    if (approximate != "tanh") c.fail(fmt::format("approximate '{}' is not one of none, tanh", approximate));
    require_float(c, 0);
    const int32_t t = c.input(0).elem_type;
    const ir::VarId x = c.var(0);
    const ir::VarId cube = elemwise(c, "MUL", {elemwise(c, "MUL", {x, x}), x});
    const ir::VarId inner = elemwise(c, "FUSE_MUL_ADD3", {cube, scalar_as(c, 0.044715, t), x});
    const ir::VarId th = elemwise(c, "TANH", {elemwise(c, "MUL", {inner, scalar_as(c, std::sqrt(2 / std::numbers::pi), t)})});
    const ir::VarId half_x = elemwise(c, "MUL", {x, scalar_as(c, 0.5, t)});
    set_like_input(c, elemwise(c, "FUSE_MUL_ADD3", {half_x, th, half_x}));
}

// 1 at the first maximum along the axis, 0 elsewhere: Argmax (the first index of
// the maximum, as numpy's argmax) compared with the positions 0..n−1. Before
// opset 13 the input is seen as 2-D [d0·…·d(axis−1), d(axis)·…] as Softmax was.
void hardmax(Importer& c) {
    c.check_attrs({"axis"});
    require_float(c, 0);
    const Value& x = c.input(0);
    const SoftmaxView view = softmax_view(c);
    const ir::VarId v = view.var;
    const Shape& work = view.shape;
    const int64_t axis = view.axis;
    const int64_t n = work[axis];
    ir::VarId arg = c.emit("Argmax", {v}, {int_param("axis", axis)});
    Shape iota_shape(work.size(), 1);
    iota_shape[axis] = n;
    std::vector<std::byte> bytes(static_cast<size_t>(n) * 4);
    for (int32_t k = 0; k < n; ++k) std::memcpy(bytes.data() + 4 * k, &k, 4);
    ir::VarId iota = c.const_var(ir::DTypeEnum::Int32, iota_shape, std::move(bytes));
    ir::VarId hot = bool_elemwise(c, "EQ", {arg, iota});
    ir::VarId y = type_cvt(c, hot, onnx_var_dtype(x.elem_type, c));
    if (work != x.shape) y = c.reshape(y, x.shape);
    set_like_input(c, y);
}

void is_nan(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    c.set_output_var(0, bool_elemwise(c, "ISNAN", {c.var(0)}), P::BOOL, c.input(0).shape);
}

// ISINF is both signs; one sign is ISINF and the sign's comparison with 0.
void is_inf(Importer& c) {
    c.check_attrs({"detect_negative", "detect_positive"});
    require_float(c, 0);
    const Value& x = c.input(0);
    const bool neg = c.attr_int("detect_negative", 1) != 0, pos = c.attr_int("detect_positive", 1) != 0;
    ir::VarId y;
    if (!neg && !pos) {
        y = c.const_var(ir::DTypeEnum::Bool, x.shape,
                        std::vector<std::byte>(static_cast<size_t>(element_count(x.shape))));
    } else {
        y = bool_elemwise(c, "ISINF", {c.var(0)});
        if (neg != pos) {
            ir::VarId zero = scalar_as(c, 0, x.elem_type);
            ir::VarId side = pos ? bool_elemwise(c, "LT", {zero, c.var(0)}) : bool_elemwise(c, "LT", {c.var(0), zero});
            y = elemwise(c, "AND", {y, side});
        }
    }
    c.set_output_var(0, y, P::BOOL, x.shape);
}

// Also of a mask whose shape only the run time knows (retinanet's batched NMS
// keeps the boxes its Equal did not mark).
void logical_not(Importer& c) {
    c.check_attrs({});
    const int32_t t = c.runtime_input(0).elem_type;
    if (t != P::BOOL) c.fail(fmt::format("Not of {} is not defined (BOOL only)", onnx_elem_name(t)));
    if (any_runtime_shape(c, 1)) return elemwise_of_runtime_shapes(c, "NOT", 1, /*float_only=*/false);
    set_like_input(c, elemwise(c, "NOT", {c.var(0)}));
}

constexpr OpHandler kHandlers[] = {
    {"Floor", float_unary<kFloor>},
    {"Ceil", float_unary<kCeil>},
    {"Round", round_half_even},
    {"Sin", float_unary<kSin>},
    {"Cos", float_unary<kCos>},
    {"Tan", float_unary<kTan>},
    {"Asin", float_unary<kAsin>},
    {"Acos", float_unary<kAcos>},
    {"Atan", atan},
    {"Sinh", float_unary<kSinh>},
    {"Cosh", float_unary<kCosh>},
    {"Asinh", float_unary<kAsinh>},
    {"Acosh", float_unary<kAcosh>},
    {"Atanh", float_unary<kAtanh>},
    {"Sign", sign},
    {"Reciprocal", reciprocal},
    {"Elu", elu},
    {"Celu", celu},
    {"Selu", selu},
    {"PRelu", prelu},
    {"ThresholdedRelu", thresholded_relu},
    {"Shrink", shrink},
    {"Softplus", float_unary<kSoftplus>},
    {"Softsign", softsign},
    {"Mish", mish},
    {"Gelu", gelu},
    {"Hardmax", hardmax},
    {"IsNaN", is_nan},
    {"IsInf", is_inf},
    {"Not", logical_not},
};

}  // namespace

std::span<const OpHandler> math_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
