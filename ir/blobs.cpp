#include "ir/blobs.h"

#include <functional>

namespace mgedump::ir {

BlobId BlobStore::add_owned(std::vector<std::byte> bytes) {
    auto owned = std::make_shared<const std::vector<std::byte>>(std::move(bytes));
    return add_view(Bytes(owned->data(), owned->size()), owned);
}

BlobId BlobStore::add_view(Bytes bytes, std::shared_ptr<const void> keepalive,
                           std::optional<FileRegion> region, int fd) {
    views_.push_back(bytes);
    owners_.push_back(std::move(keepalive));
    regions_.push_back(region);
    fds_.push_back(region ? fd : -1);
    return BlobId(static_cast<uint32_t>(views_.size() - 1));
}

BlobId BlobStore::add_shared(const BlobStore& from, BlobId id) {
    return add_view(from.bytes(id), from.owner(id), from.region(id), from.file_descriptor(id));
}

void BlobStore::note_file_regions(const std::shared_ptr<const void>& keepalive, Bytes file, uint64_t device,
                                  uint64_t inode, int fd) {
    if (!keepalive || file.empty()) return;
    const std::less<const std::byte*> before;
    for (size_t i = 0; i < views_.size(); ++i) {
        const Bytes v = views_[i];
        const bool same_owner = !owners_[i].owner_before(keepalive) && !keepalive.owner_before(owners_[i]);
        if (!same_owner || v.empty() || before(v.data(), file.data()) ||
            before(file.data() + file.size(), v.data() + v.size()))
            continue;
        regions_[i] = FileRegion{device, inode, static_cast<uint64_t>(v.data() - file.data()), v.size()};
        fds_[i] = fd;
    }
}

}  // namespace mgedump::ir
