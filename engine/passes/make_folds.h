// The simplifications MegEngine's operator factories make: some `make` functions
// return an input (or an existing var) instead of creating the operator, so a
// graph MegEngine builds never holds such an operator — and its loader, which
// rebuilds each operator with `make` and asserts that it got the recorded type
// back, refuses a file that does ("got_type=PoolingForward expected_type=Concat").
// This pass lowers them so the written graph is the one MegEngine would build.
// It runs on every dump, with or without the compatibility rewrites.
#pragma once

#include <span>

#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::engine {

// Whether some reachable operator is one that MegEngine's make folds away.
// Dtypes and shapes come from `known` (what was inferred for a graph whose var
// table records none), else from the var table (an empty state reads through).
bool needs_make_folds(const ir::Graph& g, std::span<const ir::OprId> order, const ir::InferState& known);

// Redirects every consumer and graph output of a folded operator's output to the
// var MegEngine's make returns; folded operators become unreachable. Returns how
// many were folded. Dtypes and shapes as needs_make_folds reads them.
uint32_t apply_make_folds(ir::Graph& g, std::span<const ir::OprId> order, const ir::InferState& known);

}  // namespace mgedump::engine
