// GroupNorm and InstanceNorm (and their Backward operators), spelled with Reshape,
// Reduce and Elemwise in both formats. Structures follow MegEngine's
// OprLoadDumpImplV2<opr::{GroupNorm,InstanceNorm}[Backward]>::replace_opr in
// src/opr/impl/dnn/dnn.sereg.h. InstanceNorm is GroupNorm with one group per channel.
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
    auto shape = b.graph().var_shape(x);
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

void rewrite_forward(FragmentBuilder& b, bool per_channel) {
    const ir::VarId x_var = b.input_var(0);
    const Nchw s = static_nchw(b, x_var);
    const int64_t groups = per_channel ? s.c : b.int_field("group");
    const int32_t size = group_size(b, s, groups);

    Ref x = b.in(0);
    Ref half = b.scalar_f32(0.5f, x_var);
    Ref eps = b.scalar_f32(static_cast<float>(b.float_field("eps")), x_var);
    Ref origin_shape = b.get_var_shape(x);
    const std::array<int32_t, 3> grouped{s.n, static_cast<int32_t>(groups), size};
    Ref flat = b.reshape(x, b.vector_i32(grouped, x_var));

    // var = E[x²] − E[x]², over each group (axis 2).
    Ref mean = b.reduce(flat, ReduceMode::MEAN, 2);
    Ref mean_sq = b.reduce(b.elemwise(Ew::MUL, {flat, flat}), ReduceMode::MEAN, 2);
    Ref var = b.elemwise(Ew::SUB, {mean_sq, b.elemwise(Ew::MUL, {mean, mean})});
    Ref std = b.elemwise(Ew::POW, {b.elemwise(Ew::ADD, {var, eps}), half});
    Ref normalized = b.elemwise(Ew::TRUE_DIV, {b.elemwise(Ew::SUB, {flat, mean}), std});
    Ref y = b.reshape(normalized, origin_shape);

    // Affine is decided by the inputs present, as in MegEngine, not by the param.
    if (b.input_count() == 3) y = b.elemwise(Ew::ADD, {b.elemwise(Ew::MUL, {y, b.in(1)}), b.in(2)});
    b.set_output(y);
}

// Inputs: diff, data, weight, mean, rstd; replaces output 0 (dx).
void rewrite_backward(FragmentBuilder& b, bool per_channel) {
    if (b.input_count() != 5)
        throw GraphError(
            fmt::format("{}: the compatibility rewrite handles only the affine form with 5 inputs "
                        "(diff, data, weight, mean, rstd), this one has {}",
                        b.describe(), b.input_count()));
    const ir::VarId data_var = b.input_var(1);
    const Nchw s = static_nchw(b, b.input_var(0));
    const int64_t groups = per_channel ? s.c : b.int_field("group");
    const int32_t size = group_size(b, s, groups);
    const auto g = static_cast<int32_t>(groups);

    Ref diff = b.in(0), data = b.in(1), weight = b.in(2), mean = b.in(3), rstd = b.in(4);
    Ref half = b.scalar_f32(0.5f, data_var);
    Ref eps = b.scalar_f32(static_cast<float>(b.float_field("eps")), data_var);
    // MegEngine writes DTypeScalar(1) and DTypeScalar(size) (Int32), but its
    // Elemwise::make promotes them to Float32 against the Float32 operands and the
    // file holds Float32 constants (realdata opmatrix.GroupNormBackward.N1_G1).
    Ref one = b.scalar_f32(1.0f, data_var);
    Ref origin_shape = b.get_var_shape(data);
    const std::array<int32_t, 3> grouped{s.n, g, size};
    Ref flat = b.reshape(data, b.vector_i32(grouped, data_var));

    Ref std = b.elemwise(Ew::POW, {b.elemwise(Ew::ADD, {rstd, eps}), half});
    Ref inv_std = b.elemwise(Ew::TRUE_DIV, {one, std});
    Ref x_hat = b.elemwise(Ew::MUL, {b.elemwise(Ew::SUB, {flat, mean}), inv_std});
    x_hat = b.reshape(x_hat, origin_shape);
    Ref size_node = b.scalar_f32(static_cast<float>(size), data_var);
    Ref scale = b.elemwise(Ew::TRUE_DIV, {inv_std, size_node});

    Ref dx_hat = b.elemwise(Ew::MUL, {diff, weight});
    const std::array<int32_t, 5> split{s.n, g, per_channel ? 1 : s.c / g, s.h, s.w};
    Ref split_shape = b.vector_i32(split, data_var);
    x_hat = b.reshape(x_hat, split_shape);
    dx_hat = b.reshape(dx_hat, split_shape);
    Ref scaled_dx_hat = b.elemwise(Ew::MUL, {size_node, dx_hat});
    const std::array<int32_t, 5> per_group{s.n, g, 1, 1, 1};
    Ref group_shape = b.vector_i32(per_group, data_var);
    Ref sum_dx_hat = b.reduce_to_shape(dx_hat, ReduceMode::SUM, group_shape);
    Ref sum_scaled = b.reduce_to_shape(scaled_dx_hat, ReduceMode::SUM, group_shape);
    Ref x_hat_term = b.elemwise(Ew::MUL, {x_hat, sum_scaled});
    Ref centered = b.elemwise(Ew::SUB, {b.elemwise(Ew::SUB, {scaled_dx_hat, sum_dx_hat}), x_hat_term});
    b.set_output(b.reshape(b.elemwise(Ew::MUL, {scale, centered}), origin_shape));
}

}  // namespace

void rewrite_group_norm(FragmentBuilder& b) { rewrite_forward(b, false); }
void rewrite_instance_norm(FragmentBuilder& b) { rewrite_forward(b, true); }
void rewrite_group_norm_backward(FragmentBuilder& b) { rewrite_backward(b, false); }
void rewrite_instance_norm_backward(FragmentBuilder& b) { rewrite_backward(b, true); }

}  // namespace mgedump::engine::passes
