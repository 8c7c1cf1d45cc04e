// FBS v1 (spec §2.1, §10.1): header, tensor values consumed sequentially from the
// blob region in operator order, then the size-prefixed "mgb1" Graph FlatBuffer.
#include <cstring>

#include "formats/dtype_codec.h"
#include "formats/fbs_readers.h"
#include "formats/fbs_schemas.h"
#include "formats/model_reader_detail.h"
#include "formats/op_ids.h"
#include "ir/op_outputs.h"

namespace mgedump::formats {
namespace {

using namespace detail;
using namespace v1;

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

constexpr uint32_t kMagicMGBC = 0x4342474D;
constexpr uint32_t kMagicMGBS = 0x5342474D;

uint64_t load_le(const std::byte* p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(std::to_integer<uint8_t>(p[i])) << (8 * i);
    return v;
}

// The blob region, consumed exactly as MegEngine's loader does (§10.1 step 6).
struct BlobCursor {
    ir::Bytes region;
    uint64_t file_offset;  // of region[0]
    uint64_t pos = 0;

    ir::Bytes take(uint32_t data_size, uint32_t offset, uint64_t value_bytes, const std::string& who) {
        if (data_size > region.size() - pos)
            throw FormatError(fmt::format("{}: tensor data_size {} at byte {} runs past the end of the tensor "
                                          "region (byte {})",
                                          who, data_size, file_offset + pos, file_offset + region.size()));
        if (uint64_t{offset} + value_bytes > data_size)
            throw FormatError(fmt::format("{}: tensor value needs {} bytes after offset {}, more than its data_size "
                                          "{} (at byte {})",
                                          who, value_bytes, offset, data_size, file_offset + pos));
        ir::Bytes value = region.subspan(pos + offset, value_bytes);
        pos += data_size;  // a shorter value leaves the rest unread, as MegEngine skips it
        return value;
    }
};

struct V1Reader {
    ir::Bytes file;  // from the graph's first byte
    uint64_t base;   // file offset of file[0], for messages
    std::shared_ptr<const void> keepalive;
    bool unversioned_ids = false;

    [[noreturn]] void fail(uint64_t at, const std::string& what) const {
        throw FormatError(fmt::format("FBS v1 graph at byte {}: byte {}: {}", base, base + at, what));
    }

    LoadedModel run() {
        LoadedModel out;
        if (file.size() < 8) fail(0, "truncated header");
        const uint32_t magic = static_cast<uint32_t>(load_le(file.data(), 4));
        if (magic != kMagicMGBC && magic != kMagicMGBS)
            fail(0, fmt::format("wrong magic 0x{:08x} (expected MGBC or MGBS)", magic));
        unversioned_ids = magic == kMagicMGBS;
        out.format = unversioned_ids ? ModelFormat::FbsMGBS : ModelFormat::FbsMGBC;
        const uint64_t header = unversioned_ids ? 16 : 24;  // MGBC has 8 feature-bit bytes more
        if (file.size() < header) fail(0, fmt::format("truncated header: {} bytes, need {}", file.size(), header));
        const uint64_t offset_to_fbs = load_le(file.data() + header - 8, 8);
        if (offset_to_fbs > file.size() - header)
            fail(header - 8, fmt::format("offset_to_fbs {} points past the end of the file ({} bytes left)",
                                         offset_to_fbs, file.size() - header));
        const uint64_t fbs_at = header + offset_to_fbs;
        if (file.size() - fbs_at < 4) fail(fbs_at, "missing FlatBuffer size prefix");
        const uint64_t fbs_size = load_le(file.data() + fbs_at, 4) + 4;
        if (fbs_size > file.size() - fbs_at)
            fail(fbs_at, fmt::format("FlatBuffer of {} bytes runs past the end of the file ({} bytes left)",
                                     fbs_size, file.size() - fbs_at));
        out.bytes_consumed = fbs_at + fbs_size;

        FlatView fb = aligned_flatbuffer(file.subspan(fbs_at, fbs_size), keepalive);
        verify_or_throw(fb, "mgb1", graph_spec(), base + fbs_at, fmt::format("FBS v1 graph at byte {}", base));
        const auto* root = flatbuffers::GetRoot<Table>(fb.data + 4);

        BlobCursor blobs{file.subspan(header, offset_to_fbs), base + header};
        // Tensor values lie in the file, after the header; operator blobs inside the
        // FlatBuffer, which may be an aligned copy that this function's `fb` owns.
        GraphAssembler assembler(keepalive, fb.owner);
        out.mgb_version = scalar<uint32_t>(root, graph_slot::mgb_version);
        out.hash = scalar<uint64_t>(root, graph_slot::hash);
        if (out.hash == 0) fail(fbs_at, "Graph.hash is 0 (MegEngine never writes 0 and refuses it)");
        out.nr_shared_tensor = scalar<uint32_t>(root, graph_slot::nr_shared_tensor);

        size_t named_ops = 0, ops_with_outputs = 0;
        if (const auto* oprs = tables_at(root, graph_slot::oprs)) {
            for (flatbuffers::uoffset_t i = 0; i < oprs->size(); ++i) {
                bool named = read_operator(i, oprs->Get(i), blobs, assembler, out.settings);
                named_ops += named;
                ++ops_with_outputs;
            }
        }
        out.settings.keep_var_name = named_ops == 0 ? 0 : named_ops == ops_with_outputs ? 2 : 1;

        ir::Graph& g = assembler.graph();
        if (const auto* outs = vector_at<uint32_t>(root, graph_slot::output_vars_idx)) {
            // A vector of 8-byte structs {compact_id, original_id}; read as pairs of uint32.
            const uint32_t n = outs->size();
            const auto* words = reinterpret_cast<const uint8_t*>(outs->Data());
            std::vector<bool> seen(g.vars.size(), false);
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t compact = flatbuffers::ReadScalar<uint32_t>(words + 8 * k);
                const uint32_t original = flatbuffers::ReadScalar<uint32_t>(words + 8 * k + 4);
                if (compact >= assembler.numbered_vars())
                    throw FormatError(fmt::format("FBS v1 graph at byte {}: output #{} refers to var {}, but the "
                                                  "graph defines {}",
                                                  base, k, compact, assembler.numbered_vars()));
                const ir::VarId v = assembler.var_of(compact);
                g.outputs.push_back(v);
                // A var requested twice keeps its first original_id (the IR has one per var).
                if (!seen[v.value]) g.vars.original_id[v.value] = original;
                seen[v.value] = true;
            }
        }
        if (const Table* m = table_at(root, graph_slot::metadata)) {
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

    // Returns whether the operator names its outputs (output_name present).
    bool read_operator(uint32_t index, const Table* op, BlobCursor& blobs, GraphAssembler& assembler,
                       FileSettings& settings) {
        const uint64_t type_id = scalar<uint64_t>(op, opr_slot::type_id);
        PendingOp p;
        p.type = find_op_by_v1_id(type_id, unversioned_ids);
        if (!p.type.valid()) {
            std::string hint = type_id == kDynamicOpId ? " (a dynamically loaded operator, not supported)" : "";
            throw FormatError(fmt::format("FBS v1 graph at byte {}: operator #{}: unknown operator type id {}{}{}",
                                          base, index, type_id, unversioned_ids ? " (unversioned, MGBS)" : "",
                                          hint));
        }
        const ir::OpDef& def = ir::op_def(p.type);
        const std::string who = fmt::format("FBS v1 graph at byte {}: {}", base, opr_label(index, def.name));

        read_opr_fields(op, kOprSlots, def, true, assembler, who, p);
        const auto nr_inputs = static_cast<uint32_t>(p.inputs.size());
        settings.keep_opr_priority |= p.priority != 0;
        settings.keep_opr_name |= p.name.has_value();

        if (const auto* ts = tables_at(op, opr_slot::tensors))
            for (flatbuffers::uoffset_t k = 0; k < ts->size(); ++k)
                p.tensors.push_back(read_tensor(ts->Get(k), def, blobs, fmt::format("{}: tensor #{}", who, k)));
        for (const PendingTensor& t : p.tensors)
            settings.keep_param_name |= t.name.has_value() && (def.tensors == ir::OpTensors::Shared ||
                                                               def.tensors == ir::OpTensors::MultipleShared);
        check_tensor_count(def, p.tensors.size(), who);

        if (const auto* bs = tables_at(op, opr_slot::blobs))
            for (const Table* b : *bs) {
                const auto* data = vector_at<uint8_t>(b, blob_slot::data);
                p.blobs.push_back(ir::Bytes(reinterpret_cast<const std::byte*>(data->data()), data->size()));
            }
        if (def.tensors == ir::OpTensors::MultipleShared) consume_count_blob(p, who);

        // Output counts are not stored: MegEngine's operator factory decides them (ir/op_outputs.h).
        const auto* names = vector_at<flatbuffers::Offset<flatbuffers::String>>(op, opr_slot::output_name);
        std::optional<uint32_t> total =
            ir::derived_output_count(def, nr_inputs, p.params, static_cast<uint32_t>(p.tensors.size()));
        if (!total && names) total = names->size();
        if (!total)
            throw FormatError(fmt::format("{}: its output count is not stored and cannot be derived without "
                                          "output names",
                                          who));
        uint32_t leading = ir::v1_leading_volatile_outputs(def, nr_inputs);
        // A dump with no_change_graph keeps every CheckNonFinite output numbered; its names say so.
        if (leading && names && names->size() == *total) leading = 0;
        if (*total == 0 || leading >= *total)
            throw FormatError(fmt::format("{}: has no numbered outputs", who));
        if (names && names->size() != *total - leading)
            throw FormatError(fmt::format("{}: output_name has {} names, but {} has {} numbered outputs", who,
                                          names->size(), def.name, *total - leading));
        if (names)
            for (const auto* s : *names) p.output_names.emplace_back(s->c_str(), s->size());
        p.nr_outputs = *total;
        p.leading_volatile = leading;
        assembler.add(std::move(p));
        return names != nullptr;
    }

    PendingTensor read_tensor(const Table* t, const ir::OpDef& def, BlobCursor& blobs, const std::string& who) {
        PendingTensor out;
        out.name = opt_string(t, tensor_slot::name);
        if (const auto* shape = vector_at<uint32_t>(t, tensor_slot::shape)) out.shape.assign(shape->begin(), shape->end());
        if (const Table* cn = table_at(t, tensor_slot::comp_node)) out.comp_node = opt_string(cn, 0);
        try {
            out.dtype = decode_dtype(table_at(t, tensor_slot::dtype));
        } catch (const FormatError& e) {
            throw FormatError(fmt::format("{}: {}", who, e.what()));
        }
        const uint32_t data_size = scalar<uint32_t>(t, tensor_slot::data_size);
        const uint32_t offset = scalar<uint32_t>(t, tensor_slot::offset);
        if (data_size == 0) {
            // The shared path (constants, params) asserts a value (§10.1 step 6).
            if (def.tensors != ir::OpTensors::Input)
                throw FormatError(fmt::format("{}: has no value (data_size 0); MegEngine cannot load an empty "
                                              "constant or param from FBS v1",
                                              who));
            return out;
        }
        if (!out.dtype.valid) throw FormatError(fmt::format("{}: has a value but no dtype", who));
        std::optional<uint64_t> bytes = tensor_bytes(out.dtype, out.shape);
        if (!bytes) throw FormatError(fmt::format("{}: shape's element count overflows", who));
        out.value = blobs.take(data_size, offset, *bytes, who);
        return out;
    }

    // MultipleDeviceTensorHolder writes its tensor count as blob #0; the writers
    // synthesize it again, so the IR does not keep it.
    static void consume_count_blob(PendingOp& p, const std::string& who) {
        if (p.blobs.empty() || p.blobs[0].size() != 4)
            throw FormatError(fmt::format("{}: missing its 4-byte tensor count blob", who));
        const uint32_t count = static_cast<uint32_t>(load_le(p.blobs[0].data(), 4));
        if (count != p.tensors.size())
            throw FormatError(fmt::format("{}: count blob says {} tensors, the operator has {}", who, count,
                                          p.tensors.size()));
        p.blobs.erase(p.blobs.begin());
    }
};

}  // namespace

LoadedModel read_fbs_v1(ir::Bytes bytes, uint64_t base, std::shared_ptr<const void> keepalive) {
    return V1Reader{bytes, base, std::move(keepalive)}.run();
}

}  // namespace mgedump::formats
