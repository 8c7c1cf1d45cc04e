#include "ir/strings.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>

namespace mgedump::ir {
namespace {

constexpr size_t kFirstChunk = 1024;
constexpr size_t kLargestChunk = size_t{64} << 10;

uint64_t hash_of(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

}  // namespace

StringTable::StringTable(const StringTable& other) { *this = other; }

// Each chunk is copied as far as it is used, and the views are moved onto the
// copies: strings were stored in id order, chunk after chunk, so one walk finds
// every string's chunk.
StringTable& StringTable::operator=(const StringTable& other) {
    if (this == &other) return *this;
    chunks_.clear();
    chunks_.reserve(other.chunks_.size());
    for (const Chunk& c : other.chunks_) {
        Chunk copy{std::make_unique_for_overwrite<char[]>(c.used), c.used, c.used};
        std::memcpy(copy.bytes.get(), c.bytes.get(), c.used);
        chunks_.push_back(std::move(copy));
    }
    strings_.resize(other.strings_.size());
    size_t k = 0;
    for (size_t i = 0; i < strings_.size(); ++i) {
        const std::string_view s = other.strings_[i];
        if (s.empty()) {
            strings_[i] = std::string_view("");  // never a null pointer: callers pass data() to memcpy
            continue;
        }
        while (s.data() < other.chunks_[k].bytes.get() ||
               s.data() + s.size() > other.chunks_[k].bytes.get() + other.chunks_[k].used)
            ++k;
        strings_[i] = std::string_view(chunks_[k].bytes.get() + (s.data() - other.chunks_[k].bytes.get()), s.size());
    }
    index_ = other.index_;
    return *this;
}

std::string_view StringTable::store(std::string_view s) {
    if (s.empty()) return std::string_view("");
    if (chunks_.empty() || chunks_.back().capacity - chunks_.back().used < s.size()) {
        const size_t next = chunks_.empty() ? kFirstChunk : std::min(2 * chunks_.back().capacity, kLargestChunk);
        const size_t capacity = std::max(next, s.size());
        chunks_.push_back(Chunk{std::make_unique_for_overwrite<char[]>(capacity), 0, capacity});
    }
    Chunk& c = chunks_.back();
    char* at = c.bytes.get() + c.used;
    std::memcpy(at, s.data(), s.size());
    c.used += s.size();
    return std::string_view(at, s.size());
}

StrId StringTable::intern(std::string_view s) {
    const uint64_t hash = hash_of(s);
    ProbeIndex::Slot& slot = index_.find(hash, [&](uint32_t value) { return strings_[value - 1] == s; });
    if (slot.value != 0) return StrId(slot.value - 1);
    const auto id = static_cast<uint32_t>(strings_.size());
    strings_.push_back(store(s));
    index_.fill(slot, hash, id + 1);  // `slot` is still valid: storing does not touch the index
    return StrId(id);
}

}  // namespace mgedump::ir
