// How the batch reads an input: whole files (read or mapped) with their identity,
// the input's digest computed once for the stamps, and file regions on the blobs
// of a .mge model.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <set>

#include "batch_fixtures.h"
#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/load.h"
#include "formats/graph_json.h"
#include "jobs/model_input.h"
#include "jobs/stamp.h"

namespace mgedump::test {
namespace {

struct stat stat_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0);
    return st;
}

// Two different constants of `width` floats, saved as FBS_V2.
fs::path write_mge(const ScratchDir& dir, const std::string& name, size_t width) {
    write_text(dir / (name + ".json"), small_graph_json(1, /*twin=*/false, width));
    const fs::path p = dir / (name + ".mge");
    engine::write_file_atomically(
        p.string(), engine::dump_graph(formats::read_graph_json_file(dir / (name + ".json")), {}).bytes);
    return p;
}

TEST(BatchInput, SmallAndLargeFilesComeWholeWithTheirIdentity) {
    ScratchDir dir;
    for (size_t size : {size_t{100}, size_t{3} << 20}) {  // read, then mapped
        std::string text(size, '\0');
        for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>(i * 7 + i / 4096);
        const fs::path p = dir / fmt::format("f{}", size);
        write_text(p, text);
        engine::MappedFile f = engine::map_file(p.string());
        ASSERT_EQ(f.bytes.size(), size);
        EXPECT_EQ(std::memcmp(f.bytes.data(), text.data(), size), 0);
        EXPECT_EQ(f.device, static_cast<uint64_t>(stat_of(p).st_dev));
        EXPECT_EQ(f.inode, static_cast<uint64_t>(stat_of(p).st_ino));
        // A mapped file keeps its descriptor (for pread); a file read in has none.
        EXPECT_EQ(f.fd >= 0, size >= (size_t{1} << 20)) << size;
        // Read back with pread for a mapped file: the digest of the same bytes.
        const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
        EXPECT_EQ(engine::file_digest(f), fmt::format("{:016x}{:016x}", h.high64, h.low64)) << size;
    }
}

// Every mapped file may keep its descriptor, but not past kMaxHeldDescriptors at
// once (a batch's cache can keep many inputs alive); files mapped past the cap
// have none, and a descriptor released makes room again. Sparse 1 MiB files:
// mapped (not read in) without using disk.
TEST(BatchInput, MappedFilesHoldAtMostTheCappedNumberOfDescriptors) {
    ScratchDir dir;
    const int files = engine::kMaxHeldDescriptors + 20;
    std::vector<engine::MappedFile> held;
    for (int i = 0; i < files; ++i) {
        const fs::path p = dir / fmt::format("sparse{}", i);
        { std::ofstream(p, std::ios::binary); }
        fs::resize_file(p, size_t{1} << 20);
        held.push_back(engine::map_file(p.string()));
    }
    int with_fd = 0;
    for (const engine::MappedFile& f : held) with_fd += f.fd >= 0;
    EXPECT_LE(with_fd, engine::kMaxHeldDescriptors);
    EXPECT_GE(with_fd, engine::kMaxHeldDescriptors - 8);  // other live mappings of this process, if any
    EXPECT_EQ(held.back().fd, -1);
    const fs::path again = dir / "sparse0";
    held.clear();  // every mapping and its descriptor released
    EXPECT_GE(engine::map_file(again.string()).fd, 0);
}

// A large .mge input's blobs carry the descriptor its mapping holds, so the dump
// into a file preads them; the file is the bytes gathered from the mapping.
TEST(BatchInput, ALargeModelFilesBlobsArePreadIntoTheArtifactFile) {
    ScratchDir dir;
    const fs::path mge = write_mge(dir, "m", 300'000);  // two 1.2 MB constants: mapped, deferred
    ASSERT_GE(fs::file_size(mge), size_t{1} << 20);
    jobs::ModelInput in = jobs::read_model_input(mge);
    uint64_t with_fd = 0;
    for (uint32_t i = 0; i < in.graph.blobs.size(); ++i) with_fd += in.graph.blobs.file_descriptor(ir::BlobId(i)) >= 0;
    EXPECT_GE(with_fd, 2u);
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions o;
        o.dump_format = f;
        const std::vector<std::byte> gathered = engine::dump_graph(in.graph, o).bytes.to_bytes();
        const fs::path out = dir / "out.mge";
        engine::FileOps ops;
        engine::AtomicFile file(out.string(), ops);
        engine::Dumped d = engine::dump_graph(in.graph, o, nullptr, &file);
        file.commit();
        EXPECT_EQ(d.result.bytes_read_from_files, 2u * 300'000 * 4) << engine::format_name(f);
        const std::string written = read_text(out);
        ASSERT_EQ(written.size(), gathered.size()) << engine::format_name(f);
        EXPECT_EQ(std::memcmp(written.data(), gathered.data(), gathered.size()), 0) << engine::format_name(f);
    }
}

TEST(BatchInput, ReadBuffersAreReusedOnceTheirLastViewLetsGo) {
    ScratchDir dir;
    write_text(dir / "a.json", small_graph_json(1));
    write_text(dir / "b.json", small_graph_json(2));
    std::optional<engine::MappedFile> kept;
    {
        engine::ReadBuffers buffers(4);
        const std::byte* first = nullptr;
        {
            engine::MappedFile a = engine::map_file((dir / "a.json").string(), &buffers);
            first = a.bytes.data();
        }
        engine::MappedFile b = engine::map_file((dir / "b.json").string(), &buffers);
        EXPECT_EQ(b.bytes.data(), first);
        EXPECT_EQ(buffers.reused(), 1u);
        EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size()),
                  small_graph_json(2));
        kept = engine::map_file((dir / "a.json").string(), &buffers);
    }
    // The pool is gone; a buffer still in use stays valid and is freed by its last user.
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(kept->bytes.data()), kept->bytes.size()),
              small_graph_json(1));
}

TEST(BatchInput, TheInputDigestIsTheOneStampsCompare) {
    ScratchDir dir;
    const fs::path mge = write_mge(dir, "m", 64);
    write_text(dir / "g.json", small_graph_json(2));
    for (const fs::path& p : {mge, dir / "g.json"}) {
        jobs::ModelInput in = jobs::read_model_input(p);
        jobs::FileDigests fresh;
        std::optional<jobs::StampedFile> f = fresh.of(p);
        ASSERT_TRUE(f);
        EXPECT_EQ(in.input_digest, f->xxh3_128) << p;
        EXPECT_EQ(in.file_bytes, f->size) << p;
    }
}

TEST(BatchInput, ARememberedDigestIsNotComputedAgain) {
    ScratchDir dir;
    write_text(dir / "g.json", small_graph_json(3));
    jobs::FileDigests digests;
    digests.remember(dir / "g.json", 7, "recorded");  // not the file's: shows the file was not read
    std::optional<jobs::StampedFile> f = digests.of(dir / "g.json");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->xxh3_128, "recorded");
    EXPECT_EQ(f->size, 7u);
    EXPECT_FALSE(digests.of(dir / "missing.json"));
}

TEST(BatchInput, BlobsOfAModelFileKnowWhereTheyLieInIt) {
    ScratchDir dir;
    const fs::path mge = write_mge(dir, "m", 256);
    const std::string file = read_text(mge);
    jobs::ModelInput in = jobs::read_model_input(mge);
    const ir::BlobStore& blobs = in.graph.blobs;
    std::set<uint64_t> offsets;
    for (uint32_t i = 0; i < blobs.size(); ++i) {
        ir::Bytes b = blobs.bytes(ir::BlobId(i));
        const std::optional<ir::FileRegion>& r = blobs.region(ir::BlobId(i));
        if (b.empty()) continue;
        ASSERT_TRUE(r) << "blob " << i;
        EXPECT_EQ(r->inode, static_cast<uint64_t>(stat_of(mge).st_ino));
        ASSERT_EQ(r->size, b.size());
        ASSERT_LE(r->offset + r->size, file.size());
        EXPECT_EQ(std::memcmp(file.data() + r->offset, b.data(), b.size()), 0) << "blob " << i;
        offsets.insert(r->offset);
    }
    EXPECT_GE(offsets.size(), 2u);  // the two constants, at their own offsets
}

}  // namespace
}  // namespace mgedump::test
