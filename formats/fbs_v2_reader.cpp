// FBS_V2 (spec §2.2, §10.2): one size-prefixed "mgv2" Model FlatBuffer with tensor
// values inline; operators identified by (type_id, opr_version), var ids explicit.
#include <algorithm>

#include "formats/dtype_codec.h"
#include "formats/fbs_readers.h"
#include "formats/fbs_schemas.h"
#include "formats/model_reader_detail.h"
#include "formats/op_ids.h"
#include "ir/op_outputs.h"

namespace mgedump::formats {
namespace {

using namespace detail;
using namespace v2;

// The operator fields read alike in both formats, at this format's slots.
constexpr OprSlots kOprSlots{.param_type = opr_slot::param_type,
                             .param = opr_slot::param,
                             .additional_params_type = opr_slot::additional_params_type,
                             .additional_params = opr_slot::additional_params,
                             .inputs = opr_slot::inputs,
                             .comp_node = opr_slot::comp_node,
                             .output_dtype = opr_slot::output_dtype,
                             .priority = opr_slot::priority,
                             .name = opr_slot::name};

struct V2Reader {
    ir::Bytes file;
    uint64_t base;
    std::shared_ptr<const void> keepalive;
    FlatView fb;

    std::string where() const { return fmt::format("FBS_V2 model at byte {}", base); }
    uint64_t file_offset(const void* p) const {
        return base + static_cast<uint64_t>(static_cast<const uint8_t*>(p) - fb.data);
    }

    LoadedModel run() {
        LoadedModel out;
        out.format = ModelFormat::FbsV2;
        if (file.size() < 12) throw FormatError(fmt::format("{}: truncated ({} bytes)", where(), file.size()));
        uint64_t size = 0;
        for (int i = 0; i < 4; ++i) size |= uint64_t(std::to_integer<uint8_t>(file[i])) << (8 * i);
        size += 4;
        if (size > file.size())
            throw FormatError(fmt::format("{}: size prefix says {} bytes, only {} are left", where(), size,
                                          file.size()));
        out.bytes_consumed = size;
        // The verified buffer is the tensors' keepalive too: values are viewed inside it.
        fb = aligned_flatbuffer(file.subspan(0, size), keepalive);
        verify_or_throw(fb, "mgv2", model_spec(), base, where());
        const auto* root = flatbuffers::GetRoot<Table>(fb.data + 4);

        out.mgb_version = scalar<uint32_t>(root, model_slot::mge_version);
        out.model_version = scalar<uint32_t>(root, model_slot::model_version);
        out.nr_shared_tensor = scalar<uint32_t>(root, model_slot::nr_shared_tensor);
        const auto* middle = tables_at(root, model_slot::middle_tensors);
        out.settings.keep_var_name = middle ? 1 : 0;

        GraphAssembler assembler(fb.owner, fb.owner);  // values and blobs lie inside the FlatBuffer
        if (const auto* oprs = tables_at(root, model_slot::oprs))
            for (flatbuffers::uoffset_t i = 0; i < oprs->size(); ++i)
                read_operator(i, oprs->Get(i), middle, assembler, out.settings);

        ir::Graph& g = assembler.graph();
        std::vector<bool> seen(g.vars.size(), false);
        if (const auto* outs = tables_at(root, model_slot::output_vars_idx))
            for (flatbuffers::uoffset_t k = 0; k < outs->size(); ++k) {
                const uint32_t compact = scalar<uint32_t>(outs->Get(k), output_var_slot::compact_id);
                if (compact >= assembler.numbered_vars())
                    throw FormatError(fmt::format("{}: output #{} refers to var {}, but the model defines {}",
                                                  where(), k, compact, assembler.numbered_vars()));
                const ir::VarId v = assembler.var_of(compact);
                g.outputs.push_back(v);
                if (!seen[v.value]) g.vars.original_id[v.value] = scalar<uint32_t>(outs->Get(k), output_var_slot::original_id);
                seen[v.value] = true;
            }
        apply_aliases(root, g);
        if (const Table* m = table_at(root, model_slot::metadata)) {
            ir::Metadata md;
            md.is_valid = scalar<uint8_t>(m, meta_slot::is_valid) != 0;
            md.graph_modified = scalar<uint8_t>(m, meta_slot::graph_modified) != 0;
            md.user_info = std::string(opt_string(m, meta_slot::user_info).value_or(""));
            md.optimize_options = scalar<uint64_t>(m, meta_slot::optimize_options);
            out.metadata = md;
        }
        out.graph = std::move(g);
        return out;
    }

    // §10.2 step 6: a non-empty alias list replaces the outputs, in alias order,
    // under the alias names. (mgedump's writers never write aliases.)
    void apply_aliases(const Table* root, ir::Graph& g) const {
        const auto* aliases = tables_at(root, model_slot::output_alias);
        if (!aliases || aliases->size() == 0) return;
        std::vector<ir::VarId> outputs;
        for (flatbuffers::uoffset_t k = 0; k < aliases->size(); ++k) {
            const uint32_t id = scalar<uint32_t>(aliases->Get(k), alias_slot::id);
            auto it = std::find_if(g.outputs.begin(), g.outputs.end(),
                                   [&](ir::VarId v) { return g.vars.original_id[v.value] == id; });
            if (it == g.outputs.end())
                throw FormatError(fmt::format("{}: output alias #{} names original id {}, which no output has",
                                              where(), k, id));
            if (auto name = opt_string(aliases->Get(k), alias_slot::name)) g.vars.name[it->value] = g.strings.intern(*name);
            outputs.push_back(*it);
        }
        g.outputs = std::move(outputs);
    }

    void read_operator(uint32_t index, const Table* op, const flatbuffers::Vector<flatbuffers::Offset<Table>>* middle,
                       GraphAssembler& assembler, FileSettings& settings) {
        const uint64_t type_id = scalar<uint64_t>(op, opr_slot::type_id);
        const uint32_t version = scalar<uint32_t>(op, opr_slot::opr_version);
        PendingOp p;
        p.type = find_op_by_v2_id(type_id, version);
        if (!p.type.valid())
            throw FormatError(fmt::format("{}: operator #{} (byte {}): unknown operator \"{}\" with type id {} and "
                                          "opr_version {}",
                                          where(), index, file_offset(op), opt_string(op, opr_slot::type).value_or(""),
                                          type_id, version));
        const ir::OpDef& def = ir::op_def(p.type);
        const std::string who = fmt::format("{}: {}", where(), opr_label(index, def.name));

        read_opr_fields(op, kOprSlots, def, false, assembler, who, p);
        const auto nr_inputs = static_cast<uint32_t>(p.inputs.size());
        settings.keep_opr_priority |= p.priority != 0;
        settings.keep_opr_name |= p.name.has_value();

        if (const auto* ts = tables_at(op, opr_slot::tensors))
            for (flatbuffers::uoffset_t k = 0; k < ts->size(); ++k)
                p.tensors.push_back(read_tensor(ts->Get(k), def, fmt::format("{}: tensor #{}", who, k)));
        check_tensor_count(def, p.tensors.size(), who);
        for (const PendingTensor& t : p.tensors)
            settings.keep_param_name |= t.name.has_value() && (def.tensors == ir::OpTensors::Shared ||
                                                               def.tensors == ir::OpTensors::MultipleShared);

        if (const auto* bs = tables_at(op, opr_slot::custom_data))
            for (const Table* b : *bs) {
                const auto* data = vector_at<uint8_t>(b, blob_slot::data);
                p.blobs.push_back(data ? ir::Bytes(reinterpret_cast<const std::byte*>(data->data()), data->size())
                                       : ir::Bytes());
            }
        // Version 1 of the holder leads with a 4-byte tensor count (§5); the writers synthesize it.
        if (def.tensors == ir::OpTensors::MultipleShared && version < 2) {
            if (p.blobs.empty() || p.blobs[0].size() != 4)
                throw FormatError(fmt::format("{}: missing its 4-byte tensor count blob", who));
            uint32_t count = 0;
            for (int i = 0; i < 4; ++i) count |= uint32_t(std::to_integer<uint8_t>(p.blobs[0][i])) << (8 * i);
            if (count != p.tensors.size())
                throw FormatError(fmt::format("{}: count blob says {} tensors, the operator has {}", who, count,
                                              p.tensors.size()));
            p.blobs.erase(p.blobs.begin());
        }

        // §10.2 step 4: the ids must be exactly the running counter.
        const auto* outs = vector_at<uint32_t>(op, opr_slot::outputs);
        const uint32_t n = outs ? outs->size() : 0;
        for (uint32_t k = 0; k < n; ++k)
            if (outs->Get(k) != assembler.numbered_vars() + k)
                throw FormatError(fmt::format("{}: output #{} has id {}, expected {} (ids must be dense and "
                                              "consecutive in operator order)",
                                              who, k, outs->Get(k), assembler.numbered_vars() + k));
        if (n == 0) throw FormatError(fmt::format("{}: has no numbered outputs", who));
        std::optional<uint32_t> expected =
            ir::derived_output_count(def, nr_inputs, p.params, static_cast<uint32_t>(p.tensors.size()));
        if (expected && *expected != n)
            throw FormatError(fmt::format("{}: lists {} outputs, {} has {}", who, n, def.name, *expected));
        if (middle)
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t id = assembler.numbered_vars() + k;
                if (id >= middle->size()) break;
                const auto* shape = vector_at<uint32_t>(middle->Get(id), middle_slot::shape);
                p.output_shapes.emplace_back(shape ? std::vector<uint32_t>(shape->begin(), shape->end())
                                                   : std::vector<uint32_t>{});
            }
        if (middle)
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t id = assembler.numbered_vars() + k;
                if (id < middle->size())
                    if (auto name = opt_string(middle->Get(id), middle_slot::name)) p.output_names.push_back(*name);
                if (p.output_names.size() != k + 1) break;  // names only for a leading run
            }
        p.nr_outputs = n;
        assembler.add(std::move(p));
    }

    PendingTensor read_tensor(const Table* t, const ir::OpDef& def, const std::string& who) const {
        PendingTensor out;
        out.name = opt_string(t, tensor_slot::name);
        if (const auto* shape = vector_at<uint32_t>(t, tensor_slot::shape)) out.shape.assign(shape->begin(), shape->end());
        if (const Table* cn = table_at(t, tensor_slot::comp_node)) out.comp_node = opt_string(cn, 0);
        try {
            out.dtype = decode_dtype(table_at(t, tensor_slot::dtype));
        } catch (const FormatError& e) {
            throw FormatError(fmt::format("{}: {}", who, e.what()));
        }
        out.format_type = scalar<uint8_t>(t, tensor_slot::format_type);
        const auto* data = vector_at<uint8_t>(t, tensor_slot::data);
        if (!data) {
            if (def.tensors != ir::OpTensors::Input)
                throw FormatError(fmt::format("{}: has no value; {} needs one", who, def.name));
            return out;
        }
        if (!out.dtype.valid) throw FormatError(fmt::format("{}: has a value but no dtype", who));
        std::optional<uint64_t> bytes = tensor_bytes(out.dtype, out.shape);
        if (!bytes || *bytes != data->size())
            throw FormatError(fmt::format("{} (byte {}): holds {} bytes, but {} of shape [{}] needs {}", who,
                                          file_offset(data), data->size(), ir::dtype_name(out.dtype.type),
                                          fmt::join(out.shape, ","),
                                          bytes ? std::to_string(*bytes) : std::string("more than 2^64")));
        out.value = ir::Bytes(reinterpret_cast<const std::byte*>(data->data()), data->size());
        return out;
    }
};

}  // namespace

LoadedModel read_fbs_v2(ir::Bytes bytes, uint64_t base, std::shared_ptr<const void> keepalive) {
    return V2Reader{bytes, base, std::move(keepalive), {}}.run();
}

}  // namespace mgedump::formats
