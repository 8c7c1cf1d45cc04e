// The FlatBufferBuilder both writers use. It makes the same bytes as FlatBuffers'
// own builder, finding repeats by hashing instead of comparing:
// - CreateSharedString pools strings in a hash table, instead of FlatBuffers'
//   std::set of buffer offsets compared by memcmp inside the buffer (perf: that
//   set was two thirds of an operator-heavy FBS_V2 dump);
// - EndTable finds an identical earlier vtable in a hash table, instead of
//   comparing with every earlier vtable in turn.
// Both tables hold only (hash, offset) and compare candidates with the bytes
// already in the buffer: no copy of a string or vtable is kept (perf: a table of
// std::string keys cost an allocation and a murmur hash per entry, 15% of a
// small model's dump).
// Same rules — the first string or vtable with these contents is reused, and
// each is stored once, so a match is unique — hence the same offsets and bytes.
// Every shared string and every table must go through this type.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/probe_index.h"

namespace mgedump::formats {

class Fbb : public flatbuffers::FlatBufferBuilder {
public:
    using FlatBufferBuilder::FlatBufferBuilder;
    // MegEngine's way, for the benchmarks' baseline: FlatBuffers' own string pool
    // and vtable search.
    void use_flatbuffers_pools() { flatbuffers_pools_ = true; }

    flatbuffers::Offset<flatbuffers::String> CreateSharedString(const char* str, size_t len);
    flatbuffers::Offset<flatbuffers::String> CreateSharedString(std::string_view s) {
        return CreateSharedString(s.data(), s.size());
    }
    flatbuffers::Offset<flatbuffers::String> CreateSharedString(const std::string& s) {
        return CreateSharedString(s.data(), s.size());
    }

    flatbuffers::uoffset_t EndTable(flatbuffers::uoffset_t start);

private:
    // Values are offsets from the buffer's end (where FlatBuffers builds back to
    // front, so they stay valid); never 0, which is the buffer's end itself.
    ir::ProbeIndex strings_, vtables_;
    bool flatbuffers_pools_ = false;
};

}  // namespace mgedump::formats
