#include "jobs/blob_cache.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "engine/load.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::jobs {
namespace {

std::shared_ptr<const void> alive(const std::weak_ptr<const void>& weak,
                                  const std::shared_ptr<const void>& strong) {
    return strong ? strong : weak.lock();
}

}  // namespace

BlobCache::BlobCache(uint64_t retain_bytes) : retain_limit_(retain_bytes) {}

uint64_t BlobCache::sample_key(ir::Bytes b) {
    constexpr size_t W = kSampleWindow, K = kSampleWindows;
    const size_t n = b.size();
    if (n <= W * K) return XXH3_64bits_withSeed(b.data(), n, n);
    std::array<std::byte, W * K> sample;
    for (size_t k = 0; k < K; ++k)  // evenly spread: the first window at the start, the last at the end
        std::memcpy(sample.data() + k * W, b.data() + (n - W) * k / (K - 1), W);
    return XXH3_64bits_withSeed(sample.data(), sample.size(), n);
}

bool BlobCache::same_bytes(const Entry& e, ir::Bytes bytes) {
    if (e.bytes.size() != bytes.size()) return false;
    if (bytes.empty() || e.bytes.data() == bytes.data()) return true;
    bytes_compared_.fetch_add(bytes.size(), std::memory_order_relaxed);
    return std::memcmp(e.bytes.data(), bytes.data(), bytes.size()) == 0;
}

BlobCache::Interned BlobCache::intern(ir::Bytes bytes, std::shared_ptr<const void> owner,
                                      std::optional<ir::FileRegion> region, int fd) {
    blobs_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);

    std::optional<Known> known;
    if (region) {
        std::lock_guard lock(regions_mutex_);
        if (auto it = regions_.find(*region); it != regions_.end()) known = it->second;
    }
    const uint64_t key = known ? known->key : sample_key(bytes);
    if (!known)
        bytes_hashed_.fetch_add(std::min(bytes.size(), kSampleWindow * kSampleWindows),
                                std::memory_order_relaxed);
    Shard& s = shard_of(key);
    auto prune = [](std::vector<Entry>& bucket) {
        std::erase_if(bucket, [](const Entry& e) { return !e.strong && e.weak.expired(); });
    };

    // One live content with this key: the bytes decide, and a match needs no digest.
    if (!known) {
        std::lock_guard lock(s.mutex);
        auto it = s.entries.find(key);
        if (it != s.entries.end()) {
            prune(it->second);
            if (it->second.size() == 1) {
                Entry& e = it->second.front();
                if (std::shared_ptr<const void> a = alive(e.weak, e.strong); a && same_bytes(e, bytes)) {
                    retain(e, a);
                    return Interned{e.bytes, std::move(a), e.digest};
                }
            }
        }
    }

    Digest128 digest;
    if (known) {
        digest = known->digest;
    } else {
        if (fd >= 0 && region) {  // read through the descriptor: the mapping stays untouched
            const XXH128_hash_t h = engine::hash_file_range(fd, region->offset, region->size);
            digest = Digest128{h.low64, h.high64};
        } else {
            const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
            digest = Digest128{h.low64, h.high64};
        }
        bytes_hashed_.fetch_add(bytes.size(), std::memory_order_relaxed);
        if (region) {
            std::lock_guard lock(regions_mutex_);
            regions_.emplace(*region, Known{key, digest});
        }
    }

    std::lock_guard lock(s.mutex);
    const bool seen_before = !s.ever_seen.insert(digest).second;
    if (!seen_before) {
        unique_blobs_.fetch_add(1, std::memory_order_relaxed);
        unique_bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
    }
    std::vector<Entry>& bucket = s.entries[key];
    prune(bucket);
    for (Entry& e : bucket) {
        if (e.digest != digest) continue;
        // Equal digests almost surely mean equal bytes; the compare makes it certain.
        if (std::shared_ptr<const void> a = alive(e.weak, e.strong); a && same_bytes(e, bytes)) {
            retain(e, a);
            return Interned{e.bytes, std::move(a), e.digest};
        }
    }
    Entry& e = bucket.emplace_back(Entry{bytes, digest, nullptr, owner});
    if (seen_before) retain(e, owner);  // its users came and went: it is shared over time
    return Interned{bytes, std::move(owner), digest};
}

void BlobCache::retain(Entry& e, const std::shared_ptr<const void>& owner) {
    if (e.strong) return;
    if (retained_.fetch_add(e.bytes.size(), std::memory_order_relaxed) + e.bytes.size() > retain_limit_) {
        retained_.fetch_sub(e.bytes.size(), std::memory_order_relaxed);
        return;
    }
    e.strong = owner;
}

std::vector<Digest128> BlobCache::intern_graph(ir::Graph& g) {
    ir::BlobStore canonical;
    std::vector<Digest128> digests;
    digests.reserve(g.blobs.size());
    for (uint32_t i = 0; i < g.blobs.size(); ++i) {
        const ir::BlobId id(i);
        Interned in = intern(g.blobs.bytes(id), g.blobs.owner(id), g.blobs.region(id), g.blobs.file_descriptor(id));
        // Same index, so BlobIds stay valid; the region (and descriptor) stays with the bytes it names.
        const bool same = in.bytes.data() == g.blobs.bytes(id).data();
        canonical.add_view(in.bytes, std::move(in.owner), same ? g.blobs.region(id) : std::nullopt,
                           same ? g.blobs.file_descriptor(id) : -1);
        digests.push_back(in.digest);
    }
    g.blobs = std::move(canonical);
    return digests;
}

BlobCacheStats BlobCache::stats() const {
    return BlobCacheStats{blobs_.load(),        bytes_.load(),        unique_blobs_.load(),
                          unique_bytes_.load(), bytes_hashed_.load(), bytes_compared_.load()};
}

}  // namespace mgedump::jobs
