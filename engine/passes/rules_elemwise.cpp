// Elemwise modes older loaders lack, spelled with modes they have. Structures and
// operand orders follow MegEngine's OprLoadDumpImplV2<opr::Elemwise>::replace_opr
// (src/opr/impl/basic_arith.sereg.h); constants are Float32 scalars, cast to x's dtype
// only when x is not Float32 (RELU6 and SIGN always ask for the cast, which is a
// no-op for a Float32 x since TypeCvt::make returns its input unchanged).
#include "engine/passes/rules.h"

namespace mgedump::engine::passes {
namespace {

// A Float32 constant in x's dtype, on x's comp node.
Ref constant_like_x(FragmentBuilder& b, float value) {
    return b.type_cvt(b.scalar_f32(value, b.input_var(0)), b.dtype(b.in(0)));
}

void rewrite_sqrt(FragmentBuilder& b) {
    Ref x = b.in(0);
    b.set_output(b.elemwise(Ew::POW, {x, constant_like_x(b, 0.5f)}));
}

void rewrite_square(FragmentBuilder& b) {
    Ref x = b.in(0);
    b.set_output(b.elemwise(Ew::POW, {x, constant_like_x(b, 2.0f)}));
}

void rewrite_tan(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref sin = b.elemwise(Ew::SIN, {x});
    Ref cos = b.elemwise(Ew::COS, {x});
    b.set_output(b.elemwise(Ew::TRUE_DIV, {sin, cos}));
}

void rewrite_cosh(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref half = constant_like_x(b, 0.5f);
    Ref exp_x = b.elemwise(Ew::EXP, {x});
    Ref exp_neg_x = b.elemwise(Ew::EXP, {b.elemwise(Ew::NEGATE, {x})});
    b.set_output(b.elemwise(Ew::MUL, {half, b.elemwise(Ew::ADD, {exp_x, exp_neg_x})}));
}

void rewrite_sinh(FragmentBuilder& b) {
    // sinh(x) = u(u+2) / (2(u+1)) with u = expm1(x): accurate near 0.
    Ref x = b.in(0);
    Ref two = constant_like_x(b, 2.0f);
    Ref half = constant_like_x(b, 0.5f);
    Ref one = constant_like_x(b, 1.0f);
    Ref u = b.elemwise(Ew::EXPM1, {x});
    Ref half_u = b.elemwise(Ew::MUL, {u, half});
    Ref u_plus_1 = b.elemwise(Ew::ADD, {u, one});
    Ref u_plus_2 = b.elemwise(Ew::ADD, {u, two});
    Ref ratio = b.elemwise(Ew::TRUE_DIV, {half_u, u_plus_1});
    b.set_output(b.elemwise(Ew::MUL, {ratio, u_plus_2}));
}

// log(x + sqrt(x^2 ± 1)): ASINH adds, ACOSH subtracts.
void rewrite_log_of_x_plus_root(FragmentBuilder& b, Ew add_or_sub) {
    Ref x = b.in(0);
    Ref two = constant_like_x(b, 2.0f);
    Ref half = constant_like_x(b, 0.5f);
    Ref one = constant_like_x(b, 1.0f);
    Ref x_sq = b.elemwise(Ew::POW, {x, two});
    Ref inner = b.elemwise(add_or_sub, {x_sq, one});
    Ref root = b.elemwise(Ew::POW, {inner, half});
    b.set_output(b.elemwise(Ew::LOG, {b.elemwise(Ew::ADD, {x, root})}));
}

void rewrite_asinh(FragmentBuilder& b) { rewrite_log_of_x_plus_root(b, Ew::ADD); }
void rewrite_acosh(FragmentBuilder& b) { rewrite_log_of_x_plus_root(b, Ew::SUB); }

void rewrite_atanh(FragmentBuilder& b) {
    // atanh(x) = log1p(2x / (1 - x)) / 2
    Ref x = b.in(0);
    Ref two = constant_like_x(b, 2.0f);
    Ref one = constant_like_x(b, 1.0f);
    Ref two_x = b.elemwise(Ew::MUL, {two, x});
    Ref one_minus_x = b.elemwise(Ew::SUB, {one, x});
    Ref log1p = b.elemwise(Ew::LOG1P, {b.elemwise(Ew::TRUE_DIV, {two_x, one_minus_x})});
    b.set_output(b.elemwise(Ew::TRUE_DIV, {log1p, two}));
}

void rewrite_clip(FragmentBuilder& b) {
    Ref lower_bounded = b.elemwise(Ew::MAX, {b.in(0), b.in(1)});
    b.set_output(b.elemwise(Ew::MIN, {lower_bounded, b.in(2)}));
}

void rewrite_sign(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref zero = constant_like_x(b, 0.0f);
    Ref negative = b.elemwise(Ew::LT, {x, zero});
    Ref positive = b.elemwise(Ew::LT, {zero, x});
    b.set_output(b.elemwise(Ew::SUB, {negative, positive}));
}

void rewrite_hsigmoid(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref six = constant_like_x(b, 6.0f);
    Ref zero = constant_like_x(b, 0.0f);
    Ref three = constant_like_x(b, 3.0f);
    Ref shifted = b.elemwise(Ew::ADD, {x, three});
    Ref clipped = b.elemwise(Ew::MIN, {b.elemwise(Ew::MAX, {shifted, zero}), six});
    b.set_output(b.elemwise(Ew::TRUE_DIV, {clipped, six}));
}

void rewrite_relu6(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref six = constant_like_x(b, 6.0f);
    Ref zero = constant_like_x(b, 0.0f);
    b.set_output(b.elemwise(Ew::MIN, {b.elemwise(Ew::MAX, {x, zero}), six}));
}

void rewrite_prelu(FragmentBuilder& b) {
    // min(x, 0) * w + max(x, 0)
    Ref x = b.in(0);
    Ref weight = b.in(1);
    Ref zero = constant_like_x(b, 0.0f);
    Ref negative_part = b.elemwise(Ew::MIN, {x, zero});
    Ref positive_part = b.elemwise(Ew::MAX, {x, zero});
    b.set_output(b.elemwise(Ew::FUSE_MUL_ADD3, {negative_part, weight, positive_part}));
}

// log1p(exp(-|x|)), the overflow-free half of softplus.
Ref log1p_exp_neg_abs(FragmentBuilder& b, Ref x) {
    Ref neg_abs = b.elemwise(Ew::NEGATE, {b.elemwise(Ew::ABS, {x})});
    return b.elemwise(Ew::LOG1P, {b.elemwise(Ew::EXP, {neg_abs})});
}

void rewrite_softplus(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref smooth = log1p_exp_neg_abs(b, x);
    b.set_output(b.elemwise(Ew::ADD, {smooth, b.elemwise(Ew::RELU, {x})}));
}

void rewrite_logsigmoid(FragmentBuilder& b) {
    // logsigmoid(x) = -softplus(-x)
    Ref x = b.in(0);
    Ref smooth = log1p_exp_neg_abs(b, x);
    Ref relu_neg_x = b.elemwise(Ew::RELU, {b.elemwise(Ew::NEGATE, {x})});
    b.set_output(b.elemwise(Ew::NEGATE, {b.elemwise(Ew::ADD, {smooth, relu_neg_x})}));
}

}  // namespace

Rule elemwise_rule(uint32_t mode) {
    switch (static_cast<Ew>(mode)) {
        case Ew::SQRT:
            return rewrite_sqrt;
        case Ew::SQUARE:
            return rewrite_square;
        case Ew::TAN:
            return rewrite_tan;
        case Ew::COSH:
            return rewrite_cosh;
        case Ew::SINH:
            return rewrite_sinh;
        case Ew::ASINH:
            return rewrite_asinh;
        case Ew::ACOSH:
            return rewrite_acosh;
        case Ew::ATANH:
            return rewrite_atanh;
        case Ew::CLIP:
            return rewrite_clip;
        case Ew::SIGN:
            return rewrite_sign;
        case Ew::HSIGMOID:
            return rewrite_hsigmoid;
        case Ew::RELU6:
            return rewrite_relu6;
        case Ew::PRELU:
            return rewrite_prelu;
        case Ew::SOFTPLUS:
            return rewrite_softplus;
        case Ew::LOGSIGMOID:
            return rewrite_logsigmoid;
        default:
            return nullptr;
    }
}

}  // namespace mgedump::engine::passes
