#include <gtest/gtest.h>

#include <tbb/parallel_for.h>

#include "batch_fixtures.h"
#include "formats/graph_json.h"
#include "jobs/blob_cache.h"
#include "jobs/manifest.h"

namespace mgedump::test {
namespace {

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

TEST(BlobCache, TheCanonicalCopyOutlivesItsFirstOwnerWithinTheRetainBudget) {
    jobs::BlobCache cache(1 << 20);
    const std::byte* first = nullptr;
    {
        auto a = bytes_of("kept");
        first = a->data();
        cache.intern(ir::Bytes(*a), a);
    }
    auto b = bytes_of("kept");
    EXPECT_EQ(cache.intern(ir::Bytes(*b), b).bytes.data(), first);
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
    EXPECT_EQ(s.bytes_hashed, kWidth * 4);  // the later three were recognised by their file region
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
