// A compatibility rewrite must stand for the operator it replaces: MegEngine's
// dumper replaces each var with its rewrite through replace_var, which refuses a
// replacement of another dtype or shape ("{dtype} mismatch for replace_var").
#pragma once

#include <span>
#include <utility>

#include "ir/infer.h"

namespace mgedump::engine {

// Throws GraphError naming the operator, the output and both dtypes/shapes when a
// replacement's inferred dtype or shape differs from the var it replaces.
// `before`: inference of the graph before the rewrites (same var ids for the old
// vars), `after`: of the rewritten graph `g`.
void check_rewrites_keep_vars(const ir::Graph& g, const ir::InferState& before, const ir::InferState& after,
                              std::span<const std::pair<ir::VarId, ir::VarId>> replacements);

}  // namespace mgedump::engine
