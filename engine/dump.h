// Dumping one graph: options checked, compatibility rewrites applied to a copy,
// names decided, then the format writer plans and emits the bytes (spec §6).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/artifact_pass.h"
#include "engine/dump_options.h"
#include "engine/dump_result.h"
#include "formats/serialized.h"
#include "formats/write_scratch.h"
#include "ir/graph.h"

namespace mgedump::engine {

struct Dumped {
    formats::Serialized bytes;
    DumpResult result;
};

// Dumps g.outputs with their current var names. Throws OptionError, GraphError
// or LimitError; never writes anything on error. With `scratch` (reused from dump
// to dump, e.g. one per batch worker) the bytes are built in its recycled memory:
// a scratch serves one dump at a time and must outlive the Dumped. The bytes are
// the same as without.
Dumped dump_graph(const ir::Graph& g, const DumpOptions& options, formats::WriteScratch* scratch = nullptr);

// With `into`, the artifact goes to a sink (one buffer, or a file being written:
// engine/artifact_pass.h, engine/artifact_file.h) in the same pass that hashes
// it, and Dumped::bytes is left empty: the way to get the bytes while reading
// every tensor value once. Errors the sink throws propagate. With Digest::Skip
// DumpResult::xxh3_128 stays empty and the pass only copies and scans.
Dumped dump_graph(const ir::Graph& g, const DumpOptions& options, formats::WriteScratch* scratch,
                  ArtifactSink* into, Digest digest = Digest::Compute);
// The same into one buffer that `allocate` returns for the size asked.
using OutputBuffer = std::function<std::span<std::byte>(uint64_t size)>;
Dumped dump_graph(const ir::Graph& g, const DumpOptions& options, formats::WriteScratch* scratch,
                  const OutputBuffer& allocate, Digest digest = Digest::Compute);

// MegEngine's dict form: each var is renamed to its key before dumping, in the
// order given; two names for one var is an error.
Dumped dump_graph(const ir::Graph& g, const std::vector<std::pair<std::string, ir::VarId>>& named_outputs,
                  const DumpOptions& options, ArtifactSink* into = nullptr, Digest digest = Digest::Compute);

}  // namespace mgedump::engine
