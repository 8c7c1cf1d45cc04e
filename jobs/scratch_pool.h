// Write scratches (formats/write_scratch.h) for the pipeline: a job leases one for
// its dumps and writes and hands it back after its last artifact is written, so
// the next job, on whichever worker, builds in memory already allocated. A pool of
// leases rather than one scratch per thread, because a oneTBB worker waiting in a
// dump's parallel rewrites may start another job on the same thread.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "formats/write_scratch.h"

namespace mgedump::jobs {

struct ScratchPoolStats {
    size_t scratches = 0;  // created: at most the number of jobs ever in flight at once
    formats::WriteScratchStats buffers;
};

class ScratchPool {
  public:
    // Each scratch keeps at most `retain_bytes` of recycled buffer between jobs.
    explicit ScratchPool(size_t retain_bytes) : retain_bytes_(retain_bytes) {}

    class Lease {
      public:
        Lease(ScratchPool& pool, std::unique_ptr<formats::WriteScratch> s)
            : pool_(pool), scratch_(std::move(s)) {}
        ~Lease() { pool_.give_back(std::move(scratch_)); }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        formats::WriteScratch* get() const { return scratch_.get(); }

      private:
        ScratchPool& pool_;
        std::unique_ptr<formats::WriteScratch> scratch_;
    };

    Lease lease();
    // Call when no lease is out.
    ScratchPoolStats stats() const;

  private:
    void give_back(std::unique_ptr<formats::WriteScratch> s);

    const size_t retain_bytes_;
    mutable std::mutex mutex_;
    std::vector<std::unique_ptr<formats::WriteScratch>> free_;
    size_t created_ = 0;
};

}  // namespace mgedump::jobs
