#include "formats/fbb.h"

namespace mgedump::formats {

flatbuffers::Offset<flatbuffers::String> Fbb::CreateSharedString(const char* str, size_t len) {
    if (flatbuffers_pools_) return FlatBufferBuilder::CreateSharedString(str, len);
    if (auto it = shared_.find(std::string_view(str, len)); it != shared_.end()) return it->second;
    auto off = CreateString(str, len);
    shared_.emplace(std::string(str, len), off);
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
    buf_.scratch_pop(sizeof(flatbuffers::uoffset_t));  // our map is the list of vtables
    const auto* vt = buf_.data();                       // the new vtable is the newest bytes
    const auto vt_size = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vt);
    const std::string_view bytes(reinterpret_cast<const char*>(vt), vt_size);
    if (auto it = vtables_.find(bytes); it != vtables_.end()) {
        buf_.pop(GetSize() - table);
        flatbuffers::WriteScalar(buf_.data_at(table),
                                 static_cast<flatbuffers::soffset_t>(it->second) -
                                     static_cast<flatbuffers::soffset_t>(table));
        return table;
    }
    vtables_.emplace(std::string(bytes), GetSize());
    return table;
}

}  // namespace mgedump::formats
