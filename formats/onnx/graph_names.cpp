#include "formats/onnx/graph_names.h"

#include <fmt/format.h>

#include <unordered_map>
#include <string_view>

#include "formats/onnx/onnx_proto.h"
#include "ir/error.h"

namespace mgedump::formats::onnx_import {
namespace {

// Who defines a name: a node by its index in the graph, or one of these.
constexpr int kInitializer = -1;
constexpr int kGraphInput = -2;

// By its name, as the importer's messages call a node, else by its place in the
// graph (the importer's fallback, its first output, is the very name in question).
std::string describe(const onnx::GraphProto& graph, int definer) {
    if (definer == kInitializer) return "an initializer";
    if (definer == kGraphInput) return "a graph input";
    const onnx::NodeProto& n = graph.node(definer);
    if (!n.name().empty()) return fmt::format("node '{}' ({})", n.name(), n.op_type());
    return fmt::format("node #{} ({})", definer, n.op_type());
}

}  // namespace

void refuse_names_defined_twice(const onnx::GraphProto& graph, const std::string& label) {
    // Only looked up, never walked: what defines each name. Messages are made
    // only on a refusal (a description per node was a cost on every import).
    std::unordered_map<std::string_view, int> defined;
    defined.reserve(static_cast<size_t>(graph.initializer_size() + graph.input_size() + graph.node_size()));
    auto define = [&](const std::string& name, int definer) {
        if (name.empty()) return;
        const auto [first, fresh] = defined.emplace(name, definer);
        if (!fresh)
            throw GraphError(fmt::format("{}: {} defines '{}', which {} already defines (an ONNX graph defines "
                                         "each name once)",
                                         label, describe(graph, definer), name, describe(graph, first->second)));
    };
    for (const onnx::TensorProto& t : graph.initializer()) define(t.name(), kInitializer);
    for (const onnx::ValueInfoProto& in : graph.input()) {
        // An initializer listed as a graph input too, as older exporters write them.
        const auto it = defined.find(in.name());
        if (it != defined.end() && it->second == kInitializer) continue;
        define(in.name(), kGraphInput);
    }
    for (int k = 0; k < graph.node_size(); ++k)
        for (const std::string& out : graph.node(k).output()) define(out, k);
}

}  // namespace mgedump::formats::onnx_import
