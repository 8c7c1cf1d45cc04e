#include "ir/blobs.h"

namespace mgedump::ir {

BlobId BlobStore::add_owned(std::vector<std::byte> bytes) {
    auto owned = std::make_shared<const std::vector<std::byte>>(std::move(bytes));
    return add_view(Bytes(owned->data(), owned->size()), owned);
}

BlobId BlobStore::add_view(Bytes bytes, std::shared_ptr<const void> keepalive) {
    views_.push_back(bytes);
    owners_.push_back(std::move(keepalive));
    return BlobId(static_cast<uint32_t>(views_.size() - 1));
}

BlobId BlobStore::add_shared(const BlobStore& from, BlobId id) { return add_view(from.bytes(id), from.owner(id)); }

}  // namespace mgedump::ir
