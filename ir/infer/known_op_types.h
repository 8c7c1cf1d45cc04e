// Operator types inference tells apart in its hot paths (every input's value
// check, every broadcasting Elemwise), as compile-time ids: a function-local
// static looked up by name was a guard check each time. ir/op_defs.cpp checks
// each against the registry at compile time.
#pragma once

#include "ir/ids.h"

namespace mgedump::ir {

// Its outputs' values are its tensors' bytes, decoded when a rule asks.
inline constexpr OpTypeId kImmutableTensorType{1};
// Its output must not be broadcast by an Elemwise that reads it.
inline constexpr OpTypeId kMarkNoBroadcastElemwiseType{90};

}  // namespace mgedump::ir
