// Running a manifest: a oneTBB parallel_pipeline of models (admit → read/parse →
// passes, serialize, write per variant), at most as many in flight as the memory
// budget allows. Jobs fail alone: an error is recorded in the report and the
// others go on. Artifacts depend only on the manifest and the inputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

#include "engine/artifact_file.h"
#include "jobs/manifest.h"
#include "jobs/report.h"
#include "jobs/shard.h"

namespace mgedump::jobs {

struct JobProgress {
    size_t done = 0, total = 0;       // jobs of this shard
    uint64_t input_bytes_done = 0;    // bytes of inputs read so far, for throughput
    uint64_t work_done = 0;           // estimated footprints of finished jobs, for ETA
    uint64_t work_total = 0;
    const ArtifactReport* first = nullptr;  // the finished job's artifacts
    size_t count = 0;
};

struct BatchOptions {
    std::filesystem::path out_dir;
    unsigned threads = 0;              // 0: every core
    uint64_t memory_budget = 0;        // 0: half of physical memory
    bool incremental = false;          // skip artifacts whose stamp matches
    // Before an artifact is written, load its bytes again and execute them with
    // the reference evaluator on deterministic inputs (seeded by numeric_seed and
    // the job's input names) against the graph as read; an artifact whose numbers
    // differ beyond NumericReport::kFloatTolerance (integers: at all) fails and is
    // not written.
    bool verify_numeric = false;
    uint64_t numeric_seed = 0;
    Shard shard;
    engine::FileOps* file_ops = nullptr;  // nullptr: the real file system
    // Files the caller writes once the jobs are done, each with what it is ("the
    // report", "the strip-info file"): a job whose graph would read one (a weight
    // file) fails before reading it, as for another job's artifact.
    std::vector<std::pair<std::filesystem::path, std::string>> written_after;
    // Called after each job (from worker threads, one call at a time).
    std::function<void(const JobProgress&)> on_progress;
};

// Throws only when the batch cannot start (OUT_DIR cannot be created); every
// per-job problem is in the report.
BatchReport run_batch(const Manifest& manifest, const BatchOptions& options);

}  // namespace mgedump::jobs
