#include "ir/graph.h"

#include <algorithm>
#include <cstdint>
#include <variant>

namespace mgedump::ir {

Range Graph::add_dims(std::span<const uint32_t> shape) {
    Range r{static_cast<uint32_t>(dims.size()), static_cast<uint32_t>(shape.size())};
    dims.insert(dims.end(), shape.begin(), shape.end());
    return r;
}

int32_t Graph::first_field_of(OprId o) const {
    const std::span<const ParamValue> ps = params_of(o);
    if (ps.empty() || ps[0].fields.empty()) return kNoFirstField;
    const int64_t* v = std::get_if<int64_t>(&ps[0].fields[0]);
    if (!v || *v <= kNoFirstField || *v > INT32_MAX) return kNoFirstField;
    return static_cast<int32_t>(*v);
}

void Graph::refresh_first_field(OprId o) { oprs.first_field[o.value] = first_field_of(o); }

void Graph::redirect(VarId from, VarId to) {
    inferred = false;
    std::replace(opr_inputs.begin(), opr_inputs.end(), from, to);
    std::replace(outputs.begin(), outputs.end(), from, to);
}

void Graph::remove_newest_operator() {
    if (oprs.size() == 0) return;
    const size_t o = oprs.size() - 1;
    const Range outs = oprs.outputs[o], tens = oprs.tensors[o];
    auto cut = [](auto& column, size_t n) { column.resize(std::min(column.size(), n)); };
    cut(opr_inputs, oprs.inputs[o].begin);
    cut(params, oprs.params[o].begin);
    cut(opr_comp_nodes, oprs.comp_nodes[o].begin);
    cut(opr_blobs, oprs.blobs[o].begin);
    for (auto* column : {&oprs.inputs, &oprs.outputs, &oprs.tensors, &oprs.blobs, &oprs.params, &oprs.comp_nodes})
        cut(*column, o);
    cut(oprs.type, o);
    cut(oprs.name, o);
    cut(oprs.priority, o);
    cut(oprs.output_dtype, o);
    cut(oprs.first_field, o);
    cut(vars.name, outs.begin);
    cut(vars.dtype, outs.begin);
    cut(vars.shape, outs.begin);
    cut(vars.owner, outs.begin);
    cut(vars.flags, outs.begin);
    cut(vars.original_id, outs.begin);
    cut(tensors.name, tens.begin);
    cut(tensors.dtype, tens.begin);
    cut(tensors.shape, tens.begin);
    cut(tensors.comp_node, tens.begin);
    cut(tensors.method, tens.begin);
    cut(tensors.blob, tens.begin);
    cut(tensors.format_type, tens.begin);
}

uint64_t element_count(std::span<const uint32_t> shape) {
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    return n;
}

}  // namespace mgedump::ir
