#include "formats/write_scratch.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mgedump::formats {

namespace {
constexpr uint8_t kPoison = 0xA5;
}

WriteScratch::WriteScratch(size_t max_retained_bytes) { allocator_.max_retained = max_retained_bytes; }

WriteScratch::~WriteScratch() = default;

size_t WriteScratch::builder_size(size_t planned) const {
    std::lock_guard lock(allocator_.mutex);
    return std::max(planned, allocator_.spare.capacity);
}

WriteScratchStats WriteScratch::stats() const {
    std::lock_guard lock(allocator_.mutex);
    return allocator_.stats;
}

uint8_t* WriteScratch::Recycler::allocate(size_t size) {
    std::lock_guard lock(mutex);
    Block b;
    if (spare.p && spare.capacity >= size) {
        b = std::exchange(spare, Block{});
        ++stats.buffers_reused;
    } else {
        b = Block{new uint8_t[size], size};
        ++stats.buffers_allocated;
    }
    if (poison) std::memset(b.p, kPoison, b.capacity);
    live.push_back(b);
    return b.p;
}

// The largest block returned is kept for the next dump (within the retain limit);
// smaller ones are freed.
void WriteScratch::Recycler::deallocate(uint8_t* p, size_t) {
    std::lock_guard lock(mutex);
    auto it = std::ranges::find(live, p, &Block::p);
    if (it == live.end()) return;  // not ours; never happens with FlatBuffers' callers
    Block b = *it;
    live.erase(it);
    if (b.capacity <= max_retained && b.capacity > spare.capacity) std::swap(b, spare);
    delete[] b.p;
}

WriteScratch::Recycler::~Recycler() { delete[] spare.p; }

}  // namespace mgedump::formats
