#include "formats/serialized.h"

#include <cstring>

namespace mgedump::formats {

uint64_t Serialized::size() const {
    uint64_t n = header.size() + flatbuffer.size();
    for (ir::Bytes b : blobs) n += b.size();
    return n;
}

std::vector<Serialized::Piece> Serialized::pieces() const {
    std::vector<Piece> out;
    out.reserve(blobs.size() + 2 * deferred.size() + 2);
    if (!header.empty()) out.push_back({header});
    for (size_t i = 0; i < blobs.size(); ++i)
        if (!blobs[i].empty()) out.push_back({blobs[i], i < blob_tensors.size() ? int64_t{blob_tensors[i]} : -1});
    const auto* fb = reinterpret_cast<const std::byte*>(flatbuffer.data());
    size_t at = 0;
    for (const Deferred& d : deferred) {
        if (d.offset > at) out.push_back({{fb + at, d.offset - at}});
        if (!d.source.empty()) out.push_back({d.source, int64_t{d.tensor}});
        at = d.offset + d.source.size();
    }
    if (flatbuffer.size() > at) out.push_back({{fb + at, flatbuffer.size() - at}});
    return out;
}

std::vector<std::span<const std::byte>> Serialized::segments() const {
    std::vector<std::span<const std::byte>> s;
    for (const Piece& p : pieces()) s.push_back(p.bytes);
    return s;
}

void Serialized::append_to(std::vector<std::byte>& out) const {
    size_t at = out.size();
    out.resize(at + size());
    for (std::span<const std::byte> seg : segments()) {
        std::memcpy(out.data() + at, seg.data(), seg.size());
        at += seg.size();
    }
}

std::vector<std::byte> Serialized::to_bytes() const {
    std::vector<std::byte> out;
    append_to(out);
    return out;
}

}  // namespace mgedump::formats
