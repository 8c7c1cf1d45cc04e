#include "jobs/scratch_pool.h"

namespace mgedump::jobs {

ScratchPool::Lease ScratchPool::lease() {
    std::unique_ptr<formats::WriteScratch> s;
    {
        std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            s = std::move(free_.back());
            free_.pop_back();
        } else {
            ++created_;
        }
    }
    if (!s) s = std::make_unique<formats::WriteScratch>(retain_bytes_);
    return Lease(*this, std::move(s));
}

void ScratchPool::give_back(std::unique_ptr<formats::WriteScratch> s) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(s));
}

ScratchPoolStats ScratchPool::stats() const {
    std::lock_guard lock(mutex_);
    ScratchPoolStats out;
    out.scratches = created_;
    for (const auto& s : free_) {
        formats::WriteScratchStats b = s->stats();
        out.buffers.buffers_reused += b.buffers_reused;
        out.buffers.buffers_allocated += b.buffers_allocated;
    }
    return out;
}

}  // namespace mgedump::jobs
