// The FlatBufferBuilder both writers use. It makes the same bytes as FlatBuffers'
// own builder, finding repeats by hashing instead of comparing:
// - CreateSharedString pools strings in a hash map keyed by content, instead of
//   FlatBuffers' std::set of buffer offsets compared by memcmp inside the buffer
//   (perf: that set was two thirds of an operator-heavy FBS_V2 dump);
// - EndTable finds an identical earlier vtable in a hash map keyed by its bytes,
//   instead of comparing with every earlier vtable in turn.
// Same rules — the first string or vtable with these contents is reused, and
// each is stored once, so a match is unique — hence the same offsets and bytes.
// Every shared string and every table must go through this type.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

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
    struct ContentHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    template <class V>
    using ByContent = std::unordered_map<std::string, V, ContentHash, std::equal_to<>>;

    ByContent<flatbuffers::Offset<flatbuffers::String>> shared_;
    ByContent<flatbuffers::uoffset_t> vtables_;  // vtable bytes → its offset from the buffer's end
    bool flatbuffers_pools_ = false;
};

}  // namespace mgedump::formats
