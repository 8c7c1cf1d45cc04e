// If: MegEngine graphs have no branches, but an If can be written without one.
// A condition known at import time (a constant, or computed from static shapes as
// a scripted PyTorch export's `if x.dim() == 3` is) takes its branch: that
// branch's nodes are converted in place and the other is never read. A condition
// known only at run time converts both branches and selects each output with
// `Where` (ONNX's branches have no side effects, so computing both changes no
// value), which needs the two outputs to have one static shape and type. One
// exception: a branch that outputs an empty constant (torchvision's "no boxes:
// an empty selection") against one whose first dim only the run time knows;
// that output is the other branch's elements where the condition does not pick
// the empty one (empty_or_other).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

const onnx::GraphProto& branch(Importer& c, std::string_view name) {
    const onnx::AttributeProto* a = c.attr(name);
    if (!a || !a->has_g()) c.fail(fmt::format("attribute {} (a graph) is missing", name));
    return a->g();
}

std::string describe(const Value& v) {
    return fmt::format("{} [{}]", onnx_elem_name(v.elem_type), fmt::join(v.shape, ","));
}

bool is_empty_constant(const Value& v) {
    return v.is_const && !v.runtime_shape && element_count(v.shape) == 0;
}

// Output #k of an If whose branch `empty_then` (then_branch, or else_branch when
// false) outputs an empty constant and whose other branch outputs `other`, of
// one element type and rank, its dims past the first known: MegEngine holds no
// empty constant, but a CondTake of every element of `other` by a mask that is
// the condition picking `other` takes all of it or none, the empty value of the
// same type. Flat, then reshaped to `other`'s trailing dims.
void empty_or_other(Importer& c, size_t k, const Value& empty, Value other, std::string_view other_name,
                    bool empty_then) {
    if (other.shape.size() != empty.shape.size() || other.elem_type != empty.elem_type ||
        other.shape.empty() ||
        std::any_of(other.shape.begin() + 1, other.shape.end(), [](int64_t d) { return d < 0; }) ||
        !std::equal(other.shape.begin() + 1, other.shape.end(), empty.shape.begin() + 1))
        c.fail(fmt::format(
            "the condition is known only at run time, and output #{} is the empty {} in one branch "
            "but {} in the other: an empty branch is supported against one of its type and rank "
            "whose dims past the first are known and its own",
            k, describe(empty), describe(other)));
    if (!other.var.valid()) other.var = c.materialize(other, other_name);
    // The condition as a Float32 [1] (1 for then_branch), broadcast to `other`'s
    // shape; CondTake takes where it is 1 when `other` is then_branch's, 0 else.
    const ir::VarId picks = c.reshape(type_cvt(c, c.var(0), ir::DTypeEnum::Float32), {1});
    const ir::VarId mask = c.emit("Broadcast", {picks, c.emit("GetVarShape", {other.var})});
    const ir::OprId take =
        c.emit_opr("CondTake", {other.var, mask}, {{"mode", "EQ"}, {"val", empty_then ? 0.0f : 1.0f}}, 2);
    ir::VarId taken = c.graph().output_var(take, 0);
    Shape dims = other.shape;
    dims[0] = -1;
    if (dims.size() > 1) taken = reshaped(c, taken, dims);
    set_runtime_output(c, k, taken, other.elem_type, dims);
}

void if_node(Importer& c) {
    c.check_attrs({"then_branch", "else_branch"});
    const onnx::GraphProto &then_g = branch(c, "then_branch"), &else_g = branch(c, "else_branch");
    const Value& cond = c.runtime_input(0);
    if (cond.elem_type != P::BOOL)
        c.fail(fmt::format("the condition is {}, must be BOOL", onnx_elem_name(cond.elem_type)));
    if (cond.runtime_shape || element_count(cond.shape) != 1)
        c.fail(
            fmt::format("the condition must have one element, has shape [{}]", fmt::join(cond.shape, ",")));
    const size_t n = c.output_count();
    auto check_count = [&](const onnx::GraphProto& g, const std::vector<std::string>& outs) {
        if (outs.size() != n) c.fail(fmt::format("{} has {} outputs, the node {}", g.name(), outs.size(), n));
    };
    if (cond.is_const) {
        const onnx::GraphProto& taken = c.const_ints(0, "the condition")[0] != 0 ? then_g : else_g;
        const std::vector<std::string> outs = c.import_subgraph(taken);
        check_count(taken, outs);
        for (size_t k = 0; k < n; ++k) c.set_output(k, *c.value(outs[k]));
        return;
    }
    const std::vector<std::string> then_outs = c.import_subgraph(then_g),
                                   else_outs = c.import_subgraph(else_g);
    check_count(then_g, then_outs);
    check_count(else_g, else_outs);
    const ir::VarId cond_var = c.var(0);
    for (size_t k = 0; k < n; ++k) {
        Value a = *c.value(then_outs[k]), b = *c.value(else_outs[k]);
        if (is_empty_constant(a) != is_empty_constant(b) && (a.runtime_shape || b.runtime_shape)) {
            if (is_empty_constant(a))
                empty_or_other(c, k, a, b, else_outs[k], true);
            else
                empty_or_other(c, k, b, a, then_outs[k], false);
            continue;
        }
        if (a.runtime_shape || b.runtime_shape || a.elem_type != b.elem_type || a.shape != b.shape)
            c.fail(fmt::format(
                "the condition is known only at run time, and output #{} is {} in then_branch but {} "
                "in else_branch: both branches are computed and each output selected, which needs "
                "one static shape and type",
                k, describe(a), describe(b)));
        if (!a.var.valid()) a.var = c.materialize(a, then_outs[k]);
        if (!b.var.valid()) b.var = c.materialize(b, else_outs[k]);
        const ir::VarId mask = broadcast_to(c, cond_var, cond.shape.empty() ? Shape{1} : cond.shape,
                                            a.shape.empty() ? Shape{1} : a.shape);
        c.set_output_var(k, c.emit("Where", {mask, a.var, b.var}), a.elem_type, a.shape);
    }
}

constexpr OpHandler kHandlers[] = {
    {"If", if_node},
};

}  // namespace

std::span<const OpHandler> control_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
