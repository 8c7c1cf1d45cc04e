#include "engine/passes/param_dedup.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/op_registry.h"
#include "ir/order.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::engine {
namespace {

struct Hash128 {
    uint64_t lo = 0, hi = 0;
    bool operator==(const Hash128&) const = default;
};
struct Hash128Hasher {
    size_t operator()(const Hash128& h) const noexcept { return static_cast<size_t>(h.lo ^ (h.hi * 0x9e3779b97f4a7c15ULL)); }
};

bool mergeable_type(ir::OpTypeId type) {
    static const ir::OpTypeId immutable = ir::find_op("ImmutableTensor");
    static const ir::OpTypeId shared = ir::find_op("SharedDeviceTensor");
    return type == immutable || type == shared;
}

// Everything the writers emit for a single-tensor holder, apart from the bytes.
bool same_holder(const ir::Graph& g, ir::OprId a, ir::OprId b, const ParamDedupOptions& o) {
    const auto& ops = g.oprs;
    const size_t x = a.value, y = b.value;
    if (ops.type[x] != ops.type[y] || ops.output_dtype[x] != ops.output_dtype[y]) return false;
    if (!std::ranges::equal(g.params_of(a), g.params_of(b))) return false;
    if (!std::ranges::equal(g.comp_nodes_of(a), g.comp_nodes_of(b))) return false;
    if (!std::ranges::equal(g.blobs_of(a), g.blobs_of(b), [&](ir::BlobId p, ir::BlobId q) {
            auto bp = g.blobs.bytes(p), bq = g.blobs.bytes(q);
            return std::ranges::equal(bp, bq);
        }))
        return false;
    if (o.keep_opr_name && ops.name[x] != ops.name[y]) return false;
    if (o.keep_opr_priority && ops.priority[x] != ops.priority[y]) return false;

    const auto& t = g.tensors;
    const uint32_t i = ops.tensors[x].begin, j = ops.tensors[y].begin;
    if (t.dtype[i] != t.dtype[j] || t.method[i] != t.method[j] || t.comp_node[i] != t.comp_node[j] ||
        t.format_type[i] != t.format_type[j])
        return false;
    if (!std::ranges::equal(g.tensor_shape(ir::TensorId(i)), g.tensor_shape(ir::TensorId(j)))) return false;
    if (t.method[i] == ir::TensorMethod::ValueShared && o.keep_param_name && t.name[i] != t.name[j]) return false;
    ir::Bytes bi = g.blobs.bytes(t.blob[i]), bj = g.blobs.bytes(t.blob[j]);
    // The hash brought them together; the bytes decide.
    return bi.size() == bj.size() && (bi.empty() || std::memcmp(bi.data(), bj.data(), bi.size()) == 0);
}

// Equal bytes give equal keys. Up to three windows the key is the full digest.
constexpr size_t kWindow = 4096;

Hash128 to_hash(XXH128_hash_t h) { return Hash128{h.low64, h.high64}; }

Hash128 full_key(ir::Bytes b) { return to_hash(XXH3_128bits(b.data(), b.size())); }

// The size and the windows side by side, hashed in one call: no hasher state to
// allocate per tensor.
Hash128 sampled_key(ir::Bytes b) {
    if (b.size() <= 3 * kWindow) return full_key(b);
    std::array<std::byte, sizeof(uint64_t) + 3 * kWindow> sample;
    const uint64_t size = b.size();
    std::memcpy(sample.data(), &size, sizeof size);
    std::byte* at = sample.data() + sizeof size;
    for (size_t from : {size_t{0}, (b.size() - kWindow) / 2, b.size() - kWindow}) {
        std::memcpy(at, b.data() + from, kWindow);
        at += kWindow;
    }
    return to_hash(XXH3_128bits(sample.data(), sample.size()));
}

struct Candidate {
    ir::OprId opr;
    std::optional<Hash128> full;  // computed once a second tensor shares the key
};

}  // namespace

ParamDuplicates find_duplicate_params(const ir::Graph& g, const ParamDedupOptions& options) {
    return find_duplicate_params(g, options, ir::dump_order(g));
}

ParamDuplicates find_duplicate_params(const ir::Graph& g, const ParamDedupOptions& options,
                                      std::span<const ir::OprId> order) {
    ParamDuplicates found;
    std::vector<uint8_t> is_output(g.vars.size(), 0);
    for (ir::VarId v : g.outputs) is_output[v.value] = 1;

    // Only looked up, never iterated: survivors follow dump order, not hash order.
    std::unordered_map<Hash128, std::vector<Candidate>, Hash128Hasher> seen;
    auto full_of = [&](Candidate& c) -> const Hash128& {
        if (!c.full) {
            ir::Bytes b = g.blobs.bytes(g.tensors.blob[g.oprs.tensors[c.opr.value].begin]);
            c.full = full_key(b);
            if (b.size() > 3 * kWindow) found.bytes_fully_hashed += b.size();
        }
        return *c.full;
    };

    for (ir::OprId o : order) {
        if (!mergeable_type(g.oprs.type[o.value])) continue;
        ir::Range tr = g.oprs.tensors[o.value];
        ir::Range out = g.oprs.outputs[o.value];
        if (tr.count != 1 || out.count != 1) continue;
        ir::BlobId blob = g.tensors.blob[tr.begin];
        if (!blob.valid()) continue;

        ir::Bytes bytes = g.blobs.bytes(blob);
        auto& bucket = seen[sampled_key(bytes)];
        Candidate self{o, std::nullopt};
        auto survivor = bucket.end();
        if (!bucket.empty()) {
            const Hash128 mine = full_of(self);
            survivor = std::ranges::find_if(
                bucket, [&](Candidate& s) { return full_of(s) == mine && same_holder(g, s.opr, o, options); });
        }
        if (survivor == bucket.end() || is_output[out.begin]) {
            if (survivor == bucket.end()) bucket.push_back(self);
            continue;
        }
        found.replace.emplace_back(ir::VarId(out.begin), g.output_var(survivor->opr, 0));
        found.stats.tensors_saved += 1;
        found.stats.bytes_saved += bytes.size();
    }
    return found;
}

void merge_duplicate_params(ir::Graph& g, const ParamDuplicates& found) {
    if (found.replace.empty()) return;
    // One pass over the input column instead of one Graph::redirect per merge.
    std::vector<ir::VarId> replacement(g.vars.size());
    for (auto [from, to] : found.replace) replacement[from.value] = to;
    for (ir::VarId& v : g.opr_inputs)
        if (replacement[v.value].valid()) v = replacement[v.value];
}

ParamDedupStats dedup_params(ir::Graph& g, const ParamDedupOptions& options) {
    ParamDuplicates found = find_duplicate_params(g, options);
    merge_duplicate_params(g, found);
    return found.stats;
}

}  // namespace mgedump::engine
