// Rewrites only FBS v1 applies: its registry entries for Softmax, LayerNorm and
// Dropout carry converters, their FBS_V2 entries do not (spec §9.1). Structures follow
// MegEngine's replace_opr in src/opr/impl/dnn/dnn.sereg.h (Softmax, LayerNorm),
// src/opr/impl/rand.sereg.h (Dropout) and src/opr/impl/misc.sereg.h (CheckNonFinite).
#include <fmt/format.h>

#include "engine/passes/rules.h"
#include "ir/describe.h"
#include "ir/error.h"

namespace mgedump::engine::passes {

void rewrite_softmax(FragmentBuilder& b) {
    // exp(x − max) / sum(exp(x − max)) along the axis; the max keeps exp finite.
    const auto axis = static_cast<int32_t>(b.int_field("axis"));
    Ref x = b.in(0);
    Ref max = b.reduce(x, ReduceMode::MAX, axis);
    Ref e = b.elemwise(Ew::EXP, {b.elemwise(Ew::SUB, {x, max})});
    Ref sum = b.reduce(e, ReduceMode::SUM, axis);
    b.set_output(b.elemwise(Ew::TRUE_DIV, {e, sum}));
}

void rewrite_layer_norm(FragmentBuilder& b) {
    // Flattens the normalized trailing dims into one axis, normalizes there and
    // restores the shape. The outline (GetVarShape, Subtensor, Concat, Reshape with
    // an unspecified axis) is MegEngine's; the variance is the mean of (x − mean)²,
    // as MegDNN's LayerNorm computes it: MegEngine's E[x²] − mean² and x·r − mean·r
    // cancel once |mean| is large against the spread (README, "Deliberate
    // differences").
    const ir::VarId x_var = b.input_var(0);
    const uint64_t normalized_dim = b.uint_field("normalized_dim");
    const float eps = static_cast<float>(b.float_field("eps"));
    const size_t ndim = b.var_dims(x_var).size();
    // MegEngine reads the input's ndim at dump time; here the graph must carry it.
    if (ndim == 0)
        throw GraphError(
            fmt::format("{}: the compatibility rewrite needs the number of dimensions of its input {}, "
                        "but the shape is unknown; give the input's shape in the graph",
                        b.describe(), ir::describe_var(b.graph(), x_var)));
    if (normalized_dim > ndim)
        throw GraphError(fmt::format("{}: normalized_dim {} exceeds the input's {} dimensions", b.describe(),
                                     normalized_dim, ndim));
    const auto kept_dims = static_cast<int32_t>(ndim - normalized_dim);
    // LayerNormForward reads weight and bias only with affine.
    const bool affine = b.int_field("affine") != 0 && b.input_count() == 3;

    Ref x = b.in(0);
    Ref shape = b.get_var_shape(x);
    Ref kept_dims_var = b.scalar_i32(kept_dims, x_var);
    Ref kept_shape = b.subtensor_to(shape, kept_dims_var);
    Ref minus_one = b.scalar_i32(-1, x_var);
    Ref flat = b.reshape(x, b.concat({kept_shape, minus_one}, 0), kept_dims);
    Ref mean = b.reduce(flat, ReduceMode::MEAN, -1);
    Ref centered = b.elemwise(Ew::SUB, {flat, mean});
    Ref var = b.reduce(b.elemwise(Ew::MUL, {centered, centered}), ReduceMode::MEAN, -1);
    Ref inv_std = b.pow_c(b.elemwise(Ew::ADD, {var, b.scalar_f32(eps, x_var)}), -0.5f);
    Ref y = b.reshape(b.elemwise(Ew::MUL, {centered, inv_std}), shape);

    if (affine) y = b.elemwise(Ew::ADD, {b.elemwise(Ew::MUL, {y, b.in(1)}), b.in(2)});
    b.set_output(y);
}

void rewrite_dropout(FragmentBuilder& b) {
    // x · (p < U[0,1)) · 1/(1−p), the mask made 0/1 Float32 through Bool.
    const float p = static_cast<float>(b.float_field("drop_prob"));
    const uint64_t seed = b.uint_field("seed");
    const ir::VarId x_var = b.input_var(0);
    Ref x = b.in(0);
    Ref uniform = b.uniform_rng(b.get_var_shape(x), seed);
    Ref p_var = b.scalar_f32(p, x_var);
    Ref keep = b.elemwise(Ew::LT, {p_var, uniform});
    Ref mask = b.type_cvt(b.type_cvt(keep, ir::DType::of(ir::DTypeEnum::Bool)),
                          ir::DType::of(ir::DTypeEnum::Float32));
    Ref dropped = b.elemwise(Ew::MUL, {x, mask});
    // Computed in float, as MegEngine does (1 / (1 - prob) with a float prob).
    Ref scale = b.scalar_f32(1.0f / (1.0f - p), x_var);
    b.set_output(b.elemwise(Ew::MUL, {dropped, scale}));
}

void rewrite_check_non_finite(FragmentBuilder& b) {
    // Kept; its pass-through outputs (one per input) become volatile, so only the
    // final flag is numbered, which is what the v1 loader expects.
    b.mark_volatile_outputs(static_cast<uint32_t>(b.input_count()));
}

}  // namespace mgedump::engine::passes
