#include "engine/eval/evaluator.h"

#include <fmt/format.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>

#include "engine/eval/elements.h"
#include "engine/eval/kernels.h"
#include "ir/describe.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"
#include "ir/op_registry.h"
#include "ir/order.h"

namespace mgedump::engine::eval {
namespace {

bool is_host_input(const ir::Graph& g, ir::OprId o) {
    return ir::op_def(g.oprs.type[o.value]).tensors == ir::OpTensors::Input;
}

// Small integer-like results go back into the inference state, so a rule that
// needs a value (Reshape's target shape, Subtensor's indices) finds it.
void record_value(ir::InferState& state, ir::VarId v, const Tensor& t) {
    if (t.empty() || t.elements() > ir::kMaxStaticValueElements || !ir::value_tracked(t.dtype())) return;
    auto value = std::make_shared<ir::StaticValue>();
    value->elems = to_doubles(t);
    state.values[v.value] = state.keep(std::move(value));
}

std::string output_name(const ir::Graph& g, size_t i) {
    const ir::StrId name = g.vars.name[g.outputs[i].value];
    return name.valid() ? std::string(g.str(name)) : fmt::format("output{}", i);
}

Tensor host_input(const ir::Graph& g, ir::OprId o, const ir::InferState& state, const Feeds& feeds) {
    const ir::TensorId t(g.oprs.tensors[o.value].begin);
    const std::string name(g.str(g.tensors.name[t.value]));
    const ir::VarId v = g.output_var(o, 0);
    const ir::DType dtype = state.dtypes[v.value];
    const ir::Shape& shape = state.shapes[v.value];
    auto it = feeds.find(name);
    if (it == feeds.end()) {
        const ir::BlobId blob = g.tensors.blob[t.value];
        if (blob.valid()) return Tensor::copy_of(dtype, shape, g.blobs.bytes(blob));
        throw EvalError(fmt::format("no value given for input '{}' ({} {})", name, ir::dtype_string(dtype),
                                    ir::shape_string(shape)));
    }
    const Tensor& feed = it->second;
    if (!(feed.dtype() == dtype))
        throw EvalError(fmt::format("input '{}' is {} in the model, the value given is {}", name,
                                    ir::dtype_string(dtype), ir::dtype_string(feed.dtype())));
    if (shape.known() && !(feed.shape() == shape))
        throw EvalError(fmt::format("input '{}' is {} in the model, the value given is {}", name,
                                    ir::shape_string(shape), ir::shape_string(feed.shape())));
    return feed;
}

// Adds operator `c`'s estimated work to `spent`; refuses the evaluation when the
// sum passes options.max_work, before the operator runs.
uint64_t charge_work(const ir::InferContext& c, const ir::InferState& state, const EvalOptions& options,
                     uint64_t spent) {
    const uint64_t work = estimate_work(c, state);
    const uint64_t total = work > UINT64_MAX - spent ? UINT64_MAX : spent + work;
    if (total > options.max_work)
        throw LimitError(fmt::format("{}: evaluating it would pass the evaluator's work limit ({} estimated "
                                     "multiply-adds so far with its {}, the limit is {})",
                                     ir::describe_opr(c.graph(), c.opr()), total, work, options.max_work));
    return total;
}

void check_value_bytes(const ir::Graph& g, ir::OprId o, ir::VarId v, const ir::InferState& state,
                       const EvalOptions& options) {
    const uint64_t bytes = ir::dtype_storage_bytes(state.dtypes[v.value].type, state.shapes[v.value].elements());
    if (bytes > options.max_value_bytes)
        throw LimitError(fmt::format("{}: output {} {} {} is {} bytes, more than the evaluator's limit of {} "
                                     "bytes for one value",
                                     ir::describe_opr(g, o), ir::describe_var(g, v),
                                     ir::dtype_string(state.dtypes[v.value]), ir::shape_string(state.shapes[v.value]),
                                     bytes, options.max_value_bytes));
}

void check_feed_names(const ir::Graph& g, const Feeds& feeds) {
    std::vector<GraphInput> inputs = graph_inputs(g);
    for (const auto& feed : feeds) {
        const std::string& name = feed.first;  // not a binding: the lambda captures it (clang 14)
        bool known = std::any_of(inputs.begin(), inputs.end(), [&](const GraphInput& in) { return in.name == name; });
        if (!known) {
            std::string names;
            for (const auto& in : inputs) names += (names.empty() ? "" : ", ") + in.name;
            throw EvalError(fmt::format("the model has no input '{}' (its inputs: {})", name,
                                        names.empty() ? "none" : names));
        }
    }
}

std::vector<EvalOutput> run(const ir::Graph& g, const Feeds& feeds, const EvalOptions& options) {
    check_feed_names(g, feeds);
    const std::vector<ir::OprId> order = ir::dump_order(g);

    // Last use of each var, so intermediate values are freed as soon as the
    // operators that read them have run (a resnet50 holds a few activations,
    // not all of them).
    std::vector<uint32_t> uses(g.vars.size(), 0);
    for (ir::OprId o : order)
        for (ir::VarId v : g.inputs_of(o)) ++uses[v.value];
    for (ir::VarId v : g.outputs) ++uses[v.value];

    ir::InferState state;
    state.resize(g.vars.size());
    std::vector<Tensor> values(g.vars.size());
    std::vector<const Tensor*> inputs;
    std::vector<Tensor> outputs;
    uint64_t work = 0;

    for (ir::OprId o : order) {
        ir::infer_operator(g, o, state);
        const ir::Range outs = g.oprs.outputs[o.value];
        if (is_host_input(g, o)) {
            values[outs.begin] = host_input(g, o, state, feeds);
            // MegEngine's Host2DeviceCopy infers its value from the host tensor
            // (HostIONodeBase::init_output_static_infer_desc): a Broadcast or
            // Reshape straight to a fed shape finds it.
            record_value(state, ir::VarId(outs.begin), values[outs.begin]);
            continue;
        }
        const Kernel kernel = find_kernel(g.oprs.type[o.value]);
        if (!kernel)
            throw EvalError(fmt::format("{}: the evaluator has no kernel for {}", ir::describe_opr(g, o),
                                        ir::op_def(g.oprs.type[o.value]).name));
        inputs.clear();
        for (ir::VarId v : g.inputs_of(o)) {
            if (values[v.value].empty())
                throw EvalError(fmt::format("{}: input {} has no value", ir::describe_opr(g, o), ir::describe_var(g, v)));
            inputs.push_back(&values[v.value]);
        }
        ir::InferContext params(g, o, state);
        work = charge_work(params, state, options, work);
        outputs.assign(outs.count, Tensor());
        for (uint32_t k = 0; k < outs.count; ++k) {
            const uint32_t v = outs.begin + k;
            if (g.vars.flags[v] & ir::kVarVolatile) continue;
            if (state.shapes[v].known() && state.dtypes[v].valid) {
                check_value_bytes(g, o, ir::VarId(v), state, options);
                outputs[k] = Tensor(state.dtypes[v], state.shapes[v]);
            }
        }
        KernelContext ctx(params, inputs, outputs, options);
        kernel(ctx);
        for (uint32_t k = 0; k < outs.count; ++k) {
            const uint32_t v = outs.begin + k;
            if (outputs[k].empty()) continue;
            // A kernel that set an output inference could not shape tells the
            // state, so later rules see it.
            state.shapes[v] = outputs[k].shape();
            state.dtypes[v] = outputs[k].dtype();
            record_value(state, ir::VarId(v), outputs[k]);
            values[v] = std::move(outputs[k]);
        }
        for (ir::VarId v : g.inputs_of(o))
            if (--uses[v.value] == 0) values[v.value] = Tensor();
    }

    std::vector<EvalOutput> result;
    for (size_t i = 0; i < g.outputs.size(); ++i) {
        const Tensor& t = values[g.outputs[i].value];
        if (t.empty())
            throw EvalError(fmt::format("output {} ({}) was not computed", i, ir::describe_var(g, g.outputs[i])));
        result.push_back({output_name(g, i), t});
    }
    return result;
}

// xoshiro128+-style generator: fixed, portable, independent of the standard
// library's distributions (whose sequences differ between implementations).
struct SplitMix {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

uint64_t name_seed(uint64_t seed, std::string_view name) {
    uint64_t h = 1469598103934665603ull ^ seed;
    for (char c : name) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    return h;
}

}  // namespace

std::vector<GraphInput> graph_inputs(const ir::Graph& g) {
    std::vector<GraphInput> inputs;
    for (ir::OprId o : ir::dump_order(g)) {
        if (!is_host_input(g, o)) continue;
        const ir::TensorId t(g.oprs.tensors[o.value].begin);
        inputs.push_back(GraphInput{.name = std::string(g.str(g.tensors.name[t.value])),
                                    .dtype = g.tensors.dtype[t.value],
                                    .shape = ir::Shape::of(g.tensor_shape(t)),
                                    .has_default = g.tensors.blob[t.value].valid(),
                                    .opr = o});
    }
    return inputs;
}

std::vector<EvalOutput> evaluate(const ir::Graph& g, const Feeds& feeds, const EvalOptions& options) {
    if (options.threads <= 0) return run(g, feeds, options);
    tbb::task_arena arena(options.threads);
    return arena.execute([&] { return run(g, feeds, options); });
}

Feeds random_feeds(const ir::Graph& g, uint64_t seed) {
    Feeds feeds;
    for (const GraphInput& in : graph_inputs(g)) {
        if (in.has_default) continue;
        if (!in.shape.known()) throw EvalError(fmt::format("input '{}' has no known shape", in.name));
        SplitMix rng{name_seed(seed, in.name)};
        const uint64_t n = in.shape.elements();
        std::vector<double> v(n);
        const auto t = in.dtype.type;
        for (uint64_t i = 0; i < n; ++i) {
            if (is_float_dtype(t)) v[i] = rng.uniform() * 2.0 - 1.0;
            else if (t == ir::DTypeEnum::Bool) v[i] = static_cast<double>(i % 2);
            else if (ir::dtype_is_quantized(t)) v[i] = dequantize(in.dtype, static_cast<int64_t>(rng.next() % 16) - 8 + in.dtype.zero_point);
            else v[i] = static_cast<double>(rng.next() % 4);
        }
        feeds.emplace(in.name, from_doubles(in.dtype, in.shape, v));
    }
    return feeds;
}

}  // namespace mgedump::engine::eval
