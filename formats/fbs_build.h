// Small pieces both writers build the same way: slot offsets, comp nodes, shapes,
// names as shared strings, the param list of an operator.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/fbb.h"
#include "ir/graph.h"
#include "ir/op_registry.h"

namespace mgedump::formats {

class WriteScratch;
struct WritePlan;
// A builder reserving at least `planned` bytes; with a scratch, its buffer is
// recycled memory that goes back to the scratch when the finished buffer dies.
// With plan.megengine_builder: FlatBuffers' defaults (initial size, allocator, string pool).
Fbb make_builder(size_t planned, const WritePlan& plan, WriteScratch* scratch);

// Byte offset of slot `slot` in a vtable.
constexpr flatbuffers::voffset_t slot_offset(int slot) {
    return static_cast<flatbuffers::voffset_t>(4 + 2 * slot);
}

// CreateSharedString + CompNode{logical_locator}, as MegEngine builds every comp node.
flatbuffers::Offset<void> build_comp_node(Fbb& fbb, std::string_view locator);
flatbuffers::Offset<flatbuffers::Vector<uint32_t>> build_shape(Fbb& fbb, std::span<const uint32_t> shape);

// An operator's params as (union type, table) pairs, in write order.
struct BuiltParams {
    std::vector<uint8_t> types;
    std::vector<flatbuffers::Offset<void>> tables;
};
// 8.14 mode writes CheckNonFinite's param as Empty (spec §9.3).
BuiltParams build_params(Fbb& fbb, const ir::Graph& g, ir::OprId o, bool compat_8_14);

// The numbered outputs' names; a var without a name gets "var<compact id>" so
// every numbered var can be named when names are kept.
std::string var_name_for_dump(const ir::Graph& g, ir::VarId v, uint32_t compact_id);

// Operator pieces both formats build the same way (each is null when absent).
using OffsetVector = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<void>>>;
flatbuffers::Offset<flatbuffers::Vector<uint32_t>> build_input_ids(Fbb& fbb, const ir::Graph& g, ir::OprId o,
                                                                   const std::vector<uint32_t>& compact_id);
// The operator's explicit comp nodes (shared locator string + CompNode each, then the vector).
OffsetVector build_opr_comp_nodes(Fbb& fbb, const ir::Graph& g, ir::OprId o);
flatbuffers::Offset<flatbuffers::String> build_opr_name(Fbb& fbb, const ir::Graph& g, ir::OprId o, bool keep);
flatbuffers::Offset<void> build_blob(Fbb& fbb, std::span<const uint8_t> bytes);
// A tensor's name as both formats write it (null when not kept): always for graph
// inputs, for params (VALUE_SHARED) with keep_param_name. It also records the name
// in the dump result's inputs or params and counts the params, so the two writers
// cannot report them differently.
struct WriteStats;
flatbuffers::Offset<flatbuffers::String> build_tensor_name(Fbb& fbb, const ir::Graph& g, ir::TensorId t,
                                                           bool keep_param_name, WriteStats& stats,
                                                           uint32_t& nr_shared_tensor);

// additional_params_type then additional_params: params #2..n, if any.
struct ExtraParams {
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> types;
    OffsetVector tables;
};
ExtraParams build_extra_params(Fbb& fbb, const BuiltParams& params);
// Adds param_type+param and the additional params to the table being built.
void add_params(Fbb& fbb, const BuiltParams& params, const ExtraParams& extra, int param_type_slot,
                int additional_params_type_slot);

// MultipleDeviceTensorHolder's leading blob in v1 and v2-version-1: the tensor count.
std::vector<uint8_t> holder_count_blob(uint32_t count);

// SharedDeviceTensorWithFormat and MultipleDeviceTensorWithFormatHolder: their
// version-1 dumpers write a format blob after each tensor.
bool is_with_format(const ir::OpDef& def);
// TensorFormat::serialize() of the default format: its Type, DEFAULT = 0, as a
// 4-byte enum and nothing after it (dnn/src/common/tensor_format.cpp).
std::span<const uint8_t> default_tensor_format_blob();

// An operator's tensors and blobs, built in the order its MegEngine dumper builds
// them (FlatBuffers lays them out in build order): the holder count blob when
// `count_blob`, then the blobs and the tensors; the *WithFormat dumpers write each
// tensor followed by its format blob (io.sereg.h; the default format's when the
// graph has none), unless `format_blobs` is false (their version 2 keeps the
// format in the tensor). `build_tensor(TensorId)` builds one tensor table.
template <class BuildTensor>
void build_tensors_and_blobs(Fbb& fbb, const ir::Graph& g, ir::OprId o, bool count_blob, bool format_blobs,
                             BuildTensor&& build_tensor, std::vector<flatbuffers::Offset<void>>& tensors,
                             std::vector<flatbuffers::Offset<void>>& blobs) {
    const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
    const ir::Range trange = g.oprs.tensors[o.value];
    auto blob_of = [&](ir::BlobId b) {
        const ir::Bytes bytes = g.blobs.bytes(b);
        return build_blob(fbb, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    };
    if (count_blob) blobs.push_back(build_blob(fbb, holder_count_blob(trange.count)));
    if (is_with_format(def)) {
        const auto graph_blobs = g.blobs_of(o);
        for (uint32_t k = 0; k < trange.count; ++k) {
            tensors.push_back(build_tensor(ir::TensorId(trange.begin + k)));
            if (!format_blobs) continue;
            blobs.push_back(k < graph_blobs.size() ? blob_of(graph_blobs[k])
                                                   : build_blob(fbb, default_tensor_format_blob()));
        }
        return;
    }
    for (ir::BlobId b : g.blobs_of(o)) blobs.push_back(blob_of(b));
    for (uint32_t t = trange.begin; t < trange.end(); ++t) tensors.push_back(build_tensor(ir::TensorId(t)));
}

}  // namespace mgedump::formats

static_assert(FLATBUFFERS_LITTLEENDIAN,
              "mgedump writes structs by memory image; big-endian hosts are not supported");

namespace mgedump::formats {
struct WritePlan;
// Tables the writer will create for `plan` (counted from the tables, before any
// building), so MegEngine's verifier limit can be checked up front.
uint64_t count_tables(const WritePlan& plan, bool v2);
// Throws LimitError when count_tables exceeds `limit` (kMaxTables by default).
void check_table_limit(const WritePlan& plan, bool v2, uint64_t limit);
}  // namespace mgedump::formats
