// Structural checks of a graph before anything is written: every message names
// the operator (ir/describe.h) and what is wrong with it.
#pragma once

#include <span>

#include "ir/graph.h"

namespace mgedump::ir {

struct ValidateOptions {
    // Distinct output vars must have distinct names (MegEngine skips this check
    // when var names are not kept, keep_var_name = 0).
    bool unique_output_names = true;
};

// Throws GraphError: no outputs, dangling ids, cycles, wrong input counts, param
// tables that do not match the operator, tensors that do not match their dtype
// and shape, volatile outputs, duplicate output or input names.
void validate(const Graph& g, const ValidateOptions& options);
// The same, for a caller that already has dump_order(g): computing it was a
// third of validate's time, and a dump needs it three times over.
void validate(const Graph& g, const ValidateOptions& options, std::span<const OprId> order);

// After a pass that appended operators from index `first_new` on to a graph
// validate() accepted: the outputs, the appended operators and the output names
// (the operators that were there are unchanged; a pass adds no inputs).
void validate_appended(const Graph& g, const ValidateOptions& options, std::span<const OprId> order, size_t first_new);

// The per-operator part alone (arity, params, tensors), for a builder that
// checks each operator as it is added.
void validate_operator(const Graph& g, OprId o);

}  // namespace mgedump::ir
