#include "ir/strings.h"

namespace mgedump::ir {

StringTable::StringTable(const StringTable& other) : strings_(other.strings_) { rebuild_index(); }

StringTable& StringTable::operator=(const StringTable& other) {
    if (this != &other) {
        strings_ = other.strings_;
        rebuild_index();
    }
    return *this;
}

void StringTable::rebuild_index() {
    index_.clear();
    index_.reserve(strings_.size());
    for (uint32_t i = 0; i < strings_.size(); ++i) index_.emplace(strings_[i], i);
}

StrId StringTable::intern(std::string_view s) {
    if (auto it = index_.find(s); it != index_.end()) return StrId(it->second);
    const auto id = static_cast<uint32_t>(strings_.size());
    strings_.emplace_back(s);
    index_.emplace(strings_.back(), id);
    return StrId(id);
}

}  // namespace mgedump::ir
