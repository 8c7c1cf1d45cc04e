// The objects behind mgedump.Graph, mgedump.Var and mgedump.Operator. A Graph owns
// its IR tables; Vars and Operators are (graph, id) handles that keep it alive.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ir/builder.h"
#include "ir/graph.h"

namespace mgedump::python {

// What a loaded file said about itself (absent for graphs built in Python).
struct LoadedFrom {
    std::string format;  // "FBS (MGBC)", "FBS (MGBS)" or "FBS_V2"
    uint32_t mgb_version = 0;
    uint64_t content_hash = 0;   // v1 Graph.hash; 0 for FBS_V2
    uint32_t model_version = 0;  // FBS_V2 only
};

struct GraphState {
    explicit GraphState(std::string comp_node) : builder(comp_node), comp_node(std::move(comp_node)) {}

    ir::GraphBuilder builder;
    std::string comp_node;  // of the inputs, constants and params created in Python
    std::optional<LoadedFrom> loaded;

    ir::Graph& graph() { return builder.graph(); }
};

struct Var {
    std::shared_ptr<GraphState> state;
    ir::VarId id;
};

struct Operator {
    std::shared_ptr<GraphState> state;
    ir::OprId id;
};

// A Var argument, checked to belong to `state` (ValueError naming `what` otherwise).
ir::VarId var_of(const std::shared_ptr<GraphState>& state, pybind11::handle value, std::string_view what);

}  // namespace mgedump::python
