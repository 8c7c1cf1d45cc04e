// Splitting one manifest over many machines: shard K of N runs a fixed 1/N of the
// jobs, so the union of all shards' artifacts is exactly a single run's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jobs/manifest.h"

namespace mgedump::jobs {

enum class ShardBy : uint8_t {
    Index,  // job index mod N: even spread, but adding a job moves later ones
    Name,   // stable hash of the job's first output name: survives reordering the manifest
};

struct Shard {
    uint32_t index = 0;
    uint32_t count = 1;
    ShardBy by = ShardBy::Index;
    std::string source = "none";  // where K/N came from, for the report
};

// "K/N" with 0 <= K < N. Throws OptionError.
Shard parse_shard(std::string_view text);

// The environment's array-job index when no --shard is given: Slurm
// (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT) or
// Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX, of `count_hint`, which must be
// given since Kubernetes does not export the completion count). nullopt when
// neither is set. `getenv` is injectable for tests.
std::optional<Shard> shard_from_environment(std::optional<uint32_t> count_hint,
                                            const char* (*getenv)(const char*) = nullptr);

bool in_shard(const Job& job, const Shard& shard);

}  // namespace mgedump::jobs
