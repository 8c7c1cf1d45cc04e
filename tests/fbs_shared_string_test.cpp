// formats::Fbb pools shared strings and vtables in hash maps; FlatBuffers' own
// builder keeps strings in a set and compares each new vtable with every earlier
// one. The same calls must give the same buffer, repeats and all.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "formats/fbs_build.h"

namespace mgedump {
namespace {

template <class Builder>
std::vector<uint8_t> build(Builder& b) {
    const std::vector<std::string> names = {"xpux:0", "conv1", "xpux:0", "", "conv1", "x", "", "xpux:0", "conv10"};
    std::vector<flatbuffers::Offset<flatbuffers::String>> offs;
    for (const std::string& n : names) {
        offs.push_back(b.CreateSharedString(n));
        b.CreateString("unshared");  // a plain string in between never joins the pool
    }
    auto vec = b.CreateVector(offs);
    b.Finish(vec);
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

TEST(FbsSharedString, PoolGivesTheSameBytesAsFlatBuffersOwn) {
    formats::Fbb ours(64);
    flatbuffers::FlatBufferBuilder theirs(64);
    const std::vector<uint8_t> a = build(ours), b = build(theirs);
    EXPECT_EQ(a, b);
    // And repeats really share one string.
    formats::Fbb pool(64);
    auto first = pool.CreateSharedString(std::string("conv1"));
    pool.CreateString("between");
    EXPECT_EQ(pool.CreateSharedString(std::string_view("conv1")).o, first.o);
    EXPECT_NE(pool.CreateSharedString(std::string("conv2")).o, first.o);
}

// Tables of many layouts (which slots are set, of what width, how many), some
// repeated, some new, with small tables nested inside others' building order.
template <class Builder>
std::vector<uint8_t> tables(Builder& b, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<flatbuffers::Offset<void>> made;
    for (int i = 0; i < 3000; ++i) {
        const int slots = static_cast<int>(rng() % 12);
        auto start = b.StartTable();
        for (int s = 0; s < slots; ++s) {
            if (rng() % 3 == 0) continue;
            const auto at = static_cast<flatbuffers::voffset_t>(4 + 2 * s);
            if (rng() % 2) b.template AddElement<uint32_t>(at, rng() % 5 + 1, 0);
            else b.template AddElement<uint8_t>(at, static_cast<uint8_t>(rng() % 3 + 1), 0);
        }
        made.push_back(flatbuffers::Offset<void>(b.EndTable(start)));
    }
    b.Finish(b.CreateVector(made));
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

TEST(FbsVtableDedup, HashedVtablesGiveTheSameBytesAsFlatBuffersSearch) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        formats::Fbb ours(64), baseline(64);
        baseline.use_flatbuffers_pools();
        flatbuffers::FlatBufferBuilder theirs(64);
        const std::vector<uint8_t> a = tables(ours, seed), b = tables(theirs, seed), c = tables(baseline, seed);
        EXPECT_EQ(a, b) << "seed " << seed;
        EXPECT_EQ(c, b) << "seed " << seed;
        // Layouts repeat, so vtables were shared: far fewer bytes than one per table.
        flatbuffers::FlatBufferBuilder undeduped(64);
        undeduped.DedupVtables(false);
        EXPECT_LT(a.size(), tables(undeduped, seed).size()) << "seed " << seed;
    }
}

}  // namespace
}  // namespace mgedump
