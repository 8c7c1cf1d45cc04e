#include "jobs/blob_cache.h"

#include <tbb/parallel_for.h>
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

void BlobCache::clear() {
    tbb::parallel_for(size_t{0}, kShards, [this](size_t i) {
        {
            std::lock_guard lock(shards_[i].mutex);
            shards_[i].entries = {};
            shards_[i].ever_seen = {};
        }
        std::lock_guard lock(region_shards_[i].mutex);
        region_shards_[i].known = {};
    });
    retained_ = 0;
}

uint64_t BlobCache::sample_key(ir::Bytes b) {
    constexpr size_t W = kSampleWindow, K = kSampleWindows;
    const size_t n = b.size();
    if (n <= W * K) return XXH3_64bits_withSeed(b.data(), n, n);
    std::array<std::byte, W * K> sample;
    for (size_t k = 0; k < K; ++k)  // evenly spread: the first window at the start, the last at the end
        std::memcpy(sample.data() + k * W, b.data() + (n - W) * k / (K - 1), W);
    return XXH3_64bits_withSeed(sample.data(), sample.size(), n);
}

size_t BlobCache::RegionHash::operator()(const ir::FileRegion& r) const noexcept {
    const uint64_t fields[4] = {r.device, r.inode, r.offset, r.size};
    return static_cast<size_t>(XXH3_64bits(fields, sizeof fields));
}

std::optional<BlobCache::Known> BlobCache::known_region(const ir::FileRegion& r) {
    RegionShard& shard = region_shard_of(r);
    std::lock_guard lock(shard.mutex);
    if (auto it = shard.known.find(r); it != shard.known.end()) return it->second;
    return std::nullopt;
}

bool BlobCache::same_bytes(const Entry& e, ir::Bytes bytes, uint64_t& compared) {
    if (e.bytes.size() != bytes.size()) return false;
    if (bytes.empty() || e.bytes.data() == bytes.data()) return true;
    compared += bytes.size();
    return std::memcmp(e.bytes.data(), bytes.data(), bytes.size()) == 0;
}

BlobCache::Interned BlobCache::intern(ir::Bytes bytes, std::shared_ptr<const void> owner,
                                      std::optional<ir::FileRegion> region, int fd) {
    // Counted here and added to the shard's counts under its lock, where each path returns.
    BlobCacheStats counted{.blobs = 1, .bytes = bytes.size()};
    const std::optional<Known> known = region ? known_region(*region) : std::nullopt;
    const uint64_t key = known ? known->key : sample_key(bytes);
    if (!known) counted.bytes_hashed += std::min(bytes.size(), kSampleWindow * kSampleWindows);
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
                if (std::shared_ptr<const void> a = alive(e.weak, e.strong);
                    a && same_bytes(e, bytes, counted.bytes_compared)) {
                    retain(e, a);
                    s.counts += counted;
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
        counted.bytes_hashed += bytes.size();
        if (region) {
            RegionShard& shard = region_shard_of(*region);
            std::lock_guard lock(shard.mutex);
            shard.known.emplace(*region, Known{key, digest});
        }
    }

    std::lock_guard lock(s.mutex);
    const bool seen_before = !s.ever_seen.insert(digest).second;
    if (!seen_before) {
        counted.unique_blobs = 1;
        counted.unique_bytes = bytes.size();
    }
    std::vector<Entry>& bucket = s.entries[key];
    prune(bucket);
    for (Entry& e : bucket) {
        if (e.digest != digest) continue;
        // Equal digests almost surely mean equal bytes; the compare makes it certain.
        if (std::shared_ptr<const void> a = alive(e.weak, e.strong);
            a && same_bytes(e, bytes, counted.bytes_compared)) {
            retain(e, a);
            s.counts += counted;
            return Interned{e.bytes, std::move(a), e.digest};
        }
    }
    Entry& e = bucket.emplace_back(Entry{bytes, digest, nullptr, owner});
    if (seen_before) retain(e, owner);  // its users came and went: it is shared over time
    s.counts += counted;
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
    BlobCacheStats total;
    for (const Shard& s : shards_) {
        std::lock_guard lock(s.mutex);
        total += s.counts;
    }
    return total;
}

}  // namespace mgedump::jobs
