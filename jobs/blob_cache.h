// The batch's content-addressed store of tensor bytes. Every model's blobs are
// interned: equal bytes (XXH3-128, confirmed by comparing bytes) are replaced by
// one canonical copy, so a weight shared by many models is kept once in memory;
// bytes from a file region already seen (the same .npy behind several graph
// JSONs) are not even hashed again. Thread-safe: sharded by digest.
//
// Swapping a blob for an equal one never changes an artifact's bytes, so the
// cache cannot make output depend on which model got there first.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/blobs.h"
#include "ir/graph.h"
#include "jobs/mapped_region.h"

namespace mgedump::jobs {

struct Digest128 {
    uint64_t lo = 0, hi = 0;
    bool operator==(const Digest128&) const = default;
};
struct Digest128Hash {
    size_t operator()(const Digest128& d) const noexcept { return static_cast<size_t>(d.lo); }
};

struct BlobCacheStats {
    uint64_t blobs = 0;         // blobs interned (every model, every tensor)
    uint64_t bytes = 0;         // their total size
    uint64_t unique_blobs = 0;  // distinct contents
    uint64_t unique_bytes = 0;  // bytes of distinct contents: what a batch really holds
    uint64_t bytes_hashed = 0;  // bytes run through XXH3 (region hits skip it)
};

class BlobCache {
public:
    // Canonical copies are kept alive by the cache up to `retain_bytes`; beyond
    // that, an entry lives only as long as some model uses it.
    explicit BlobCache(uint64_t retain_bytes = 256ull << 20);

    struct Interned {
        ir::Bytes bytes;
        std::shared_ptr<const void> owner;
        Digest128 digest;
    };
    // The canonical blob equal to `bytes`. `region`, when known, is where the bytes
    // come from in a file; a region seen before gives its digest without hashing.
    Interned intern(ir::Bytes bytes, std::shared_ptr<const void> owner, std::optional<FileRegion> region = {});

    // Every blob of `g` replaced by its canonical copy; returns the digests in blob order.
    std::vector<Digest128> intern_graph(ir::Graph& g);

    BlobCacheStats stats() const;

private:
    struct Entry {
        ir::Bytes bytes;
        std::shared_ptr<const void> strong;  // set while within the retain budget
        std::weak_ptr<const void> weak;
    };
    static constexpr size_t kShards = 64;
    struct Shard {
        std::mutex mutex;
        std::unordered_map<Digest128, std::vector<Entry>, Digest128Hash> entries;
        std::unordered_set<Digest128, Digest128Hash> ever_seen;  // counts unique contents exactly once
    };

    Shard& shard_of(const Digest128& d) { return shards_[d.hi % kShards]; }

    const uint64_t retain_limit_;
    std::atomic<uint64_t> retained_{0};
    std::array<Shard, kShards> shards_;
    std::mutex regions_mutex_;
    std::map<FileRegion, Digest128> regions_;
    std::atomic<uint64_t> blobs_{0}, bytes_{0}, unique_blobs_{0}, unique_bytes_{0}, bytes_hashed_{0};
};

}  // namespace mgedump::jobs
