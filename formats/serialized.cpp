#include "formats/serialized.h"

#include <cstring>

namespace mgedump::formats {

uint64_t Serialized::size() const {
    uint64_t n = header.size() + flatbuffer.size();
    for (ir::Bytes b : blobs) n += b.size();
    return n;
}

std::vector<std::span<const std::byte>> Serialized::segments() const {
    std::vector<std::span<const std::byte>> s;
    s.reserve(blobs.size() + 2);
    if (!header.empty()) s.emplace_back(header);
    for (ir::Bytes b : blobs)
        if (!b.empty()) s.push_back(b);
    s.emplace_back(reinterpret_cast<const std::byte*>(flatbuffer.data()), flatbuffer.size());
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
