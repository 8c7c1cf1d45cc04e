// Phase 2 of the compatibility rewrites: appends built fragments to the graph tables,
// serially and in the order given, then redirects every consumer and graph output of
// a replaced var in one pass over the tables.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/passes/fragment.h"
#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::engine::passes {

// Returns the number of operators appended. Constants with equal dtype, shape, value
// and comp node are appended once and shared, as MegEngine's per-graph cache of
// ImmutableTensors does. New operators take their source's priority (MegEngine's
// optimizer does the same for operators it inserts); a replacement var takes the
// replaced var's name and, when it has none of its own, its shape (from `known`
// when it knows it: what a dump inferred for a graph nobody had inferred).
// `replaced` receives every (replaced var, replacement var) pair, in fragment order;
// `sources`, for each operator appended (in order), the operator it stands for.
uint32_t apply_fragments(ir::Graph& g, std::span<Fragment> fragments,
                         std::vector<std::pair<ir::VarId, ir::VarId>>* replaced = nullptr,
                         std::vector<ir::OprId>* sources = nullptr, const ir::InferState* known = nullptr);

}  // namespace mgedump::engine::passes
