// GroupNorm and InstanceNorm (and their Backward operators), spelled with Reshape,
// Reduce and Elemwise in both formats. The outline follows MegEngine's
// OprLoadDumpImplV2<opr::{GroupNorm,InstanceNorm}[Backward]>::replace_opr in
// src/opr/impl/dnn/dnn.sereg.h (a constant Int32 (N, G, C·H·W/G) shape read from
// the static input shape, GetVarShape to restore it); the arithmetic follows
// MegDNN's definition (dnn/src/naive/group_norm/opr_impl.cpp), which MegEngine's
// spelling does not compute (README, "Deliberate differences"):
//   - the variance is the mean of (x − mean)², as MegDNN computes it; MegEngine's
//     E[x²] − E[x]² cancels once |mean| is large against the spread (5% off for
//     data around 1000 with spread 1, NaN around 1e4);
//   - weight and bias are per channel (MegDNN reads weight[c]): a weight that does
//     not already broadcast as (1, C, 1, 1) — MegEngine Python's own (C,) — is
//     reshaped to it; MegEngine multiplies it in as is, which scales along W when
//     W = C and is refused otherwise;
//   - affine follows the param, as the operator does (MegEngine's spelling applies
//     weight and bias whenever they are inputs);
//   - Backward: dx = rstd·(g − mean(g) − x̂·mean(g·x̂)) over each group, g = dy·w,
//     x̂ = (x − mean)·rstd, with mean and the variance ("rstd" holds the variance
//     in MegDNN) reshaped to (N, G, 1). MegEngine's spelling has x̂·S·Σg where
//     x̂·Σ(g·x̂) belongs, and refuses mean and variance of MegEngine's own (N, G)
//     shape unless N = G = 1.
// InstanceNorm is GroupNorm with one group per channel.
#include <fmt/format.h>

#include <array>
#include <limits>

#include "engine/passes/rules.h"
#include "ir/describe.h"
#include "ir/error.h"

namespace mgedump::engine::passes {
namespace {

struct Nchw {
    int32_t n, c, h, w;
};

// MegEngine reads the shape through static inference at dump time; here it must be
// in the graph.
Nchw static_nchw(const FragmentBuilder& b, ir::VarId x) {
    auto shape = b.var_dims(x);
    if (shape.empty())
        throw GraphError(
            fmt::format("{}: the compatibility rewrite needs the static 4-D shape of its input {}, but the "
                        "shape is unknown; "
                        "give the input's shape in the graph (or dump with no_change_graph)",
                        b.describe(), ir::describe_var(b.graph(), x)));
    if (shape.size() != 4)
        throw GraphError(
            fmt::format("{}: the compatibility rewrite needs a 4-D (NCHW) input, but {} has shape [{}]",
                        b.describe(), ir::describe_var(b.graph(), x), fmt::join(shape, ",")));
    for (uint32_t d : shape)
        if (d > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
            throw GraphError(
                fmt::format("{}: input dimension {} does not fit the Int32 shape constant", b.describe(), d));
    return Nchw{static_cast<int32_t>(shape[0]), static_cast<int32_t>(shape[1]),
                static_cast<int32_t>(shape[2]), static_cast<int32_t>(shape[3])};
}

// Elements per group, C·H·W / G; the group count must divide the channels.
int32_t group_size(const FragmentBuilder& b, const Nchw& s, int64_t groups) {
    if (groups <= 0 || s.c % groups != 0)
        throw GraphError(fmt::format("{}: {} groups do not divide {} channels", b.describe(), groups, s.c));
    uint64_t inner = uint64_t(s.c) * uint64_t(s.h) * uint64_t(s.w) / uint64_t(groups);
    if (inner > uint64_t(std::numeric_limits<int32_t>::max()))
        throw GraphError(
            fmt::format("{}: group size {} does not fit the Int32 shape constant", b.describe(), inner));
    return static_cast<int32_t>(inner);
}

// Input `i` holds one value per element of something `expected` long (MegDNN reads
// it flat); a static shape that says otherwise is refused.
void check_elements(const FragmentBuilder& b, size_t i, uint64_t expected, std::string_view what) {
    const ir::VarId v = b.input_var(i);
    auto shape = b.var_dims(v);
    if (shape.empty()) return;
    uint64_t elements = 1;
    for (uint32_t d : shape) elements *= d;
    if (elements != expected)
        throw GraphError(fmt::format("{}: {} {} has shape [{}], but needs {} elements", b.describe(), what,
                                     ir::describe_var(b.graph(), v), fmt::join(shape, ","), expected));
}

// Input `i` (a weight or bias, C values) as a var that multiplies channel c by
// its element c: as is when its static shape already broadcasts so against
// (N, C, H, W) — (1, C, 1, 1), (C, 1, 1) — else reshaped to (1, C, 1, 1).
Ref per_channel(FragmentBuilder& b, size_t i, const Nchw& s, std::string_view what) {
    check_elements(b, i, static_cast<uint64_t>(s.c), what);
    auto shape = b.var_dims(b.input_var(i));
    if (!shape.empty() && shape.size() <= 4) {
        // Aligned from the right, as Elemwise broadcasts.
        std::array<uint32_t, 4> aligned{1, 1, 1, 1};
        std::copy(shape.begin(), shape.end(), aligned.end() - shape.size());
        if (aligned == std::array<uint32_t, 4>{1, static_cast<uint32_t>(s.c), 1, 1}) return b.in(i);
    }
    const std::array<int32_t, 4> channels{1, s.c, 1, 1};
    return b.reshape(b.in(i), b.vector_i32(channels, b.input_var(0)));
}

void rewrite_forward(FragmentBuilder& b, bool per_group_is_channel) {
    const ir::VarId x_var = b.input_var(0);
    const Nchw s = static_nchw(b, x_var);
    const int64_t groups = per_group_is_channel ? s.c : b.int_field("group");
    const int32_t size = group_size(b, s, groups);
    // GroupNormForward::scn_do_execute reads weight and bias only with affine.
    const bool affine = b.int_field("affine") != 0 && b.input_count() == 3;

    Ref x = b.in(0);
    Ref half = b.scalar_f32(0.5f, x_var);
    Ref eps = b.scalar_f32(static_cast<float>(b.float_field("eps")), x_var);
    Ref origin_shape = b.get_var_shape(x);
    const std::array<int32_t, 3> grouped{s.n, static_cast<int32_t>(groups), size};
    Ref flat = b.reshape(x, b.vector_i32(grouped, x_var));

    // Over each group (axis 2).
    Ref mean = b.reduce(flat, ReduceMode::MEAN, 2);
    Ref centered = b.elemwise(Ew::SUB, {flat, mean});
    Ref var = b.reduce(b.elemwise(Ew::MUL, {centered, centered}), ReduceMode::MEAN, 2);
    Ref std = b.elemwise(Ew::POW, {b.elemwise(Ew::ADD, {var, eps}), half});
    Ref y = b.reshape(b.elemwise(Ew::TRUE_DIV, {centered, std}), origin_shape);

    if (affine) {
        Ref weight = per_channel(b, 1, s, "weight");
        Ref bias = per_channel(b, 2, s, "bias");
        y = b.elemwise(Ew::ADD, {b.elemwise(Ew::MUL, {y, weight}), bias});
    }
    b.set_output(y);
}

// Replaces output 0 (dx). GroupNormBackward::scn_do_execute: with affine the
// inputs are (dy, x, weight, mean, rstd); without, mean and rstd are inputs 2 and 3.
void rewrite_backward(FragmentBuilder& b, bool per_group_is_channel) {
    const bool affine = b.int_field("affine") != 0;
    const size_t mean_input = affine ? 3 : 2;
    if (b.input_count() < mean_input + 2)
        throw GraphError(
            fmt::format("{}: the compatibility rewrite needs {} inputs (dy, x, {}mean, rstd), this "
                        "one has {}",
                        b.describe(), mean_input + 2, affine ? "weight, " : "", b.input_count()));
    const ir::VarId data_var = b.input_var(1);
    const Nchw s = static_nchw(b, b.input_var(0));
    const int64_t groups = per_group_is_channel ? s.c : b.int_field("group");
    const int32_t size = group_size(b, s, groups);
    const auto g = static_cast<int32_t>(groups);
    check_elements(b, mean_input, uint64_t(s.n) * uint64_t(g), "mean");
    check_elements(b, mean_input + 1, uint64_t(s.n) * uint64_t(g), "rstd");

    Ref diff = b.in(0), data = b.in(1);
    Ref half = b.scalar_f32(0.5f, data_var);
    Ref eps = b.scalar_f32(static_cast<float>(b.float_field("eps")), data_var);
    Ref one = b.scalar_f32(1.0f, data_var);
    const std::array<int32_t, 3> grouped{s.n, g, size};
    const std::array<int32_t, 3> per_group{s.n, g, 1};
    Ref grouped_shape = b.vector_i32(grouped, data_var);
    Ref per_group_shape = b.vector_i32(per_group, data_var);
    Ref mean = b.reshape(b.in(mean_input), per_group_shape);
    Ref var = b.reshape(b.in(mean_input + 1), per_group_shape);

    Ref inv_std =
        b.elemwise(Ew::TRUE_DIV, {one, b.elemwise(Ew::POW, {b.elemwise(Ew::ADD, {var, eps}), half})});
    Ref x_hat = b.elemwise(Ew::MUL, {b.elemwise(Ew::SUB, {b.reshape(data, grouped_shape), mean}), inv_std});
    Ref dy_w = affine ? b.elemwise(Ew::MUL, {diff, per_channel(b, 2, s, "weight")}) : diff;
    Ref grad = b.reshape(dy_w, grouped_shape);
    Ref mean_grad = b.reduce(grad, ReduceMode::MEAN, 2);
    Ref mean_grad_x_hat = b.reduce(b.elemwise(Ew::MUL, {grad, x_hat}), ReduceMode::MEAN, 2);
    Ref centered = b.elemwise(
        Ew::SUB, {b.elemwise(Ew::SUB, {grad, mean_grad}), b.elemwise(Ew::MUL, {x_hat, mean_grad_x_hat})});
    // The shape first (GCC's order of the call's arguments, which C++ leaves open).
    const Ref shape = b.get_var_shape(data);
    b.set_output(b.reshape(b.elemwise(Ew::MUL, {centered, inv_std}), shape));
}

}  // namespace

void rewrite_group_norm(FragmentBuilder& b) { rewrite_forward(b, false); }
void rewrite_instance_norm(FragmentBuilder& b) { rewrite_forward(b, true); }
void rewrite_group_norm_backward(FragmentBuilder& b) { rewrite_backward(b, false); }
void rewrite_instance_norm_backward(FragmentBuilder& b) { rewrite_backward(b, true); }

}  // namespace mgedump::engine::passes
