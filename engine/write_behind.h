// A writer thread for one large artifact: the buffers an artifact pass fills are
// written to the file on a second core while the pass reads the next ones, so the
// two kernel copies of a dump (reading the weights, writing the file) overlap
// instead of following each other. Buffers are written whole and in the order
// given: the bytes are those of a synchronous write.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <thread>

namespace mgedump::engine {

struct FileOps;

// Writes every byte of `bytes` to `fd` through `ops` (write may write less than
// asked). Returns 0, or the errno of the failure with `what` set to what failed.
int write_all(FileOps& ops, int fd, std::span<const std::byte> bytes, const char*& what);

class WriteBehind {
  public:
    using Buffer = std::unique_ptr<std::byte[]>;
    // Writes to `fd` through `ops` (called from the writer thread only, one call at
    // a time), buffers of `buffer_bytes` taken from `take` and returned to `give_back`.
    WriteBehind(FileOps& ops, int fd, size_t max_queued, Buffer (*take)(), void (*give_back)(Buffer));
    // Stops the thread: a write under way finishes, queued buffers are dropped.
    ~WriteBehind();
    WriteBehind(const WriteBehind&) = delete;
    WriteBehind& operator=(const WriteBehind&) = delete;

    // Queues the first `n` bytes of `buffer` and returns an empty buffer to fill
    // next; waits while `max_queued` buffers are queued. Returns null after the
    // writer failed (failure() says how): nothing more is written then.
    Buffer submit(Buffer buffer, size_t n);
    // Waits until every queued buffer is written, or the writer failed.
    void drain();
    // 0, or the errno of the writer's failure, with failure_what() set.
    int failure() const;
    const char* failure_what() const;

  private:
    struct Job {
        Buffer buffer;
        size_t n;
    };
    void run();

    FileOps& ops_;
    const int fd_;
    const size_t max_queued_;
    Buffer (*take_)();
    void (*give_back_)(Buffer);

    mutable std::mutex mutex_;
    std::condition_variable work_;   // the writer waits for a job or stop
    std::condition_variable space_;  // submit and drain wait for room or an empty queue
    std::deque<Job> queue_;
    bool writing_ = false;  // the writer holds a job outside the queue
    bool stop_ = false;
    int error_ = 0;
    const char* error_what_ = nullptr;
    std::thread thread_;  // last: started once the members above exist
};

}  // namespace mgedump::engine
