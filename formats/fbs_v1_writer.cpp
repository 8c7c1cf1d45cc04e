// FBS v1 ("mgb1"): header, tensor values out of band in loader order, then a
// size-prefixed Graph FlatBuffer. The build sequence replays MegEngine's
// (spec §6.4) call for call, because object creation order is what makes the
// bytes, and the bytes are what the content hash covers.
#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "formats/dtype_codec.h"
#include "formats/fbs_build.h"
#include "formats/op_ids.h"
#include "formats/write_plan.h"
#include "formats/write_scratch.h"
#include "ir/describe.h"
#include "ir/error.h"
#include "ir/op_registry.h"

namespace mgedump::formats {
namespace {

constexpr uint32_t kMagicMGBC = 0x4342474D;
constexpr uint32_t kMagicMGBS = 0x5342474D;
constexpr uint64_t kContentHashSeed = 0x4b4e74b36b5d11ULL;

// Slots of schema.fbs tables (spec §3.2).
namespace tensor_slot {
enum { name, shape, comp_node, dtype, data_size, offset };
}
namespace opr_slot {
enum {
    type_id,
    param_type,
    param,
    inputs,
    comp_node,
    output_name,
    output_dtype,
    tensors,
    priority,
    blobs,
    additional_params_type,
    additional_params,
    name
};
}
namespace meta_slot {
enum { is_valid, graph_modified, user_info, optimize_options };
}
namespace graph_slot {
enum { mgb_version, hash, nr_shared_tensor, oprs, output_vars_idx, metadata };
}

void put_le(std::vector<std::byte>& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
}

struct V1Writer {
    const WritePlan& plan;
    WriteStats& stats;
    const ir::Graph& g;
    Fbb fbb;
    WriterLists own_lists;  // without a scratch
    WriterLists& lists;
    Serialized out;
    uint64_t blob_bytes = 0;
    uint32_t nr_shared_tensor = 0;
    std::unordered_set<uint32_t> requested;  // only membership tests: order never leaks

    V1Writer(const WritePlan& p, WriteStats& s, WriteScratch* scratch)
        : plan(p), stats(s), g(p.graph), fbb(make_builder(initial_size(p), p, scratch)),
          lists(scratch ? scratch->lists : own_lists) {
        for (ir::VarId v : g.outputs) requested.insert(v.value);
    }

    static size_t initial_size(const WritePlan& p) { return 1024 + 256 * p.order.size(); }

    flatbuffers::Offset<void> build_metadata() {
        const ir::Metadata& m = plan.metadata;
        auto user_info = fbb.CreateSharedString(m.user_info.data(), m.user_info.size());
        auto start = fbb.StartTable();
        fbb.AddElement<uint8_t>(slot_offset(meta_slot::is_valid), m.is_valid, 0);
        fbb.AddElement<uint8_t>(slot_offset(meta_slot::graph_modified), m.graph_modified, 0);
        fbb.AddOffset(slot_offset(meta_slot::user_info), user_info);
        fbb.AddElement<uint64_t>(slot_offset(meta_slot::optimize_options), m.optimize_options, 0);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    // MegEngine's dump_tensor for v1: the value goes to the blob region first, then
    // name, shape, comp node and dtype are built, then the generated CreateTensor.
    flatbuffers::Offset<void> build_tensor(ir::OprId o, ir::TensorId t) {
        uint32_t data_size = 0;
        if (ir::BlobId blob = g.tensors.blob[t.value]; blob.valid()) {
            ir::Bytes bytes = g.blobs.bytes(blob);
            if (bytes.size() > std::numeric_limits<uint32_t>::max())
                throw LimitError(
                    fmt::format("{}: tensor of {} bytes exceeds FBS v1's 4 GiB tensor limit "
                                "(Tensor.data_size is 32-bit); dump with FBS_V2 or split the tensor",
                                ir::describe_opr(g, o), bytes.size()));
            if (bytes.empty())
                throw GraphError(
                    fmt::format("{}: empty constant: MegEngine's FBS loader cannot load a tensor with no value "
                                "bytes (nor can its FBS_V2 loader)",
                                ir::describe_opr(g, o)));
            out.blobs.push_back(bytes);
            out.blob_tensors.push_back(t.value);
            out.owners.push_back(g.blobs.owner(blob));
            data_size = static_cast<uint32_t>(bytes.size());
            blob_bytes += bytes.size();
            stats.tensor_value_bytes += bytes.size();
        }
        const flatbuffers::Offset<flatbuffers::String> name_off =
            build_tensor_name(fbb, g, t, plan.keep_param_name, stats, nr_shared_tensor);
        auto shape = build_shape(fbb, g.tensor_shape(t));
        auto comp_node = build_comp_node(fbb, g.str(g.tensors.comp_node[t.value]));
        auto dtype = encode_dtype(fbb, g.tensors.dtype[t.value]);
        // Generated CreateTensor: all fields are 4 bytes, added in reverse declaration order.
        auto start = fbb.StartTable();
        fbb.AddElement<uint32_t>(slot_offset(tensor_slot::offset), 0, 0);
        fbb.AddElement<uint32_t>(slot_offset(tensor_slot::data_size), data_size, 0);
        fbb.AddOffset(slot_offset(tensor_slot::dtype), dtype);
        fbb.AddOffset(slot_offset(tensor_slot::comp_node), comp_node);
        fbb.AddOffset(slot_offset(tensor_slot::shape), shape);
        fbb.AddOffset(slot_offset(tensor_slot::name), name_off);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    flatbuffers::Offset<void> build_operator(ir::OprId o) {
        const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);

        auto comp_nodes = build_opr_comp_nodes(fbb, g, o);

        auto inputs = build_input_ids(fbb, g, o, plan.numbering.compact_id);

        auto name = build_opr_name(fbb, g, o, plan.keep_opr_name);

        flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> output_names;
        const ir::Range outs = g.oprs.outputs[o.value];
        bool name_outputs = plan.keep_var_name >= 2;
        if (plan.keep_var_name == 1)
            for (uint32_t v = outs.begin; v < outs.end() && !name_outputs; ++v)
                name_outputs = requested.count(v);
        if (name_outputs) {
            std::vector<std::string> names;
            for (uint32_t v = outs.begin; v < outs.end(); ++v)
                if (!(g.vars.flags[v] & ir::kVarVolatile))
                    names.push_back(var_name_for_dump(g, ir::VarId(v), plan.numbering.compact_id[v]));
            output_names = fbb.CreateVectorOfStrings(names);
        }

        auto output_dtype = encode_dtype(fbb, g.oprs.output_dtype[o.value]);

        // The operator's dumper: params first, then blobs, then tensors; the
        // *WithFormat dumpers write each tensor followed by its format blob
        // (io.sereg.h), the default format's when the graph has none.
        BuiltParams params = build_params(fbb, g, o, plan.compat_8_14);
        auto& blobs = lists.blobs;
        blobs.clear();
        auto& tensors = lists.tensors;
        tensors.clear();
        build_tensors_and_blobs(
            fbb, g, o, def.tensors == ir::OpTensors::MultipleShared, true,
            [&](ir::TensorId t) { return build_tensor(o, t); }, tensors, blobs);

        OffsetVector tensors_vec, blobs_vec;
        if (!tensors.empty()) tensors_vec = fbb.CreateVector(tensors);
        if (!blobs.empty()) blobs_vec = fbb.CreateVector(blobs);
        ExtraParams extra = build_extra_params(fbb, params);

        auto start = fbb.StartTable();
        fbb.AddElement<uint64_t>(slot_offset(opr_slot::type_id), fbs_v1_type_id(def, plan.compat_8_14), 0);
        fbb.AddOffset(slot_offset(opr_slot::inputs), inputs);
        if (plan.keep_opr_priority)
            fbb.AddElement<int32_t>(slot_offset(opr_slot::priority), g.oprs.priority[o.value], 0);
        fbb.AddOffset(slot_offset(opr_slot::comp_node), comp_nodes);
        fbb.AddOffset(slot_offset(opr_slot::output_name), output_names);
        fbb.AddOffset(slot_offset(opr_slot::name), name);
        fbb.AddOffset(slot_offset(opr_slot::output_dtype), output_dtype);
        add_params(fbb, params, extra, opr_slot::param_type, opr_slot::additional_params_type);
        fbb.AddOffset(slot_offset(opr_slot::tensors), tensors_vec);
        fbb.AddOffset(slot_offset(opr_slot::blobs), blobs_vec);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    Serialized run() {
        auto metadata = build_metadata();
        auto& oprs = lists.oprs;
        oprs.clear();
        oprs.reserve(plan.order.size());
        for (ir::OprId o : plan.order) oprs.push_back(build_operator(o));
        auto oprs_vec = fbb.CreateVector(oprs);

        // OutputVar is a struct {uint32 compact_id, uint32 original_id}.
        struct OutputVar {
            uint32_t compact_id, original_id;  // little-endian host assumed (static_assert in fbs_build.h)
        };
        static_assert(sizeof(OutputVar) == 8);
        std::vector<OutputVar> outputs;
        for (ir::VarId v : g.outputs)
            outputs.push_back({plan.numbering.compact_id[v.value], g.vars.original_id[v.value]});
        auto outputs_vec = fbb.CreateVectorOfStructs(outputs.data(), outputs.size());

        // Content hash (§6.10): everything built so far, from the output-var vector on.
        uint64_t hash = XXH64(fbb.GetCurrentBufferPointer(), fbb.GetSize(), kContentHashSeed);
        if (hash == 0) hash = 1;
        stats.content_hash = hash;

        auto start = fbb.StartTable();
        fbb.AddElement<uint32_t>(slot_offset(graph_slot::mgb_version), plan.mgb_version, 0);
        fbb.AddElement<uint64_t>(slot_offset(graph_slot::hash), hash, 0);
        fbb.AddOffset(slot_offset(graph_slot::oprs), oprs_vec);
        fbb.AddOffset(slot_offset(graph_slot::output_vars_idx), outputs_vec);
        fbb.AddElement<uint32_t>(slot_offset(graph_slot::nr_shared_tensor), nr_shared_tensor, 0);
        fbb.AddOffset(slot_offset(graph_slot::metadata), metadata);
        auto root = flatbuffers::Offset<void>(fbb.EndTable(start));
        fbb.FinishSizePrefixed(root, "mgb1");

        put_le(out.header, plan.compat_8_14 ? kMagicMGBS : kMagicMGBC, 4);
        if (!plan.compat_8_14) put_le(out.header, 0, 8);  // feature bits, absent in 8.14 files
        put_le(out.header, 0, 4);
        put_le(out.header, blob_bytes, 8);  // offset_to_fbs: the values come first
        out.flatbuffer = fbb.Release();
        stats.nr_opr = plan.order.size();
        return std::move(out);
    }
};

}  // namespace

Serialized write_fbs_v1(const WritePlan& plan, WriteStats& stats, WriteScratch* scratch) {
    check_table_limit(plan, false, kMaxTables);
    return V1Writer(plan, stats, scratch).run();
}

}  // namespace mgedump::formats
