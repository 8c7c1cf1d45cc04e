// Inference rules: elemwise family (see ir/infer/rules.h). Elemwise and
// ElemwiseMultiType here; the single-purpose operators in elemwise_misc.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/infer/elemwise_util.h"
#include "ir/infer/known_op_types.h"
#include "ir/infer/rules.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir {
namespace {

using namespace elemwise;

// --- Elemwise ---------------------------------------------------------------

// ElemwiseForward::ModeTrait (dnn/src/common/elemwise/opr_impl.cpp:31): arity and
// the dtype categories a mode's kernels exist for, from the generated lists of
// dnn/src/common/elemwise/each_mode.inl.
static_assert(kModeCount == 86, "param::Elemwise::Mode has 86 members");

struct ModeTrait {
    uint8_t arity = 0;
    bool allow_float = false, allow_int = false, allow_bool = false;
};

// Built at compile time: a function-local static was a guard check per operator.
constexpr std::array<ModeTrait, kModeCount> kModeTraits = [] {
    std::array<ModeTrait, kModeCount> t{};
    auto set = [&](std::initializer_list<Mode> modes, uint8_t arity, bool ModeTrait::*flag) {
        for (Mode m : modes) {
            t[m].arity = arity;
            t[m].*flag = true;
        }
    };
    using T = ModeTrait;
    set({RELU,     ABS,     NEGATE,   ACOS,       ASIN, CEIL,      COS,   EXP,   EXPM1,  FLOOR,
         LOG,      LOG1P,   SIGMOID,  SIN,        TANH, FAST_TANH, ROUND, ERF,   ERFINV, ERFC,
         ERFCINV,  H_SWISH, SILU,     GELU,       SINH, COSH,      ASINH, ACOSH, ATANH,  TAN,
         SOFTPLUS, RELU6,   HSIGMOID, LOGSIGMOID, SQRT, SQUARE,    SIGN},
        1, &T::allow_float);
    set({RELU, ABS, NEGATE, RELU6, SQUARE, SIGN}, 1, &T::allow_int);
    set({NOT}, 1, &T::allow_bool);
    set({ABS_GRAD,
         ADD,
         FLOOR_DIV,
         MAX,
         MIN,
         MOD,
         MUL,
         SIGMOID_GRAD,
         SUB,
         SWITCH_GT0,
         TANH_GRAD,
         LT,
         LEQ,
         EQ,
         FUSE_ADD_RELU,
         TRUE_DIV,
         POW,
         LOG_SUM_EXP,
         FUSE_ADD_TANH,
         FAST_TANH_GRAD,
         FUSE_ADD_SIGMOID,
         ATAN2,
         H_SWISH_GRAD,
         FUSE_ADD_H_SWISH,
         SILU_GRAD,
         GELU_GRAD,
         PRELU,
         ASINH_GRAD,
         ACOSH_GRAD,
         ATANH_GRAD,
         SOFTPLUS_GRAD,
         RELU6_GRAD,
         HSIGMOID_GRAD},
        2, &T::allow_float);
    set({ABS_GRAD, ADD, FLOOR_DIV, MAX, MIN, MOD, MUL, SIGMOID_GRAD, SUB, SWITCH_GT0, TANH_GRAD, LT, LEQ,
         EQ, FUSE_ADD_RELU, SHL, SHR, RMULH, PRELU},
        2, &T::allow_int);
    set({AND, OR, XOR, LT, LEQ, EQ}, 2, &T::allow_bool);
    set({COND_LEQ_MOV, COND_LT_MOV, CLIP, PRELU_GRAD}, 3, &T::allow_float);
    set({COND_LEQ_MOV, COND_LT_MOV, CLIP}, 3, &T::allow_int);
    // The FUSE entries take every category (opr_impl.cpp FUSE(...)).
    t[FUSE_MUL_ADD3] = {3, true, true, true};
    t[FUSE_MUL_ADD4] = {4, true, true, true};
    return t;
}();

// Whether the mode has kernels for the float, int or Bool category `c` (never
// for the others: quantized inputs have their own rule).
bool mode_takes(const ModeTrait& t, Cat c) {
    return c == Cat::Float ? t.allow_float : c == Cat::Int ? t.allow_int : c == Cat::Bool && t.allow_bool;
}

std::string allowed_categories(const ModeTrait& t) {
    std::string s;
    for (auto [ok, name] : {std::pair{t.allow_float, "float"}, {t.allow_int, "int"}, {t.allow_bool, "Bool"}})
        if (ok) s += s.empty() ? name : fmt::format(", {}", name);
    return s;
}

// Equal in every byte (type, zero point, scale): the same dtype, quantized or not.
bool same_bits(DType a, DType b) {
    uint64_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
}

// Whether `v` is the output of a MarkNoBroadcastElemwise: such an input must
// not be broadcast (basic_arith.cpp:330, "declared to be non-broadcastable").
[[gnu::always_inline]] inline bool marked_no_broadcast(const Graph& g, VarId v) {
    return g.oprs.type[g.vars.owner[v.value].value] == kMarkNoBroadcastElemwiseType;
}

// The output value, element by element, when every input value is known.
void set_computed_output(InferContext& ctx, DType dt, const Shape& out, const auto& eval) {
    const size_t n = ctx.nr_inputs();
    bool known = true;
    for (size_t i = 0; known && i < n; ++i) known = ctx.may_have_value(i);
    known = known && dt.valid && value_tracked(dt) && !dtype_is_quantized(dt.type) && out.known() &&
            out.elements() <= kMaxStaticValueElements;
    for (size_t i = 0; known && i < n; ++i) known = ctx.value(i) != nullptr;
    if (!known) {
        ctx.set_output(0, dt, out);
        return;
    }
    std::vector<std::vector<double>> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = broadcast_elements(ctx.value(i)->elems, ctx.shape(i), out);
    std::vector<double> elems(out.elements());
    std::array<double, 6> args{};
    for (size_t k = 0; k < elems.size(); ++k) {
        for (size_t i = 0; i < n; ++i) args[i] = in[i][k];
        std::optional<double> r = eval(args.data());
        if (!r) {
            ctx.set_output(0, dt, out);
            return;
        }
        elems[k] = store_as(dt.type, *r);
    }
    ctx.set_output_value(0, dt, out, std::move(elems));
}

// elemwise_shape for two known shapes (most broadcasting operators, where the
// general walk was the largest part of an Elemwise rule). A scalar [1] needs no
// case of its own: each of its dims is 1.
[[gnu::always_inline]] inline bool broadcast_two(const Shape& a, const Shape& b, Shape& out) {
    const bool a_longer = a.ndim >= b.ndim;
    const Shape& shorter = a_longer ? b : a;
    out = a_longer ? a : b;
    const uint32_t pad = out.ndim - shorter.ndim;
    for (uint32_t i = 0; i < shorter.ndim; ++i) {
        const uint32_t x = out.dim[pad + i], y = shorter.dim[i];
        if (x == y) continue;
        if (x > 1 && y > 1) return false;
        out.dim[pad + i] = (x == 0 || y == 0) ? 0 : std::max(x, y);
    }
    return true;
}

[[noreturn]] void fail_broadcast(const InferContext& ctx) {
    std::string list;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) list += (list.empty() ? "" : ", ") + shape_string(ctx.shape(i));
    ctx.fail("input shapes {} do not broadcast together (each dim equal, or 1 in all but one)", list);
}

Shape broadcast_or_fail(const InferContext& ctx) {
    const size_t n = ctx.nr_inputs();
    if (n == 1) return ctx.shape(0);
    if (n == 2 && ctx.shape(0).known() && ctx.shape(1).known()) {
        const Shape &a = ctx.shape(0), &b = ctx.shape(1);
        if (a.ndim == 1 && a.dim[0] == 1) return b;
        if (b.ndim == 1 && b.dim[0] == 1) return a;
        Shape out;
        if (!broadcast_two(a, b, out)) fail_broadcast(ctx);
        return out;
    }
    std::vector<const Shape*> shapes(n);
    for (size_t i = 0; i < n; ++i) shapes[i] = &ctx.shape(i);
    std::optional<Shape> out = elemwise_shape(std::span<const Shape* const>(shapes));
    if (!out) fail_broadcast(ctx);
    return *out;
}

// Most Elemwise operators of a graph: the mode's one or two inputs, of one
// dtype (bit for bit) of a category the mode takes, with known shapes that are
// equal or broadcast without a MarkNoBroadcastElemwise input, and an input
// whose value can not be known (so neither can the output's). Writes what the
// general rule below would and returns true; anything else returns false
// having written nothing, and the general rule refuses it or computes its
// value. (The general rule's checks in their general order were most of the
// cost of inferring an operator-heavy graph.)
bool infer_common_elemwise(InferContext& ctx, int mode) {
    const ModeTrait& trait = kModeTraits[mode];
    const size_t n = ctx.nr_inputs();
    // NEQ, ISNAN and ISINF have arity 0: the general rule refuses them.
    if (n != trait.arity || n == 0 || n > 2) return false;
    const DType dt = ctx.dtype(0);
    if (!dt.valid) return false;
    const Cat c = category(dt.type);
    const Shape& a = ctx.shape(0);
    if (!mode_takes(trait, c) || !a.known()) return false;
    if (n == 1) {
        if (ctx.may_have_value(0)) return false;
        ctx.set_output(0, dt, a);
        return true;
    }
    const Shape& b = ctx.shape(1);
    if (!same_bits(ctx.dtype(1), dt) || !b.known() || (ctx.may_have_value(0) && ctx.may_have_value(1)))
        return false;
    if (a == b) {
        ctx.set_output(0, dt, a);
        return true;
    }
    Shape out;
    if (!broadcast_two(a, b, out)) return false;
    for (size_t i = 0; i < 2; ++i)
        if (marked_no_broadcast(ctx.graph(), ctx.input(i)) && !(ctx.shape(i) == out)) return false;
    ctx.set_output(0, dt, out);
    return true;
}

// Every Elemwise the common case does not take: the refusals in MegEngine's
// order, and output values. Out of line, so that the common case does not pay
// for its frame.
[[gnu::noinline]] void infer_general_elemwise(InferContext& ctx, int64_t mode_field) {
    // The mode's name, for messages only: looking it up for every operator cost
    // more than the rest of the rule.
    auto name = [&] { return ctx.enum_field("mode"); };
    if (mode_field < 0 || mode_field >= kModeCount)
        ctx.fail("Elemwise mode {} is not known to mgedump's inference", name());
    const int mode = static_cast<int>(mode_field);
    // opr_impl.cpp ModeTrait::from_mode: NEQ, ISNAN and ISINF have a trait but no
    // case in its switch, so MegEngine asserts ("code issue happened").
    if (mode == NEQ || mode == ISNAN || mode == ISINF)
        ctx.fail("mode {} is not an Elemwise mode MegEngine can run; use ElemwiseMultiType {} (Bool output)",
                 name(), name());
    const ModeTrait& trait = kModeTraits[mode];
    // basic_arith.cpp Elemwise::make: "%s expects %u inputs; got %zu actually".
    if (ctx.nr_inputs() != trait.arity)
        ctx.fail("mode {} takes {} input{}, has {}", name(), trait.arity, trait.arity == 1 ? "" : "s",
                 ctx.nr_inputs());

    // elemwise/opr_impl.cpp deduce_layout: "input dtype not unique".
    // Most operators: every input of one dtype, bit for bit (nothing to compare
    // member by member).
    DType dt = ctx.dtype(0);
    bool one_dtype = dt.valid;
    for (size_t i = 1; one_dtype && i < ctx.nr_inputs(); ++i) one_dtype = same_bits(ctx.dtype(i), dt);
    size_t first = 0;
    if (!one_dtype) dt = DType::none();
    for (size_t i = 0; !one_dtype && i < ctx.nr_inputs(); ++i) {
        const DType d = ctx.dtype(i);
        if (!d.valid) continue;
        if (!dt.valid) {
            dt = d;
            first = i;
        } else if (d.type != dt.type || (dtype_is_quantized(d.type) && !same_dtype(dt, d))) {
            ctx.fail("input {} is {} but input {} is {}: Elemwise inputs must share one dtype", first,
                     dtype_string(dt), i, dtype_string(d));
        }
    }
    if (dt.valid) {
        const Cat c = category(dt.type);
        const bool ok = mode_takes(trait, c);
        if (c == Cat::Quantized) {
            // basic_arith.cpp:128: "Only ADD, SUB, NEGATE, RELU, MAX and MIN is
            // guaranteed to be supported on Elemwise for quantized DType".
            if (mode != ADD && mode != SUB && mode != NEGATE && mode != RELU && mode != MAX && mode != MIN)
                ctx.fail(
                    "mode {} does not take quantized inputs ({}): Elemwise on quantized dtypes supports only "
                    "ADD, SUB, NEGATE, RELU, MAX and MIN (ElemwiseMultiType has the Q* modes)",
                    name(), dtype_string(dt));
        } else if (c != Cat::Float && c != Cat::Int && c != Cat::Bool) {
            ctx.fail("Elemwise does not take {} inputs (float, int, Bool or quantized only)",
                     dtype_string(dt));
        } else if (!ok) {
            // check_dtype (opr_impl.cpp:380): "unsupport mode %s for float/int/bool".
            ctx.fail("mode {} does not take {} inputs ({}); it takes {}{}", name(), category_name(c),
                     dtype_string(dt), allowed_categories(trait),
                     c == Cat::Int ? " (convert to Float32 with TypeCvt first)" : "");
        }
    }

    // One input, or all of one shape (most operators): nothing to broadcast.
    const size_t n = ctx.nr_inputs();
    bool same_shapes = n > 0 && ctx.shape(0).known();
    for (size_t i = 1; same_shapes && i < n; ++i) same_shapes = ctx.shape(i) == ctx.shape(0);
    const Shape out = same_shapes ? ctx.shape(0) : broadcast_or_fail(ctx);
    if (out.known())
        for (size_t i = 0; i < ctx.nr_inputs(); ++i)
            if (!(ctx.shape(i) == out) && marked_no_broadcast(ctx.graph(), ctx.input(i)))
                ctx.fail("input {} comes from MarkNoBroadcastElemwise but would be broadcast from {} to {}",
                         i, shape_string(ctx.shape(i)), shape_string(out));

    set_computed_output(ctx, dt, out, [&](const double* a) { return eval_elemwise(mode, dt.type, a); });
}

[[gnu::hot]] void infer_elemwise(InferContext& ctx) {
    // Elemwise's one param field (param_defs_tables.cpp kElemwiseFields), its
    // mode, from the operator table's copy; by name when that holds none (a
    // mode outside 32 bits, or no param), which refuses what is not a mode.
    const int32_t mode = ctx.first_field();
    if (mode >= 0 && mode < kModeCount && infer_common_elemwise(ctx, mode)) return;
    infer_general_elemwise(ctx, mode != kNoFirstField ? mode : ctx.int_field("mode"));
}

// --- ElemwiseMultiType --------------------------------------------------------

// ElemwiseMultiType::ModeTrait (dnn/src/common/elemwise_multi_type/opr_impl.cpp:19):
// each input's dtype check and the output's dtype.
struct InCheck {
    enum Kind : uint8_t { Any, Exact, Category } kind = Any;
    DTypeEnum type = DTypeEnum::Float32;
    Cat cat = Cat::Float;
};
struct MultiTrait {
    uint8_t arity = 0;
    std::array<InCheck, 6> in{};
    // Fixed output dtype, or (need_specify_out_dtype) the config's: Bool for the
    // comparisons, a quantized one for the Q* modes.
    enum Out : uint8_t { Fixed, ConfigBool, ConfigQuantized } out = Fixed;
    DTypeEnum out_type = DTypeEnum::Float32;
};

MultiTrait multi_trait(std::string_view m) {
    auto ex = [](DTypeEnum t) { return InCheck{InCheck::Exact, t, Cat::Float}; };
    auto cat = [](Cat c) { return InCheck{InCheck::Category, DTypeEnum::Float32, c}; };
    using D = DTypeEnum;
    MultiTrait t;
    auto fixed = [&](std::initializer_list<InCheck> in, D out) {
        t.arity = static_cast<uint8_t>(in.size());
        std::copy(in.begin(), in.end(), t.in.begin());
        t.out_type = out;
        return t;
    };
    if (m == "FUSE_MUL_ADD3_INT16x32x32x32")
        return fixed({ex(D::Int16), ex(D::Int32), ex(D::Int32)}, D::Int32);
    if (m == "FUSE_MUL_ADD3_IXxF32xF32xI8")
        return fixed({cat(Cat::Int), ex(D::Float32), ex(D::Float32)}, D::Int8);
    if (m == "ROUND_SHR_SATURATE_IXxI8xI8") return fixed({cat(Cat::Int), ex(D::Int8)}, D::Int8);
    if (m == "FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT16x16x16x8")
        return fixed({ex(D::Int16), ex(D::Int16), ex(D::Int16), ex(D::Int8), ex(D::Int8), ex(D::Int8)},
                     D::Int8);
    if (m == "FUSE_ADD_RMULH_ROUND_SHR_SATURATE_INT32x32x32x8")
        return fixed({ex(D::Int32), ex(D::Int32), ex(D::Int32), ex(D::Int8), ex(D::Int8), ex(D::Int8)},
                     D::Int8);
    if (m == "ROUND_SHR_SATURATE_IXxI8xI16") return fixed({cat(Cat::Int), ex(D::Int8)}, D::Int16);
    if (m == "FUSE_MUL_ADD3_INT16xF32xF32xF32")
        return fixed({ex(D::Int16), ex(D::Float32), ex(D::Float32)}, D::Float32);
    if (m == "MUL_INT16xF32xF32") return fixed({ex(D::Int16), ex(D::Float32)}, D::Float32);
    if (m == "FUSE_MUL_ADD3_UINT8xF32xF32xF32")
        return fixed({ex(D::Uint8), ex(D::Float32), ex(D::Float32)}, D::Float32);
    if (m == "EQ" || m == "NEQ" || m == "LT" || m == "LEQ") {
        t.arity = 2;  // init_bool_binary_op: inputs not checked
        t.out = MultiTrait::ConfigBool;
        return t;
    }
    if (m == "ISNAN" || m == "ISINF") {
        t.arity = 1;
        t.in[0] = cat(Cat::Float);
        t.out = MultiTrait::ConfigBool;
        return t;
    }
    if (!m.empty() && m[0] == 'Q') {
        static constexpr std::string_view kUnary[] = {
            "QRELU",  "QABS", "QACOS",   "QASIN",   "QCEIL",    "QCOS",    "QEXP",  "QEXPM1",
            "QFLOOR", "QLOG", "QLOG1P",  "QNEGATE", "QSIGMOID", "QSIN",    "QTANH", "QFAST_TANH",
            "QROUND", "QERF", "QERFINV", "QERFC",   "QERFCINV", "QH_SWISH"};
        static constexpr std::string_view kTernary[] = {"QFUSE_MUL_ADD3", "QCOND_LEQ_MOV", "QCOND_LT_MOV"};
        t.arity = 2;
        for (auto u : kUnary)
            if (m == u) t.arity = 1;
        for (auto u : kTernary)
            if (m == u) t.arity = 3;
        for (auto& c : t.in) c = cat(Cat::Quantized);
        t.out = MultiTrait::ConfigQuantized;
        return t;
    }
    return t;  // arity 0: unknown mode
}

std::string check_string(const InCheck& c) {
    if (c.kind == InCheck::Exact) return std::string(dtype_name(c.type));
    return fmt::format("a {} dtype", category_name(c.cat));
}

// Values for the modes whose kernels are plain arithmetic; the saturating and
// quantized ones stay unknown.
std::optional<double> eval_multi(std::string_view m, const double* a) {
    if (m == "EQ") return a[0] == a[1];
    if (m == "NEQ") return a[0] != a[1];
    if (m == "LT") return a[0] < a[1];
    if (m == "LEQ") return a[0] <= a[1];
    if (m == "ISNAN") return std::isnan(a[0]);
    if (m == "ISINF") return std::isinf(a[0]);
    if (m == "FUSE_MUL_ADD3_INT16x32x32x32") return a[0] * a[1] + a[2];
    if (m == "MUL_INT16xF32xF32")
        return static_cast<double>(static_cast<float>(a[0]) * static_cast<float>(a[1]));
    if (m == "FUSE_MUL_ADD3_INT16xF32xF32xF32" || m == "FUSE_MUL_ADD3_UINT8xF32xF32xF32")
        return static_cast<double>(static_cast<float>(a[0]) * static_cast<float>(a[1]) +
                                   static_cast<float>(a[2]));
    return std::nullopt;
}

void infer_elemwise_multi_type(InferContext& ctx) {
    const std::string_view name = ctx.enum_field("mode");
    const MultiTrait t = multi_trait(name);
    if (t.arity == 0) ctx.fail("ElemwiseMultiType mode {} is not known to mgedump's inference", name);
    // nn_int.cpp:32 init_output_dtype: "%s requires %u inputs, but %zu are given".
    if (ctx.nr_inputs() != t.arity)
        ctx.fail("mode {} takes {} input{}, has {}", name, t.arity, t.arity == 1 ? "" : "s", ctx.nr_inputs());
    for (size_t i = 0; i < t.arity; ++i) {
        const DType d = ctx.dtype(i);
        const InCheck& c = t.in[i];
        if (!d.valid || c.kind == InCheck::Any) continue;
        if ((c.kind == InCheck::Exact && d.type != c.type) ||
            (c.kind == InCheck::Category && category(d.type) != c.cat))
            ctx.fail("mode {} needs input {} to be {}, it is {}", name, i, check_string(c), dtype_string(d));
    }
    DType out = DType::of(t.out_type);
    if (t.out != MultiTrait::Fixed) {
        // nn_int.cpp:43: need_specify_out_dtype modes take the config's
        // output_dtype, which must be set and pass check_out.
        out = ctx.config_dtype();
        const char* want = t.out == MultiTrait::ConfigBool ? "Bool" : "a quantized dtype";
        if (!out.valid)
            ctx.fail("mode {} needs an output dtype (OperatorNodeConfig output_dtype: {})", name, want);
        if (t.out == MultiTrait::ConfigBool && out.type != DTypeEnum::Bool)
            ctx.fail("mode {} outputs Bool, the output dtype given is {}", name, dtype_string(out));
        if (t.out == MultiTrait::ConfigQuantized && !dtype_is_quantized(out.type))
            ctx.fail("mode {} needs a quantized output dtype, the one given is {}", name, dtype_string(out));
    }
    const Shape shape = broadcast_or_fail(ctx);
    set_computed_output(ctx, out, shape, [&](const double* a) { return eval_multi(name, a); });
}

}  // namespace

bool elemwise::elemwise_mode_allows_int(int mode) {
    return mode >= 0 && mode < kModeCount && kModeTraits[mode].allow_int;
}

bool elemwise::elemwise_mode_allows_float(int mode) {
    return mode >= 0 && mode < kModeCount && kModeTraits[mode].allow_float;
}

std::span<const InferRuleEntry> elemwise_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Elemwise", infer_elemwise},
        {"ElemwiseMultiType", infer_elemwise_multi_type},
        {"PowC", elemwise::infer_powc},
        {"TypeCvt", elemwise::infer_type_cvt},
        {"AddUpdate", elemwise::infer_add_update},
        {"Where", elemwise::infer_where},
        {"MaskedFill", elemwise::infer_masked_fill},
        {"FakeQuant", elemwise::infer_fake_quant},
        {"TQT", elemwise::infer_tqt},
        {"LSQ", elemwise::infer_lsq},
        {"CheckNonFinite", elemwise::infer_check_non_finite},
    };
    return kRules;
}

}  // namespace mgedump::ir
