#include "jobs/mapped_region.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>

namespace mgedump::jobs {

MappedRegions MappedRegions::snapshot() {
    MappedRegions r;
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        // begin-end perms offset major:minor inode [path]
        unsigned long long begin = 0, end = 0, offset = 0, inode = 0;
        unsigned major = 0, minor = 0;
        char perms[8] = {};
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu", &begin, &end, perms, &offset, &major, &minor,
                        &inode) != 7)
            continue;
        if (inode == 0) continue;  // anonymous, heap, stack
        // Writable shared mappings could change under us; only read-only ones identify bytes.
        if (perms[1] == 'w') continue;
        r.mappings_.push_back({static_cast<uintptr_t>(begin), static_cast<uintptr_t>(end), offset,
                               (static_cast<uint64_t>(major) << 32) | minor, inode});
    }
    std::ranges::sort(r.mappings_, {}, &Mapping::begin);
    return r;
}

std::optional<FileRegion> MappedRegions::find(const void* p, uint64_t size) const {
    auto a = reinterpret_cast<uintptr_t>(p);
    auto it = std::ranges::upper_bound(mappings_, a, {}, &Mapping::begin);
    if (it == mappings_.begin()) return std::nullopt;
    --it;
    if (a + size > it->end || a < it->begin) return std::nullopt;
    return FileRegion{it->device, it->inode, it->offset + (a - it->begin), size};
}

}  // namespace mgedump::jobs
