// How many worker threads a batch runs: --threads N, or when it is not given or
// given empty (`--threads "$SLURM_CPUS_PER_TASK"` in a Slurm task submitted
// without --cpus-per-task), the CPUs Slurm allotted to this task, else every CPU
// the process may run on.
#pragma once

#include <string_view>

#include "jobs/getenv.h"

namespace mgedump::jobs {

// `flag` is --threads' text ("" when absent). Returns 1..4096, or 0 for every CPU
// the process may run on (oneTBB's default concurrency, which follows the
// affinity mask Slurm, taskset or a container set). The Slurm default is
// SLURM_CPUS_PER_TASK, else SLURM_CPUS_ON_NODE (what the job got on this node).
// Throws OptionError naming the flag or variable when it is not such a number.
unsigned thread_count(std::string_view flag, const Getenv& getenv = {});

}  // namespace mgedump::jobs
