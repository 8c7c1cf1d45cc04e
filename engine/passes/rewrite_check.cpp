#include "engine/passes/rewrite_check.h"

#include <fmt/format.h>

#include "ir/describe.h"
#include "ir/error.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine {

ir::InferState infer_rewritten(const ir::Graph& g, std::span<const ir::OprId> order, uint32_t first_added,
                               std::span<const ir::OprId> added_source, ir::InferState before) {
    ir::InferState state = std::move(before);
    // Only what the added operators read is taken from the graph (adopting every
    // var was a tenth of an operator-heavy dump).
    state.resize(g.vars.size());
    for (ir::OprId o : order) {
        if (o.value < first_added) continue;
        for (ir::VarId in : g.inputs_of(o)) state.adopt_var(g, in);
        try {
            ir::infer_operator(g, o, state);
        } catch (const GraphError& e) {
            if (o.value < first_added || o.value - first_added >= added_source.size()) throw;
            throw GraphError(fmt::format(
                "{}: its compatibility rewrite builds an operator MegEngine refuses: {}. MegEngine's dumper "
                "makes the "
                "same rewrite, and the result fails in MegEngine too (where it builds the graph, or where it "
                "runs "
                "it); dump with no_change_graph=True (--no-change-graph) to keep the operator as it is",
                ir::describe_opr(g, added_source[o.value - first_added]), e.what()));
        }
    }
    return state;
}

void check_rewrites_keep_vars(const ir::Graph& g, const ir::InferState& state,
                              std::span<const std::pair<ir::VarId, ir::VarId>> replacements) {
    for (const auto& [old_var, new_var] : replacements) {
        const ir::DType d0 = state.dtype(g, old_var), d1 = state.dtype(g, new_var);
        const ir::Shape s0 = state.shape(g, old_var), s1 = state.shape(g, new_var);
        const bool dtype_differs = d0.valid && d1.valid && !(d0 == d1);
        const bool shape_differs = s0.known() && s1.known() && !(s0 == s1);
        if (!dtype_differs && !shape_differs) continue;
        const ir::OprId source = g.vars.owner[old_var.value];
        const ir::Range outs = g.oprs.outputs[source.value];
        throw GraphError(fmt::format(
            "{}: its compatibility rewrite would turn output {} from {} {} into {} {}; MegEngine's dumper refuses "
            "the same rewrite ({} mismatch for replace_var). Dump with no_change_graph=True (--no-change-graph) to "
            "keep the operator as it is",
            ir::describe_opr(g, source), old_var.value - outs.begin, ir::dtype_string(d0), ir::shape_string(s0),
            ir::dtype_string(d1), ir::shape_string(s1), dtype_differs ? "dtype" : "shape"));
    }
}

}  // namespace mgedump::engine
