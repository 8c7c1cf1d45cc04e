// Which operators a dump writes and in what order (spec §6.2), and the dense
// "compact" var ids they get (§6.3). Both formats share these.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "ir/graph.h"

namespace mgedump::ir {

// Depth-first post-order from the owners of g.outputs, in output order, visiting
// inputs in index order; each reachable operator once. Throws GraphError on a cycle.
std::vector<OprId> dump_order(const Graph& g);

struct VarNumbering {
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> compact_id;  // per VarId; kNone for volatile or unreached vars
    uint32_t count = 0;
};

// Numbers the non-volatile outputs of `order`'s operators 0, 1, 2, ... in order.
VarNumbering number_vars(const Graph& g, const std::vector<OprId>& order);

}  // namespace mgedump::ir
