// The graph of any model the CLI reads: a .mge file (its first graph, either
// format), graph JSON or ONNX, as `run` and `verify --numeric` execute it.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mgedump::cli {

// Throws Error (FormatError, GraphError, ...) naming `path`.
ir::Graph read_any_model(const std::string& path);

}  // namespace mgedump::cli
