// Which vars MegEngine's static inference knows as constants (the CONST infer
// type of cg::static_infer): a shape or value that depends on no graph input
// (Host2DeviceCopy) and on no operator it cannot infer. Reshape::make and
// Broadcast::make (check_is_shape_of, src/opr/impl/tensor_manip.cpp:22) fold a
// Reshape to the input's own shape only when both the target's value and the
// input's shape are CONST; make_folds.cpp asks this.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::engine::passes {

struct ConstInfer {
    std::vector<uint8_t> shape, value;  // by VarId: 1 where CONST

    // Walks `order` (each operator after its inputs' owners). A var's shape is
    // known from `known` (what a dump inferred for a graph nobody had inferred),
    // else from the graph's record.
    ConstInfer(const ir::Graph& g, std::span<const ir::OprId> order, const ir::InferState& known);
    bool shape_const(ir::VarId v) const { return v.value < shape.size() && shape[v.value]; }
    bool value_const(ir::VarId v) const { return v.value < value.size() && value[v.value]; }
};

}  // namespace mgedump::engine::passes
