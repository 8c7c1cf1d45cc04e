// The batch's content-addressed store of tensor bytes. Every model's blobs are
// interned: equal bytes are replaced by one canonical copy, so a weight shared by
// many models is kept once in memory. Thread-safe: sharded by sampled key.
//
// How a blob finds its equal without hashing all of it: a cheap sampled key (size
// and XXH3 of a few fixed windows) picks the candidates; when exactly one live
// entry has that key, comparing the bytes (memcmp) decides, and a match reuses
// the entry's digest. Only contents the cache holds no live copy of (or keys that
// several contents share) are hashed in full (XXH3-128), so each distinct content
// is hashed once and each copy of it compared once. A blob whose file region
// (ir::BlobStore::region) was seen before is not even sampled.
//
// Swapping a blob for an equal one never changes an artifact's bytes, so the
// cache cannot make output depend on which model got there first.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "ir/blobs.h"
#include "ir/graph.h"

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
    // Bytes run through XXH3: the sample windows of blobs not known by region, and
    // the whole of every blob whose content had no live canonical copy (or whose key
    // several contents share). With every canonical copy alive, each distinct byte
    // is hashed once.
    uint64_t bytes_hashed = 0;
    uint64_t bytes_compared = 0;  // sizes of the blobs compared (memcmp) with a canonical copy

    BlobCacheStats& operator+=(const BlobCacheStats& o) {
        blobs += o.blobs;
        bytes += o.bytes;
        unique_blobs += o.unique_blobs;
        unique_bytes += o.unique_bytes;
        bytes_hashed += o.bytes_hashed;
        bytes_compared += o.bytes_compared;
        return *this;
    }
};

class BlobCache {
public:
  // A canonical copy lives as long as some model uses it. One that proves shared
  // (a second blob equal to it, or a content seen again after its users were
  // gone) is also kept alive by the cache, up to `retain_bytes` in all, so later
  // models find it. Contents seen once are not kept: a batch of distinct models
  // frees (and reuses) each model's memory when it is done.
  explicit BlobCache(uint64_t retain_bytes = 256ull << 20);
  // Empties the cache, shards in parallel (tbb::parallel_for, in the caller's
  // arena); stats() is kept. A batch of 1,000 small models leaves some 100,000
  // nodes, and freeing them on one thread as the batch ended was 5% of its
  // two-thread run time in perf, all of it serial.
  void clear();

  struct Interned {
      ir::Bytes bytes;
      std::shared_ptr<const void> owner;
      Digest128 digest;  // XXH3-128 of the bytes
    };
    // The canonical blob equal to `bytes`. `region`, when known, is where the bytes
    // come from in a file; a region seen before gives key and digest without reading.
    // `fd` (ir::BlobStore::file_descriptor), when open on the region's file: a full
    // hash reads the region with pread instead of through the bytes' mapping.
    Interned intern(ir::Bytes bytes, std::shared_ptr<const void> owner,
                    std::optional<ir::FileRegion> region = std::nullopt, int fd = -1);

    // Every blob of `g` replaced by its canonical copy (regions from g.blobs);
    // returns the digests in blob order.
    std::vector<Digest128> intern_graph(ir::Graph& g);

    BlobCacheStats stats() const;

    // The sampled key: equal bytes always have equal keys; different bytes usually
    // do not (blobs up to 512 bytes are keyed by all their bytes).
    static uint64_t sample_key(ir::Bytes bytes);
    static constexpr size_t kSampleWindow = 64, kSampleWindows = 8;

  private:
    struct Entry {
        ir::Bytes bytes;
        Digest128 digest;
        std::shared_ptr<const void> strong;  // set once shared, within the retain budget
        std::weak_ptr<const void> weak;
    };
    struct Known {
        uint64_t key;
        Digest128 digest;
    };
    static constexpr size_t kShards = 64;
    // A cache line each, counters included: two threads interning blobs of
    // different shards share nothing (perf: six shared atomic counters and adjacent
    // shards were cache lines the batch's threads passed back and forth per blob).
    struct alignas(64) Shard {
        mutable std::mutex mutex;
        BlobCacheStats counts;  // of the blobs whose key falls here; under `mutex`
        // Flat tables (abseil): a node-based std::unordered_map cost an allocation
        // and a cache miss or two per blob (perf: 13% of a batch of small models).
        absl::flat_hash_map<uint64_t, std::vector<Entry>> entries;  // by sampled key
        absl::flat_hash_set<Digest128, Digest128Hash> ever_seen;    // counts unique contents exactly once
    };

    // Regions already hashed, by region: consulted for every blob of every model,
    // so sharded like the entries (one global mutex and std::map was 7% of a batch
    // of small models in perf, and a point where its threads queued).
    struct RegionHash {
        size_t operator()(const ir::FileRegion& r) const noexcept;
    };
    struct alignas(64) RegionShard {
        std::mutex mutex;
        absl::flat_hash_map<ir::FileRegion, Known, RegionHash> known;
    };

    Shard& shard_of(uint64_t key) { return shards_[(key >> 32) % kShards]; }
    RegionShard& region_shard_of(const ir::FileRegion& r) { return region_shards_[RegionHash{}(r) % kShards]; }
    std::optional<Known> known_region(const ir::FileRegion& r);
    // `compared` grows by the bytes memcmp read.
    static bool same_bytes(const Entry& e, ir::Bytes bytes, uint64_t& compared);
    // Keeps `owner` (the entry's) alive from the cache, within the retain budget.
    void retain(Entry& e, const std::shared_ptr<const void>& owner);

    const uint64_t retain_limit_;
    std::atomic<uint64_t> retained_{0};
    std::array<Shard, kShards> shards_;
    std::array<RegionShard, kShards> region_shards_;
};

}  // namespace mgedump::jobs
