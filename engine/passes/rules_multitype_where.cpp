// ElemwiseMultiType comparisons (Bool results) and Where, spelled with Elemwise and
// TypeCvt. Structures follow MegEngine's replace_opr in src/opr/impl/nn_int.sereg.h
// and src/opr/impl/misc.sereg.h, except ISINF (below).
#include <limits>
#include <vector>

#include "engine/passes/rules.h"

namespace mgedump::engine::passes {
namespace {

const ir::DType kBool = ir::DType::of(ir::DTypeEnum::Bool);
const ir::DType kFloat32 = ir::DType::of(ir::DTypeEnum::Float32);

std::vector<Ref> all_inputs(const FragmentBuilder& b) {
    std::vector<Ref> refs;
    for (size_t i = 0; i < b.input_count(); ++i) refs.push_back(b.in(i));
    return refs;
}

// The same comparison as a plain Elemwise (0/1 in the operands' dtype), made Bool.
void rewrite_compare(FragmentBuilder& b, Ew mode) {
    std::vector<Ref> inputs = all_inputs(b);
    b.set_output(b.type_cvt(b.elemwise(mode, inputs), kBool));
}

void rewrite_eq(FragmentBuilder& b) { rewrite_compare(b, Ew::EQ); }
void rewrite_lt(FragmentBuilder& b) { rewrite_compare(b, Ew::LT); }
void rewrite_leq(FragmentBuilder& b) { rewrite_compare(b, Ew::LEQ); }

void rewrite_neq(FragmentBuilder& b) {
    std::vector<Ref> inputs = all_inputs(b);
    Ref equal = b.type_cvt(b.elemwise(Ew::EQ, inputs), kBool);
    b.set_output(b.elemwise(Ew::NOT, {equal}));
}

void rewrite_isnan(FragmentBuilder& b) {
    // NaN is the only value not equal to itself.
    Ref x = b.in(0);
    Ref self_equal = b.type_cvt(b.elemwise(Ew::EQ, {x, x}), kBool);
    b.set_output(b.elemwise(Ew::NOT, {self_equal}));
}

void rewrite_isinf(FragmentBuilder& b) {
    // |x| == +inf, as ISINF is isinf(float(x)). MegEngine compares x itself with
    // +inf, which misses −inf (README, "Deliberate differences").
    Ref x = b.in(0);
    Ref inf = b.scalar_f32(std::numeric_limits<float>::infinity(), b.input_var(0));
    Ref magnitude = b.elemwise(Ew::ABS, {b.type_cvt(x, kFloat32)});
    b.set_output(b.type_cvt(b.elemwise(Ew::EQ, {magnitude, inf}), kBool));
}

}  // namespace

Rule multi_type_rule(uint32_t mode) {
    switch (static_cast<EwMulti>(mode)) {
        case EwMulti::EQ:
            return rewrite_eq;
        case EwMulti::LT:
            return rewrite_lt;
        case EwMulti::LEQ:
            return rewrite_leq;
        case EwMulti::NEQ:
            return rewrite_neq;
        case EwMulti::ISNAN:
            return rewrite_isnan;
        case EwMulti::ISINF:
            return rewrite_isinf;
        default:
            return nullptr;
    }
}

void rewrite_where(FragmentBuilder& b) {
    // where(mask, x, y) = switch_gt0(m, x) + switch_gt0(1 - m, y), m = mask in x's dtype.
    // The 1.0 is a Float32 scalar (SymbolVar's `1.0f - var`), cast to x's dtype
    // when that is not Float32: MegEngine's Float32 1.0 promotes the sum to
    // Float32, so its dumper refuses Where on other dtypes.
    Ref x = b.in(1);
    Ref y = b.in(2);
    Ref m = b.type_cvt(b.in(0), b.dtype(x));
    Ref take_x = b.elemwise(Ew::SWITCH_GT0, {m, x});
    Ref one = b.type_cvt(b.scalar_f32(1.0f, b.input_var(0)), b.dtype(x));
    Ref inverse = b.elemwise(Ew::SUB, {one, m});
    Ref take_y = b.elemwise(Ew::SWITCH_GT0, {inverse, y});
    b.set_output(b.elemwise(Ew::ADD, {take_x, take_y}));
}

}  // namespace mgedump::engine::passes
