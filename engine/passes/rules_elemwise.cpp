// Elemwise modes older loaders lack, spelled with modes they have. Structures and
// operand orders follow MegEngine's OprLoadDumpImplV2<opr::Elemwise>::replace_opr
// (src/opr/impl/basic_arith.sereg.h) where MegEngine's spelling computes the mode
// (MegDNN's kern_defs.cuh); where it does not, ours differs (README, "Deliberate
// differences"):
//   SIGN               LT(0,x) − LT(x,0); MegEngine's LT(x,0) − LT(0,x) is −sign(x).
//   SINH               (EXPM1(x) − EXPM1(−x))/2; MegEngine's u(u+2)/(2(u+1)) is −inf
//                      for x ≤ −17.4 (u+1 rounds to 0) and NaN for x > 88.7.
//   ASINH, ACOSH       forms that neither square x nor cancel: MegEngine's
//                      log(x + sqrt(x²±1)) is −inf for x ≤ −4096, inf once x²
//                      overflows (|x| > 1.8e19), and ASINH is 0 for |x| < 6e-8.
//   ATANH              odd in |x|: MegEngine's log1p(2x/(1−x))/2 loses ~5e-6 relative
//                      as x → −1.
//   CLIP, RELU6,       MIN/MAX operands in the order that gives a NaN x what the
//   PRELU              mode gives (MIN/MAX return their second operand on NaN).
//                      MegEngine's Elemwise::make orders the operands of these
//                      commutative modes by var id, so its files hold
//                      MIN(hi, MAX(x, lo)), MIN(6, MAX(x, 0)) and
//                      FUSE_MUL_ADD3(w, MIN(x, 0), MAX(x, 0)): lo, 0 and 0 for NaN.
// HSIGMOID is what MegEngine's files hold (the id order puts the constants first),
// which keeps NaN. Constants are Float32 scalars, cast to x's dtype only when x is
// not Float32 (a no-op for a Float32 x since TypeCvt::make returns its input
// unchanged).
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
    // Two EXPM1 of the same sign as the result add without cancelling, so the
    // result stays within 2 ulps of sinhf, near 0 included.
    Ref x = b.in(0);
    Ref half = constant_like_x(b, 0.5f);
    Ref up = b.elemwise(Ew::EXPM1, {x});
    Ref down = b.elemwise(Ew::EXPM1, {b.elemwise(Ew::NEGATE, {x})});
    b.set_output(b.elemwise(Ew::MUL, {b.elemwise(Ew::SUB, {up, down}), half}));
}

// sign(x) as 1, 0 or −1 in x's dtype: 0 for 0 and NaN, like Elemwise SIGN.
Ref sign_of(FragmentBuilder& b, Ref x, Ref zero) {
    Ref positive = b.elemwise(Ew::LT, {zero, x});
    Ref negative = b.elemwise(Ew::LT, {x, zero});
    return b.elemwise(Ew::SUB, {positive, negative});
}

void rewrite_asinh(FragmentBuilder& b) {
    // asinh(x) = sign(x)·log1p(a + a²/(1 + sqrt(1 + a²))), a = |x|, with a²/(…)
    // spelled a/(r + sqrt(r² + 1)), r = 1/a, which neither overflows for large a
    // nor loses a small one (a = 0 gives 0/inf = 0).
    Ref x = b.in(0);
    Ref zero = constant_like_x(b, 0.0f);
    Ref one = constant_like_x(b, 1.0f);
    Ref half = constant_like_x(b, 0.5f);
    Ref a = b.elemwise(Ew::ABS, {x});
    Ref r = b.elemwise(Ew::TRUE_DIV, {one, a});
    Ref root = b.elemwise(Ew::POW, {b.elemwise(Ew::ADD, {b.elemwise(Ew::MUL, {r, r}), one}), half});
    Ref tail = b.elemwise(Ew::TRUE_DIV, {a, b.elemwise(Ew::ADD, {r, root})});
    Ref magnitude = b.elemwise(Ew::LOG1P, {b.elemwise(Ew::ADD, {a, tail})});
    b.set_output(b.elemwise(Ew::MUL, {sign_of(b, x, zero), magnitude}));
}

void rewrite_acosh(FragmentBuilder& b) {
    // acosh(x) = log1p(t + sqrt(t)·sqrt(x + 1)), t = x − 1 (exact near 1): x² − 1
    // is never formed, so it neither cancels near 1 nor overflows; x < 1 gives
    // sqrt(t) = NaN, as acoshf does.
    Ref x = b.in(0);
    Ref one = constant_like_x(b, 1.0f);
    Ref half = constant_like_x(b, 0.5f);
    Ref t = b.elemwise(Ew::SUB, {x, one});
    Ref root_t = b.elemwise(Ew::POW, {t, half});
    Ref root_x_plus_1 = b.elemwise(Ew::POW, {b.elemwise(Ew::ADD, {x, one}), half});
    Ref root = b.elemwise(Ew::MUL, {root_t, root_x_plus_1});
    b.set_output(b.elemwise(Ew::LOG1P, {b.elemwise(Ew::ADD, {t, root})}));
}

void rewrite_atanh(FragmentBuilder& b) {
    // atanh(x) = sign(x)·log1p(2a/(1 − a))/2, a = |x|: the log1p argument stays
    // ≥ 0, where log1p is well conditioned (for x → −1 it would approach −1).
    Ref x = b.in(0);
    Ref zero = constant_like_x(b, 0.0f);
    Ref two = constant_like_x(b, 2.0f);
    Ref one = constant_like_x(b, 1.0f);
    Ref a = b.elemwise(Ew::ABS, {x});
    Ref two_a = b.elemwise(Ew::MUL, {two, a});
    Ref one_minus_a = b.elemwise(Ew::SUB, {one, a});
    Ref log1p = b.elemwise(Ew::LOG1P, {b.elemwise(Ew::TRUE_DIV, {two_a, one_minus_a})});
    Ref magnitude = b.elemwise(Ew::TRUE_DIV, {log1p, two});
    b.set_output(b.elemwise(Ew::MUL, {sign_of(b, x, zero), magnitude}));
}

void rewrite_clip(FragmentBuilder& b) {
    // MAX(lo, x) is NaN for a NaN x and MIN(NaN, hi) is hi, as CLIP gives.
    Ref lower_bounded = b.elemwise(Ew::MAX, {b.in(1), b.in(0)});
    b.set_output(b.elemwise(Ew::MIN, {lower_bounded, b.in(2)}));
}

void rewrite_sign(FragmentBuilder& b) {
    Ref x = b.in(0);
    b.set_output(sign_of(b, x, constant_like_x(b, 0.0f)));
}

void rewrite_hsigmoid(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref six = constant_like_x(b, 6.0f);
    Ref zero = constant_like_x(b, 0.0f);
    Ref three = constant_like_x(b, 3.0f);
    Ref shifted = b.elemwise(Ew::ADD, {x, three});
    // NaN stays NaN through MAX(0, ·) and MIN(6, ·), as in HSIGMOID and in
    // MegEngine's files.
    Ref clipped = b.elemwise(Ew::MIN, {six, b.elemwise(Ew::MAX, {zero, shifted})});
    b.set_output(b.elemwise(Ew::TRUE_DIV, {clipped, six}));
}

void rewrite_relu6(FragmentBuilder& b) {
    Ref x = b.in(0);
    Ref six = constant_like_x(b, 6.0f);
    Ref zero = constant_like_x(b, 0.0f);
    // RELU6 gives 6 for NaN (x ≤ 0 and x ≤ 6 are false): MAX(0, NaN) is NaN and
    // MIN(NaN, 6) is 6.
    b.set_output(b.elemwise(Ew::MIN, {b.elemwise(Ew::MAX, {zero, x}), six}));
}

void rewrite_prelu(FragmentBuilder& b) {
    // min(0, x) * w + max(0, x); a NaN x stays NaN in both parts.
    Ref x = b.in(0);
    Ref weight = b.in(1);
    Ref zero = constant_like_x(b, 0.0f);
    Ref negative_part = b.elemwise(Ew::MIN, {zero, x});
    Ref positive_part = b.elemwise(Ew::MAX, {zero, x});
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
