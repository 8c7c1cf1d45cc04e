// The names an ONNX graph defines, checked before any node converts. Internal to
// formats/onnx/*.cpp.
#pragma once

#include <string>

namespace onnx {
class GraphProto;
}

namespace mgedump::formats::onnx_import {

// An ONNX graph is in static single assignment form (onnx.checker refuses one
// that is not): each name is defined once, by a graph input, an initializer or
// one output of one node (an initializer may also be listed as a graph input, as
// older exporters do). The importer binds names as it converts, so a name
// defined twice would silently read the definition it met last, and the other
// would be dropped from the graph. Throws GraphError naming the model, the
// second definition and the first. Subgraphs are checked where they are
// converted (Importer::convert_subgraph).
void refuse_names_defined_twice(const onnx::GraphProto& graph, const std::string& label);

}  // namespace mgedump::formats::onnx_import
