#include "formats/fbs_build.h"

#include <fmt/format.h>

#include "formats/param_codec.h"
#include "formats/write_plan.h"
#include "formats/write_scratch.h"
#include "ir/op_registry.h"

namespace mgedump::formats {

Fbb make_builder(size_t planned, const WritePlan& plan, WriteScratch* scratch) {
    if (plan.megengine_builder) {
        Fbb fbb;
        fbb.use_flatbuffers_pools();
        return fbb;
    }
    if (!scratch) return Fbb(planned);
    return Fbb(scratch->builder_size(planned), scratch->allocator());
}

flatbuffers::Offset<void> build_comp_node(Fbb& fbb, std::string_view locator) {
    auto str = fbb.CreateSharedString(locator.data(), locator.size());
    auto start = fbb.StartTable();
    fbb.AddOffset(slot_offset(0), str);
    return flatbuffers::Offset<void>(fbb.EndTable(start));
}

flatbuffers::Offset<flatbuffers::Vector<uint32_t>> build_shape(Fbb& fbb, std::span<const uint32_t> shape) {
    return fbb.CreateVector(shape.data(), shape.size());
}

BuiltParams build_params(Fbb& fbb, const ir::Graph& g, ir::OprId o, bool compat_8_14) {
    BuiltParams out;
    auto params = g.params_of(o);
    const bool empty_check_non_finite =
        compat_8_14 && ir::op_def(g.oprs.type[o.value]).name == "CheckNonFinite";
    for (const ir::ParamValue& p : params) {
        if (empty_check_non_finite) {
            ir::ParamTableId empty = ir::find_param_table("Empty");
            out.types.push_back(param_union_index(empty));
            out.tables.push_back(encode_param(fbb, ir::default_param(empty)));
            continue;
        }
        out.types.push_back(param_union_index(p.table));
        out.tables.push_back(encode_param(fbb, p));
    }
    return out;
}

flatbuffers::Offset<flatbuffers::Vector<uint32_t>> build_input_ids(Fbb& fbb, const ir::Graph& g, ir::OprId o,
                                                                   const std::vector<uint32_t>& compact_id) {
    auto ins = g.inputs_of(o);
    if (ins.empty()) return {};
    std::vector<uint32_t> ids;
    ids.reserve(ins.size());
    for (ir::VarId v : ins) ids.push_back(compact_id[v.value]);
    return fbb.CreateVector(ids);
}

OffsetVector build_opr_comp_nodes(Fbb& fbb, const ir::Graph& g, ir::OprId o) {
    auto cns = g.comp_nodes_of(o);
    if (cns.empty()) return {};
    std::vector<flatbuffers::Offset<void>> v;
    for (ir::StrId c : cns) v.push_back(build_comp_node(fbb, g.str(c)));
    return fbb.CreateVector(v);
}

flatbuffers::Offset<flatbuffers::String> build_opr_name(Fbb& fbb, const ir::Graph& g, ir::OprId o, bool keep) {
    if (!keep || !g.oprs.name[o.value].valid()) return {};
    std::string_view n = g.str(g.oprs.name[o.value]);
    return fbb.CreateSharedString(n.data(), n.size());
}

flatbuffers::Offset<flatbuffers::String> build_tensor_name(Fbb& fbb, const ir::Graph& g, ir::TensorId t,
                                                           bool keep_param_name, WriteStats& stats,
                                                           uint32_t& nr_shared_tensor) {
    const ir::TensorMethod method = g.tensors.method[t.value];
    const bool input = method == ir::TensorMethod::MetaInput || method == ir::TensorMethod::ValueInput;
    const bool param = method == ir::TensorMethod::ValueShared;
    const std::string_view name = g.str(g.tensors.name[t.value]);
    flatbuffers::Offset<flatbuffers::String> written;
    if ((input || (param && keep_param_name)) && g.tensors.name[t.value].valid())
        written = fbb.CreateSharedString(name.data(), name.size());
    if (input) stats.inputs.emplace_back(name);
    if (param) {
        ++nr_shared_tensor;
        if (keep_param_name) stats.params.emplace_back(name);
    }
    return written;
}

flatbuffers::Offset<void> build_blob(Fbb& fbb, std::span<const uint8_t> bytes) {
    auto data = fbb.CreateVector(bytes.data(), bytes.size());
    auto start = fbb.StartTable();
    fbb.AddOffset(slot_offset(0), data);
    return flatbuffers::Offset<void>(fbb.EndTable(start));
}

ExtraParams build_extra_params(Fbb& fbb, const BuiltParams& params) {
    ExtraParams extra;
    if (params.tables.size() > 1) {
        extra.types = fbb.CreateVector(params.types.data() + 1, params.types.size() - 1);
        extra.tables = fbb.CreateVector(params.tables.data() + 1, params.tables.size() - 1);
    }
    return extra;
}

// In both schemas param_type/param and additional_params_type/additional_params
// are pairs of consecutive slots.
void add_params(Fbb& fbb, const BuiltParams& params, const ExtraParams& extra, int param_type_slot,
                int additional_params_type_slot) {
    if (!params.tables.empty()) {
        fbb.AddElement<uint8_t>(slot_offset(param_type_slot), params.types[0], 0);
        fbb.AddOffset(slot_offset(param_type_slot + 1), params.tables[0]);
    }
    if (params.tables.size() > 1) {
        fbb.AddOffset(slot_offset(additional_params_type_slot), extra.types);
        fbb.AddOffset(slot_offset(additional_params_type_slot + 1), extra.tables);
    }
}

std::string var_name_for_dump(const ir::Graph& g, ir::VarId v, uint32_t compact_id) {
    ir::StrId name = g.vars.name[v.value];
    if (name.valid()) return std::string(g.str(name));
    return fmt::format("var{}", compact_id);
}

bool is_with_format(const ir::OpDef& def) {
    return def.name == "SharedDeviceTensorWithFormat" || def.name == "MultipleDeviceTensorWithFormatHolder";
}

std::span<const uint8_t> default_tensor_format_blob() {
    static constexpr uint8_t kDefault[4] = {0, 0, 0, 0};
    return kDefault;
}

std::vector<uint8_t> holder_count_blob(uint32_t count) {
    return {static_cast<uint8_t>(count), static_cast<uint8_t>(count >> 8), static_cast<uint8_t>(count >> 16),
            static_cast<uint8_t>(count >> 24)};
}

}  // namespace mgedump::formats

#include "ir/error.h"

namespace mgedump::formats {

uint64_t count_tables(const WritePlan& plan, bool v2) {
    const ir::Graph& g = plan.graph;
    auto dtype_tables = [](const ir::DType& d) -> uint64_t { return d.valid ? 1 + ir::dtype_is_quantized(d.type) : 0; };
    uint64_t n = 2;  // root + metadata
    for (ir::OprId o : plan.order) {
        n += 1 + g.oprs.params[o.value].count + g.oprs.comp_nodes[o.value].count + g.oprs.blobs[o.value].count;
        n += dtype_tables(g.oprs.output_dtype[o.value]);
        if (ir::op_def(g.oprs.type[o.value]).tensors == ir::OpTensors::MultipleShared) n += 1;  // count blob
        ir::Range t = g.oprs.tensors[o.value];
        for (uint32_t i = t.begin; i < t.end(); ++i)
            n += 2 + dtype_tables(g.tensors.dtype[i]) + (v2 ? 1 : 0);  // tensor, comp node, dtype, (format)
        if (v2 && plan.keep_var_name >= 1) n += g.oprs.outputs[o.value].count;  // middle tensors
    }
    if (v2) n += g.outputs.size();  // OutputVar is a table in v2
    return n;
}

void check_table_limit(const WritePlan& plan, bool v2, uint64_t limit) {
    uint64_t n = count_tables(plan, v2);
    if (n > limit)
        throw LimitError(fmt::format("the model needs {} FlatBuffers tables; MegEngine's verifier rejects more than {} "
                                     "(reduce the operator count, e.g. by merging parameters into fewer tensors)",
                                     n, limit));
}

}  // namespace mgedump::formats
