// Splitting one manifest over many machines: shard K of N runs a fixed 1/N of the
// jobs, so the union of all shards' artifacts is exactly a single run's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jobs/getenv.h"
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
    // Where K/N came from, for the report: "--shard 2/4", the environment
    // variables read ("SLURM_ARRAY_TASK_ID=4, ..."), or "none".
    std::string source = "none";
};

// "K/N" with 0 <= K < N. Throws OptionError.
Shard parse_shard(std::string_view text);

// This process's shard from the command line and the environment:
// - `shard_flag` ("K/N", --shard) wins; a `shard_count` (--shard-count) must agree with its N;
// - otherwise a Slurm array task or a Kubernetes Indexed Job pod (shard_from_environment);
// - otherwise the whole batch (0/1), unless `shard_count` was given: a count with no index
//   would silently run everything, so it is refused.
// Every refusal is an OptionError whose message says what to pass instead.
Shard resolve_shard(std::string_view shard_flag, std::optional<uint32_t> shard_count,
                    const Getenv& getenv = {});

// The array-job index, or nullopt when neither Slurm's nor Kubernetes' is set.
// Slurm without `shard_count`: the array is the whole split, shard
// (SLURM_ARRAY_TASK_ID - _MIN) / _STEP of _COUNT, and an environment that cannot
// be such an array (one task, or task IDs that are not one evenly stepped range:
// a re-submitted part of a larger array) is refused. Slurm with `shard_count`:
// the task ID is the shard index, so a re-submitted `--array=3` runs shard 3; an
// array whose IDs reach `shard_count` is refused. Kubernetes: JOB_COMPLETION_INDEX
// of `shard_count`, which must be given (pods are not told the completion count).
std::optional<Shard> shard_from_environment(std::optional<uint32_t> shard_count, const Getenv& getenv = {});

bool in_shard(const Job& job, const Shard& shard);

}  // namespace mgedump::jobs
