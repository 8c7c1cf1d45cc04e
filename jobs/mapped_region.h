// Which file region a pointer lies in, from the kernel's map of this process
// (/proc/self/maps). Readers that map files (the .npy reader, the .mge reader)
// hand out views into their mappings; knowing the region lets the blob cache
// recognise the same bytes of the same file without hashing them again, with no
// coupling to how each reader maps.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <vector>

namespace mgedump::jobs {

struct FileRegion {
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t offset = 0;  // in the file
    uint64_t size = 0;
    auto operator<=>(const FileRegion&) const = default;
};

class MappedRegions {
public:
    // A snapshot of the current file mappings. Mappings whose views are still held
    // stay in place, so a snapshot taken after loading a model is valid for its blobs.
    static MappedRegions snapshot();

    // The file region of [p, p + size), or nullopt for anonymous memory or a range
    // crossing mappings.
    std::optional<FileRegion> find(const void* p, uint64_t size) const;

private:
    struct Mapping {
        uintptr_t begin, end;
        uint64_t offset, device, inode;
    };
    std::vector<Mapping> mappings_;  // sorted by begin
};

}  // namespace mgedump::jobs
