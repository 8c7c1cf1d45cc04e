// A serialized model, planned but not yet copied into one buffer: the v1 header,
// views of the out-of-band tensor values (v1) and the finished FlatBuffer. Writing
// it to a file is one gather write; flattening it to memory copies each value once.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ir/blobs.h"

namespace mgedump::formats {

struct Serialized {
    std::vector<std::byte> header;                    // v1 only
    std::vector<ir::Bytes> blobs;                     // v1 only, in loader order
    std::vector<std::shared_ptr<const void>> owners;  // keep `blobs` alive
    flatbuffers::DetachedBuffer flatbuffer;           // size prefix included

    uint64_t size() const;
    // The segments in file order (header, blobs, FlatBuffer), for a gather write.
    std::vector<std::span<const std::byte>> segments() const;
    // One contiguous copy.
    std::vector<std::byte> to_bytes() const;
    void append_to(std::vector<std::byte>& out) const;
};

}  // namespace mgedump::formats
