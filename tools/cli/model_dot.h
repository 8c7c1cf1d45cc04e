// A loaded graph as Graphviz: operators as boxes, tensors (inputs, constants,
// params) as ellipses, edges labelled with dtype and shape where known.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mgedump::cli {

std::string graph_to_dot(const ir::Graph& g);

}  // namespace mgedump::cli
