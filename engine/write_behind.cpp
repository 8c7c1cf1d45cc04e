#include "engine/write_behind.h"

#include <cerrno>

#include "engine/artifact_file.h"

namespace mgedump::engine {

int write_all(FileOps& ops, int fd, std::span<const std::byte> bytes, const char*& what) {
    while (!bytes.empty()) {
        const long n = ops.write_some(fd, std::span(&bytes, 1));
        if (n < 0) {
            if (errno == EINTR) continue;
            what = "write failed";
            return errno;
        }
        if (n == 0) {
            what = "write made no progress";
            return EIO;
        }
        bytes = bytes.subspan(static_cast<size_t>(n));
    }
    return 0;
}

WriteBehind::WriteBehind(FileOps& ops, int fd, size_t max_queued, Buffer (*take)(), void (*give_back)(Buffer))
    : ops_(ops), fd_(fd), max_queued_(max_queued), take_(take), give_back_(give_back), thread_([this] { run(); }) {}

WriteBehind::~WriteBehind() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    work_.notify_one();
    thread_.join();
    for (Job& j : queue_) give_back_(std::move(j.buffer));
}

WriteBehind::Buffer WriteBehind::submit(Buffer buffer, size_t n) {
    {
        std::unique_lock lock(mutex_);
        space_.wait(lock, [&] { return error_ != 0 || queue_.size() < max_queued_; });
        if (error_ != 0) {
            give_back_(std::move(buffer));
            return nullptr;
        }
        queue_.push_back(Job{std::move(buffer), n});
    }
    work_.notify_one();
    return take_();
}

void WriteBehind::drain() {
    std::unique_lock lock(mutex_);
    space_.wait(lock, [&] { return error_ != 0 || (queue_.empty() && !writing_); });
}

int WriteBehind::failure() const {
    std::lock_guard lock(mutex_);
    return error_;
}

const char* WriteBehind::failure_what() const {
    std::lock_guard lock(mutex_);
    return error_what_;
}

void WriteBehind::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        Job job = std::move(queue_.front());
        queue_.pop_front();
        writing_ = true;
        lock.unlock();
        space_.notify_one();  // room for the next submit
        const char* what = nullptr;
        const int err = write_all(ops_, fd_, {job.buffer.get(), job.n}, what);
        give_back_(std::move(job.buffer));
        lock.lock();
        writing_ = false;
        if (err != 0) {
            error_ = err;
            error_what_ = what;
            stop_ = true;
        }
        space_.notify_all();  // drain, or a submit waiting on a failure
        if (stop_) return;
    }
}

}  // namespace mgedump::engine
