#include "engine/artifact_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <signal.h>
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

#include "engine/write_behind.h"
#include "ir/error.h"

namespace mgedump::engine {

namespace {

// The directory of `path` as open() takes it.
std::string dir_of(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

int FileOps::open_exclusive(const std::string& path) {
    int fd = open_unnamed(dir_of(path));
    if (fd >= 0) return fd;
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

int FileOps::open_unnamed(const std::string& dir) {
#ifdef O_TMPFILE
    static const bool can_link = ::access("/proc/self/fd", X_OK) == 0;  // link() goes through /proc
    if (can_link) return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#endif
    (void)dir;
    errno = EOPNOTSUPP;
    return -1;
}

int FileOps::link(int fd, const std::string& to) {
    const std::string from = fmt::format("/proc/self/fd/{}", fd);
    return ::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW);
}

int FileOps::open_existing(const std::string& path) {
    return ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
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

// The naming remove_stale_temp_files() recognises: `.NAME.tmp-PID-N`.
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

enum class How { Stdout, Through, Replace };
struct Output {
    How how;
    std::string file;  // symlinks followed
};

// What `path` is, symlinks followed (the link stays; its target is written).
Output resolve_output(const std::string& path) {
    if (path == "-") return {How::Stdout, ""};
    std::string p = path;
    for (int links = 0;; ++links) {
        struct stat st;
        if (::lstat(p.c_str(), &st) != 0) return {How::Replace, p};  // not there yet (other errors: at creation)
        if (S_ISREG(st.st_mode)) return {How::Replace, p};
        const std::string shown = p == path ? path : fmt::format("{} (symlink to {})", path, p);
        if (S_ISDIR(st.st_mode)) throw Error(fmt::format("writing {}: is a directory; give the file to write", shown));
        if (!S_ISLNK(st.st_mode)) return {How::Through, p};  // FIFO, device, socket
        if (links == 40) fail(shown, "cannot follow symbolic link", ELOOP);
        std::error_code ec;
        std::filesystem::path to = std::filesystem::read_symlink(p, ec);
        if (ec) fail(shown, "cannot read symbolic link", ec.value());
        p = to.is_absolute() ? to.string() : (std::filesystem::path(p).parent_path() / to).string();
    }
}

bool all_digits(std::string_view s, size_t max_len) {
    return !s.empty() && s.size() <= max_len && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// `.NAME.tmp-PID-N` → PID; 0 for any other name.
long temp_file_pid(std::string_view name) {
    if (name.size() < 2 || name[0] != '.') return 0;
    size_t dash = name.rfind('-');
    if (dash == std::string_view::npos || !all_digits(name.substr(dash + 1), 20)) return 0;
    size_t tmp = name.rfind(".tmp-", dash);
    if (tmp == std::string_view::npos || tmp < 2 || tmp + 5 > dash) return 0;  // tmp < 2: NAME empty
    std::string_view pid = name.substr(tmp + 5, dash - tmp - 5);
    if (!all_digits(pid, 9)) return 0;
    return std::stol(std::string(pid));
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

// Tries for a name not taken: a recycled PID may meet a dead writer's leftover.
constexpr int kNameTries = 8;

AtomicFile::AtomicFile(std::string path, FileOps& ops, WriteThread thread)
    : path_(std::move(path)), ops_(ops), thread_(thread) {
    Output out = resolve_output(path_);
    if (out.how == How::Stdout) {
        fd_ = STDOUT_FILENO;
        owns_fd_ = false;
        path_ = "standard output";
        return;
    }
    if (out.file != path_) path_ = fmt::format("{} (symlink to {})", path_, out.file);
    if (out.how == How::Through) {
        fd_ = ops_.open_existing(out.file);
        if (fd_ < 0) fail(path_, "cannot open", errno);
        return;
    }
    target_ = std::move(out.file);
    for (int tries = 1;; ++tries) {
        tmp_ = temp_path_for(target_);
        fd_ = ops_.open_exclusive(tmp_);
        if (fd_ >= 0 || errno != EEXIST || tries == kNameTries) break;
    }
    if (fd_ < 0) fail(path_, "cannot create temporary file", errno);
    struct stat st;
    named_ = ::fstat(fd_, &st) != 0 || st.st_nlink > 0;  // an O_TMPFILE file has no link yet
    ::flock(fd_, LOCK_EX | LOCK_NB);  // tells remove_stale_temp_files that its writer is alive
}

AtomicFile::~AtomicFile() {
    writer_.reset();  // its thread writes to fd_: stopped before fd_ closes
    if (buffer_) WriteBuffers::give_back(std::move(buffer_));
    if (!done_) discard();
}

void AtomicFile::discard() {
    done_ = true;
    writer_.reset();
    if (owns_fd_) ops_.close(fd_);
    if (named_) ops_.unlink(tmp_);
}

void AtomicFile::abandon(std::string_view what, int err) {
    discard();
    fail(path_, what, err);
}

void AtomicFile::abandon_for_writer() {
    const int err = writer_->failure();
    const std::string what = writer_->failure_what();
    abandon(what, err);
}

void AtomicFile::begin(uint64_t size) {
    // Two buffers queued behind the one being written and the one being filled:
    // enough to keep both cores busy, little to hold.
    constexpr size_t kQueued = 2;
    if (thread_ == WriteThread::ForLargeArtifacts && !writer_ && size >= kWriteBehindFrom)
        writer_ = std::make_unique<WriteBehind>(ops_, fd_, kQueued, &WriteBuffers::take, &WriteBuffers::give_back);
}

void AtomicFile::write_out(std::span<const std::byte> bytes) {
    const char* what = nullptr;
    if (const int err = write_all(ops_, fd_, bytes, what)) abandon(what, err);
}

void AtomicFile::drain_writer() {
    if (!writer_) return;
    writer_->drain();
    if (writer_->failure()) abandon_for_writer();
}

void AtomicFile::flush() {
    if (used_ == 0) return;
    if (writer_) {
        buffer_ = writer_->submit(std::move(buffer_), used_);
        used_ = 0;
        if (!buffer_) abandon_for_writer();
        return;
    }
    write_out({buffer_.get(), used_});
    used_ = 0;
}

void AtomicFile::write(std::span<const std::byte> bytes) {
    if (bytes.empty()) return;  // an empty span may have no data pointer, which memcpy must not see
    if (bytes.size() >= kBufferBytes) {  // large: straight from where it is, after what is queued
        flush();
        drain_writer();
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
    drain_writer();
    writer_.reset();
    if (target_.empty()) {  // written through: nothing to rename
        done_ = true;
        if (owns_fd_ && ops_.close(fd_) != 0) fail(path_, "close failed", errno);
        return;
    }
    if (ops_.fsync(fd_) != 0) abandon("fsync failed", errno);
    for (int tries = 1; !named_; ++tries) {  // an unnamed file gets its temporary name only now
        if (ops_.link(fd_, tmp_) == 0) {
            named_ = true;
        } else {
            if (errno != EEXIST || tries == kNameTries) abandon("cannot link temporary file", errno);
            tmp_ = temp_path_for(target_);
        }
    }
    done_ = true;
    if (ops_.close(fd_) != 0) {
        int err = errno;
        ops_.unlink(tmp_);
        fail(path_, "close failed", err);
    }
    if (ops_.rename(tmp_, target_) != 0) {
        int err = errno;
        ops_.unlink(tmp_);
        fail(path_, "cannot rename temporary file into place", err);
    }
}

bool is_temp_file_name(std::string_view file_name) { return temp_file_pid(file_name) > 0; }

std::vector<std::filesystem::path> remove_stale_temp_files(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> removed;
    if (dir.empty()) return removed;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::filesystem::path& p = it->path();
        long pid = temp_file_pid(p.filename().string());
        if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // not ours, or alive
        int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        struct stat st, now;
        // Still the file opened (not replaced since), ours, and no writer holds its lock.
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
            ::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::lstat(p.c_str(), &now) == 0 && now.st_ino == st.st_ino &&
            now.st_dev == st.st_dev && ::unlink(p.c_str()) == 0)
            removed.push_back(p);
        ::close(fd);
    }
    return removed;
}

std::filesystem::path temp_dir_for(const std::string& path) {
    try {
        Output out = resolve_output(path);
        return out.how == How::Replace ? std::filesystem::path(dir_of(out.file)) : std::filesystem::path();
    } catch (const Error&) {
        return {};  // the write reports it
    }
}

std::optional<FileIdentity> file_identity(const std::filesystem::path& p) {
    struct stat st = {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return FileIdentity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

namespace {

// Where a write to `p`, not there yet, would create its file: a dangling
// symlink's target, as resolve_output follows it, made absolute with the
// directories that exist canonical. Empty when that cannot be told (an
// unreadable link, a loop): such a path is the same as no other.
std::filesystem::path landing_path(const std::filesystem::path& p) {
    std::error_code ec;
    std::filesystem::path target = p;
    try {
        target = resolve_output(p.string()).file;
    } catch (const Error&) {
        return {};
    }
    target = std::filesystem::weakly_canonical(std::filesystem::absolute(target, ec), ec);
    return ec ? std::filesystem::path() : target;
}

}  // namespace

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    if (a == "-" || b == "-") return false;
    const std::optional<FileIdentity> ia = file_identity(a), ib = file_identity(b);
    if (ia && ib) return *ia == *ib;
    if (ia || ib) return false;
    const std::filesystem::path ca = landing_path(a), cb = landing_path(b);
    return !ca.empty() && ca == cb;
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
