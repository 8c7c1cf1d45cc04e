#include "formats/model_reader_detail.h"

#include <algorithm>
#include <cstring>

#include "formats/dtype_codec.h"
#include "formats/param_codec.h"
#include "ir/builder.h"
#include "ir/param_schema.h"

namespace mgedump::formats::detail {

FlatView aligned_flatbuffer(ir::Bytes region, const std::shared_ptr<const void>& keepalive) {
    const auto* p = reinterpret_cast<const uint8_t*>(region.data());
    if (reinterpret_cast<uintptr_t>(p) % 8 == 0) return {p, region.size(), keepalive};
    auto copy = std::make_shared<std::vector<uint64_t>>((region.size() + 7) / 8);
    if (!region.empty()) std::memcpy(copy->data(), p, region.size());
    return {reinterpret_cast<const uint8_t*>(copy->data()), region.size(), copy};
}

void verify_or_throw(const FlatView& fb, const char* identifier, const fbsv::TableSpec& root, uint64_t file_offset,
                     std::string_view what) {
    fbsv::VerifyResult r = fbsv::verify_size_prefixed(fb.data, fb.size, identifier, root);
    if (!r.ok)
        throw FormatError(fmt::format("{}: FlatBuffer verification failed at {} (table at byte {})", what, r.where,
                                      file_offset + r.table_offset));
}

std::optional<uint64_t> tensor_bytes(ir::DType dtype, std::span<const uint32_t> shape) {
    uint64_t n = 1;
    for (uint32_t d : shape) {
        if (d != 0 && n > UINT64_MAX / 8 / d) return std::nullopt;  // bits must fit too
        n *= d;
    }
    return ir::dtype_storage_bytes(dtype.type, n);
}

namespace {

void check_param_values(const ir::ParamValue& p, const std::string& who) {
    const ir::ParamTableDesc& t = ir::param_table(p.table);
    for (size_t i = 0; i < t.fields.size(); ++i) {
        int64_t dtype = -1;
        if (t.fields[i].type == ir::FieldType::DTypeEnum) dtype = std::get<int64_t>(p.fields[i]);
        if (t.fields[i].type == ir::FieldType::DTypeScalar)
            dtype = static_cast<int8_t>(std::get<ir::DTypeScalar>(p.fields[i]).dtype);
        if ((t.fields[i].type == ir::FieldType::DTypeEnum || t.fields[i].type == ir::FieldType::DTypeScalar) &&
            (dtype < 0 || dtype >= ir::kDTypeCount))
            throw FormatError(fmt::format("{}: param {}.{} holds unknown DTypeEnum value {}", who, t.name,
                                          t.fields[i].name, dtype));
    }
}

std::string union_label(uint8_t type) {
    ir::ParamTableId id = param_table_for_union(type);
    return id.valid() ? fmt::format("{} ({})", type, ir::param_table(id).name) : fmt::format("{} (unknown)", type);
}

}  // namespace

std::vector<ir::ParamValue> read_params(const Table* op, int type_slot, int param_slot, int extra_types_slot,
                                        int extra_slot, const ir::OpDef& def, bool allow_empty_check_non_finite,
                                        const std::string& who) {
    struct Raw {
        uint8_t type;
        const Table* table;
    };
    std::vector<Raw> raw;
    if (uint8_t t = scalar<uint8_t>(op, type_slot); t != 0) raw.push_back({t, table_at(op, param_slot)});
    const auto* types = vector_at<uint8_t>(op, extra_types_slot);
    const auto* values = tables_at(op, extra_slot);
    if (types && values) {
        if (raw.empty() && types->size() > 0)
            throw FormatError(fmt::format("{}: has additional params but no first param", who));
        for (flatbuffers::uoffset_t i = 0; i < types->size(); ++i) raw.push_back({types->Get(i), values->Get(i)});
    }
    if (raw.size() != def.params.size())
        throw FormatError(fmt::format("{}: has {} params, MegEngine's {} reads {}", who, raw.size(), def.name,
                                      def.params.size()));
    std::vector<ir::ParamValue> out;
    out.reserve(raw.size());
    const uint8_t empty = param_union_index(ir::find_param_table("Empty"));
    for (size_t k = 0; k < raw.size(); ++k) {
        const ir::ParamTableId expected = ir::find_param_table(def.params[k]);
        const uint8_t expected_union = param_union_index(expected);
        if (raw[k].type != expected_union) {
            if (allow_empty_check_non_finite && def.name == "CheckNonFinite" && raw[k].type == empty) {
                out.push_back(ir::default_param(expected));
                continue;
            }
            throw FormatError(fmt::format("{}: param #{} has union type {}, {} expects {}", who, k,
                                          union_label(raw[k].type), def.name, union_label(expected_union)));
        }
        try {
            out.push_back(decode_param(expected, raw[k].table));
        } catch (const FormatError& e) {
            throw FormatError(fmt::format("{}: param #{}: {}", who, k, e.what()));
        }
        check_param_values(out.back(), who);
    }
    return out;
}

std::vector<ir::VarId> GraphAssembler::resolve_inputs(const flatbuffers::Vector<uint32_t>* ids,
                                                      const std::string& who) const {
    std::vector<ir::VarId> out;
    if (!ids) return out;
    out.reserve(ids->size());
    for (flatbuffers::uoffset_t i = 0; i < ids->size(); ++i) {
        const uint32_t id = ids->Get(i);
        if (id >= numbered_.size())
            throw FormatError(fmt::format("{}: input #{} refers to var {}, but only {} vars are defined before it",
                                          who, i, id, numbered_.size()));
        out.push_back(numbered_[id]);
    }
    return out;
}

ir::OprId GraphAssembler::add(PendingOp op) {
    ir::Graph& g = g_;
    const ir::OpDef& def = ir::op_def(op.type);
    ir::OpOptions options;
    if (op.name) options.name = std::string(*op.name);
    options.priority = op.priority;
    options.comp_nodes = std::move(op.comp_nodes);
    options.output_dtype = op.output_dtype;
    options.outputs = op.nr_outputs;
    // append_op completes some params the way a builder user means them (Dimshuffle's
    // ndim 0 → the input rank); a loader keeps exactly what the file says.
    const std::vector<ir::ParamValue> file_params = op.params;
    for (ir::ParamValue& p : op.params) {
        const int ndim = ir::find_field(ir::param_table(p.table), "ndim");
        if (def.name == "Dimshuffle" && ndim >= 0) p.fields[ndim] = int64_t{1};
    }
    const ir::OprId o = ir::append_op(g, op.type, op.inputs, std::move(op.params), options);
    std::copy(file_params.begin(), file_params.end(), g.params.begin() + g.oprs.params[o.value].begin);
    // An empty name is still a name (MegEngine tells "" from absent).
    if (op.name) g.oprs.name[o.value] = g.strings.intern(*op.name);

    for (const PendingTensor& t : op.tensors) {
        ir::TensorMethod method;
        switch (def.tensors) {
            case ir::OpTensors::Input:
                method = t.value ? ir::TensorMethod::ValueInput : ir::TensorMethod::MetaInput;
                break;
            case ir::OpTensors::Shared:
            case ir::OpTensors::MultipleShared:
                method = ir::TensorMethod::ValueShared;
                break;
            default:
                method = ir::TensorMethod::ValueAnonymous;
        }
        g.tensors.name.push_back(t.name ? g.strings.intern(*t.name) : ir::StrId());
        g.tensors.dtype.push_back(t.dtype);
        g.tensors.shape.push_back(g.add_dims(t.shape));
        g.tensors.comp_node.push_back(t.comp_node ? g.strings.intern(*t.comp_node) : ir::StrId());
        g.tensors.method.push_back(method);
        g.tensors.blob.push_back(t.value ? g.blobs.add_view(*t.value, values_owner_) : ir::BlobId());
        g.tensors.format_type.push_back(t.format_type);
        g.oprs.tensors[o.value].count += 1;
    }
    for (ir::Bytes b : op.blobs) {
        g.opr_blobs.push_back(g.blobs.add_view(b, flatbuffer_owner_));
        g.oprs.blobs[o.value].count += 1;
    }

    const ir::Range outs = g.oprs.outputs[o.value];
    // Outputs that stand for a tensor (inputs, constants, params) take its dtype and shape.
    const ir::Range tr = g.oprs.tensors[o.value];
    if (def.tensors != ir::OpTensors::None)
        for (uint32_t k = 0; k < outs.count && k < tr.count; ++k) {
            g.vars.dtype[outs.begin + k] = g.tensors.dtype[tr.begin + k];
            g.vars.shape[outs.begin + k] = g.tensors.shape[tr.begin + k];
        }
    for (uint32_t k = 0; k < op.leading_volatile; ++k) g.vars.flags[outs.begin + k] |= ir::kVarVolatile;
    for (uint32_t k = op.leading_volatile; k < outs.count; ++k) {
        const ir::VarId v(outs.begin + k);
        const uint32_t numbered_index = k - op.leading_volatile;
        if (numbered_index < op.output_shapes.size() && !op.output_shapes[numbered_index].empty() &&
            g.vars.shape[v.value].empty())
            g.vars.shape[v.value] = g.add_dims(op.output_shapes[numbered_index]);
        if (numbered_index < op.output_names.size())
            g.vars.name[v.value] = g.strings.intern(op.output_names[numbered_index]);
        else if (def.tensors == ir::OpTensors::Input && tr.count > 0 && g.tensors.name[tr.begin].valid())
            g.vars.name[v.value] = g.tensors.name[tr.begin];  // as Python's load_graph names inputs
        numbered_.push_back(v);
    }
    return o;
}

void check_tensor_count(const ir::OpDef& def, size_t n, const std::string& who) {
    const bool ok = def.tensors == ir::OpTensors::None             ? n == 0
                    : def.tensors == ir::OpTensors::MultipleShared ? n > 0
                                                                   : n == 1;
    if (!ok) throw FormatError(fmt::format("{}: has {} tensors, which {} does not take", who, n, def.name));
}

void read_opr_fields(const Table* op, const OprSlots& slots, const ir::OpDef& def, bool allow_empty_check_non_finite,
                     const GraphAssembler& assembler, const std::string& who, PendingOp& p) {
    p.params = read_params(op, slots.param_type, slots.param, slots.additional_params_type, slots.additional_params,
                           def, allow_empty_check_non_finite, who);
    p.inputs = assembler.resolve_inputs(vector_at<uint32_t>(op, slots.inputs), who);
    const auto nr_inputs = static_cast<uint32_t>(p.inputs.size());
    if (nr_inputs < def.min_inputs || (def.max_inputs != ir::kAnyCount && nr_inputs > def.max_inputs))
        throw FormatError(fmt::format("{}: has {} inputs, {} takes {} to {}", who, nr_inputs, def.name, def.min_inputs,
                                      def.max_inputs == ir::kAnyCount ? std::string("any")
                                                                      : std::to_string(def.max_inputs)));
    if (const auto* cns = tables_at(op, slots.comp_node))
        for (const Table* cn : *cns) p.comp_nodes.push_back(comp_node_locator(cn));
    try {
        p.output_dtype = decode_dtype(table_at(op, slots.output_dtype));
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("{}: output_dtype: {}", who, e.what()));
    }
    p.priority = scalar<int32_t>(op, slots.priority);
    p.name = opt_string(op, slots.name);
}

std::string opr_label(uint32_t index, std::string_view type_name) {
    return fmt::format("operator #{} ({})", index, type_name);
}

std::string comp_node_locator(const Table* comp_node) {
    if (!comp_node) return {};
    return std::string(opt_string(comp_node, 0).value_or(""));
}

}  // namespace mgedump::formats::detail
