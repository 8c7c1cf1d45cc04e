// Comparisons (Bool results from ElemwiseMultiType EQ / LT / LEQ, the operands
// swapped for Greater and GreaterOrEqual), Bool logic (Elemwise AND / OR / XOR),
// Where (MegEngine's Where takes one shape: the operands are broadcast first), the
// variadic Min / Max / Sum / Mean (a chain of binary Elemwise modes, which
// broadcast as numpy does), Mod and BitShift. Integer and Bool constants (the
// shape arithmetic exporters write: Equal / Where on Shape values) are folded at
// import time.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// The element of an operand of shape `s` that output element k of `out` reads
// (numpy broadcasting: size-1 and missing leading axes read index 0).
int64_t broadcast_index(const Shape& s, const Shape& out, int64_t k) {
    int64_t idx = 0, stride = 1;
    for (size_t d = 0; d < out.size(); ++d) {
        const size_t od = out.size() - 1 - d;
        const int64_t coord = k % out[od];
        k /= out[od];
        if (d < s.size()) {
            const int64_t sd = s[s.size() - 1 - d];
            idx += (sd == 1 ? 0 : coord) * stride;
            stride *= sd;
        }
    }
    return idx;
}

bool foldable(int32_t t) { return t == P::INT64 || t == P::INT32 || t == P::BOOL; }

// When inputs [0, count) are all integer or Bool constants: the result computed
// element by element with `op`, as a constant of `out_type` (BOOL or INT64).
bool fold(Importer& c, size_t count, int32_t out_type, const std::function<int64_t(const int64_t*)>& op) {
    std::vector<std::vector<int64_t>> in(count);
    for (size_t i = 0; i < count; ++i) {
        if (!c.is_const(i) || !foldable(c.input(i).elem_type)) return false;
        in[i] = *decode_ints(c.input(i));
    }
    const Shape out = broadcast_inputs(c, 0, count);
    const int64_t n = element_count(out);
    std::vector<int64_t> result(static_cast<size_t>(n));
    std::vector<int64_t> args(count);
    for (int64_t k = 0; k < n; ++k) {
        for (size_t i = 0; i < count; ++i) args[i] = in[i][broadcast_index(c.input(i).shape, out, k)];
        result[k] = op(args.data());
    }
    if (out_type == P::BOOL) {
        auto bytes = std::make_shared<std::vector<std::byte>>(result.size());
        for (size_t k = 0; k < result.size(); ++k) (*bytes)[k] = std::byte(result[k] != 0);
        c.set_output(0, bytes_const(P::BOOL, out, bytes));
    } else {
        c.set_output(0, int64_const(result, out));
    }
    return true;
}

void same_types(Importer& c, size_t count) {
    const int32_t first = c.runtime_input(0).elem_type;  // the types only: any shapes may follow
    for (size_t i = 1; i < count; ++i)
        if (c.runtime_input(i).elem_type != first)
            c.fail(fmt::format("input #{} is {}, input #0 is {}; the operator takes one type", i,
                               onnx_elem_name(c.runtime_input(i).elem_type), onnx_elem_name(first)));
}

// a op b as Bool, op one of EQ / LT / LEQ; `swap` computes b op a (Greater = LT
// with the operands swapped).
template <const char* kMode, bool kSwap>
void compare(Importer& c) {
    c.check_attrs({});
    same_types(c, 2);
    const std::string_view mode = kMode;
    const size_t l = kSwap ? 1 : 0, r = kSwap ? 0 : 1;
    auto op = [&](const int64_t* a) -> int64_t {
        const int64_t x = a[l], y = a[r];
        return mode == "EQ" ? x == y : mode == "LT" ? x < y : x <= y;
    };
    // ElemwiseMultiType broadcasts as numpy when it runs, so operands whose dims
    // only the run time knows (scores a mask selected) compare too.
    if (any_runtime_shape(c, 2))
        return set_runtime_output(c, 0, bool_elemwise(c, kMode, {c.var(l), c.var(r)}), P::BOOL,
                                  broadcast_runtime_dims(c, 2));
    if (fold(c, 2, P::BOOL, op)) return;
    const Shape out = broadcast_inputs(c, 0, 2);
    c.set_output_var(0, bool_elemwise(c, kMode, {c.var(l), c.var(r)}), P::BOOL, out);
}

constexpr char kEq[] = "EQ", kLt[] = "LT", kLeq[] = "LEQ";

template <const char* kMode>
void logic(Importer& c) {
    c.check_attrs({});
    for (size_t i = 0; i < 2; ++i)
        if (c.runtime_input(i).elem_type != P::BOOL)
            c.fail(fmt::format("input #{} is {}; {} takes BOOL", i, onnx_elem_name(c.runtime_input(i).elem_type),
                               c.node().op_type()));
    const std::string_view mode = kMode;
    auto op = [&](const int64_t* a) -> int64_t {
        const bool x = a[0] != 0, y = a[1] != 0;
        return mode == "AND" ? x && y : mode == "OR" ? x || y : x != y;
    };
    if (any_runtime_shape(c, 2))  // Elemwise broadcasts when it runs
        return set_runtime_output(c, 0, elemwise(c, kMode, {c.var(0), c.var(1)}), P::BOOL,
                                  broadcast_runtime_dims(c, 2));
    if (fold(c, 2, P::BOOL, op)) return;
    const Shape out = broadcast_inputs(c, 0, 2);
    c.set_output_var(0, elemwise(c, kMode, {c.var(0), c.var(1)}), P::BOOL, out);
}

constexpr char kAnd[] = "AND", kOr[] = "OR", kXor[] = "XOR";

// Where over operands some of whose dims only the run time knows. MegEngine's
// Where does not broadcast, so each operand is Broadcast to the output shape,
// computed when it runs as numpy's: per axis (right-aligned, a missing axis 1)
// the MAX of the operands' dims, which is the broadcast dim whenever each is 1
// or that dim (the Broadcast refuses anything else when it runs).
void where_of_runtime_dims(Importer& c) {
    const Shape dims = broadcast_runtime_dims(c, 3);
    const size_t rank = std::max<size_t>(1, dims.size());  // MegEngine's vars have at least one axis
    std::optional<ir::VarId> target;
    for (size_t i = 0; i < 3; ++i) {
        const Value& v = c.runtime_input(i);
        ir::VarId s = v.runtime_shape ? c.emit("GetVarShape", {c.var(i)})
                                      : c.const_i32(v.shape.empty() ? Shape{1} : v.shape);
        const size_t r = std::max<size_t>(1, v.shape.size());
        if (r < rank) s = concat(c, {c.const_i32(Shape(rank - r, 1)), s}, 0);
        target = target ? int_op(c, "MAX", {*target, s}) : s;
    }
    std::vector<ir::VarId> in;
    for (size_t i = 0; i < 3; ++i) in.push_back(c.emit("Broadcast", {c.var(i), *target}));
    set_runtime_output(c, 0, c.emit("Where", in), c.runtime_input(1).elem_type, dims);
}

void where(Importer& c) {
    c.check_attrs({});
    if (c.runtime_input(0).elem_type != P::BOOL)
        c.fail(fmt::format("condition is {}, must be BOOL", onnx_elem_name(c.runtime_input(0).elem_type)));
    if (c.runtime_input(1).elem_type != c.runtime_input(2).elem_type)
        c.fail(fmt::format("X is {} and Y is {}; Where takes one type", onnx_elem_name(c.runtime_input(1).elem_type),
                           onnx_elem_name(c.runtime_input(2).elem_type)));
    if (any_runtime_shape(c, 3)) return where_of_runtime_dims(c);
    const int32_t t = c.input(1).elem_type;
    // Folded for the INT64 (shape values) and BOOL constants the fold can hold.
    if ((t == P::INT64 || t == P::BOOL) &&
        fold(c, 3, t, [](const int64_t* a) { return a[0] ? a[1] : a[2]; }))
        return;
    const Shape out = broadcast_inputs(c, 0, 3);
    std::vector<ir::VarId> in;
    for (size_t i = 0; i < 3; ++i) in.push_back(broadcast_to(c, c.var(i), c.input(i).shape, out));
    c.set_output_var(0, c.emit("Where", in), t, out);
}

// The variadic element-wise operators: a left fold of one binary mode.
ir::VarId chain(Importer& c, std::string_view mode) {
    ir::VarId acc = c.var(0);
    for (size_t i = 1; i < c.input_count(); ++i) acc = elemwise(c, mode, {acc, c.var(i)});
    return acc;
}

template <const char* kMode>
void variadic(Importer& c) {
    c.check_attrs({});
    const size_t n = c.input_count();
    if (n == 0) c.fail("needs at least one input");
    for (size_t i = 0; i < n; ++i)
        if (!c.has_input(i)) c.fail(fmt::format("input #{} is empty", i));
    same_types(c, n);
    const int32_t t = c.runtime_input(0).elem_type;
    if (!is_float_type(t) && !is_integer_type(t))
        c.fail(fmt::format("{} of {} is not defined", c.node().op_type(), onnx_elem_name(t)));
    // Inputs whose shapes only the run time knows (retinanet clips what a mask
    // selected): Elemwise broadcasts them when it runs.
    if (any_runtime_shape(c, n)) {
        const Shape out = broadcast_runtime_dims(c, n);
        if (n == 1) return set_runtime_output(c, 0, c.var(0), t, out);
        return set_runtime_output(c, 0, chain(c, kMode), t, out);
    }
    const Shape out = broadcast_inputs(c, 0, n);
    if (n == 1) return c.set_output(0, c.input(0));
    c.set_output_var(0, chain(c, kMode), t, out);
}

constexpr char kMax[] = "MAX", kMin[] = "MIN", kAdd[] = "ADD";

// The sum divided by the input count (ONNX defines Mean on floats).
void mean(Importer& c) {
    c.check_attrs({});
    const size_t n = c.input_count();
    if (n == 0) c.fail("needs at least one input");
    same_types(c, n);
    require_float(c, 0);
    const Shape out = broadcast_inputs(c, 0, n);
    if (n == 1) return c.set_output(0, c.input(0));
    const int32_t t = c.input(0).elem_type;
    ir::VarId y = elemwise(c, "TRUE_DIV", {chain(c, "ADD"), scalar_as(c, static_cast<double>(n), t)});
    c.set_output_var(0, y, t, out);
}

// fmod=0: the remainder takes the divisor's sign (numpy's mod), which is MegEngine's
// integer MOD ((y + x % y) % y); ONNX allows it for integers only. fmod=1: C's fmod,
// the dividend's sign: MegEngine's float MOD is fmodf; for signed integers it is
// numpy's remainder moved to the dividend's side (below), for unsigned ones the
// same as fmod=0.
// Inputs whose shapes only the run time knows (retinanet's top-k indices modulo
// the class count) take the same operators.
void mod(Importer& c) {
    c.check_attrs({"fmod"});
    same_types(c, 2);
    const int32_t t = c.runtime_input(0).elem_type;
    const bool fmod = c.attr_int("fmod", 0) != 0;
    const bool runtime = any_runtime_shape(c, 2);
    const Shape out = runtime ? broadcast_runtime_dims(c, 2) : broadcast_inputs(c, 0, 2);
    ir::VarId y;
    if (is_float_type(t)) {
        if (!fmod) c.fail("fmod=0 on a float type (ONNX requires fmod=1 for floats)");
        y = elemwise(c, "MOD", {c.var(0), c.var(1)});
    } else if (is_integer_type(t)) {
        if (!fmod || is_unsigned_type(t)) {
            y = elemwise(c, "MOD", {c.var(0), c.var(1)});
        } else {
            // numpy's r less y where r (the divisor's sign, 0 when exact) and x differ
            // in sign. Not sign(x)·(|x| mod |y|): |x| wraps for the type's minimum.
            ir::VarId r = elemwise(c, "MOD", {c.var(0), c.var(1)});
            ir::VarId differ = remainder_sign_differs(c, c.var(0), r, t);
            y = elemwise(c, "SUB", {r, elemwise(c, "MUL", {differ, c.var(1)})});
        }
    } else {
        c.fail(fmt::format("Mod of {} is not defined", onnx_elem_name(t)));
    }
    if (runtime) return set_runtime_output(c, 0, y, t, out);
    c.set_output_var(0, y, t, out);
}

// SHL / SHR on the unsigned types MegEngine holds (UINT8, UINT16).
void bit_shift(Importer& c) {
    c.check_attrs({"direction"});
    same_types(c, 2);
    const int32_t t = c.input(0).elem_type;
    if (t != P::UINT8 && t != P::UINT16 && t != P::UINT32 && t != P::UINT64)
        c.fail(fmt::format("BitShift of {} is not defined (unsigned types only)", onnx_elem_name(t)));
    const std::string dir = c.attr_string("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") c.fail(fmt::format("direction '{}' is neither LEFT nor RIGHT", dir));
    const Shape out = broadcast_inputs(c, 0, 2);
    c.set_output_var(0, elemwise(c, dir == "LEFT" ? "SHL" : "SHR", {c.var(0), c.var(1)}), t, out);
}

constexpr OpHandler kHandlers[] = {
    {"Equal", compare<kEq, false>},
    {"Less", compare<kLt, false>},
    {"LessOrEqual", compare<kLeq, false>},
    {"Greater", compare<kLt, true>},
    {"GreaterOrEqual", compare<kLeq, true>},
    {"And", logic<kAnd>},
    {"Or", logic<kOr>},
    {"Xor", logic<kXor>},
    {"Where", where},
    {"Max", variadic<kMax>},
    {"Min", variadic<kMin>},
    {"Sum", variadic<kAdd>},
    {"Mean", mean},
    {"Mod", mod},
    {"BitShift", bit_shift},
};

}  // namespace

std::span<const OpHandler> compare_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
