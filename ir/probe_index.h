// An index of entries whose keys live elsewhere (a string arena, a FlatBuffer
// under construction): open addressing with linear probing over (hash, value)
// slots, where a candidate is confirmed by the caller comparing the real key.
// Holding no copy of the keys keeps the index small and its copy a vector copy,
// which node-based hash maps of std::string keys were not (perf: their allocation
// and hashing per entry cost 6-15% of a dump).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mgedump::ir {

class ProbeIndex {
public:
    // `value` 0 marks an empty slot, so callers store something non-zero.
    struct Slot {
        uint64_t hash = 0;
        uint32_t value = 0;
    };

    // The slot of the entry with `hash` for which `same(value)` holds, or the empty
    // slot where such an entry belongs (then fill it with `fill`). Grows first, so
    // the returned slot stays valid until the next find.
    template <class Same>
    Slot& find(uint64_t hash, Same&& same) {
        if (2 * (used_ + 1) > slots_.size()) grow();  // at most half full
        const size_t mask = slots_.size() - 1;
        for (size_t i = static_cast<size_t>(hash) & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.value == 0 || (s.hash == hash && same(s.value))) return s;
        }
    }
    void fill(Slot& empty, uint64_t hash, uint32_t value) {
        empty = Slot{hash, value};
        ++used_;
    }

private:
    void grow();

    std::vector<Slot> slots_;
    size_t used_ = 0;
};

}  // namespace mgedump::ir
