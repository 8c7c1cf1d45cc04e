#include "engine/artifact_file.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "ir/error.h"

namespace mgedump::engine {

int FileOps::open_exclusive(const std::string& path) {
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

long FileOps::write_some(int fd, std::span<const std::span<const std::byte>> segments) {
    std::vector<iovec> iov;
    iov.reserve(std::min<size_t>(segments.size(), IOV_MAX));
    for (size_t i = 0; i < segments.size() && i < IOV_MAX; ++i)
        iov.push_back({const_cast<std::byte*>(segments[i].data()), segments[i].size()});
    return ::writev(fd, iov.data(), static_cast<int>(iov.size()));
}

int FileOps::fsync(int fd) { return ::fsync(fd); }
int FileOps::close(int fd) { return ::close(fd); }
int FileOps::rename(const std::string& from, const std::string& to) { return ::rename(from.c_str(), to.c_str()); }
int FileOps::unlink(const std::string& path) { return ::unlink(path.c_str()); }

namespace {

std::string temp_path_for(const std::string& path) {
    static std::atomic<uint64_t> counter{0};
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    return fmt::format("{}.{}.tmp-{}-{}", dir, base, ::getpid(), counter++);
}

[[noreturn]] void fail(const std::string& path, std::string_view what, int err) {
    throw Error(fmt::format("writing {}: {}: {}", path, what, std::strerror(err)));
}

}  // namespace

// Small enough to stay in L2 while the kernel copies it out.
constexpr size_t kBufferBytes = size_t{256} << 10;

namespace {

// Write buffers recycled from file to file: a batch writes thousands of
// artifacts, and a fresh buffer for each cost zeroing and page faults (perf:
// 6% of a batch of 1,000 small models, most of it in page faults).
class WriteBuffers {
  public:
    static std::unique_ptr<std::byte[]> take() {
        {
            std::lock_guard lock(mutex_);
            if (!free_.empty()) {
                auto b = std::move(free_.back());
                free_.pop_back();
                return b;
            }
        }
        return std::make_unique_for_overwrite<std::byte[]>(kBufferBytes);
    }
    static void give_back(std::unique_ptr<std::byte[]> b) {
        std::lock_guard lock(mutex_);
        if (free_.size() < kKeep) free_.push_back(std::move(b));
    }

  private:
    static constexpr size_t kKeep = 16;  // more than the threads that write at once
    static inline std::mutex mutex_;
    static inline std::vector<std::unique_ptr<std::byte[]>> free_;
};

}  // namespace

AtomicFile::AtomicFile(std::string path, FileOps& ops) : path_(std::move(path)), tmp_(temp_path_for(path_)), ops_(ops) {
    fd_ = ops_.open_exclusive(tmp_);
    if (fd_ < 0) fail(path_, "cannot create temporary file", errno);
}

AtomicFile::~AtomicFile() {
    if (buffer_) WriteBuffers::give_back(std::move(buffer_));
    if (done_) return;
    ops_.close(fd_);
    ops_.unlink(tmp_);
}

void AtomicFile::abandon(std::string_view what, int err) {
    done_ = true;
    ops_.close(fd_);
    ops_.unlink(tmp_);
    fail(path_, what, err);
}

// write may write less than asked: advance until done.
void AtomicFile::write_out(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
        long n = ops_.write_some(fd_, std::span(&bytes, 1));
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("write failed", errno);
        }
        if (n == 0) abandon("write made no progress", EIO);
        bytes = bytes.subspan(static_cast<size_t>(n));
    }
}

void AtomicFile::flush() {
    if (used_ == 0) return;
    write_out({buffer_.get(), used_});
    used_ = 0;
}

void AtomicFile::write(std::span<const std::byte> bytes) {
    if (bytes.empty()) return;  // an empty span may have no data pointer, which memcpy must not see
    if (bytes.size() >= kBufferBytes) {  // large: straight from where it is
        flush();
        write_out(bytes);
        return;
    }
    std::memcpy(next(bytes.size()).data(), bytes.data(), bytes.size());
    filled(bytes.size());
}

std::span<std::byte> AtomicFile::next(size_t n) {
    if (n > kBufferBytes) throw std::logic_error(fmt::format("AtomicFile::next: {} bytes asked, {} at most", n, kBufferBytes));
    if (!buffer_) buffer_ = WriteBuffers::take();
    if (used_ + n > kBufferBytes) flush();
    return {buffer_.get() + used_, n};
}

void AtomicFile::commit() {
    flush();
    if (ops_.fsync(fd_) != 0) abandon("fsync failed", errno);
    done_ = true;
    if (ops_.close(fd_) != 0) {
        int err = errno;
        ops_.unlink(tmp_);
        fail(path_, "close failed", err);
    }
    if (ops_.rename(tmp_, path_) != 0) {
        int err = errno;
        ops_.unlink(tmp_);
        fail(path_, "cannot rename temporary file into place", err);
    }
}

void write_file_atomically(const std::string& path, std::span<const std::span<const std::byte>> segments,
                           FileOps& ops) {
    AtomicFile file(path, ops);
    for (std::span<const std::byte> s : segments) file.write(s);
    file.commit();
}

void write_file_atomically(const std::string& path, const formats::Serialized& bytes) {
    FileOps ops;
    auto segments = bytes.segments();
    write_file_atomically(path, segments, ops);
}

void write_file_atomically(const std::string& path, std::string_view text) {
    FileOps ops;
    std::span<const std::byte> seg(reinterpret_cast<const std::byte*>(text.data()), text.size());
    write_file_atomically(path, std::span(&seg, 1), ops);
}

}  // namespace mgedump::engine
