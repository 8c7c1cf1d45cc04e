// Loop and Scan, unrolled: MegEngine graphs have no loops, but a loop whose trip
// count is known at import time is its body written out once per iteration
// (Importer::import_body, each run's names suffixed "@t"), the state of one run
// feeding the next. Scan slices its scan inputs along their axes (Subtensor),
// runs the body on each slice in the given direction, and stacks the per-run scan
// outputs along theirs (Reshape to add the axis, Concat). Loop needs its trip count
// M and its condition as constants, and each run's condition out as a value known
// at import time (a body that decides at run time whether to go on cannot be
// written out). The unrolled size is bounded.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// Body runs times body nodes: above this the written graph would be larger than a
// MegEngine graph is sensibly loaded as.
constexpr int64_t kMaxUnrolledNodes = 100000;

const onnx::GraphProto& body_of(Importer& c) {
    const onnx::AttributeProto* a = c.attr("body");
    if (!a || !a->has_g()) c.fail("attribute body (a graph) is missing");
    return a->g();
}

void check_unrolled_size(Importer& c, const onnx::GraphProto& body, int64_t runs) {
    // Divided, not multiplied: a trip count near INT64_MAX must not wrap.
    if (runs > kMaxUnrolledNodes / std::max(1, body.node_size()))
        c.fail(fmt::format("unrolling {} runs of a {}-node body would write more than {} operators", runs,
                           body.node_size(), kMaxUnrolledNodes));
}

ir::VarId var_of(Importer& c, Value& v, const std::string& name) {
    if (!v.var.valid()) v.var = c.materialize(v, name);
    return v.var;
}

// x[..., i, ...] along `axis`, the axis dropped. Refuses an axis past x's rank
// (a Scan-8 state or input of rank 0 has no batch axis to take element i of).
Value slice_at(Importer& c, Value x, int64_t axis, int64_t i, const std::string& name) {
    if (axis < 0 || static_cast<size_t>(axis) >= x.shape.size())
        c.fail(fmt::format("'{}' has rank {}: it has no axis {} to take element {} of", name, x.shape.size(), axis,
                           i));
    const ir::VarId xv = var_of(c, x, name);
    Value out;
    out.elem_type = x.elem_type;
    out.shape = x.shape;
    out.shape.erase(out.shape.begin() + axis);
    out.var = pick_along(c, xv, axis, i);
    return out;
}

// The values (one shape and type) stacked along a new axis `axis`.
Value stack(Importer& c, std::vector<Value> parts, int64_t axis, const std::string& name) {
    Value out;
    out.elem_type = parts.front().elem_type;
    out.shape = parts.front().shape;
    for (const Value& p : parts)
        if (p.elem_type != out.elem_type || p.shape != out.shape || p.runtime_shape)
            c.fail(fmt::format(
                "output '{}' has another static shape or type in another run ([{}] and [{}]); only "
                "outputs of one shape can be stacked",
                name, fmt::join(out.shape, ","), fmt::join(p.shape, ",")));
    Shape one = out.shape;
    one.insert(one.begin() + axis, 1);
    std::vector<ir::VarId> vars;
    for (Value& p : parts) vars.push_back(c.reshape(var_of(c, p, name), one));
    out.shape.insert(out.shape.begin() + axis, static_cast<int64_t>(parts.size()));
    out.var = concat(c, vars, axis);
    return out;
}

bool const_bool(Importer& c, const Value& v, std::string_view what) {
    if (!v.is_const || v.runtime_shape || element_count(v.shape) != 1)
        c.fail(fmt::format("{} must be one value known at import time (the loop is unrolled)", what));
    const auto ints = decode_ints(v);
    if (!ints) c.fail(fmt::format("{} is of type {}, not BOOL", what, onnx_elem_name(v.elem_type)));
    return ints->front() != 0;
}

void loop(Importer& c) {
    c.check_attrs({"body"});
    const onnx::GraphProto& body = body_of(c);
    // Positional: M and cond come first, each possibly empty (""), then the carried values.
    if (c.input_count() < 2)
        c.fail(fmt::format("has {} inputs; Loop takes M and cond first (either may be \"\")", c.input_count()));
    if (!c.has_input(0))
        c.fail(
            "M (the trip count) is missing: the loop is unrolled, which needs a trip count known at import "
            "time");
    const std::vector<int64_t> m = c.const_ints(0, "M (the trip count)");
    if (m.size() != 1) c.fail(fmt::format("M (the trip count) must be one value, has {}", m.size()));
    const int64_t trips = std::max<int64_t>(m[0], 0);
    bool go_on = !c.has_input(1) || const_bool(c, c.runtime_input(1), "cond (input #1)");
    const size_t carried = c.input_count() - 2;
    if (static_cast<size_t>(body.input_size()) != 2 + carried ||
        static_cast<size_t>(body.output_size()) < 1 + carried)
        c.fail(fmt::format(
            "the body has {} inputs and {} outputs; with {} loop-carried values it needs {} inputs and "
            "at least {} outputs",
            body.input_size(), body.output_size(), carried, 2 + carried, 1 + carried));
    const size_t scans = static_cast<size_t>(body.output_size()) - 1 - carried;
    if (c.output_count() > carried + scans)
        c.fail(fmt::format("has {} outputs, the body gives {}", c.output_count(), carried + scans));
    check_unrolled_size(c, body, trips);
    std::vector<Value> state;
    for (size_t k = 0; k < carried; ++k) state.push_back(c.runtime_input(2 + k));
    std::vector<std::vector<Value>> scanned(scans);
    const auto yes = std::make_shared<std::vector<std::byte>>(1, std::byte{1});
    int64_t t = 0;
    for (; go_on && t < trips; ++t) {
        std::vector<Value> in{int64_const({t}, {}), bytes_const(P::BOOL, {}, yes)};
        in.insert(in.end(), state.begin(), state.end());
        std::vector<Value> out = c.import_body(body, in, fmt::format("@{}", t));
        go_on = const_bool(
            c, out[0], fmt::format("the body's condition out ('{}') of run {}", body.output(0).name(), t));
        state.assign(out.begin() + 1, out.begin() + 1 + static_cast<std::ptrdiff_t>(carried));
        for (size_t k = 0; k < scans; ++k) scanned[k].push_back(out[1 + carried + k]);
    }
    for (size_t k = 0; k < carried; ++k) c.set_output(k, state[k]);
    for (size_t k = 0; k < scans && carried + k < c.output_count(); ++k) {
        const std::string& name = c.node().output(static_cast<int>(carried + k));
        if (name.empty()) continue;
        if (t == 0)
            c.fail(fmt::format("scan output '{}' of a loop that runs no iteration would be empty", name));
        c.set_output(carried + k, stack(c, std::move(scanned[k]), 0, name));
    }
}

// Scan-9 and later: inputs = states, then scan inputs; the body takes the states and
// one slice of each scan input, and gives the states, then one slice of each scan
// output. Scan-8 has a batch axis 0 on everything (and sequence_lens first): each
// batch element is scanned on its own, along axis 1.
void scan(Importer& c) {
    const bool v8 = c.opset() < 9;
    c.check_attrs(v8 ? std::initializer_list<std::string_view>{"body", "num_scan_inputs", "directions"}
                     : std::initializer_list<std::string_view>{"body", "num_scan_inputs", "scan_input_axes",
                                                               "scan_input_directions", "scan_output_axes",
                                                               "scan_output_directions"});
    const onnx::GraphProto& body = body_of(c);
    if (v8 && c.has_input(0))
        c.fail("sequence_lens (input #0) is not supported: every sequence has its full length");
    const size_t first = v8 ? 1 : 0;
    if (c.input_count() <= first)
        c.fail(fmt::format("has {} inputs; Scan-8 takes sequence_lens first (\"\" when omitted), then the states "
                           "and scan inputs",
                           c.input_count()));
    const int64_t m = c.attr_int("num_scan_inputs", 0);
    const size_t inputs = c.input_count() - first;
    if (m < 1 || static_cast<size_t>(m) > inputs)
        c.fail(fmt::format("num_scan_inputs {} does not fit {} inputs", m, inputs));
    const size_t scan_in = static_cast<size_t>(m), states = inputs - scan_in;
    if (static_cast<size_t>(body.input_size()) != inputs || static_cast<size_t>(body.output_size()) < states)
        c.fail(fmt::format("the body has {} inputs and {} outputs; the node gives {} inputs with {} states",
                           body.input_size(), body.output_size(), inputs, states));
    const size_t scan_out = static_cast<size_t>(body.output_size()) - states;
    const int64_t batch_axes = v8 ? 1 : 0;  // Scan-8's batch axis comes first
    auto per_input = [&](std::string_view attr, size_t n, int64_t fallback) {
        std::vector<int64_t> v = c.attr_ints(attr, std::vector<int64_t>(n, fallback));
        if (v.size() != n) c.fail(fmt::format("{} has {} entries for {}", attr, v.size(), n));
        return v;
    };
    const std::vector<int64_t> in_dirs = per_input(v8 ? "directions" : "scan_input_directions", scan_in, 0);
    std::vector<int64_t> in_axes = per_input("scan_input_axes", scan_in, 0);
    const std::vector<int64_t> out_dirs = per_input("scan_output_directions", scan_out, 0);
    std::vector<int64_t> out_axes = per_input("scan_output_axes", scan_out, 0);

    std::vector<Value> xs;
    for (size_t k = 0; k < scan_in; ++k) xs.push_back(c.runtime_input(first + states + k));
    int64_t batch = 1, length = -1;
    for (size_t k = 0; k < scan_in; ++k) {
        const Value& x = xs[k];
        const int64_t rank = static_cast<int64_t>(x.shape.size()) - batch_axes;
        if (x.runtime_shape) c.fail(fmt::format("scan input #{} has a shape known only at run time", k));
        const std::optional<int64_t> position = counted_from_end(in_axes[k], rank);
        if (!position) c.fail(fmt::format("scan input #{}: axis {} is outside its rank {}", k, in_axes[k], rank));
        const int64_t axis = in_axes[k] = *position;
        const int64_t n = x.shape[static_cast<size_t>(axis + batch_axes)];
        if (length >= 0 && n != length)
            c.fail(fmt::format("scan inputs have lengths {} and {}; they must be equal", length, n));
        length = n;
        if (v8 && k > 0 && x.shape[0] != batch)
            c.fail(fmt::format("scan inputs have batch sizes {} and {}; they must be equal", batch, x.shape[0]));
        if (v8) batch = x.shape[0];
    }
    if (length < 1) c.fail("the scan inputs are empty");
    if (batch < 1) c.fail("the scan inputs' batch axis is empty");
    for (size_t k = 0; k < states && v8; ++k) {
        const Value& s = c.runtime_input(first + k);
        if (s.shape.empty() || s.shape[0] != batch)
            c.fail(fmt::format("state #{} has shape [{}]: Scan-8's states take the batch axis first, of size {}", k,
                               fmt::join(s.shape, ","), batch));
    }
    check_unrolled_size(c, body, length * batch);
    std::vector<std::vector<Value>> finals(states), stacked(scan_out);  // per batch element
    for (int64_t b = 0; b < batch; ++b) {
        const std::string where = v8 ? fmt::format("@{}", b) : "";
        std::vector<Value> state, seqs;
        for (size_t k = 0; k < states; ++k) {
            const Value& s = c.runtime_input(first + k);
            state.push_back(v8 ? slice_at(c, s, 0, b, c.node().input(static_cast<int>(first + k))) : s);
        }
        for (size_t k = 0; k < scan_in; ++k)
            seqs.push_back(v8 ? slice_at(c, xs[k], 0, b, c.node().input(static_cast<int>(first + states + k)))
                              : xs[k]);
        std::vector<std::vector<Value>> runs(scan_out);
        for (int64_t step = 0; step < length; ++step) {
            std::vector<Value> in = state;
            for (size_t k = 0; k < scan_in; ++k) {
                const int64_t i = in_dirs[k] ? length - 1 - step : step;
                in.push_back(slice_at(c, seqs[k], in_axes[k], i,
                                      c.node().input(static_cast<int>(first + states + k))));
            }
            std::vector<Value> out = c.import_body(body, in, fmt::format("{}@{}", where, step));
            state.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(states));
            for (size_t k = 0; k < scan_out; ++k) runs[k].push_back(out[states + k]);
        }
        for (size_t k = 0; k < states; ++k) finals[k].push_back(state[k]);
        for (size_t k = 0; k < scan_out; ++k) {
            const std::string& name = body.output(static_cast<int>(states + k)).name();
            if (out_dirs[k]) std::reverse(runs[k].begin(), runs[k].end());
            const int64_t rank = static_cast<int64_t>(runs[k].front().shape.size()) + 1;
            const std::optional<int64_t> axis = counted_from_end(out_axes[k], rank);
            if (!axis) c.fail(fmt::format("scan output #{}: axis {} is outside its rank {}", k, out_axes[k], rank));
            stacked[k].push_back(stack(c, std::move(runs[k]), *axis, name));
        }
    }
    for (size_t k = 0; k < states && k < c.output_count(); ++k)
        c.set_output(k, v8 ? stack(c, std::move(finals[k]), 0, c.node().output(static_cast<int>(k)))
                           : finals[k].front());
    for (size_t k = 0; k < scan_out && states + k < c.output_count(); ++k) {
        const std::string& name = c.node().output(static_cast<int>(states + k));
        if (name.empty()) continue;
        c.set_output(states + k, v8 ? stack(c, std::move(stacked[k]), 0, name) : stacked[k].front());
    }
}

constexpr OpHandler kHandlers[] = {
    {"Loop", loop},
    {"Scan", scan},
};

}  // namespace

std::span<const OpHandler> loop_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
