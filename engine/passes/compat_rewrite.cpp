// Two phases, so a large model can be rewritten on all cores and still give the same
// bytes every run: (1) build one Fragment per rewritable operator, a pure function of
// the (unchanged) graph, in parallel when there are many; (2) append the fragments
// serially in operator-index order and redirect all consumers in a single pass.
#include "engine/passes/compat_rewrite.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <exception>
#include <vector>

#include "engine/passes/fragment_apply.h"
#include "engine/passes/fragment_builder.h"
#include "engine/passes/rules.h"
#include "ir/order.h"

namespace mgedump::engine {

bool needs_compat_rewrites(const ir::Graph& g, DumpFormat format) {
    return needs_compat_rewrites(g, format, ir::dump_order(g));
}

bool needs_compat_rewrites(const ir::Graph& g, DumpFormat format, std::span<const ir::OprId> order) {
    for (ir::OprId o : order)
        if (passes::find_rule(g, o, format)) return true;
    return false;
}

RewriteStats apply_compat_rewrites(ir::Graph& g, DumpFormat format, const CompatRewriteOptions& options) {
    return apply_compat_rewrites(g, format, ir::dump_order(g), options);
}

RewriteStats apply_compat_rewrites(ir::Graph& g, DumpFormat format, std::span<const ir::OprId> order,
                                   const CompatRewriteOptions& options) {
    using passes::Fragment;
    using passes::Rule;

    RewriteStats stats;

    struct Candidate {
        ir::OprId opr;
        Rule rule;
    };
    std::vector<Candidate> candidates;
    for (ir::OprId o : order)
        if (Rule rule = passes::find_rule(g, o, format)) candidates.push_back({o, rule});
    if (candidates.empty()) return stats;
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.opr < b.opr; });

    // Interned before phase 1, which must only read the graph.
    const ir::StrId default_comp_node = g.strings.intern("xpux:0");
    const passes::VarCompNodes comp_nodes(g, order, default_comp_node);

    std::vector<Fragment> fragments(candidates.size());
    // Errors are kept per candidate and the first by operator index is rethrown, so
    // the message does not depend on which thread failed first.
    std::vector<std::exception_ptr> errors(candidates.size());
    auto build = [&](size_t i) {
        try {
            passes::FragmentBuilder b(g, comp_nodes, candidates[i].opr, options.known);
            candidates[i].rule(b);
            fragments[i] = std::move(b).take();
        } catch (...) {
            errors[i] = std::current_exception();
        }
    };
    if (candidates.size() >= options.parallel_threshold) {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, candidates.size()),
                          [&](const tbb::blocked_range<size_t>& r) {
                              for (size_t i = r.begin(); i != r.end(); ++i) build(i);
                          });
    } else {
        for (size_t i = 0; i < candidates.size(); ++i) build(i);
    }
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);

    stats.first_added = static_cast<uint32_t>(g.oprs.size());
    stats.added_operators =
        passes::apply_fragments(g, fragments, &stats.replacements, &stats.added_source, options.known);
    for (const Fragment& f : fragments) {
        if (f.outputs.empty())
            ++stats.marked_volatile;
        else
            ++stats.rewritten;
    }
    return stats;
}

}  // namespace mgedump::engine
