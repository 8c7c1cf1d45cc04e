// The optimizers of ONNX's training domain (ai.onnx.preview.training, version 1):
// Adagrad, Momentum and Adam, each one update step of n tensors, written out in
// Elemwise as ONNX's reference computes them (onnx/backend/test/case/node/
// {adagrad,momentum,adam}.py). Inputs: the learning rate R and the update count T
// (scalars, T an integer, held as Int32 and converted to Float32 exactly below
// 2^24), then n tensors of each state; every state tensor of an index has X's shape.
// Where the reference branches on T > 0, both sides are computed and one is
// selected with SWITCH_GT0 on T, which is exact (a selection, not a blend); the
// side that would divide by zero at T = 0 (Adam's bias correction) is computed with
// T at least 1, so no NaN is made even where it is not selected.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/model_file.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

std::string shape_text(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ",")); }

// The state tensors of one update: n of each of `groups` kinds after R and T.
struct Update {
    size_t n = 0;
    int32_t elem_type = 0;  // the tensors' (FLOAT; DOUBLE is held as Float32)
    ir::VarId r, t;         // R, and T as Float32
    Shape shape(Importer& c, size_t i) const { return c.input(2 + i).shape; }
};

Update read_update(Importer& c, size_t groups, size_t outputs_per_tensor) {
    const size_t inputs = static_cast<size_t>(c.node().input_size());
    if (inputs < 2 + groups || (inputs - 2) % groups != 0)
        c.fail(fmt::format("takes R, T and n tensors of each of {} kinds (n ≥ 1), has {} inputs", groups, inputs));
    Update u;
    u.n = (inputs - 2) / groups;
    if (static_cast<size_t>(c.node().output_size()) != outputs_per_tensor * u.n)
        c.fail(fmt::format("has {} outputs for {} tensors, takes {}", c.node().output_size(), u.n,
                           outputs_per_tensor * u.n));
    for (size_t i = 0; i < 2 + groups * u.n; ++i)
        if (!c.has_input(i)) c.fail(fmt::format("input #{} is missing", i));
    using P = onnx::TensorProto;
    for (size_t i : {size_t{0}, size_t{1}})
        if (element_count(c.input(i).shape) != 1)
            c.fail(fmt::format("{} (input #{}) must be a scalar, has shape {}", i == 0 ? "R" : "T", i,
                               shape_text(c.input(i).shape)));
    require_float(c, 0);
    const int32_t t_type = c.input(1).elem_type;
    if (t_type != P::INT64 && t_type != P::INT32)
        c.fail(fmt::format("T (input #1) must be INT64, is {}", onnx_elem_name(t_type)));
    u.elem_type = c.input(2).elem_type;
    if (u.elem_type != P::FLOAT && u.elem_type != P::DOUBLE)
        c.fail(fmt::format("the tensors must be FLOAT or DOUBLE, input #2 is {}", onnx_elem_name(u.elem_type)));
    if (c.input(0).elem_type != u.elem_type)
        c.fail(fmt::format("R is {}, the tensors {}", onnx_elem_name(c.input(0).elem_type), onnx_elem_name(u.elem_type)));
    for (size_t k = 0; k < u.n; ++k)
        for (size_t g = 0; g < groups; ++g) {
            const size_t i = 2 + g * u.n + k;
            if (c.input(i).elem_type != u.elem_type)
                c.fail(fmt::format("input #{} is {}, the tensors {}", i, onnx_elem_name(c.input(i).elem_type),
                                   onnx_elem_name(u.elem_type)));
            if (c.input(i).shape != c.input(2 + k).shape)
                c.fail(fmt::format("input #{} has shape {}, its tensor (input #{}) {}", i,
                                   shape_text(c.input(i).shape), 2 + k, shape_text(c.input(2 + k).shape)));
        }
    u.r = c.var(0);
    u.t = type_cvt(c, c.var(1), ir::DTypeEnum::Float32);
    return u;
}

ir::VarId scalar(Importer& c, const Update& u, double v) { return scalar_as(c, v, u.elem_type); }

// T > 0 ? when_positive : otherwise, exactly.
ir::VarId select_on_t(Importer& c, const Update& u, ir::VarId when_positive, ir::VarId otherwise) {
    ir::VarId positive = elemwise(c, "SWITCH_GT0", {u.t, when_positive});
    ir::VarId other = elemwise(c, "SUB", {otherwise, elemwise(c, "SWITCH_GT0", {u.t, otherwise})});
    return elemwise(c, "ADD", {positive, other});
}

// norm_coefficient · X + G
ir::VarId regularized(Importer& c, const Update& u, ir::VarId x, ir::VarId g, double norm_coefficient) {
    return elemwise(c, "FUSE_MUL_ADD3", {scalar(c, u, norm_coefficient), x, g});
}

void output(Importer& c, const Update& u, size_t slot, size_t k, ir::VarId v) {
    c.set_output_var(slot * u.n + k, v, u.elem_type, u.shape(c, k));
}

// r' = R / (1 + T·decay_factor); g' = norm_coefficient·X + G; H' = H + g'²;
// X' = X − r'·g' / (√H' + epsilon).
void adagrad(Importer& c) {
    c.check_attrs({"decay_factor", "epsilon", "norm_coefficient"});
    const Update u = read_update(c, 3, 2);
    // ONNX's defaults (onnx/defs/training/defs.cc): epsilon 1e-6, the rest 0.
    const double decay = c.attr_float("decay_factor", 0.0), epsilon = c.attr_float("epsilon", 1e-6f),
                 norm = c.attr_float("norm_coefficient", 0.0);
    ir::VarId rate = elemwise(
        c, "TRUE_DIV", {u.r, elemwise(c, "FUSE_MUL_ADD3", {u.t, scalar(c, u, decay), scalar(c, u, 1.0)})});
    for (size_t k = 0; k < u.n; ++k) {
        ir::VarId x = c.var(2 + k), g = c.var(2 + u.n + k), h = c.var(2 + 2 * u.n + k);
        ir::VarId gr = regularized(c, u, x, g, norm);
        ir::VarId h_new = elemwise(c, "FUSE_MUL_ADD3", {gr, gr, h});
        ir::VarId h_sqrt = elemwise(c, "ADD", {elemwise(c, "SQRT", {h_new}), scalar(c, u, epsilon)});
        ir::VarId step = elemwise(c, "TRUE_DIV", {elemwise(c, "MUL", {rate, gr}), h_sqrt});
        output(c, u, 0, k, elemwise(c, "SUB", {x, step}));
        output(c, u, 1, k, h_new);
    }
}

// g' = norm_coefficient·X + G; β' = T > 0 ? beta : 1; V' = alpha·V + β'·g';
// standard: X' = X − R·V'; nesterov: X' = X − R·(g' + alpha·V').
void momentum(Importer& c) {
    c.check_attrs({"alpha", "beta", "mode", "norm_coefficient"});
    const Update u = read_update(c, 3, 2);
    for (const char* required : {"alpha", "beta", "mode", "norm_coefficient"})
        if (!c.has_attr(required)) c.fail(fmt::format("attribute '{}' is required", required));
    const double alpha = c.attr_float("alpha", 0.0), beta = c.attr_float("beta", 0.0),
                 norm = c.attr_float("norm_coefficient", 0.0);
    const std::string mode = c.attr_string("mode", "");
    if (mode != "standard" && mode != "nesterov")
        c.fail(fmt::format("mode '{}' is not defined (standard or nesterov)", mode));
    // The 1 first (GCC's order of the call's arguments, which C++ leaves open).
    const ir::VarId one = scalar(c, u, 1.0);
    ir::VarId beta_adjusted = select_on_t(c, u, scalar(c, u, beta), one);
    for (size_t k = 0; k < u.n; ++k) {
        ir::VarId x = c.var(2 + k), g = c.var(2 + u.n + k), v = c.var(2 + 2 * u.n + k);
        ir::VarId gr = regularized(c, u, x, g, norm);
        ir::VarId v_new = elemwise(c, "ADD", {elemwise(c, "MUL", {scalar(c, u, alpha), v}),
                                              elemwise(c, "MUL", {beta_adjusted, gr})});
        ir::VarId direction =
            mode == "standard" ? v_new : elemwise(c, "FUSE_MUL_ADD3", {scalar(c, u, alpha), v_new, gr});
        output(c, u, 0, k, elemwise(c, "SUB", {x, elemwise(c, "MUL", {u.r, direction})}));
        output(c, u, 1, k, v_new);
    }
}

// g' = norm_coefficient·X + G; V' = alpha·V + (1 − alpha)·g'; H' = beta·H + (1 − beta)·g'²;
// r' = T > 0 ? R·√(1 − beta^T) / (1 − alpha^T) : R;
// X' = (1 − norm_coefficient_post)·(X − r'·V' / (√H' + epsilon)).
void adam(Importer& c) {
    c.check_attrs({"alpha", "beta", "epsilon", "norm_coefficient", "norm_coefficient_post"});
    const Update u = read_update(c, 4, 3);
    // ONNX's defaults: alpha 0.9, beta 0.999, epsilon 1e-6, the coefficients 0.
    const double alpha = c.attr_float("alpha", 0.9f), beta = c.attr_float("beta", 0.999f),
                 epsilon = c.attr_float("epsilon", 1e-6f), norm = c.attr_float("norm_coefficient", 0.0),
                 norm_post = c.attr_float("norm_coefficient_post", 0.0);
    // The bias correction with T at least 1 (at T = 0 it is not selected).
    ir::VarId t1 = elemwise(c, "MAX", {u.t, scalar(c, u, 1.0)});
    ir::VarId one = scalar(c, u, 1.0);
    ir::VarId corrected = elemwise(
        c, "TRUE_DIV",
        {elemwise(c, "MUL", {u.r, elemwise(c, "SQRT", {elemwise(c, "SUB", {one, elemwise(c, "POW", {scalar(c, u, beta), t1})})})}),
         elemwise(c, "SUB", {one, elemwise(c, "POW", {scalar(c, u, alpha), t1})})});
    ir::VarId rate = select_on_t(c, u, corrected, u.r);
    for (size_t k = 0; k < u.n; ++k) {
        ir::VarId x = c.var(2 + k), g = c.var(2 + u.n + k), v = c.var(2 + 2 * u.n + k),
                  h = c.var(2 + 3 * u.n + k);
        ir::VarId gr = regularized(c, u, x, g, norm);
        ir::VarId v_new = elemwise(c, "ADD", {elemwise(c, "MUL", {scalar(c, u, alpha), v}),
                                              elemwise(c, "MUL", {scalar(c, u, 1.0 - alpha), gr})});
        ir::VarId h_new = elemwise(c, "ADD", {elemwise(c, "MUL", {scalar(c, u, beta), h}),
                                              elemwise(c, "MUL", {scalar(c, u, 1.0 - beta), elemwise(c, "MUL", {gr, gr})})});
        ir::VarId h_sqrt = elemwise(c, "ADD", {elemwise(c, "SQRT", {h_new}), scalar(c, u, epsilon)});
        ir::VarId x_new = elemwise(c, "SUB", {x, elemwise(c, "MUL", {rate, elemwise(c, "TRUE_DIV", {v_new, h_sqrt})})});
        if (norm_post != 0) x_new = elemwise(c, "MUL", {scalar(c, u, 1.0 - norm_post), x_new});
        output(c, u, 0, k, x_new);
        output(c, u, 1, k, v_new);
        output(c, u, 2, k, h_new);
    }
}

constexpr OpHandler kHandlers[] = {
    {"ai.onnx.preview.training:Adagrad", adagrad},
    {"ai.onnx.preview.training:Momentum", momentum},
    {"ai.onnx.preview.training:Adam", adam},
};

}  // namespace

std::span<const OpHandler> training_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
