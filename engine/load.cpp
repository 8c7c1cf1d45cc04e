#include "engine/load.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "ir/error.h"
#include "ir/xxh3_dispatch.h"

namespace mgedump::engine {
namespace {

// Descriptors Mappings hold open now: a batch's blob cache can keep many models'
// mappings alive, and each must not cost a descriptor against the process limit.
std::atomic<int> held_descriptors{0};

// Owns one read-only mapping, and maybe its file's descriptor; unmapped and
// closed when the last blob view lets go.
struct Mapping {
    void* addr = nullptr;
    size_t size = 0;
    int fd = -1;
    Mapping(void* a, size_t s, int f) : addr(a), size(s), fd(f) {}
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() {
        if (addr) munmap(addr, size);
        if (fd >= 0) {
            ::close(fd);
            held_descriptors.fetch_sub(1, std::memory_order_relaxed);
        }
    }
};

constexpr size_t kReadBelow = size_t{1} << 20;

template <class F>
auto with_path(const std::string& path, F&& f) {
    try {
        return f();
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("{}: {}", path, e.what()));
    }
}

}  // namespace

struct ReadBuffers::State {
    // A constructor, not aggregate initialisation from make_shared's parentheses,
    // which clang supports only from version 16.
    explicit State(size_t keep_) : keep(keep_) {}
    const size_t keep;
    std::mutex mutex;
    std::vector<std::unique_ptr<std::byte[]>> free;  // each kReadBelow bytes
    size_t reused = 0;
};

ReadBuffers::ReadBuffers(size_t keep) : state_(std::make_shared<State>(keep)) {}

std::shared_ptr<std::byte[]> ReadBuffers::get(size_t size) {
    if (size >= kReadBelow) return std::make_shared_for_overwrite<std::byte[]>(size);
    std::unique_ptr<std::byte[]> b;
    {
        std::lock_guard lock(state_->mutex);
        if (!state_->free.empty()) {
            b = std::move(state_->free.back());
            state_->free.pop_back();
            ++state_->reused;
        }
    }
    if (!b) b = std::make_unique_for_overwrite<std::byte[]>(kReadBelow);
    return std::shared_ptr<std::byte[]>(b.release(), [state = state_](std::byte* p) {
        std::unique_ptr<std::byte[]> back(p);
        std::lock_guard lock(state->mutex);
        if (state->free.size() < state->keep) state->free.push_back(std::move(back));
    });
}

size_t ReadBuffers::reused() const {
    std::lock_guard lock(state_->mutex);
    return state_->reused;
}

MappedFile map_file(const std::string& path, ReadBuffers* buffers) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        throw Error(fmt::format("{}: cannot stat: {}", path, std::strerror(err)));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error(fmt::format("{}: not a regular file", path));
    }
    if (st.st_size == 0) {
        ::close(fd);
        throw FormatError(fmt::format("{}: the file is empty, not a MegEngine model", path));
    }
    const auto size = static_cast<size_t>(st.st_size);
    const auto device = static_cast<uint64_t>(st.st_dev), inode = static_cast<uint64_t>(st.st_ino);
    if (size < kReadBelow) {
        std::shared_ptr<std::byte[]> buffer =
            buffers ? buffers->get(size) : std::make_shared_for_overwrite<std::byte[]>(size);  // not zeroed
        size_t done = 0;
        while (done < size) {
            ssize_t n = ::read(fd, buffer.get() + done, size - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                int err = n < 0 ? errno : 0;
                ::close(fd);
                throw Error(fmt::format("{}: cannot read: {}", path,
                                        err ? std::strerror(err) : "the file shrank while being read"));
            }
            done += static_cast<size_t>(n);
        }
        ::close(fd);
        return {ir::Bytes(buffer.get(), size), std::move(buffer), device, inode};
    }
    void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    if (addr == MAP_FAILED) {
        ::close(fd);
        throw Error(fmt::format("{}: cannot map: {}", path, std::strerror(err)));
    }
    // The mapping stays valid without the descriptor; keep it (for pread) while few are held.
    if (held_descriptors.fetch_add(1, std::memory_order_relaxed) >= kMaxHeldDescriptors) {
        held_descriptors.fetch_sub(1, std::memory_order_relaxed);
        ::close(fd);
        fd = -1;
    }
    auto owner = std::make_shared<const Mapping>(addr, size, fd);
    return {ir::Bytes(static_cast<const std::byte*>(addr), size), owner, device, inode, fd};
}

void pread_exactly(int fd, std::span<std::byte> into, uint64_t offset) {
    size_t done = 0;
    while (done < into.size()) {
        const ssize_t n = ::pread(fd, into.data() + done, into.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw Error(fmt::format("cannot read the input file at byte {}: {}", offset + done,
                                    n < 0 ? std::strerror(errno) : "it is now shorter than when it was opened"));
        done += static_cast<size_t>(n);
    }
}

XXH128_hash_t hash_file_range(int fd, uint64_t offset, uint64_t size) {
    constexpr uint64_t kChunk = uint64_t{256} << 10;  // stays in cache between the read and the hash
    const auto room = static_cast<size_t>(std::min(kChunk, size));
    auto buffer = std::make_unique_for_overwrite<std::byte[]>(room);
    ir::Xxh3State state;
    for (uint64_t at = 0; at < size; at += room) {
        const std::span<std::byte> chunk(buffer.get(), static_cast<size_t>(std::min<uint64_t>(room, size - at)));
        pread_exactly(fd, chunk, offset + at);
        state.update(chunk.data(), chunk.size());
    }
    return state.digest();
}

std::string file_digest(const MappedFile& file) {
    return ir::xxh3_128_hex(file.fd >= 0 ? hash_file_range(file.fd, 0, file.bytes.size())
                                         : XXH3_128bits(file.bytes.data(), file.bytes.size()));
}

formats::LoadedModel load_file(const std::string& path) {
    MappedFile m = map_file(path);
    return with_path(path, [&] { return formats::read_model(m.bytes, m.owner); });
}

std::vector<formats::LoadedModel> load_files(const std::string& path) {
    MappedFile m = map_file(path);
    return with_path(path, [&] { return formats::read_models(m.bytes, m.owner); });
}

}  // namespace mgedump::engine
