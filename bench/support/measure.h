// Small measuring tools shared by the benchmark executables: a monotonic clock,
// medians, peak RSS, and the weight bytes a dump has to move.
#pragma once

#include <chrono>
#include <ctime>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/dump.h"
#include "formats/serialized.h"
#include "ir/graph.h"

namespace mgedump::bench {

inline double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU seconds this thread has used (user + system, so page faults count). On a
// machine whose cores are shared with other work it is the steadier clock for a
// single-threaded measurement: waiting for a core is not counted.
double thread_cpu_seconds();

// Median of `samples` (the mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> samples);

// This process's peak resident set size so far, in bytes (getrusage).
uint64_t peak_rss_bytes();

// The value bytes of every tensor in the graph, in tensor order: what any
// serializer must copy at least once.
std::vector<std::span<const std::byte>> weight_segments(const ir::Graph& g);
uint64_t total_bytes(std::span<const std::span<const std::byte>> segments);

// Copies the segments back to back into `dst` (at least total_bytes long): the
// memory-bandwidth limit of a dump to memory.
void copy_segments(std::span<const std::span<const std::byte>> segments, std::byte* dst);

// Where a dump to memory puts its file: `spill`, grown as needed, which keeps its
// memory (warm) from one call to the next, as a long-lived caller's buffer would.
// The dump copies into it in the same pass that hashes (engine/artifact_pass.h).
engine::OutputBuffer into_warm(std::vector<std::byte>& spill);

}  // namespace mgedump::bench
