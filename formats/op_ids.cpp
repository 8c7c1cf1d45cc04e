#include "formats/op_ids.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <string>
#include <unordered_map>
#include <utility>

#include "ir/error.h"

namespace mgedump::formats {
namespace {

// MegEngine never emits id 0 (it means "no id" to its registries).
uint64_t nonzero(uint64_t h) { return h == 0 ? 1 : h; }

// The token MegEngine hashes for unversioned ids: one "V<digit>" tail removed,
// so that e.g. ConvolutionV2 and Convolution share U().
std::string_view strip_version_tail(std::string_view token) {
    const size_t n = token.size();
    if (n >= 2 && token[n - 2] == 'V' && token[n - 1] >= '0' && token[n - 1] <= '9')
        return token.substr(0, n - 2);
    return token;
}

// A v2 entry is keyed by both fields: the same type_id may be registered at
// several versions, and the loader matches the pair exactly.
struct V2Key {
    uint64_t type_id;
    uint32_t version;
    bool operator==(const V2Key&) const = default;
};
struct V2KeyHash {
    size_t operator()(const V2Key& k) const noexcept {
        return std::hash<uint64_t>{}(k.type_id ^ (uint64_t{k.version} << 61));
    }
};

template <class Map, class Key>
void add_unique(Map& m, const Key& key, uint32_t op, std::string_view what) {
    auto [it, inserted] = m.emplace(key, op);
    if (!inserted && it->second != op) {
        const auto defs = ir::op_defs();
        throw Error(
            fmt::format("op ids: {} collides between {} and {}", what, defs[it->second].name, defs[op].name));
    }
}

struct ReverseIndex {
    std::unordered_map<uint64_t, uint32_t> v1_full, v1_unversioned;
    std::unordered_map<V2Key, uint32_t, V2KeyHash> v2;
};

const ReverseIndex& reverse_index() {
    static const ReverseIndex index = [] {
        ReverseIndex r;
        const auto defs = ir::op_defs();
        for (uint32_t i = 0; i < defs.size(); ++i) {
            const auto& op = defs[i];
            add_unique(r.v1_full, fbs_v1_type_id(op, false), i, fmt::format("v1 id of \"{}\"", op.token));
            add_unique(r.v1_unversioned, fbs_v1_type_id(op, true), i,
                       fmt::format("unversioned v1 id of \"{}\"", op.token));
            // Both v2 entries exist in MegEngine's registry: a model_version-1
            // file carries the version-1 one even for operators that also have
            // a version-2 registration.
            for (uint32_t mv : {1u, 2u}) {
                const auto id = fbs_v2_identity(op, mv);
                add_unique(r.v2, V2Key{id.type_id, id.opr_version}, i,
                           fmt::format("v2 id of \"{}\"", id.type));
            }
        }
        return r;
    }();
    return index;
}

}  // namespace

uint64_t op_id_full(std::string_view token) {
    // The hashed bytes include the terminating NUL (MegEngine hashes sizeof of a
    // string literal), so hash a NUL-terminated copy.
    std::string buf(token);
    return nonzero(XXH64(buf.c_str(), buf.size() + 1, kOpIdSeed));
}

uint64_t op_id_unversioned(std::string_view token) {
    const auto stripped = strip_version_tail(token);
    return nonzero(XXH64(stripped.data(), stripped.size(), kOpIdSeed));
}

uint64_t fbs_v1_type_id(const ir::OpDef& op, bool unversioned_ids) {
    if (op.token.empty())
        throw GraphError(fmt::format("op ids: operator \"{}\" has no registration token", op.name));
    return unversioned_ids ? op_id_unversioned(op.token) : op_id_full(op.token);
}

V2Identity fbs_v2_identity(const ir::OpDef& op, uint32_t model_version) {
    if (op.token.empty())
        throw GraphError(fmt::format("op ids: operator \"{}\" has no registration token", op.name));
    if (model_version >= 2 && !op.token_v2.empty()) return {op.token_v2, op_id_full(op.token_v2), 2};
    return {op.token, op_id_unversioned(op.token), 1};
}

ir::OpTypeId find_op_by_v1_id(uint64_t type_id, bool unversioned_ids) {
    const auto& index = reverse_index();
    const auto& m = unversioned_ids ? index.v1_unversioned : index.v1_full;
    auto it = m.find(type_id);
    return it == m.end() ? ir::OpTypeId{} : ir::OpTypeId{it->second};
}

ir::OpTypeId find_op_by_v2_id(uint64_t type_id, uint32_t opr_version) {
    const auto& m = reverse_index().v2;
    auto it = m.find(V2Key{type_id, opr_version});
    return it == m.end() ? ir::OpTypeId{} : ir::OpTypeId{it->second};
}

}  // namespace mgedump::formats
