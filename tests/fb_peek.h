// Peeking into dumped bytes in tests without generated code: tables by slot, as
// the spec lists them (§3.2, §3.3). Independent of the writers' own code paths.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <string>
#include <vector>

namespace mgedump::test {

using Table = flatbuffers::Table;
template <class T>
using Vec = flatbuffers::Vector<T>;
using TableVec = Vec<flatbuffers::Offset<Table>>;

constexpr flatbuffers::voffset_t slot(int s) { return static_cast<flatbuffers::voffset_t>(4 + 2 * s); }

// The root table of a dump: v1 skips the 24- or 16-byte header and the blobs.
inline const Table* v1_root(const std::vector<std::byte>& bytes) {
    uint32_t magic;
    std::memcpy(&magic, bytes.data(), 4);
    size_t header = magic == 0x5342474D ? 16 : 24;
    uint64_t blobs;
    std::memcpy(&blobs, bytes.data() + header - 8, 8);
    return flatbuffers::GetSizePrefixedRoot<Table>(bytes.data() + header + blobs);
}
inline const Table* v2_root(const std::vector<std::byte>& bytes) {
    return flatbuffers::GetSizePrefixedRoot<Table>(bytes.data());
}

inline const TableVec* tables(const Table* t, int s) { return t->GetPointer<const TableVec*>(slot(s)); }
inline const Table* table(const Table* t, int s) { return t->GetPointer<const Table*>(slot(s)); }
inline std::string str(const Table* t, int s) {
    auto* p = t->GetPointer<const flatbuffers::String*>(slot(s));
    return p ? p->str() : std::string("<absent>");
}
inline bool has(const Table* t, int s) { return t->CheckField(slot(s)); }

// v1 slots
namespace v1 {
enum Graph { mgb_version, hash, nr_shared_tensor, oprs, output_vars_idx, metadata };
enum Opr { type_id, param_type, param, inputs, comp_node, output_name, output_dtype, tensors, priority, blobs,
           additional_params_type, additional_params, name };
enum Tensor { t_name, t_shape, t_comp_node, t_dtype, t_data_size, t_offset };
enum Meta { is_valid, graph_modified, user_info, optimize_options };
}  // namespace v1
namespace v2 {
enum Model { mge_version, model_version, oprs, middle_tensors, output_vars_idx, output_alias, nr_shared_tensor,
             metadata };
enum Opr { type, type_id, name, param_type, param, additional_params_type, additional_params, inputs, outputs,
           comp_node, output_dtype, tensors, opr_version, priority, custom_data };
enum Meta { is_valid, graph_modified, optimize_options, user_info };
}  // namespace v2

}  // namespace mgedump::test
