// A compatibility rewrite must stand for the operator it replaces: MegEngine's
// dumper replaces each var with its rewrite through replace_var, which refuses a
// replacement of another dtype or shape ("{dtype} mismatch for replace_var").
#pragma once

#include <span>
#include <utility>

#include "ir/infer.h"

namespace mgedump::engine {

// Infers what the rewrites added to `g` (the operators of `order` from index
// `first_added` on), on top of `before` (the inference of the graph before them,
// possibly empty: then the var table's record). The operators that were there
// keep their results: every replacement is checked to keep its var's dtype and
// shape (check_rewrites_keep_vars), so nothing downstream changes. An added
// operator that breaks a rule is reported as the rewrite of the operator it
// stands for (MegEngine's dumper builds the same operators and fails the same way).
ir::InferState infer_rewritten(const ir::Graph& g, std::span<const ir::OprId> order, uint32_t first_added,
                               std::span<const ir::OprId> added_source, ir::InferState before);

// Throws GraphError naming the operator, the output and both dtypes/shapes when a
// replacement's inferred dtype or shape differs from the var it replaces.
// `state`: what infer_rewritten returned for the rewritten graph `g`. It still
// holds what was inferred for the replaced vars (it sets only the outputs of the
// operators the rewrites added, and takes a var it did not know from the table,
// as reading the state before would), so the state before the rewrites need not
// be kept as a copy to compare with.
void check_rewrites_keep_vars(const ir::Graph& g, const ir::InferState& state,
                              std::span<const std::pair<ir::VarId, ir::VarId>> replacements);

}  // namespace mgedump::engine
