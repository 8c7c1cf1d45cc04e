// FBS_V2 ("mgv2"): one size-prefixed Model FlatBuffer with tensor values inline.
// The build sequence replays MegEngine's (spec §6.5) call for call. Room for each
// value is reserved in the builder, which is pre-sized from the tables so it
// never regrows; small values are copied in, large ones are left as deferred
// views (formats/serialized.h) for the single pass that writes the artifact.
#include <fmt/format.h>

#include <cstring>
#include <limits>

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

// Slots of schema_v2.fbs tables (spec §3.3).
namespace tensor_slot {
enum { name, shape, comp_node, dtype, format_type, format, data };
}
namespace opr_slot {
enum {
    type,
    type_id,
    name,
    param_type,
    param,
    additional_params_type,
    additional_params,
    inputs,
    outputs,
    comp_node,
    output_dtype,
    tensors,
    opr_version,
    priority,
    custom_data
};
}
namespace meta_slot {
enum { is_valid, graph_modified, optimize_options, user_info };
}
namespace model_slot {
enum {
    mge_version,
    model_version,
    oprs,
    middle_tensors,
    output_vars_idx,
    output_alias,
    nr_shared_tensor,
    metadata
};
}
constexpr uint8_t kDefaultTensorFormat = 1;

// Values this large are not copied into the builder (Serialized::deferred); smaller
// ones are, so a gather write never needs an iovec per tiny tensor.
constexpr size_t kDeferredValueMin = size_t{64} << 10;

// FlatBuffers offsets are signed 32-bit: a buffer cannot reach 2 GiB.
constexpr uint64_t kMaxBufferSize = FLATBUFFERS_MAX_BUFFER_SIZE;

struct V2Writer {
    const WritePlan& plan;
    WriteStats& stats;
    const ir::Graph& g;
    Fbb fbb;
    WriterLists own_lists;  // without a scratch
    WriterLists& lists;
    uint32_t nr_shared_tensor = 0;
    uint32_t next_var_id = 0;
    Serialized out;
    struct FromEnd {
        ptrdiff_t distance;
        ir::Bytes source;
        uint32_t tensor;
    };
    std::vector<FromEnd> deferred_from_end;  // in build order, i.e. descending file offsets

    // Large values are left for the pass that writes or flattens the artifact, so
    // each is read once (engine/artifact_pass.h). MegEngine's way copies them in.
    bool defer_value(size_t size) const { return !plan.megengine_builder && size >= kDeferredValueMin; }

    V2Writer(const WritePlan& p, WriteStats& s, WriteScratch* scratch)
        : plan(p), stats(s), g(p.graph), fbb(make_builder(planned_size(p), p, scratch)),
          lists(scratch ? scratch->lists : own_lists) {
        lists.middle_tensors.clear();
    }

    // Values plus a generous per-object allowance; checked against the 2 GiB
    // limit before anything is built.
    static uint64_t inline_value_bytes(const WritePlan& p) {
        uint64_t n = 0;
        for (ir::OprId o : p.order) {
            ir::Range t = p.graph.oprs.tensors[o.value];
            for (uint32_t i = t.begin; i < t.end(); ++i)
                if (p.graph.tensors.blob[i].valid())
                    n += p.graph.blobs.bytes(p.graph.tensors.blob[i]).size() + 8;
        }
        return n;
    }
    static size_t planned_size(const WritePlan& p) {
        uint64_t values = inline_value_bytes(p);
        uint64_t estimate = values + 512 * p.order.size() + 64 * p.graph.tensors.size() + 4096;
        if (values >= kMaxBufferSize)
            throw LimitError(
                fmt::format("model has {} bytes of tensor values; an FBS_V2 file cannot exceed 2 GiB "
                            "(FlatBuffers offsets are 32-bit): dump with FBS, which stores values "
                            "outside the FlatBuffer",
                            values));
        return static_cast<size_t>(std::min<uint64_t>(estimate, kMaxBufferSize));
    }

    flatbuffers::Offset<void> build_metadata() {
        const ir::Metadata& m = plan.metadata;
        auto user_info = fbb.CreateSharedString(m.user_info.data(), m.user_info.size());
        auto start = fbb.StartTable();
        fbb.AddElement<uint8_t>(slot_offset(meta_slot::is_valid), m.is_valid, 0);
        fbb.AddElement<uint8_t>(slot_offset(meta_slot::graph_modified), m.graph_modified, 0);
        fbb.AddElement<uint64_t>(slot_offset(meta_slot::optimize_options), m.optimize_options, 0);
        fbb.AddOffset(slot_offset(meta_slot::user_info), user_info);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    flatbuffers::Offset<void> build_tensor(ir::OprId o, ir::TensorId t) {
        flatbuffers::Offset<flatbuffers::Vector<uint8_t>> data;
        if (ir::BlobId blob = g.tensors.blob[t.value]; blob.valid()) {
            ir::Bytes bytes = g.blobs.bytes(blob);
            // MegEngine's FBS_V2 loader sets a tensor's shape only from its value bytes
            // (serializer_oss_v2.cpp load_tensor), so an empty value arrives without
            // one and ImmutableTensor asserts an initialized value (io.cpp:574).
            if (bytes.empty())
                throw GraphError(fmt::format("{}: empty constant: MegEngine's FBS_V2 loader cannot load a tensor "
                                             "with no value bytes (nor can its FBS loader)",
                                             ir::describe_opr(g, o)));
            uint8_t* dst = nullptr;
            data = fbb.CreateUninitializedVector(bytes.size(), &dst);
            if (defer_value(bytes.size())) {
                // Its distance from the buffer's end is final; the start is not yet.
                deferred_from_end.push_back({fbb.GetCurrentBufferPointer() + fbb.GetSize() - dst, bytes, t.value});
                out.owners.push_back(g.blobs.owner(blob));
            } else if (!bytes.empty()) {
                std::memcpy(dst, bytes.data(), bytes.size());
            }
            stats.tensor_value_bytes += bytes.size();
        }
        const flatbuffers::Offset<flatbuffers::String> name_off =
            build_tensor_name(fbb, g, t, plan.keep_param_name, stats, nr_shared_tensor);
        auto shape = build_shape(fbb, g.tensor_shape(t));
        auto comp_node = build_comp_node(fbb, g.str(g.tensors.comp_node[t.value]));
        auto dtype = encode_dtype(fbb, g.tensors.dtype[t.value]);
        uint8_t format_type =
            g.tensors.format_type[t.value] ? g.tensors.format_type[t.value] : kDefaultTensorFormat;
        auto format =
            flatbuffers::Offset<void>(fbb.EndTable(fbb.StartTable()));  // DefaultTensorFormat: no fields
        // Generated CreateTensor: 4-byte fields in reverse declaration order, then the 1-byte format_type.
        auto start = fbb.StartTable();
        fbb.AddOffset(slot_offset(tensor_slot::data), data);
        fbb.AddOffset(slot_offset(tensor_slot::format), format);
        fbb.AddOffset(slot_offset(tensor_slot::dtype), dtype);
        fbb.AddOffset(slot_offset(tensor_slot::comp_node), comp_node);
        fbb.AddOffset(slot_offset(tensor_slot::shape), shape);
        fbb.AddOffset(slot_offset(tensor_slot::name), name_off);
        fbb.AddElement<uint8_t>(slot_offset(tensor_slot::format_type), format_type, 0);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    flatbuffers::Offset<void> build_middle_tensor(ir::VarId v, uint32_t id) {
        std::string name = var_name_for_dump(g, v, id);
        auto name_off = fbb.CreateSharedString(name);
        // MegEngine writes the shape whenever static inference knows it
        // (GraphDumperOSSV2::build_middle_tensor), after the name.
        const ir::Shape shape = plan.inferred ? plan.inferred->shape(g, v) : ir::Shape::of(g.var_shape(v));
        flatbuffers::Offset<flatbuffers::Vector<uint32_t>> shape_off;
        if (shape.known()) shape_off = build_shape(fbb, shape.dims());
        auto start = fbb.StartTable();
        if (shape.known()) fbb.AddOffset(slot_offset(1), shape_off);
        fbb.AddOffset(slot_offset(0), name_off);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    flatbuffers::Offset<void> build_operator(ir::OprId o) {
        const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
        const V2Identity identity = fbs_v2_identity(def, plan.model_version);

        auto inputs = build_input_ids(fbb, g, o, plan.numbering.compact_id);

        // The operator's dumper: params, then blobs, then tensors; the version-1
        // dumpers of the *WithFormat operators write each tensor followed by its
        // format blob (io.sereg.h), version 2 keeps the format in the tensor.
        BuiltParams params = build_params(fbb, g, o, false);
        auto& blobs = lists.blobs;
        blobs.clear();
        auto& tensors = lists.tensors;
        tensors.clear();
        // Version 2 of the holder drops the count blob (spec §5), and of the
        // *WithFormat operators the format blobs.
        const bool version1 = identity.opr_version < 2;
        build_tensors_and_blobs(
            fbb, g, o, def.tensors == ir::OpTensors::MultipleShared && version1, version1,
            [&](ir::TensorId t) { return build_tensor(o, t); }, tensors, blobs);

        auto comp_nodes = build_opr_comp_nodes(fbb, g, o);

        auto name = build_opr_name(fbb, g, o, plan.keep_opr_name);

        auto output_dtype = encode_dtype(fbb, g.oprs.output_dtype[o.value]);

        const ir::Range outs = g.oprs.outputs[o.value];
        flatbuffers::Offset<flatbuffers::Vector<uint32_t>> outputs;
        if (outs.count > 0) {
            std::vector<uint32_t> ids;
            for (uint32_t v = outs.begin; v < outs.end(); ++v) {
                if (g.vars.flags[v] & ir::kVarVolatile) continue;
                const uint32_t id = next_var_id++;
                lists.middle_tensors.push_back(plan.keep_var_name >= 1 ? build_middle_tensor(ir::VarId(v), id)
                                                                 : flatbuffers::Offset<void>());
                ids.push_back(id);
            }
            outputs = fbb.CreateVector(ids);
        }

        OffsetVector tensors_vec, blobs_vec;
        if (!tensors.empty()) tensors_vec = fbb.CreateVector(tensors);
        if (!blobs.empty()) blobs_vec = fbb.CreateVector(blobs);
        ExtraParams extra = build_extra_params(fbb, params);
        auto type = fbb.CreateSharedString(identity.type.data(), identity.type.size());

        auto start = fbb.StartTable();
        fbb.AddOffset(slot_offset(opr_slot::type), type);
        fbb.AddElement<uint64_t>(slot_offset(opr_slot::type_id), identity.type_id, 0);
        fbb.AddOffset(slot_offset(opr_slot::inputs), inputs);
        fbb.AddOffset(slot_offset(opr_slot::outputs), outputs);
        if (plan.keep_opr_priority)
            fbb.AddElement<int32_t>(slot_offset(opr_slot::priority), g.oprs.priority[o.value], 0);
        fbb.AddOffset(slot_offset(opr_slot::comp_node), comp_nodes);
        fbb.AddElement<uint32_t>(slot_offset(opr_slot::opr_version), identity.opr_version, 0);
        fbb.AddOffset(slot_offset(opr_slot::name), name);
        fbb.AddOffset(slot_offset(opr_slot::output_dtype), output_dtype);
        add_params(fbb, params, extra, opr_slot::param_type, opr_slot::additional_params_type);
        fbb.AddOffset(slot_offset(opr_slot::tensors), tensors_vec);
        fbb.AddOffset(slot_offset(opr_slot::custom_data), blobs_vec);
        return flatbuffers::Offset<void>(fbb.EndTable(start));
    }

    Serialized run() {
        auto metadata = build_metadata();
        auto& oprs = lists.oprs;
        oprs.clear();
        oprs.reserve(plan.order.size());
        for (ir::OprId o : plan.order) oprs.push_back(build_operator(o));
        auto oprs_vec = fbb.CreateVector(oprs);

        auto& outputs = lists.output_vars;
        outputs.clear();
        for (ir::VarId v : g.outputs) {
            // Generated CreateOutputVar: original_id then compact_id.
            auto start = fbb.StartTable();
            fbb.AddElement<uint32_t>(slot_offset(1), g.vars.original_id[v.value], 0);
            fbb.AddElement<uint32_t>(slot_offset(0), plan.numbering.compact_id[v.value], 0);
            outputs.push_back(flatbuffers::Offset<void>(fbb.EndTable(start)));
        }
        auto outputs_vec = fbb.CreateVector(outputs);
        auto alias_vec = fbb.CreateVector(std::vector<flatbuffers::Offset<void>>{});
        flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<void>>> middle_vec;
        if (plan.keep_var_name >= 1) middle_vec = fbb.CreateVector(lists.middle_tensors);

        auto start = fbb.StartTable();
        fbb.AddElement<uint32_t>(slot_offset(model_slot::mge_version), plan.mgb_version, 0);
        fbb.AddElement<uint32_t>(slot_offset(model_slot::model_version), plan.model_version, 0);
        fbb.AddOffset(slot_offset(model_slot::oprs), oprs_vec);
        fbb.AddOffset(slot_offset(model_slot::middle_tensors), middle_vec);
        fbb.AddOffset(slot_offset(model_slot::output_vars_idx), outputs_vec);
        fbb.AddOffset(slot_offset(model_slot::output_alias), alias_vec);
        fbb.AddElement<uint32_t>(slot_offset(model_slot::nr_shared_tensor), nr_shared_tensor, 0);
        fbb.AddOffset(slot_offset(model_slot::metadata), metadata);
        auto root = flatbuffers::Offset<void>(fbb.EndTable(start));
        fbb.FinishSizePrefixed(root, "mgv2");

        out.flatbuffer = fbb.Release();
        const size_t total = out.flatbuffer.size();
        for (auto it = deferred_from_end.rbegin(); it != deferred_from_end.rend(); ++it)
            out.deferred.push_back({total - static_cast<size_t>(it->distance), it->source, it->tensor});
        stats.nr_opr = plan.order.size();
        return std::move(out);
    }
};

}  // namespace

Serialized write_fbs_v2(const WritePlan& plan, WriteStats& stats, WriteScratch* scratch) {
    check_table_limit(plan, true, kMaxTables);
    return V2Writer(plan, stats, scratch).run();
}

}  // namespace mgedump::formats
