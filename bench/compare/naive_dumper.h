// The baseline: the same FBS / FBS_V2 bytes, produced the way MegEngine's
// GraphDumperOSS produces them. One FlatBufferBuilder per dump with FlatBuffers'
// default initial size, grown (reallocate and copy) as it fills; every tensor
// value copied into it (FBS_V2) or appended to a std::vector output file grown by
// resize (FBS v1, MegEngine's OutputFile::make_vector_proxy); a single thread;
// fresh memory every dump; FlatBuffers' own shared-string pool. It shares
// mgedump's operator encoding otherwise, so on models with little weight data
// the two differ only in buffer management and string pooling.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/dump_options.h"
#include "ir/graph.h"

namespace mgedump::bench {

// `g` must already have had the compatibility rewrites for options.dump_format
// applied (MegEngine's dumper gets the graph after Python's rewrites, too).
// Returns the complete file.
std::vector<uint8_t> naive_dump(const ir::Graph& g, const engine::DumpOptions& options);

}  // namespace mgedump::bench
