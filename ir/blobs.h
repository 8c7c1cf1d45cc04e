// Tensor value bytes. A blob either owns its bytes or views memory somebody else
// owns (a mapped model file, a numpy array, a cross-model cache entry); either way
// a shared keep-alive handle travels with it, so copying a graph never copies bytes.
// A reader that took a blob's bytes from a file says which file region they are,
// so a cache can recognise the same bytes read again without looking at them.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ir/ids.h"

namespace mgedump::ir {

using Bytes = std::span<const std::byte>;

// Bytes [offset, offset + size) of the file (device, inode). Two views of the same
// region hold the same bytes as long as the file does not change.
struct FileRegion {
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    auto operator<=>(const FileRegion&) const = default;
};

class BlobStore {
public:
    BlobId add_owned(std::vector<std::byte> bytes);
    // `keepalive` must keep `bytes` valid for as long as any copy of the store lives.
    // `region`: where `bytes` were read from, when the reader knows.
    // `fd`: a descriptor open on the region's file that `keepalive` owns, or -1.
    BlobId add_view(Bytes bytes, std::shared_ptr<const void> keepalive,
                    std::optional<FileRegion> region = std::nullopt, int fd = -1);
    // The same bytes under a new id, sharing ownership (used by dedup and graph merges).
    BlobId add_shared(const BlobStore& from, BlobId id);

    // For readers that hand a whole file to a parser which does not know it came
    // from a file: every blob kept alive by `keepalive` (the same owner) whose bytes
    // lie in `file` gets its region in the file (device, inode), and `fd` when the
    // keep-alive holds the file open.
    void note_file_regions(const std::shared_ptr<const void>& keepalive, Bytes file, uint64_t device,
                           uint64_t inode, int fd = -1);

    Bytes bytes(BlobId id) const { return views_.at(id.value); }
    const std::shared_ptr<const void>& owner(BlobId id) const { return owners_.at(id.value); }
    const std::optional<FileRegion>& region(BlobId id) const { return regions_.at(id.value); }
    // A descriptor open on region(id)'s file, owned by owner(id) (so valid while the
    // bytes are), or -1. A writer can pread(2) the bytes at region(id)->offset
    // instead of touching their mapping, which on a virtual machine costs
    // page-table work per page that a read into a small cached buffer does not.
    int file_descriptor(BlobId id) const { return fds_.at(id.value); }
    size_t size() const { return views_.size(); }

private:
    std::vector<Bytes> views_;
    std::vector<std::shared_ptr<const void>> owners_;
    std::vector<std::optional<FileRegion>> regions_;
    std::vector<int> fds_;
};

}  // namespace mgedump::ir
