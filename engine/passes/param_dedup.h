// Parameter dedup inside one model: constant and parameter operators
// (ImmutableTensor, SharedDeviceTensor) whose tensors are equal — bytes, dtype,
// shape, comp node, and everything else the dump would write for them — are
// merged into the first of them in dump order, and consumers use that one.
// MegEngine writes each such operator's bytes; after this pass they are written once.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace mgedump::engine {

struct ParamDedupOptions {
    // Kept names must survive: parameters whose names differ are then not merged.
    bool keep_param_name = false;
    // Likewise operator names and priorities, when they are written.
    bool keep_opr_name = false;
    bool keep_opr_priority = false;
};

struct ParamDedupStats {
    uint64_t tensors_saved = 0;  // operators (each with one tensor) merged away
    uint64_t bytes_saved = 0;    // value bytes no longer written
};

// What merging would do, found without changing the graph: each var to replace
// by its survivor's. Operators whose output is a requested graph output are never
// merged away (the output would change its var and name). The choice of survivor
// follows dump order, so the result never depends on hashing or scheduling.
//
// Candidates are found by an xxh3 key of the size and three 4 KiB windows (head,
// middle, tail), so a weight that shares its key with no other is never read
// whole; weights that share a key are told apart by their full xxh3-128 and
// then their bytes.
struct ParamDuplicates {
    std::vector<std::pair<ir::VarId, ir::VarId>> replace;  // (merged var, survivor var), dump order
    ParamDedupStats stats;
    uint64_t bytes_fully_hashed = 0;  // value bytes read whole for a full digest (tests)
};
ParamDuplicates find_duplicate_params(const ir::Graph& g, const ParamDedupOptions& options = {});
// The same, given ir::dump_order(g) (a dump has it already).
ParamDuplicates find_duplicate_params(const ir::Graph& g, const ParamDedupOptions& options,
                                      std::span<const ir::OprId> order);
void merge_duplicate_params(ir::Graph& g, const ParamDuplicates& found);

// Both, in place.
ParamDedupStats dedup_params(ir::Graph& g, const ParamDedupOptions& options = {});

}  // namespace mgedump::engine
