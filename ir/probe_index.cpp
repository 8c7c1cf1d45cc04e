#include "ir/probe_index.h"

namespace mgedump::ir {

void ProbeIndex::grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
        if (s.value == 0) continue;
        size_t i = static_cast<size_t>(s.hash) & mask;
        while (slots_[i].value != 0) i = (i + 1) & mask;
        slots_[i] = s;
    }
}

}  // namespace mgedump::ir
