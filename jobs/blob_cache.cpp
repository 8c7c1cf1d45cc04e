#include "jobs/blob_cache.h"

#include <xxhash.h>

#include <cstring>

namespace mgedump::jobs {

BlobCache::BlobCache(uint64_t retain_bytes) : retain_limit_(retain_bytes) {}

BlobCache::Interned BlobCache::intern(ir::Bytes bytes, std::shared_ptr<const void> owner,
                                      std::optional<FileRegion> region) {
    blobs_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);

    std::optional<Digest128> digest;
    if (region) {
        std::lock_guard lock(regions_mutex_);
        if (auto it = regions_.find(*region); it != regions_.end()) digest = it->second;
    }
    if (!digest) {
        XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
        digest = Digest128{h.low64, h.high64};
        bytes_hashed_.fetch_add(bytes.size(), std::memory_order_relaxed);
        if (region) {
            std::lock_guard lock(regions_mutex_);
            regions_.emplace(*region, *digest);
        }
    }

    Shard& s = shard_of(*digest);
    std::lock_guard lock(s.mutex);
    if (s.ever_seen.insert(*digest).second) {
        unique_blobs_.fetch_add(1, std::memory_order_relaxed);
        unique_bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
    }
    std::vector<Entry>& bucket = s.entries[*digest];
    for (auto it = bucket.begin(); it != bucket.end();) {
        std::shared_ptr<const void> alive = it->strong ? it->strong : it->weak.lock();
        if (!alive) {
            it = bucket.erase(it);  // every user is gone; the slot is free for these bytes
            continue;
        }
        // Equal digests almost surely mean equal bytes; the compare makes it certain.
        if (it->bytes.size() == bytes.size() &&
            (bytes.empty() || it->bytes.data() == bytes.data() ||
             std::memcmp(it->bytes.data(), bytes.data(), bytes.size()) == 0))
            return Interned{it->bytes, std::move(alive), *digest};
        ++it;
    }
    Entry e{bytes, nullptr, owner};
    if (retained_.load(std::memory_order_relaxed) + bytes.size() <= retain_limit_) {
        retained_.fetch_add(bytes.size(), std::memory_order_relaxed);
        e.strong = owner;
    }
    bucket.push_back(std::move(e));
    return Interned{bytes, std::move(owner), *digest};
}

std::vector<Digest128> BlobCache::intern_graph(ir::Graph& g) {
    MappedRegions maps = MappedRegions::snapshot();
    ir::BlobStore canonical;
    std::vector<Digest128> digests;
    digests.reserve(g.blobs.size());
    for (uint32_t i = 0; i < g.blobs.size(); ++i) {
        ir::BlobId id(i);
        ir::Bytes b = g.blobs.bytes(id);
        Interned in = intern(b, g.blobs.owner(id), b.empty() ? std::nullopt : maps.find(b.data(), b.size()));
        canonical.add_view(in.bytes, std::move(in.owner));  // same index, so BlobIds stay valid
        digests.push_back(in.digest);
    }
    g.blobs = std::move(canonical);
    return digests;
}

BlobCacheStats BlobCache::stats() const {
    return BlobCacheStats{blobs_.load(), bytes_.load(), unique_blobs_.load(), unique_bytes_.load(),
                          bytes_hashed_.load()};
}

}  // namespace mgedump::jobs
