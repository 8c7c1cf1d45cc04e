// Admission control for models in flight: a model enters only when its estimated
// footprint fits in what the budget has left, so a batch of large models stays
// within --memory-budget. A model larger than the whole budget still runs, alone,
// rather than never.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace mgedump::jobs {

class MemoryGate {
public:
    explicit MemoryGate(uint64_t budget) : budget_(budget) {}

    void acquire(uint64_t bytes) {
        std::unique_lock lock(mutex_);
        freed_.wait(lock, [&] { return in_use_ == 0 || in_use_ + bytes <= budget_; });
        in_use_ += bytes;
    }
    void release(uint64_t bytes) {
        {
            std::lock_guard lock(mutex_);
            in_use_ -= bytes;
        }
        freed_.notify_all();
    }

private:
    const uint64_t budget_;
    uint64_t in_use_ = 0;
    std::mutex mutex_;
    std::condition_variable freed_;
};

}  // namespace mgedump::jobs
