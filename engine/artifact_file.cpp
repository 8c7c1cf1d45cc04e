#include "engine/artifact_file.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

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

void write_file_atomically(const std::string& path, std::span<const std::span<const std::byte>> segments,
                           FileOps& ops) {
    const std::string tmp = temp_path_for(path);
    int fd = ops.open_exclusive(tmp);
    if (fd < 0) fail(path, "cannot create temporary file", errno);

    auto abandon = [&](std::string_view what, int err) {
        ops.close(fd);
        ops.unlink(tmp);
        fail(path, what, err);
    };

    // writev may write less than asked: advance through the segments until done.
    std::vector<std::span<const std::byte>> rest(segments.begin(), segments.end());
    size_t first = 0;
    while (first < rest.size()) {
        if (rest[first].empty()) {
            ++first;
            continue;
        }
        long n = ops.write_some(fd, std::span(rest).subspan(first));
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("write failed", errno);
        }
        if (n == 0) abandon("write made no progress", EIO);
        auto left = static_cast<size_t>(n);
        while (left > 0 && first < rest.size()) {
            size_t take = std::min(left, rest[first].size());
            rest[first] = rest[first].subspan(take);
            left -= take;
            if (rest[first].empty()) ++first;
        }
    }
    if (ops.fsync(fd) != 0) abandon("fsync failed", errno);
    if (ops.close(fd) != 0) {
        int err = errno;
        ops.unlink(tmp);
        fail(path, "close failed", err);
    }
    if (ops.rename(tmp, path) != 0) {
        int err = errno;
        ops.unlink(tmp);
        fail(path, "cannot rename temporary file into place", err);
    }
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
