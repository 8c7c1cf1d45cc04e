// Operator identity on the wire (spec §4): the 64-bit type ids of FBS v1 and the
// (type, type_id, opr_version) triple of FBS_V2, all computed from the
// registration tokens in ir/op_registry.h, plus the reverse lookups readers need.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/op_registry.h"

namespace mgedump::formats {

// Seed of every operator-id hash (MegEngine's XXHash64CT seed).
inline constexpr uint64_t kOpIdSeed = 20160701;

// H(token): XXH64 of the token followed by one NUL byte; 0 maps to 1.
uint64_t op_id_full(std::string_view token);
// U(token): XXH64 of the token without one trailing "V<digit>", no NUL; 0 maps to 1.
uint64_t op_id_unversioned(std::string_view token);

// H("dynamic"): the shared v1 id (persist and unversioned) of operators
// registered with a dynamic loader (§4.5).
inline constexpr uint64_t kDynamicOpId = 1748759926085341240ull;

// Operator.type_id of FBS v1: H(token) for MGBC files, U(token) for MGBS files
// (8.14 compatibility and every release before 1.8).
uint64_t fbs_v1_type_id(const ir::OpDef& op, bool unversioned_ids);

struct V2Identity {
    std::string_view type;  // Operator.type; only used in loader error messages
    uint64_t type_id;
    uint32_t opr_version;
};

// §4.4: with model_version >= 2 and a version-2 registration, (token_v2,
// H(token_v2), 2); otherwise the version-1 entry (token, U(token), 1).
V2Identity fbs_v2_identity(const ir::OpDef& op, uint32_t model_version);

// Reverse lookups, built once from ir::op_defs(); invalid id when unknown.
ir::OpTypeId find_op_by_v1_id(uint64_t type_id, bool unversioned_ids);
ir::OpTypeId find_op_by_v2_id(uint64_t type_id, uint32_t opr_version);

}  // namespace mgedump::formats
