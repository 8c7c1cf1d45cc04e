#include "formats/fbb.h"

// Inlined here: the keys are a few dozen bytes, hashed once per table or shared
// string, where a call into the library cost more than the hash (perf: 11% of an
// operator-heavy dump).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstring>

namespace mgedump::formats {

flatbuffers::Offset<flatbuffers::String> Fbb::CreateSharedString(const char* str, size_t len) {
    if (flatbuffers_pools_) return FlatBufferBuilder::CreateSharedString(str, len);
    const uint64_t hash = XXH3_64bits(str, len);
    ir::ProbeIndex::Slot& slot = strings_.find(hash, [&](flatbuffers::uoffset_t at) {
        const auto* earlier = reinterpret_cast<const flatbuffers::String*>(buf_.data_at(at));
        return earlier->size() == len && std::memcmp(earlier->c_str(), str, len) == 0;
    });
    if (slot.value != 0) return flatbuffers::Offset<flatbuffers::String>(slot.value);
    const auto off = CreateString(str, len);
    strings_.fill(slot, hash, off.o);  // `slot` is still valid: CreateString does not touch the index
    return off;
}

// FlatBuffers' EndTable without its search writes the vtable just below the table
// and remembers it in its scratch list; this takes the search's place. On a match
// it does what FlatBuffers does: drop the new vtable and point the table at the
// earlier one.
flatbuffers::uoffset_t Fbb::EndTable(flatbuffers::uoffset_t start) {
    if (flatbuffers_pools_) return FlatBufferBuilder::EndTable(start);
    DedupVtables(false);
    const flatbuffers::uoffset_t table = FlatBufferBuilder::EndTable(start);
    buf_.scratch_pop(sizeof(flatbuffers::uoffset_t));  // our table is the list of vtables
    const auto* vt = buf_.data();                       // the new vtable is the newest bytes
    const auto vt_size = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vt);
    const uint64_t hash = XXH3_64bits(vt, vt_size);
    ir::ProbeIndex::Slot& slot = vtables_.find(hash, [&](flatbuffers::uoffset_t at) {
        const uint8_t* earlier = buf_.data_at(at);
        return flatbuffers::ReadScalar<flatbuffers::voffset_t>(earlier) == vt_size &&
               std::memcmp(earlier, vt, vt_size) == 0;
    });
    if (slot.value != 0) {
        buf_.pop(GetSize() - table);
        flatbuffers::WriteScalar(buf_.data_at(table), static_cast<flatbuffers::soffset_t>(slot.value) -
                                                          static_cast<flatbuffers::soffset_t>(table));
        return table;
    }
    vtables_.fill(slot, hash, GetSize());
    return table;
}

}  // namespace mgedump::formats
