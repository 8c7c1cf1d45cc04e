// Comparing two graphs by meaning, as a dump sees them: the operators a dump would
// write, in dump order, with their params, inputs (by compact id), tensors (dtype,
// shape, bytes, comp node), blobs, and the names the dump options keep. Used by
// `mgedump verify` and the round-trip tests.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgedump::engine {

struct CompareOptions {
    // 0: no var names; 1: names of the requested outputs; 2: every numbered var.
    int var_names = 1;
    bool opr_names = false;
    bool param_names = false;  // names of VALUE_SHARED tensors
    bool priorities = false;
    // 8.14 files write CheckNonFinite's param as Empty; it reads back as the default.
    bool check_non_finite_params = true;
};

// Human-readable differences, at most `limit`; empty when the graphs agree.
std::vector<std::string> compare_graphs(const ir::Graph& a, const ir::Graph& b, const CompareOptions& options,
                                        size_t limit = 10);

}  // namespace mgedump::engine
