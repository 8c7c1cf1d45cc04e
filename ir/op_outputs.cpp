#include "ir/op_outputs.h"

namespace mgedump::ir {
namespace {

// The first field of the operator's first param table, as an integer (mode enums).
std::optional<int64_t> first_param_field(std::span<const ParamValue> params, std::string_view field) {
    if (params.empty()) return std::nullopt;
    const ParamTableDesc& t = param_table(params[0].table);
    int idx = find_field(t, field);
    if (idx < 0 || static_cast<size_t>(idx) >= params[0].fields.size()) return std::nullopt;
    if (const auto* v = std::get_if<int64_t>(&params[0].fields[idx])) return *v;
    return std::nullopt;
}

}  // namespace

std::optional<uint32_t> derived_output_count(const OpDef& def, uint32_t nr_inputs,
                                             std::span<const ParamValue> params, uint32_t nr_tensors) {
    if (def.outputs != kAnyCount) return def.outputs;
    if (def.tensors == OpTensors::MultipleShared) return nr_tensors;
    if (def.name == "Split") return nr_inputs > 0 ? nr_inputs - 1 : 0;
    if (def.name == "CheckNonFinite") return nr_inputs + 1;
    if (def.name == "TopK") {
        // TopKMode: KTH_ONLY = 0 yields the k-th values only; the VALUE_IDX modes add indices.
        auto mode = first_param_field(params, "mode");
        return mode.value_or(0) == 0 ? 1u : 2u;
    }
    if (def.name == "BatchNorm") {
        // BNFwdMode INFERENCE = 1: the batch statistics outputs (#0, #1) are volatile.
        auto mode = first_param_field(params, "fwd_mode");
        return (mode.value_or(0) == 1 || nr_inputs == 3) ? 4u : 6u;
    }
    return std::nullopt;
}

std::optional<uint32_t> derived_output_count(const Graph& g, OprId o) {
    return derived_output_count(op_def(g.oprs.type[o.value]), g.oprs.inputs[o.value].count, g.params_of(o),
                                g.oprs.tensors[o.value].count);
}

uint32_t v1_leading_volatile_outputs(const OpDef& def, uint32_t nr_inputs) {
    return def.name == "CheckNonFinite" ? nr_inputs : 0;
}

}  // namespace mgedump::ir
