// The compatibility rewrites MegEngine applies before dumping unless no_change_graph
// is set (spec §6.1, §9.1): operators older loaders lack are replaced by equivalent
// sub-graphs of operators they have.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/dump_options.h"
#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::engine {

struct RewriteStats {
    uint32_t rewritten = 0;        // operators replaced by a sub-graph
    uint32_t marked_volatile = 0;  // operators kept with some outputs made volatile (CheckNonFinite, FBS v1)
    uint32_t added_operators = 0;  // operators appended (a constant shared by several rewrites counts once)
    // Each replaced var with the var that stands for it now; a dump checks that
    // the replacement keeps the inferred dtype and shape, as MegEngine's
    // replace_var does.
    std::vector<std::pair<ir::VarId, ir::VarId>> replacements;
    // The operator each appended operator stands for: appended operator
    // first_added + i replaces added_source[i].
    uint32_t first_added = 0;
    std::vector<ir::OprId> added_source;
};

struct CompatRewriteOptions {
    // From this many rewritable operators on, the replacements are built on all cores
    // (tbb::parallel_for); below it, serially. The resulting tables are identical
    // either way.
    size_t parallel_threshold = 256;
    // The dtypes and shapes of g's vars when its var table lacks them (what a
    // dump inferred for a graph nobody had inferred); null, or a var it does not
    // know: the table's.
    const ir::InferState* known = nullptr;
};

// The §9.1 rewrites for `format`, applied to g in place: every reachable operator whose
// (format-specific) registry entry has a converter is replaced by the equivalent
// sub-graph; consumers and graph outputs are redirected to the new vars (output k →
// new output k); each new output var takes the name of the var it replaces, so
// requested outputs keep their names. Replaced operators become unreachable.
// CheckNonFinite (FBS v1) is kept with its first N outputs (N = #inputs) volatile.
// Throws GraphError naming the operator when a rewrite needs what the graph does not
// say (GroupNorm/InstanceNorm: the input's static 4-D shape; LayerNorm: its rank).
RewriteStats apply_compat_rewrites(ir::Graph& g, DumpFormat format, const CompatRewriteOptions& options = {});
// The same, given ir::dump_order(g) (a dump has it already).
RewriteStats apply_compat_rewrites(ir::Graph& g, DumpFormat format, std::span<const ir::OprId> order,
                                   const CompatRewriteOptions& options = {});

// Whether apply_compat_rewrites(g, format) would change anything (some reachable
// operator has a rule), so a caller can skip copying the graph when it would not.
bool needs_compat_rewrites(const ir::Graph& g, DumpFormat format);
bool needs_compat_rewrites(const ir::Graph& g, DumpFormat format, std::span<const ir::OprId> order);

}  // namespace mgedump::engine
