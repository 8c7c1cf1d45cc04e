// The loss operators NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets
// 12, 13), computed as ONNX's reference does (onnx/backend/test/case/node/
// negativeloglikelihoodloss.py, softmaxcrossentropyloss.py): on the input seen as
// (N, C, D) with D = d1·…·dk, loss[n][d] = −input[n][t][d] · weight[t] for t =
// target[n][d], 0 where t is ignore_index; reduction none keeps (N, d1, …, dk), sum
// adds every element, mean divides that sum by the sum of the weights picked (the
// non-ignored count when there are no weights).
//
// The picks are `IndexingOneHot` along axis 1. MegDNN requires every index in
// [0, C) (dnn/src/naive/indexing_one_hot asserts, the CUDA kernel raises an
// asynchronous error, engine/eval fails), and ignore_index may lie outside (−1, C):
// ignored targets are replaced by 0 before the pick and their loss and weight are
// set to exactly 0 after it (SWITCH_GT0, not a multiplication: 0 · inf would be
// NaN). A target outside [0, C) that is not ignore_index is invalid input in ONNX
// too (the reference fails indexing) and fails in MegDNN as said.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>
#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

enum class Reduction { kNone, kSum, kMean };

// The node's attributes and the shapes every loss handler checks.
struct LossSpec {
    Reduction reduction = Reduction::kMean;
    std::optional<int32_t> ignore_index;
    int64_t n = 0, classes = 0, d = 1;  // the (N, C, D) view
    Shape target_shape;                 // (N, d1, …, dk): reduction none's output
    bool weighted = false;
};

// Input 0 (the log-probabilities or scores, `what`), input 1 the target, optional
// input 2 the per-class weight.
LossSpec loss_spec(Importer& c, std::string_view what) {
    c.check_attrs({"reduction", "ignore_index"});
    LossSpec s;
    const std::string reduction = c.attr_string("reduction", "mean");
    if (reduction == "none") s.reduction = Reduction::kNone;
    else if (reduction == "sum") s.reduction = Reduction::kSum;
    else if (reduction != "mean")
        c.fail(fmt::format("reduction '{}' is not defined (none, sum or mean)", reduction));
    if (c.has_attr("ignore_index")) {
        const int64_t ii = c.attr_int("ignore_index", 0);
        // Targets are held as Int32 (MegEngine has no 64-bit integers).
        if (ii < std::numeric_limits<int32_t>::min() || ii > std::numeric_limits<int32_t>::max())
            c.fail(fmt::format("ignore_index {} does not fit Int32, the targets' MegEngine dtype", ii));
        s.ignore_index = static_cast<int32_t>(ii);
    }

    const Value& x = c.input(0);
    if (!is_float_type(x.elem_type))
        c.fail(fmt::format("{} (input #0) is {}; only float element types are supported", what,
                           onnx_elem_name(x.elem_type)));
    if (x.shape.size() < 2)
        c.fail(fmt::format("{} (input #0) must be (N, C) or (N, C, d1, …, dk), has shape [{}]", what,
                           fmt::join(x.shape, ",")));
    s.n = x.shape[0];
    s.classes = x.shape[1];
    s.target_shape = {s.n};
    for (size_t a = 2; a < x.shape.size(); ++a) {
        s.d *= x.shape[a];
        s.target_shape.push_back(x.shape[a]);
    }
    const Value& t = c.input(1);
    if (t.elem_type != P::INT32 && t.elem_type != P::INT64)
        c.fail(fmt::format("the target (input #1) is {}; it must be INT32 or INT64", onnx_elem_name(t.elem_type)));
    if (t.shape != s.target_shape)
        c.fail(fmt::format("the target (input #1) has shape [{}]; for {} of shape [{}] it must be [{}]",
                           fmt::join(t.shape, ","), what, fmt::join(x.shape, ","), fmt::join(s.target_shape, ",")));
    s.weighted = c.has_input(2);
    if (s.weighted) {
        const Value& w = c.input(2);
        if (w.elem_type != x.elem_type)
            c.fail(fmt::format("the weight (input #2) is {}, {} is {}; they must have one type",
                               onnx_elem_name(w.elem_type), what, onnx_elem_name(x.elem_type)));
        if (w.shape != Shape{s.classes})
            c.fail(fmt::format("the weight (input #2) has shape [{}]; it must be [{}] (one per class)",
                               fmt::join(w.shape, ","), s.classes));
    }
    return s;
}

// The loss of `log_prob` (the input seen as (N, C, D)) reduced as `s` says, set as
// output 0.
void set_loss(Importer& c, const LossSpec& s, ir::VarId log_prob) {
    const int32_t elem_type = c.input(0).elem_type;
    const ir::DType dtype = ir::DType::of(onnx_var_dtype(elem_type, c));
    const Shape nd{s.n, s.d}, n1d{s.n, 1, s.d};
    ir::VarId target = c.var(1);
    if (c.input(1).shape != nd) target = c.reshape(target, nd);

    // keep: 1 where the target is not ignore_index, else 0 (Int32 EQ gives 0 / 1);
    // the picked index is target · keep, 0 at the ignored positions.
    ir::VarId index = target;
    std::optional<ir::VarId> keep;
    if (s.ignore_index) {
        ir::VarId ignored = elemwise(c, "EQ", {target, c.const_i32({*s.ignore_index})});
        ir::VarId keep_i = elemwise(c, "SUB", {c.const_i32({1}), ignored});
        index = elemwise(c, "MUL", {target, keep_i});
        keep = c.reshape(type_cvt(c, keep_i, dtype.type), n1d);
    }
    auto pick = [&](ir::VarId src) { return c.emit("IndexingOneHot", {src, index}, {int_param("axis", 1)}); };
    // exactly 0 at the ignored positions, v elsewhere
    auto unless_ignored = [&](ir::VarId v) { return keep ? elemwise(c, "SWITCH_GT0", {*keep, v}) : v; };

    ir::VarId loss = unless_ignored(elemwise(c, "NEGATE", {pick(log_prob)}));  // (N, 1, D)
    // The weight of each position: weight[target] (0 where ignored), or the keep
    // mask without weights; none when every position weighs 1.
    std::optional<ir::VarId> weight = keep;
    if (s.weighted) {
        ir::VarId classes = c.emit("Broadcast", {c.reshape(c.var(2), {1, s.classes, 1}),
                                                 c.const_i32({s.n, s.classes, s.d})});
        weight = unless_ignored(pick(classes));
        loss = elemwise(c, "MUL", {*weight, loss});
    }

    if (s.reduction == Reduction::kNone)
        return c.set_output_var(0, c.reshape(loss, s.target_shape), elem_type, s.target_shape);
    auto total = [&](ir::VarId v) {
        return c.emit("Reduce", {c.reshape(v, {s.n * s.d})}, {{"mode", "SUM"}, int_param("axis", 0)});
    };
    ir::VarId y = total(loss);
    if (s.reduction == Reduction::kMean) {
        if (weight) y = elemwise(c, "TRUE_DIV", {y, total(*weight)});
        else y = elemwise(c, "TRUE_DIV", {y, scalar_as(c, static_cast<double>(s.n * s.d), elem_type)});
    }
    c.set_output_var(0, y, elem_type, {});
}

void negative_log_likelihood_loss(Importer& c) {
    const LossSpec s = loss_spec(c, "input");
    ir::VarId x = c.var(0);
    if (c.input(0).shape != Shape{s.n, s.classes, s.d}) x = c.reshape(x, {s.n, s.classes, s.d});
    set_loss(c, s, x);
}

// log_prob = LogSoftmax over the classes (the importer's LogSoftmax decomposition),
// then NegativeLogLikelihoodLoss of it; output 1, when asked for, is log_prob.
void softmax_cross_entropy_loss(Importer& c) {
    const LossSpec s = loss_spec(c, "scores");
    const Value& x = c.input(0);
    ir::VarId scores = c.var(0);
    const Shape ncd{s.n, s.classes, s.d};
    if (x.shape != ncd) scores = c.reshape(scores, ncd);
    ir::VarId log_prob = log_softmax_over(c, scores, 1);
    set_loss(c, s, log_prob);
    if (c.output_count() > 1 && !c.node().output(1).empty()) {
        const Value& scores_value = c.input(0);
        ir::VarId lp = scores_value.shape == ncd ? log_prob : c.reshape(log_prob, scores_value.shape);
        c.set_output_var(1, lp, scores_value.elem_type, scores_value.shape);
    }
}

constexpr OpHandler kHandlers[] = {
    {"NegativeLogLikelihoodLoss", negative_log_likelihood_loss},
    {"SoftmaxCrossEntropyLoss", softmax_cross_entropy_loss},
};

}  // namespace

std::span<const OpHandler> loss_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
