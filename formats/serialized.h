// A serialized model, planned but not yet copied into one buffer: the v1 header,
// views of the out-of-band tensor values (v1), the finished FlatBuffer, and the
// large FBS_V2 values left out of it. Writing it to a file is one gather write;
// flattening it to memory copies each value once.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ir/blobs.h"

namespace mgedump::formats {

struct Serialized {
    std::vector<std::byte> header;                    // v1 only
    std::vector<ir::Bytes> blobs;                     // v1 only, in loader order
    std::vector<uint32_t> blob_tensors;               // v1: the tensor whose value each blob is
    std::vector<std::shared_ptr<const void>> owners;  // keep `blobs` and deferred sources alive
    flatbuffers::DetachedBuffer flatbuffer;           // size prefix included

    // FBS_V2: a tensor value the writer reserved room for in `flatbuffer` but did
    // not copy, so that it is read once, when the artifact is written or
    // flattened. The FlatBuffer's bytes [offset, offset + source.size()) are
    // unwritten and stand for `source`.
    struct Deferred {
        size_t offset = 0;
        ir::Bytes source;
        uint32_t tensor = 0;
    };
    std::vector<Deferred> deferred;  // ascending offsets

    // One stretch of the file: bytes the writer produced (tensor < 0), or a
    // tensor's value viewed in the graph.
    struct Piece {
        std::span<const std::byte> bytes;
        int64_t tensor = -1;
    };

    uint64_t size() const;
    // The file in order, for a pass that must know which bytes are tensor values.
    std::vector<Piece> pieces() const;
    // The segments in file order (header, blobs, FlatBuffer), for a gather write.
    std::vector<std::span<const std::byte>> segments() const;
    // One contiguous copy.
    std::vector<std::byte> to_bytes() const;
    void append_to(std::vector<std::byte>& out) const;
};

}  // namespace mgedump::formats
