// Pieces both format readers share: typed field access on verified tables, an
// aligned view of the FlatBuffer, param lists checked against the registry, and the
// assembly of decoded operators into a graph. Internal to formats/.
#pragma once

#include <flatbuffers/flatbuffers.h>
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/fbs_verify.h"
#include "formats/model_reader.h"
#include "ir/error.h"
#include "ir/op_registry.h"

namespace mgedump::formats::detail {

using flatbuffers::Table;

constexpr flatbuffers::voffset_t vt(int slot) { return static_cast<flatbuffers::voffset_t>(4 + 2 * slot); }

template <class T>
T scalar(const Table* t, int slot, T def = T{}) {
    return t->GetField<T>(vt(slot), def);
}
inline const flatbuffers::String* string_at(const Table* t, int slot) {
    return t->GetPointer<const flatbuffers::String*>(vt(slot));
}
inline std::optional<std::string_view> opt_string(const Table* t, int slot) {
    const auto* s = string_at(t, slot);
    if (!s) return std::nullopt;
    return std::string_view(s->c_str(), s->size());
}
template <class T>
const flatbuffers::Vector<T>* vector_at(const Table* t, int slot) {
    return t->GetPointer<const flatbuffers::Vector<T>*>(vt(slot));
}
inline const flatbuffers::Vector<flatbuffers::Offset<Table>>* tables_at(const Table* t, int slot) {
    return vector_at<flatbuffers::Offset<Table>>(t, slot);
}
inline const Table* table_at(const Table* t, int slot) { return t->GetPointer<const Table*>(vt(slot)); }

// The FlatBuffer region, 8-byte aligned so scalar reads are aligned: the file's
// own bytes when they already are (the usual case: a mapped file's first graph),
// else an owned copy. `owner` keeps `data` alive.
struct FlatView {
    const uint8_t* data = nullptr;
    size_t size = 0;
    std::shared_ptr<const void> owner;
};
FlatView aligned_flatbuffer(ir::Bytes region, const std::shared_ptr<const void>& keepalive);

// Verifies the size-prefixed buffer; FormatError naming the failing field and byte
// (relative to the file, `file_offset` = where the buffer starts).
void verify_or_throw(const FlatView& fb, const char* identifier, const fbsv::TableSpec& root,
                     uint64_t file_offset, std::string_view what);

// Bytes of a contiguous tensor; nullopt if the element count overflows.
std::optional<uint64_t> tensor_bytes(ir::DType dtype, std::span<const uint32_t> shape);

// Reads an operator's param and additional params and checks them against the
// registry entry. `allow_empty_check_non_finite`: 8.14 files write CheckNonFinite's
// param as Empty (§9.3); it becomes a default CheckNonFinite param.
std::vector<ir::ParamValue> read_params(const Table* op, int type_slot, int param_slot, int extra_types_slot,
                                        int extra_slot, const ir::OpDef& def, bool allow_empty_check_non_finite,
                                        const std::string& who);

struct PendingTensor {
    std::optional<std::string_view> name;
    ir::DType dtype = ir::DType::none();
    std::vector<uint32_t> shape;
    std::optional<std::string_view> comp_node;
    std::optional<ir::Bytes> value;
    uint8_t format_type = 1;
};

struct PendingOp {
    ir::OpTypeId type;
    std::optional<std::string_view> name;
    int32_t priority = 0;
    std::vector<std::string> comp_nodes;
    ir::DType output_dtype = ir::DType::none();
    std::vector<ir::ParamValue> params;
    std::vector<ir::VarId> inputs;
    uint32_t nr_outputs = 0;        // all outputs, volatile ones included
    uint32_t leading_volatile = 0;  // the first outputs that get no id
    std::vector<PendingTensor> tensors;
    std::vector<ir::Bytes> blobs;
    std::vector<std::string_view> output_names;  // numbered outputs, when the file names them
    // FBS_V2 MiddleTensor shapes of the numbered outputs (empty = not recorded);
    // files read back keep the shapes they carry.
    std::vector<std::vector<uint32_t>> output_shapes;
};

// Appends decoded operators to a graph and keeps the file's var numbering.
class GraphAssembler {
public:
    // `values_owner` keeps the tensor values' bytes alive, `flatbuffer_owner` the
    // FlatBuffer's (operator blobs lie inside it). They differ for an FBS v1 file
    // whose FlatBuffer was copied to align it: its values stay in the file.
    GraphAssembler(std::shared_ptr<const void> values_owner, std::shared_ptr<const void> flatbuffer_owner)
        : values_owner_(std::move(values_owner)), flatbuffer_owner_(std::move(flatbuffer_owner)) {}

    uint32_t numbered_vars() const { return static_cast<uint32_t>(numbered_.size()); }
    ir::VarId var_of(uint32_t compact_id) const { return numbered_[compact_id]; }
    // Throws FormatError (naming `who` and the input index) for an id not yet defined.
    std::vector<ir::VarId> resolve_inputs(const flatbuffers::Vector<uint32_t>* ids, const std::string& who) const;

    ir::OprId add(PendingOp op);
    ir::Graph& graph() { return g_; }

private:
    ir::Graph g_;
    std::vector<ir::VarId> numbered_;
    std::shared_ptr<const void> values_owner_, flatbuffer_owner_;
};

// Where an operator table keeps the fields both formats read alike.
struct OprSlots {
    int param_type, param, additional_params_type, additional_params, inputs, comp_node, output_dtype, priority, name;
};
// Reads those fields into `p` (its type already set, `def` its registry entry): the
// params (read_params), the inputs resolved and counted against the registry, the
// comp nodes, output dtype, priority and name. Errors are FormatErrors naming `who`.
void read_opr_fields(const Table* op, const OprSlots& slots, const ir::OpDef& def, bool allow_empty_check_non_finite,
                     const GraphAssembler& assembler, const std::string& who, PendingOp& p);

// Tensors an operator must carry: none, exactly one, or (holders) at least one.
void check_tensor_count(const ir::OpDef& def, size_t n, const std::string& who);

// "operator #3 (Elemwise)" — how reader errors name an operator of the file.
std::string opr_label(uint32_t index, std::string_view type_name);
std::string comp_node_locator(const Table* comp_node);

}  // namespace mgedump::formats::detail
