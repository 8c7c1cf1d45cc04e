#include "jobs/blob_cache.h"

#include <gtest/gtest.h>
#include <tbb/parallel_for.h>

#include "batch_fixtures.h"
#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "formats/graph_json.h"
#include "jobs/manifest.h"
#include "jobs/model_input.h"

namespace mgedump::test {
namespace {

constexpr uint64_t kSampled = jobs::BlobCache::kSampleWindow * jobs::BlobCache::kSampleWindows;

std::shared_ptr<const std::vector<std::byte>> bytes_of(std::string_view s) {
    auto v = std::make_shared<std::vector<std::byte>>(s.size());
    std::memcpy(v->data(), s.data(), s.size());
    return v;
}

TEST(BlobCache, EqualBytesFromDifferentOwnersShareOneCanonicalCopy) {
    jobs::BlobCache cache;
    auto a = bytes_of("same weights");
    auto b = bytes_of("same weights");
    auto c = bytes_of("other weight");
    auto ia = cache.intern(ir::Bytes(*a), a);
    auto ib = cache.intern(ir::Bytes(*b), b);
    auto ic = cache.intern(ir::Bytes(*c), c);
    EXPECT_EQ(ib.bytes.data(), a->data());
    EXPECT_EQ(ia.digest, ib.digest);
    EXPECT_NE(ic.bytes.data(), a->data());
    auto s = cache.stats();
    EXPECT_EQ(s.blobs, 3u);
    EXPECT_EQ(s.unique_blobs, 2u);
    EXPECT_EQ(s.unique_bytes, 24u);
}

TEST(BlobCache, ASharedCopyOutlivesItsUsersWithinTheRetainBudget) {
    jobs::BlobCache cache(1 << 20);
    const std::byte* first = nullptr;
    {
        auto a = bytes_of("kept");
        auto b = bytes_of("kept");
        first = a->data();
        cache.intern(ir::Bytes(*a), a);
        cache.intern(ir::Bytes(*b), b);  // now it is shared
    }
    auto c = bytes_of("kept");
    EXPECT_EQ(cache.intern(ir::Bytes(*c), c).bytes.data(), first);
}

TEST(BlobCache, ClearDropsEveryCopyItKeptAndKeepsTheCounts) {
    jobs::BlobCache cache(1 << 20);
    auto a = bytes_of("kept");
    auto b = bytes_of("kept");
    for (int i = 0; i < 500; ++i) {  // entries in many shards
        auto other = bytes_of("weights " + std::to_string(i));
        cache.intern(ir::Bytes(*other), other, ir::FileRegion{1, 9, uint64_t(i) * 64, other->size()});
    }
    cache.intern(ir::Bytes(*a), a);
    cache.intern(ir::Bytes(*b), b);  // shared: the cache now keeps `a` alive
    EXPECT_EQ(a.use_count(), 2);
    const jobs::BlobCacheStats before = cache.stats();

    cache.clear();
    EXPECT_EQ(a.use_count(), 1);  // the cache let go
    const jobs::BlobCacheStats after = cache.stats();
    EXPECT_EQ(after.blobs, before.blobs);
    EXPECT_EQ(after.unique_blobs, before.unique_blobs);
    EXPECT_EQ(after.bytes_hashed, before.bytes_hashed);
    auto c = bytes_of("kept");
    EXPECT_EQ(cache.intern(ir::Bytes(*c), c).bytes.data(), c->data());  // nothing left to match
}

TEST(BlobCache, AContentSeenOnceIsNotKeptButOneSeenAgainIs) {
    static constexpr size_t kSize = 4096;
    auto make = [] {
        auto v = std::make_shared<std::vector<std::byte>>(kSize);
        for (size_t i = 0; i < kSize; ++i) (*v)[i] = std::byte(i * 13);
        return std::shared_ptr<const std::vector<std::byte>>(std::move(v));
    };
    jobs::BlobCache cache(1 << 20);
    {
        auto once = make();  // its only user is gone at the end of the block
        cache.intern(ir::Bytes(*once), once);
    }
    EXPECT_EQ(cache.stats().bytes_hashed, kSize + kSampled);
    {
        auto again = make();  // no live copy: hashed again, and from now on kept
        cache.intern(ir::Bytes(*again), again);
    }
    EXPECT_EQ(cache.stats().bytes_hashed, 2 * (kSize + kSampled));
    auto third = make();
    cache.intern(ir::Bytes(*third), third);
    EXPECT_EQ(cache.stats().bytes_hashed, 2 * (kSize + kSampled) + kSampled);  // compared, not hashed
    EXPECT_EQ(cache.stats().bytes_compared, kSize);
    EXPECT_EQ(cache.stats().unique_bytes, kSize);
}

TEST(BlobCache, OneNpyBehindSeveralGraphsIsHashedOnce) {
    ScratchDir in;
    constexpr size_t kWidth = 4096;  // 16 KiB of weights
    write_npy(in / "w.npy", kWidth, 3.0f);
    jobs::BlobCache cache;
    std::vector<ir::Graph> graphs;  // held, so every mapping stays alive as in a batch
    for (int i = 0; i < 4; ++i) {
        write_text(in / fmt::format("g{}.json", i), npy_graph_json("w.npy", kWidth));
        graphs.push_back(formats::read_graph_json_file(in / fmt::format("g{}.json", i)));
        cache.intern_graph(graphs.back());
    }
    auto s = cache.stats();
    EXPECT_EQ(s.unique_bytes, kWidth * 4);
    EXPECT_EQ(s.bytes, kWidth * 4 * 4);
    // The first was sampled and hashed; the later three were recognised by their file region.
    EXPECT_EQ(s.bytes_hashed, kWidth * 4 + kSampled);
}

TEST(BlobCache, AModelFileReadTwiceIsRecognisedByItsRegionsWithoutHashing) {
    ScratchDir in;
    write_text(in / "m.json", small_graph_json(5, /*twin=*/false, 1024));
    engine::write_file_atomically((in / "m.mge").string(),
                                  engine::dump_graph(formats::read_graph_json_file(in / "m.json"), {}).bytes);
    jobs::BlobCache cache;
    jobs::ModelInput first = jobs::read_model_input(in / "m.mge");
    cache.intern_graph(first.graph);
    const uint64_t hashed = cache.stats().bytes_hashed;
    jobs::ModelInput second = jobs::read_model_input(in / "m.mge");
    std::vector<std::optional<ir::FileRegion>> regions;
    for (uint32_t i = 0; i < second.graph.blobs.size(); ++i)
        regions.push_back(second.graph.blobs.region(ir::BlobId(i)));
    cache.intern_graph(second.graph);

    EXPECT_EQ(cache.stats().bytes_hashed, hashed);
    ASSERT_EQ(second.graph.blobs.size(), first.graph.blobs.size());
    for (uint32_t i = 0; i < first.graph.blobs.size(); ++i) {
        const ir::BlobId id(i);
        if (first.graph.blobs.bytes(id).empty()) continue;
        ASSERT_TRUE(regions[i]) << "blob " << i;
        // Each blob found its own canonical copy, not another region's.
        EXPECT_EQ(second.graph.blobs.bytes(id).data(), first.graph.blobs.bytes(id).data()) << "blob " << i;
    }
    EXPECT_EQ(cache.stats().unique_bytes * 2, cache.stats().bytes);
}

TEST(BlobCache, ARegionOfAnotherFileOrOffsetIsNotConfused) {
    jobs::BlobCache cache;
    auto a = bytes_of("region at offset 0 of file 7");
    auto b = bytes_of("region at offset 64, file 7.");
    auto c = bytes_of("the same region in file 8 ..");
    ASSERT_EQ(a->size(), b->size());
    ASSERT_EQ(a->size(), c->size());
    const uint64_t n = a->size();
    auto ia = cache.intern(ir::Bytes(*a), a, ir::FileRegion{1, 7, 0, n});
    auto ib = cache.intern(ir::Bytes(*b), b, ir::FileRegion{1, 7, 64, n});
    auto ic = cache.intern(ir::Bytes(*c), c, ir::FileRegion{1, 8, 0, n});
    EXPECT_EQ(ia.bytes.data(), a->data());
    EXPECT_EQ(ib.bytes.data(), b->data());
    EXPECT_EQ(ic.bytes.data(), c->data());
    EXPECT_NE(ia.digest, ib.digest);
    EXPECT_NE(ia.digest, ic.digest);
    EXPECT_EQ(cache.stats().unique_blobs, 3u);
    // Seen regions again, in other memory: each finds its own canonical copy.
    auto b2 = bytes_of(std::string(reinterpret_cast<const char*>(b->data()), b->size()));
    EXPECT_EQ(cache.intern(ir::Bytes(*b2), b2, ir::FileRegion{1, 7, 64, n}).bytes.data(), b->data());
    auto a2 = bytes_of(std::string(reinterpret_cast<const char*>(a->data()), a->size()));
    EXPECT_EQ(cache.intern(ir::Bytes(*a2), a2, ir::FileRegion{1, 7, 0, n}).bytes.data(), a->data());
    EXPECT_EQ(cache.stats().unique_blobs, 3u);
}

// 64 KiB blobs equal in every sample window and different between them.
std::vector<std::shared_ptr<const std::vector<std::byte>>> equal_in_the_samples(int count) {
    std::vector<std::shared_ptr<const std::vector<std::byte>>> out;
    for (int k = 0; k < count; ++k) {
        auto v = std::make_shared<std::vector<std::byte>>(size_t{64} << 10, std::byte{0x5a});
        (*v)[1000] = std::byte(k);  // between the first and second window
        (*v)[40000 + static_cast<size_t>(k)] = std::byte{1};
        out.push_back(v);
    }
    return out;
}

TEST(BlobCache, BlobsEqualInEverySampleButDifferentElsewhereStayApart) {
    auto blobs = equal_in_the_samples(4);
    for (const auto& b : blobs)
        ASSERT_EQ(jobs::BlobCache::sample_key(ir::Bytes(*b)),
                  jobs::BlobCache::sample_key(ir::Bytes(*blobs[0])));
    jobs::BlobCache cache;
    for (const auto& b : blobs) EXPECT_EQ(cache.intern(ir::Bytes(*b), b).bytes.data(), b->data());
    EXPECT_EQ(cache.stats().unique_blobs, 4u);
    // Copies in other memory find their own original, among candidates with one key.
    for (int k : {2, 0, 3, 1}) {
        auto copy = std::make_shared<const std::vector<std::byte>>(*blobs[k]);
        EXPECT_EQ(cache.intern(ir::Bytes(*copy), copy).bytes.data(), blobs[k]->data()) << k;
    }
    EXPECT_EQ(cache.stats().unique_blobs, 4u);
    EXPECT_EQ(cache.stats().unique_bytes, 4u * (64 << 10));
}

TEST(BlobCache, CopiesOfSharedBytesAreComparedOnceAndNotHashed) {
    constexpr size_t kSize = 64 << 10;
    std::vector<std::shared_ptr<const std::vector<std::byte>>> copies;  // 16 models' own memory, equal bytes
    for (int k = 0; k < 16; ++k) {
        auto v = std::make_shared<std::vector<std::byte>>(kSize);
        for (size_t i = 0; i < kSize; ++i) (*v)[i] = std::byte(i * 31 + i / 251);
        copies.push_back(v);
    }
    jobs::BlobCache cache;
    for (const auto& c : copies) EXPECT_EQ(cache.intern(ir::Bytes(*c), c).bytes.data(), copies[0]->data());
    const jobs::BlobCacheStats s = cache.stats();
    EXPECT_EQ(s.unique_bytes, kSize);
    EXPECT_EQ(s.bytes_hashed, kSize + 16 * kSampled);  // the content once, the samples of each copy
    EXPECT_EQ(s.bytes_compared, 15 * kSize);           // each later copy once against the canonical one
}

TEST(BlobCache, ConcurrentInterningAgreesOnOneCopyPerContent) {
    jobs::BlobCache cache;
    std::vector<std::shared_ptr<const std::vector<std::byte>>> blobs;
    for (int i = 0; i < 400; ++i) blobs.push_back(bytes_of(fmt::format("blob {}", i % 20)));
    std::vector<const std::byte*> canonical(blobs.size());
    tbb::parallel_for(size_t(0), blobs.size(),
                      [&](size_t i) { canonical[i] = cache.intern(ir::Bytes(*blobs[i]), blobs[i]).bytes.data(); });
    for (size_t i = 20; i < blobs.size(); ++i) EXPECT_EQ(canonical[i], canonical[i % 20]);
    EXPECT_EQ(cache.stats().unique_blobs, 20u);
}

}  // namespace
}  // namespace mgedump::test
