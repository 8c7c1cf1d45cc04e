// Loading .mge files from disk: the file is mapped read-only and tensor values are
// viewed in the mapping, which the loaded graph keeps alive (zero-copy).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "formats/model_reader.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::engine {

// The first graph of the file. Throws Error (cannot open/map) or FormatError,
// both naming `path`.
formats::LoadedModel load_file(const std::string& path);
// Every graph appended in the file (§11.3).
std::vector<formats::LoadedModel> load_files(const std::string& path);

// The whole file in memory; `bytes` stays valid while the returned owner lives.
// Files from 1 MiB up are mapped read-only; smaller ones are read into a buffer,
// which is cheaper than a mapping whose unmapping stops every thread of the
// process (a batch reads thousands of small models).
struct MappedFile {
    ir::Bytes bytes;
    std::shared_ptr<const void> owner;
    uint64_t device = 0, inode = 0;  // which file (see ir::FileRegion)
    // A mapped file's descriptor, owned by `owner` (ir::BlobStore::file_descriptor),
    // so its bytes can be read with pread(2) instead of through the mapping; -1 for
    // files read into a buffer, and once the process holds kMaxHeldDescriptors.
    int fd = -1;
};
inline constexpr int kMaxHeldDescriptors = 256;

// Fills `into` from `offset` of the open file `fd` with pread(2). Throws Error
// (the byte and the reason) when the file has become shorter or cannot be read.
void pread_exactly(int fd, std::span<std::byte> into, uint64_t offset);

// xxh3-128 of `size` bytes at `offset` in the open file `fd`, read with pread(2)
// into a small buffer that stays in cache: on a virtual machine, touching a
// mapping costs page-table work per page that this does not. Throws as above.
XXH128_hash_t hash_file_range(int fd, uint64_t offset, uint64_t size);

// xxh3-128 of the file, as 32 hex digits: through its descriptor when it has one,
// from `bytes` otherwise.
std::string file_digest(const MappedFile& file);

// Buffers for map_file's reads of small files, each handed back when the last view
// into it lets go, so a batch of small models reuses a few buffers instead of
// faulting fresh memory in for every model. Thread-safe; buffers may outlive it.
class ReadBuffers {
  public:
    explicit ReadBuffers(size_t keep = 16);
    // At least `size` bytes (less than 1 MiB), not zeroed.
    std::shared_ptr<std::byte[]> get(size_t size);
    size_t reused() const;  // how many get() calls were served by a recycled buffer

  private:
    struct State;
    std::shared_ptr<State> state_;
};

MappedFile map_file(const std::string& path, ReadBuffers* buffers = nullptr);

}  // namespace mgedump::engine
