// Reductions beyond ReduceMean / ReduceSum / ReduceMax (ops_pool.cpp): Reduce
// modes, each after the element-wise step the ONNX operator defines (ABS for L1,
// SUM_SQR then SQRT for L2, LOG after SUM, EXP before it), ArgMax / ArgMin,
// LogSoftmax and CumSum. The axes are an attribute up to opset 17 and an input
// from opset 18 (ReduceSum: 13); both are read.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_axes.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// How one ReduceX is computed: an element-wise step before the Reduce, the Reduce
// mode, one after it.
struct Reduction {
    const char* before;  // nullptr: none
    const char* mode;
    const char* after;
    bool float_only;
};

// The reduced axes: normalized, sorted, unique; empty means every axis, or (with
// noop_with_empty_axes) none: nullopt.
std::optional<std::vector<int64_t>> reduced_axes(Importer& c, int64_t rank) {
    std::vector<int64_t> axes = c.attr_ints("axes");
    // Axes known only at run time reach here when their length fixes them.
    if (c.has_input(1)) axes = is_runtime_value(c, 1) ? *axes_fixed_by_length(c, rank) : c.const_ints(1, "axes");
    if (axes.empty()) {
        if (c.attr_int("noop_with_empty_axes", 0)) return std::nullopt;
        for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
    }
    for (int64_t& a : axes) a = normalize_axis(a, rank, c, "axis");
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    return axes;
}

void reduce(Importer& c, const Reduction& r) {
    c.check_attrs({"axes", "keepdims", "noop_with_empty_axes"});
    const Value& x = c.runtime_input(0);  // Reduce takes dims only the run time knows too
    if (r.float_only) require_float(c, 0);
    else if (!is_float_type(x.elem_type) && !is_integer_type(x.elem_type))
        c.fail(fmt::format("{} of {} is not defined", c.node().op_type(), onnx_elem_name(x.elem_type)));
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (is_runtime_value(c, 1) && !axes_fixed_by_length(c, rank))
        return reduce_over_runtime_axes(c, r.before, r.mode, r.after);
    auto axes = reduced_axes(c, rank);
    if (!axes) {
        // The operator's text says the input is returned; ONNX's reference applies the
        // element-wise step (|x|, x², ...) first. Only where both agree is it mapped.
        if (r.before || r.after || std::string_view(r.mode) == "SUM_SQR")
            c.fail("noop_with_empty_axes=1 with no axes: ONNX's text (the input) and its reference (the "
                   "element-wise step applied) disagree; not supported");
        return c.set_output(0, x);
    }
    // A rank-0 input has no axis to reduce (found by fuzz_onnx: front() of no axes).
    if (axes->empty()) c.fail(fmt::format("{} of a rank-0 input is not supported", c.node().op_type()));
    ir::VarId y = c.var(0);
    if (r.before) y = elemwise(c, r.before, {y});
    y = padded_for_empty_extremes(c, y, x, r.mode, *axes);
    // SUM_SQR squares what it sums: only the first axis takes it, the others SUM.
    const bool squares = std::string_view(r.mode) == "SUM_SQR";
    y = reduce_axes(c, y, r.mode, {axes->front()});
    if (axes->size() > 1)
        y = reduce_axes(c, y, squares ? "SUM" : r.mode, std::vector<int64_t>(axes->begin() + 1, axes->end()));
    if (r.after) y = elemwise(c, r.after, {y});
    Shape shape = x.shape;
    for (int64_t a : *axes) shape[a] = 1;
    if (!c.attr_int("keepdims", 1)) y = drop_axes(c, y, *axes, shape);
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, shape);
    c.set_output_var(0, y, x.elem_type, shape);
}

template <const Reduction& kR>
void reduce_op(Importer& c) {
    reduce(c, kR);
}

constexpr Reduction kMin{nullptr, "MIN", nullptr, false};
constexpr Reduction kProd{nullptr, "PRODUCT", nullptr, false};
constexpr Reduction kL1{"ABS", "SUM", nullptr, false};
constexpr Reduction kL2{nullptr, "SUM_SQR", "SQRT", true};
constexpr Reduction kLogSum{nullptr, "SUM", "LOG", true};
// log(Σ exp(x)), as ONNX defines it (its function body is ReduceLogSum(Exp(x))).
constexpr Reduction kLogSumExp{"EXP", "SUM", "LOG", true};
constexpr Reduction kSumSquare{nullptr, "SUM_SQR", nullptr, false};

// Argmax / Argmin give the first index of the extreme value, keeping the axis as 1.
// select_last_index=1 is the first index in the reversed axis (a Subtensor with
// step −1), counted from the end: n − 1 − i.
void arg_extreme(Importer& c, const char* op) {
    c.check_attrs({"axis", "keepdims", "select_last_index"});
    const Value& x = c.runtime_input(0);  // Argmax takes dims only the run time knows (a selection's labels)
    if (!is_float_type(x.elem_type) && !is_integer_type(x.elem_type))
        c.fail(fmt::format("{} of {} is not defined", c.node().op_type(), onnx_elem_name(x.elem_type)));
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) c.fail("needs an input of rank ≥ 1");
    const int64_t axis = normalize_axis(c.attr_int("axis", 0), rank, c, "axis");
    const bool last = c.attr_int("select_last_index", 0) != 0;
    if (last && x.shape[axis] < 0)
        c.fail(fmt::format("select_last_index along axis {}, whose dim is known only at run time", axis));
    ir::VarId in = c.var(0);
    if (last) {
        ir::IndexDescMaskItem item{static_cast<int8_t>(axis), false, false, true, false};
        in = c.emit("Subtensor", {in, c.const_i32({-1})}, {{"items", std::vector{item}}});
    }
    ir::VarId y = c.emit(op, {in}, {int_param("axis", axis)});
    if (last) y = elemwise(c, "SUB", {c.const_i32({x.shape[axis] - 1}), y});
    Shape shape = x.shape;
    shape[axis] = 1;
    if (!c.attr_int("keepdims", 1)) y = drop_axes(c, y, {axis}, shape);
    if (x.runtime_shape) return set_runtime_output(c, 0, y, P::INT64, shape);
    c.set_output_var(0, y, P::INT64, shape);
}

void arg_max(Importer& c) { arg_extreme(c, "Argmax"); }
void arg_min(Importer& c) { arg_extreme(c, "Argmin"); }

// (x − max) − log(Σ exp(x − max)) over the axis, as ONNX's reference computes it
// (no log of a softmax that underflows to 0). Before opset 13 the input is seen as
// 2-D [d0·…·d(axis−1), d(axis)·…] and normalized over its second axis.
void log_softmax(Importer& c) {
    c.check_attrs({"axis"});
    require_float(c, 0);
    const Value& x = c.runtime_input(0);  // softmax_view says which dims it needs known
    const SoftmaxView view = softmax_view(c);
    ir::VarId y = log_softmax_over(c, view.var, view.axis);
    if (x.runtime_shape) return set_runtime_output(c, 0, y, x.elem_type, x.shape);
    if (view.shape != x.shape) y = c.reshape(y, x.shape);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// MegEngine's Cumsum has ONNX's exclusive and reverse flags. An axis known only at
// run time: formats/onnx/runtime_axes.cpp.
void cum_sum(Importer& c) {
    c.check_attrs({"exclusive", "reverse"});
    const Value& x = c.input(0);
    if (!is_float_type(x.elem_type) && !is_integer_type(x.elem_type))
        c.fail(fmt::format("CumSum of {} is not defined", onnx_elem_name(x.elem_type)));
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) c.fail("needs an input of rank ≥ 1");
    const bool exclusive = c.attr_int("exclusive", 0) != 0, reverse = c.attr_int("reverse", 0) != 0;
    if (is_runtime_value(c, 1)) return cumsum_along_runtime_axis(c, exclusive, reverse);
    auto a = c.const_ints(1, "axis");
    if (a.size() != 1) c.fail(fmt::format("axis must hold one value, holds {}", a.size()));
    const int64_t axis = normalize_axis(a[0], rank, c, "axis");
    ir::VarId y = c.emit("Cumsum", {c.var(0)},
                         {int_param("axis", axis), {"exclusive", exclusive}, {"reverse", reverse}});
    c.set_output_var(0, y, x.elem_type, x.shape);
}

constexpr OpHandler kHandlers[] = {
    {"ReduceMin", reduce_op<kMin>},
    {"ReduceProd", reduce_op<kProd>},
    {"ReduceL1", reduce_op<kL1>},
    {"ReduceL2", reduce_op<kL2>},
    {"ReduceLogSum", reduce_op<kLogSum>},
    {"ReduceLogSumExp", reduce_op<kLogSumExp>},
    {"ReduceSumSquare", reduce_op<kSumSquare>},
    {"ArgMax", arg_max},
    {"ArgMin", arg_min},
    {"LogSoftmax", log_softmax},
    {"CumSum", cum_sum},
};

}  // namespace

std::span<const OpHandler> reduce_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
