// Tensor value bytes. A blob either owns its bytes or views memory somebody else
// owns (a mapped model file, a numpy array, a cross-model cache entry); either way
// a shared keep-alive handle travels with it, so copying a graph never copies bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ir/ids.h"

namespace mgedump::ir {

using Bytes = std::span<const std::byte>;

class BlobStore {
public:
    BlobId add_owned(std::vector<std::byte> bytes);
    // `keepalive` must keep `bytes` valid for as long as any copy of the store lives.
    BlobId add_view(Bytes bytes, std::shared_ptr<const void> keepalive);
    // The same bytes under a new id, sharing ownership (used by dedup and graph merges).
    BlobId add_shared(const BlobStore& from, BlobId id);

    Bytes bytes(BlobId id) const { return views_.at(id.value); }
    const std::shared_ptr<const void>& owner(BlobId id) const { return owners_.at(id.value); }
    size_t size() const { return views_.size(); }

private:
    std::vector<Bytes> views_;
    std::vector<std::shared_ptr<const void>> owners_;
};

}  // namespace mgedump::ir
