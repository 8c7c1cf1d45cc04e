// How errors name things: "operator #3 'conv1' (Convolution)". One spelling for
// every message, so users can grep for it.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mgedump::ir {

std::string describe_opr(const Graph& g, OprId o);
std::string describe_var(const Graph& g, VarId v);

}  // namespace mgedump::ir
