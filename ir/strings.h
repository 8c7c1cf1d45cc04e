// Interned strings: names and comp-node locators are stored once per graph and
// referred to by StrId. An invalid StrId means "absent", which is different from
// the empty string (MegEngine distinguishes a missing name from "").
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ir/ids.h"

namespace mgedump::ir {

class StringTable {
public:
    StringTable() = default;
    StringTable(const StringTable& other);
    StringTable& operator=(const StringTable& other);
    StringTable(StringTable&&) noexcept = default;
    StringTable& operator=(StringTable&&) noexcept = default;

    StrId intern(std::string_view s);
    // The text of `id`; "" for an invalid id.
    std::string_view view(StrId id) const { return id.valid() ? std::string_view(strings_[id.value]) : ""; }
    size_t size() const { return strings_.size(); }

private:
    void rebuild_index();
    // A deque never moves its elements, so the string_view keys stay valid.
    std::deque<std::string> strings_;
    std::unordered_map<std::string_view, uint32_t> index_;
};

}  // namespace mgedump::ir
