// formats::Fbb pools shared strings in a hash map; FlatBuffers' own builder pools
// them in a set. The same calls must give the same buffer, repeats and all.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mgedump
