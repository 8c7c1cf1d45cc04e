#include "ir/validate.h"

#include <fmt/format.h>

#include <map>
#include <string_view>

#include "ir/describe.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/order.h"

namespace mgedump::ir {
namespace {

void check_operator(const Graph& g, OprId o) {
    OpTypeId type = g.oprs.type[o.value];
    if (!type.valid() || type.value >= op_defs().size())
        throw GraphError(fmt::format("{}: unknown operator type", describe_opr(g, o)));
    const OpDef& def = op_def(type);
    // Described only when an error needs it: formatting it for every operator
    // was a fifth of an operator-heavy dump (perf).
    auto who = [&] { return describe_opr(g, o); };

    auto inputs = g.inputs_of(o);
    if (inputs.size() < def.min_inputs || (def.max_inputs != kAnyCount && inputs.size() > def.max_inputs)) {
        std::string expected = def.max_inputs == kAnyCount ? fmt::format("at least {}", def.min_inputs)
                               : def.min_inputs == def.max_inputs
                                   ? fmt::format("{}", def.min_inputs)
                                   : fmt::format("{} to {}", def.min_inputs, def.max_inputs);
        throw GraphError(fmt::format("{}: has {} inputs, expected {}", who(), inputs.size(), expected));
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
        VarId in = inputs[i];
        if (in.value >= g.vars.size())
            throw GraphError(fmt::format("{}: input {} refers to var {}, which does not exist", who(), i, in.value));
        if (g.vars.flags[in.value] & kVarVolatile)
            throw GraphError(fmt::format("{}: input {} is volatile {}, which cannot be referenced", who(), i,
                                         describe_var(g, in)));
    }

    auto params = g.params_of(o);
    if (params.size() != def.params.size())
        throw GraphError(fmt::format("{}: has {} params, {} writes {}", who(), params.size(), def.name,
                                     def.params.size()));
    for (size_t i = 0; i < params.size(); ++i) {
        const ParamTableDesc& t = param_table(params[i].table);
        if (t.name != def.params[i])
            throw GraphError(fmt::format("{}: param {} is {}, expected {}", who(), i, t.name, def.params[i]));
        if (params[i].fields.size() != t.fields.size())
            throw GraphError(fmt::format("{}: param {} has {} fields, expected {}", who(), t.name,
                                         params[i].fields.size(), t.fields.size()));
    }

    // A param changed without Graph::refresh_first_field: inference would read a stale mode.
    if (o.value >= g.oprs.first_field.size() || g.oprs.first_field[o.value] != g.first_field_of(o))
        throw GraphError(fmt::format("{}: its params changed without Graph::refresh_first_field", who()));

    if (def.outputs != kAnyCount && g.oprs.outputs[o.value].count != def.outputs)
        throw GraphError(fmt::format("{}: has {} outputs, expected {}", who(), g.oprs.outputs[o.value].count,
                                     def.outputs));

    Range tensors = g.oprs.tensors[o.value];
    uint32_t expected_tensors = def.tensors == OpTensors::None             ? 0
                                : def.tensors == OpTensors::MultipleShared ? g.oprs.outputs[o.value].count
                                                                           : 1;
    if (tensors.count != expected_tensors)
        throw GraphError(fmt::format("{}: has {} tensors, expected {}", who(), tensors.count, expected_tensors));
    for (uint32_t t = tensors.begin; t < tensors.end(); ++t) {
        const TensorId id(t);
        const DType dt = g.tensors.dtype[t];
        BlobId blob = g.tensors.blob[t];
        TensorMethod m = g.tensors.method[t];
        if (m == TensorMethod::MetaInput && blob.valid())
            throw GraphError(fmt::format("{}: input tensor {} has a value but is META_INPUT", who(), t));
        if (m != TensorMethod::MetaInput && !blob.valid())
            throw GraphError(fmt::format("{}: tensor {} has no value", who(), t));
        if ((m == TensorMethod::MetaInput || m == TensorMethod::ValueInput) && g.str(g.tensors.name[t]).empty())
            throw GraphError(fmt::format("{}: input tensor must have a name", who()));
        if (blob.valid()) {
            if (!dt.valid) throw GraphError(fmt::format("{}: tensor {} has no dtype", who(), t));
            uint64_t expected = dtype_storage_bytes(dt.type, element_count(g.tensor_shape(id)));
            uint64_t actual = g.blobs.bytes(blob).size();
            if (actual != expected)
                throw GraphError(fmt::format("{}: tensor {} holds {} bytes, but {} of shape [{}] needs {}", who(), t,
                                             actual, dtype_name(dt.type), fmt::join(g.tensor_shape(id), ","),
                                             expected));
        }
    }
}

void check_output_names(const Graph& g) {
    std::map<std::string_view, VarId> seen;
    for (VarId out : g.outputs) {
        std::string_view name = g.str(g.vars.name[out.value]);
        auto [it, fresh] = seen.emplace(name, out);
        if (!fresh && it->second != out)
            throw GraphError(fmt::format("duplicated output var name '{}': {} and {}", name, describe_var(g, it->second),
                                         describe_var(g, out)));
    }
}

void check_outputs(const Graph& g) {
    if (g.outputs.empty()) throw GraphError("the graph has no outputs: can't dump an empty graph");
    for (VarId out : g.outputs) {
        if (out.value >= g.vars.size()) throw GraphError(fmt::format("graph output refers to missing var {}", out.value));
        if (g.vars.flags[out.value] & kVarVolatile)
            throw GraphError(fmt::format("graph output {} is volatile", describe_var(g, out)));
    }
}

// Only what the outputs reach is dumped, so only that is checked.
void check_reached(const Graph& g, const ValidateOptions& options, std::span<const OprId> order) {
    std::map<std::string_view, OprId> input_names;
    for (OprId o : order) {
        check_operator(g, o);
        if (op_def(g.oprs.type[o.value]).tensors == OpTensors::Input) {
            std::string_view name = g.str(g.tensors.name[g.oprs.tensors[o.value].begin]);
            auto [it, fresh] = input_names.emplace(name, o);
            if (!fresh)
                throw GraphError(fmt::format("{}: input name '{}' is already used by {}", describe_opr(g, o), name,
                                             describe_opr(g, it->second)));
        }
    }
    if (options.unique_output_names) check_output_names(g);
}

}  // namespace

void validate_operator(const Graph& g, OprId o) { check_operator(g, o); }

void validate_appended(const Graph& g, const ValidateOptions& options, std::span<const OprId> order, size_t first_new) {
    check_outputs(g);
    for (OprId o : order)
        if (o.value >= first_new) check_operator(g, o);
    if (options.unique_output_names) check_output_names(g);
}

void validate(const Graph& g, const ValidateOptions& options) {
    check_outputs(g);
    // dump_order also finds dangling inputs and cycles on the way.
    check_reached(g, options, dump_order(g));
}

void validate(const Graph& g, const ValidateOptions& options, std::span<const OprId> order) {
    check_outputs(g);
    check_reached(g, options, order);
}

}  // namespace mgedump::ir
