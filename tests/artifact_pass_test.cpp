// The single pass over a dump: large FBS_V2 values are left out of the FlatBuffer
// and read once, when the artifact is flattened or written. The bytes must be the
// ones the writer gives when it copies every value in (MegEngine's way), the
// digest must be the xxh3-128 of those bytes, and the non-finite counts must be
// right wherever a value falls: deferred, copied in, across a 64 KiB chunk edge.
#include "engine/artifact_pass.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <random>

#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/value_scan.h"
#include "formats/model_reader.h"
#include "formats/write_plan.h"
#include "formats/write_scratch.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/order.h"

namespace mgedump {
namespace {

const ir::DType kF32 = ir::DType::of(ir::DTypeEnum::Float32);

std::vector<std::byte> floats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<std::byte> out(n * 4);
    for (size_t i = 0; i < n; ++i) {
        float v = dist(rng);
        std::memcpy(out.data() + i * 4, &v, 4);
    }
    return out;
}

void put(std::vector<std::byte>& b, size_t index, float v) { std::memcpy(b.data() + index * 4, &v, 4); }

// A large weight (deferred), a small bias (copied in), a large int8 value and an
// empty-shaped tail op, so pieces of every kind alternate in the file.
struct Model {
    ir::Graph graph;
    std::vector<std::byte> big, small;
};
Model mixed_model(std::vector<std::byte> big = floats(70'000, 1), std::vector<std::byte> small = floats(100, 2)) {
    Model m;
    m.big = std::move(big);
    m.small = std::move(small);
    const auto width = static_cast<uint32_t>(m.big.size() / 4);
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", kF32, {1, width});
    ir::VarId w = b.param("w", kF32, {1, width}, m.big);
    ir::VarId y = b.op("Elemwise", {x, w}, {{"mode", "MUL"}});
    ir::VarId q = b.constant(ir::DType::of(ir::DTypeEnum::Int8), {1, 90'000}, std::vector<std::byte>(90'000, std::byte{7}));
    ir::VarId s = b.param("s", kF32, {100}, m.small);
    ir::VarId z = b.op("Elemwise", {b.op("Reduce", {y}, {{"mode", "SUM"}, {"axis", 1}}), s}, {{"mode", "ADD"}});
    b.output(z, "z");
    b.output(q, "q");
    m.graph = b.finish();
    return m;
}

std::string xxh3_hex(const std::vector<std::byte>& b) {
    XXH128_hash_t h = XXH3_128bits(b.data(), b.size());
    return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::vector<std::byte> dump_into(const ir::Graph& g, const engine::DumpOptions& o, engine::DumpResult* result = nullptr,
                                 formats::WriteScratch* scratch = nullptr) {
    std::vector<std::byte> buffer;
    engine::Dumped d = engine::dump_graph(g, o, scratch, [&](uint64_t n) {
        buffer.assign(n + 16, std::byte{0xAB});  // larger than asked: only `n` may be used
        return std::span<std::byte>(buffer.data(), buffer.size());
    });
    EXPECT_EQ(d.bytes.size(), 0u) << "the Serialized must be empty once the caller's buffer holds the file";
    buffer.resize(d.result.tot_bytes);
    if (result) *result = d.result;
    return buffer;
}

engine::DumpOptions with_format(engine::DumpFormat f) {
    engine::DumpOptions o;
    o.dump_format = f;
    return o;
}

TEST(ArtifactPass, LargeFbsV2ValuesAreDeferredAndSmallOnesCopiedIn) {
    Model m = mixed_model();
    engine::Dumped d = engine::dump_graph(m.graph, engine::DumpOptions{});
    ASSERT_EQ(d.bytes.deferred.size(), 2u);  // the 280 KB weight and the 90 KB int8 constant
    for (size_t i = 1; i < d.bytes.deferred.size(); ++i)
        EXPECT_LT(d.bytes.deferred[i - 1].offset + d.bytes.deferred[i - 1].source.size(), d.bytes.deferred[i].offset);
    bool saw_weight = false;
    for (const auto& def : d.bytes.deferred) {
        EXPECT_LE(def.offset + def.source.size(), d.bytes.flatbuffer.size());
        if (def.source.size() == m.big.size()) {
            saw_weight = true;
            EXPECT_EQ(std::memcmp(def.source.data(), m.big.data(), m.big.size()), 0);
        }
    }
    EXPECT_TRUE(saw_weight);
}

TEST(ArtifactPass, DeferredValuesGiveTheBytesOfAWriterThatCopiesEveryValueIn) {
    Model m = mixed_model();
    const ir::Graph& g = m.graph;
    auto plan_for = [&](bool megengine_builder) {
        formats::WritePlan plan{.graph = g};
        plan.order = ir::dump_order(g);
        plan.numbering = ir::number_vars(g, plan.order);
        plan.megengine_builder = megengine_builder;
        return plan;
    };
    formats::WriteStats s1, s2;
    formats::WritePlan deferring = plan_for(false), copying = plan_for(true);
    formats::Serialized a = formats::write_fbs_v2(deferring, s1);
    formats::Serialized b = formats::write_fbs_v2(copying, s2);
    ASSERT_FALSE(a.deferred.empty());
    ASSERT_TRUE(b.deferred.empty());
    EXPECT_EQ(a.to_bytes(), b.to_bytes());
}

TEST(ArtifactPass, IntoABufferGivesTheGatheredBytesAndTheirDigestInBothFormats) {
    Model m = mixed_model();
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        const engine::DumpOptions o = with_format(f);
        engine::Dumped gathered = engine::dump_graph(m.graph, o);
        const std::vector<std::byte> flat = gathered.bytes.to_bytes();
        EXPECT_EQ(gathered.result.xxh3_128, xxh3_hex(flat)) << engine::format_name(f);
        engine::DumpResult r;
        EXPECT_EQ(dump_into(m.graph, o, &r), flat) << engine::format_name(f);
        EXPECT_EQ(r.xxh3_128, gathered.result.xxh3_128) << engine::format_name(f);
        EXPECT_EQ(r.tot_bytes, flat.size());
    }
}

TEST(ArtifactPass, AFileWrittenThroughTheBufferLoadsWithEveryValueInPlace) {
    Model m = mixed_model();
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        auto bytes = std::make_shared<std::vector<std::byte>>(dump_into(m.graph, with_format(f)));
        formats::LoadedModel loaded = formats::read_model(*bytes, bytes);
        const ir::Graph& g = loaded.graph;
        bool big = false, small = false;
        for (uint32_t t = 0; t < g.tensors.size(); ++t) {
            if (!g.tensors.blob[t].valid()) continue;
            ir::Bytes v = g.blobs.bytes(g.tensors.blob[t]);
            big |= v.size() == m.big.size() && std::memcmp(v.data(), m.big.data(), v.size()) == 0;
            small |= v.size() == m.small.size() && std::memcmp(v.data(), m.small.data(), v.size()) == 0;
        }
        EXPECT_TRUE(big && small) << engine::format_name(f);
    }
}

TEST(ArtifactPass, RecycledPoisonedMemoryNeverShowsThroughTheHolesLeftForValues) {
    Model m = mixed_model();
    const std::vector<std::byte> fresh = engine::dump_graph(m.graph, engine::DumpOptions{}).bytes.to_bytes();
    formats::WriteScratch scratch;
    scratch.poison_buffers(true);
    for (int round = 0; round < 2; ++round) {
        EXPECT_EQ(engine::dump_graph(m.graph, engine::DumpOptions{}, &scratch).bytes.to_bytes(), fresh);
        EXPECT_EQ(dump_into(m.graph, engine::DumpOptions{}, nullptr, &scratch), fresh);
    }
}

TEST(ArtifactPass, NonFiniteValuesAreCountedInDeferredValuesAcrossChunkEdgesAndInSmallOnes) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    std::vector<std::byte> big = floats(70'000, 1), small = floats(100, 2);
    const size_t edge = (size_t{64} << 10) / 4;  // a chunk edge, whatever the value's offset in the file
    put(big, 0, std::numeric_limits<float>::quiet_NaN());
    put(big, edge - 1, kInf);
    put(big, edge, -kInf);
    put(big, big.size() / 4 - 1, std::numeric_limits<float>::quiet_NaN());
    put(big, 5, std::numeric_limits<float>::max());
    put(small, 3, -kInf);
    const ir::Graph g = mixed_model(big, small).graph;
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpResult gathered = engine::dump_graph(g, with_format(f)).result, into;
        dump_into(g, with_format(f), &into);
        for (const engine::DumpResult* r : {&gathered, &into}) {
            ASSERT_EQ(r->warnings.size(), 2u) << engine::format_name(f);
            std::string all = r->warnings[0] + "\n" + r->warnings[1];
            EXPECT_NE(all.find("has 4 non-finite"), std::string::npos) << all;
            EXPECT_NE(all.find("has 1 non-finite"), std::string::npos) << all;
        }
    }
}

// A disk that accepts `budget` bytes, a few at a time, then is full.
struct ShortWrites : engine::FileOps {
    size_t budget;
    size_t calls = 0;
    explicit ShortWrites(size_t b) : budget(b) {}
    long write_some(int fd, std::span<const std::span<const std::byte>> segments) override {
        ++calls;
        if (budget == 0) {
            errno = ENOSPC;
            return -1;
        }
        std::span<const std::byte> first = segments.front().subspan(0, std::min<size_t>({segments.front().size(), budget, 777}));
        budget -= first.size();
        return FileOps::write_some(fd, std::span(&first, 1));
    }
};

std::vector<std::byte> read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> b(c.size());
    std::memcpy(b.data(), c.data(), c.size());
    return b;
}

struct TempDir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 fmt::format("mgedump-artifact-pass-{}-{}", ::getpid(), std::random_device{}());
    TempDir() { std::filesystem::create_directories(path); }
    ~TempDir() { std::filesystem::remove_all(path); }
    size_t entries() const { return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(path), {})); }
};

TEST(ArtifactPass, StreamedIntoAFileInShortWritesGivesTheGatheredBytes) {
    Model m = mixed_model();
    TempDir dir;
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        const auto path = dir.path / fmt::format("m-{}.mge", engine::format_name(f));
        const std::vector<std::byte> flat = engine::dump_graph(m.graph, with_format(f)).bytes.to_bytes();
        ShortWrites ops(SIZE_MAX);
        engine::AtomicFile file(path.string(), ops);
        engine::Dumped d = engine::dump_graph(m.graph, with_format(f), nullptr, &file);
        EXPECT_FALSE(std::filesystem::exists(path)) << "nothing at the path before commit";
        file.commit();
        EXPECT_EQ(read_all(path), flat) << engine::format_name(f);
        EXPECT_EQ(d.result.xxh3_128, xxh3_hex(flat));
        EXPECT_GT(ops.calls, flat.size() / 777);
    }
    EXPECT_EQ(dir.entries(), 2u);  // the two artifacts, no temporary files
}

TEST(ArtifactPass, ADiskFullMidStreamThrowsNamingThePathAndLeavesNothing) {
    Model m = mixed_model();
    TempDir dir;
    const auto path = dir.path / "m.mge";
    ShortWrites ops(100'000);  // fills up inside the first large value
    try {
        engine::AtomicFile file(path.string(), ops);
        engine::dump_graph(m.graph, engine::DumpOptions{}, nullptr, &file);
        file.commit();
        FAIL() << "the full disk was not reported";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(std::strerror(ENOSPC)), std::string::npos) << e.what();
    }
    EXPECT_EQ(dir.entries(), 0u);
}

// The vector path against a plain std::isfinite count, at every alignment and at
// lengths around its 32-value step.
TEST(ValueScan, CountsAndCopiesMatchAPlainLoopAtEveryAlignmentAndLength) {
    std::mt19937 rng(7);
    std::vector<std::byte> source(4 * 5000 + 8);
    for (auto& b : source) b = static_cast<std::byte>(rng());
    // Random bits are non-finite 1 time in 256; add the edge cases on purpose.
    const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::denorm_min(), -0.0f};
    for (size_t i = 0; i < 200; ++i) std::memcpy(source.data() + 4 * (rng() % 5000), &specials[i % 6], 4);
    for (size_t shift = 0; shift < 4; ++shift)
        for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{127}, size_t{128},
                         size_t{129}, size_t{4999}}) {
            std::span<const std::byte> in(source.data() + shift, n * 4 + (n % 3));  // a partial value at the end
            uint64_t expect = 0;
            for (size_t i = 0; i < n; ++i) {
                float v;
                std::memcpy(&v, in.data() + i * 4, 4);
                expect += !std::isfinite(v);
            }
            EXPECT_EQ(engine::count_non_finite_f32(in), expect) << "shift " << shift << " n " << n;
            std::vector<std::byte> out(in.size() + 3, std::byte{0x5A});
            EXPECT_EQ(engine::copy_count_non_finite_f32(out.data() + 1, in), expect) << "shift " << shift;
            EXPECT_EQ(std::memcmp(out.data() + 1, in.data(), in.size()), 0) << "shift " << shift << " n " << n;
            EXPECT_EQ(out[0], std::byte{0x5A});
            EXPECT_EQ(out[in.size() + 1], std::byte{0x5A});
        }
}

// Streaming stores need a 32-byte aligned destination: every offset of the
// destination against a 32-byte line (values lined up with it or not) and of the
// source, around the 128-byte step, must copy exactly and count the same.
TEST(ValueScan, StreamingStoresCopyAndCountLikeAPlainLoopAtEveryDestinationOffset) {
    std::mt19937 rng(11);
    std::vector<std::byte> source(4 * 3000 + 8);
    for (auto& b : source) b = static_cast<std::byte>(rng());
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i < 100; ++i) std::memcpy(source.data() + 4 * (rng() % 3000), &nan, 4);
    alignas(64) static std::byte out[4 * 3000 + 128];
    for (size_t src_shift : {size_t{0}, size_t{3}})
        for (size_t dst_offset = 0; dst_offset < 33; ++dst_offset)
            for (size_t n : {size_t{0}, size_t{7}, size_t{40}, size_t{129}, size_t{2999}}) {
                std::span<const std::byte> in(source.data() + src_shift, n * 4 + (n % 3));
                uint64_t expect = 0;
                for (size_t i = 0; i < n; ++i) {
                    float v;
                    std::memcpy(&v, in.data() + i * 4, 4);
                    expect += !std::isfinite(v);
                }
                std::fill(std::begin(out), std::end(out), std::byte{0x5A});
                std::byte* dst = out + 16 + dst_offset;
                EXPECT_EQ(engine::copy_count_non_finite_f32(dst, in, engine::Stores::Streaming), expect)
                    << "dst offset " << dst_offset << " n " << n;
                engine::finish_streaming_stores();
                EXPECT_EQ(std::memcmp(dst, in.data(), in.size()), 0) << "dst offset " << dst_offset << " n " << n;
                EXPECT_EQ(dst[-1], std::byte{0x5A});
                EXPECT_EQ(dst[in.size()], std::byte{0x5A});

                std::fill(std::begin(out), std::end(out), std::byte{0x5A});
                engine::copy_bytes(dst, in, engine::Stores::Streaming);
                engine::finish_streaming_stores();
                EXPECT_EQ(std::memcmp(dst, in.data(), in.size()), 0) << "copy_bytes, dst offset " << dst_offset;
                EXPECT_EQ(dst[-1], std::byte{0x5A});
                EXPECT_EQ(dst[in.size()], std::byte{0x5A});
            }
}

// Past BufferSink::kStreamFrom the pass streams into the caller's buffer; the
// file must still be the gathered bytes, with their digest and counts.
TEST(ArtifactPass, ALargeArtifactStreamedIntoABufferIsTheGatheredBytesInBothFormats) {
    std::vector<std::byte> big = floats(engine::BufferSink::kStreamFrom / 4 + 12'345, 5);
    put(big, 3, std::numeric_limits<float>::infinity());
    put(big, big.size() / 4 - 1, std::numeric_limits<float>::quiet_NaN());
    Model m = mixed_model(std::move(big));
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        const engine::DumpOptions o = with_format(f);
        engine::Dumped gathered = engine::dump_graph(m.graph, o);
        const std::vector<std::byte> flat = gathered.bytes.to_bytes();
        ASSERT_GE(flat.size(), engine::BufferSink::kStreamFrom);
        engine::DumpResult r;
        EXPECT_EQ(dump_into(m.graph, o, &r), flat) << engine::format_name(f);
        EXPECT_EQ(r.xxh3_128, xxh3_hex(flat)) << engine::format_name(f);
        EXPECT_EQ(r.warnings, gathered.result.warnings) << engine::format_name(f);
        ASSERT_EQ(r.warnings.size(), 1u) << engine::format_name(f);
        EXPECT_NE(r.warnings[0].find("2 non-finite"), std::string::npos) << r.warnings[0];
    }
}

TEST(ArtifactPass, WithoutTheDigestTheBytesAndWarningsAreTheSameAndTheDigestIsEmpty) {
    Model m = mixed_model();
    put(m.big, 9, std::numeric_limits<float>::quiet_NaN());
    m = mixed_model(m.big);
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        const engine::DumpOptions o = with_format(f);
        engine::Dumped with = engine::dump_graph(m.graph, o);
        std::vector<std::byte> buffer;
        engine::Dumped without = engine::dump_graph(
            m.graph, o, nullptr,
            [&](uint64_t n) {
                buffer.resize(n);
                return std::span<std::byte>(buffer);
            },
            engine::Digest::Skip);
        EXPECT_TRUE(without.result.xxh3_128.empty());
        EXPECT_FALSE(with.result.xxh3_128.empty());
        EXPECT_EQ(buffer, with.bytes.to_bytes()) << engine::format_name(f);
        EXPECT_EQ(without.result.warnings, with.result.warnings);
        EXPECT_EQ(without.result.warnings.size(), 1u);
    }
}

}  // namespace
}  // namespace mgedump
