// Interned strings: names and comp-node locators are stored once per graph and
// referred to by StrId. An invalid StrId means "absent", which is different from
// the empty string (MegEngine distinguishes a missing name from "").
//
// Layout (why): a graph is copied whenever a dump rewrites or renames it, so the
// copy must be cheap. The characters live in a few arena chunks and the index is
// an ir::ProbeIndex of (hash, id), so a copy is a handful of memcpys.
// A std::string per entry plus a node-based hash map cost an allocation per
// string and a rehash on every copy (perf: 6% of a transformer's dump).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ir/ids.h"
#include "ir/probe_index.h"

namespace mgedump::ir {

class StringTable {
public:
    StringTable() = default;
    StringTable(const StringTable& other);
    StringTable& operator=(const StringTable& other);
    StringTable(StringTable&&) noexcept = default;
    StringTable& operator=(StringTable&&) noexcept = default;

    StrId intern(std::string_view s);
    // The text of `id`; "" for an invalid id. Valid while the table lives: the
    // characters never move, even when later strings are interned.
    std::string_view view(StrId id) const { return id.valid() ? strings_[id.value] : std::string_view(""); }
    size_t size() const { return strings_.size(); }

private:
    struct Chunk {
        std::unique_ptr<char[]> bytes;
        size_t used = 0;
        size_t capacity = 0;
    };
    // A copy of `s` in the arena.
    std::string_view store(std::string_view s);

    std::vector<Chunk> chunks_;
    std::vector<std::string_view> strings_;  // into chunks_, by id
    ProbeIndex index_;  // id + 1 by hash; a copy is a vector copy
};

}  // namespace mgedump::ir
