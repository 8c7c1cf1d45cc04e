// How many numbered (non-volatile) outputs an operator has. FBS v1 does not store
// output counts: a loader derives them from the operator type, its inputs, params
// and tensors, exactly as MegEngine's operator factories do. Readers, validation
// and tools share this one rule.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace mgedump::ir {

// The operator's full output count as MegEngine creates it (before any dump-time
// volatile marking), or nullopt when it cannot be derived from these facts
// (CustomOpNode: the count lives in the custom op's own library).
//   fixed registry counts → OpDef::outputs
//   Split → one output per size input (inputs − 1)
//   MultipleDeviceTensorHolder(+WithFormat) → one output per tensor
//   TopK → 1 for KTH_ONLY, 2 (values, indices) otherwise
//   BatchNorm → 4 in INFERENCE mode or with 3 inputs, else 6
//   CheckNonFinite → one output per input plus the flag
std::optional<uint32_t> derived_output_count(const OpDef& def, uint32_t nr_inputs,
                                             std::span<const ParamValue> params, uint32_t nr_tensors);

// The same rule applied to an operator already in a graph.
std::optional<uint32_t> derived_output_count(const Graph& g, OprId o);

// Outputs an FBS v1 dump leaves unnumbered because the §9.1 rewrite marks them
// volatile: CheckNonFinite's first N (one per input) when the flag alone is numbered.
uint32_t v1_leading_volatile_outputs(const OpDef& def, uint32_t nr_inputs);

}  // namespace mgedump::ir
