// A graph as tables written directly would give it, for the tests, the fuzz
// targets and the compare driver, which dump a graph nobody inferred and the
// same graph built or read.
#pragma once

#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::test {

// `g` marked never inferred, with neither a shape nor a dtype recorded for a var
// an operator computes, where inference gives them back: the vars that hold a
// tensor (an input, a constant) keep the tensor's, and so do the outputs of an
// operator with no inference rule (only a read file's record knows those). The
// dump infers such a graph itself (engine/dump.cpp) and must write what it
// writes for `g`.
inline ir::Graph as_never_inferred(ir::Graph g) {
    g.inferred = false;
    for (uint32_t v = 0; v < g.vars.size(); ++v) {
        const ir::OprId owner = g.vars.owner[v];
        if (g.oprs.tensors[owner.value].count != 0 || !ir::has_infer_rule(g.oprs.type[owner.value])) continue;
        g.vars.shape[v] = ir::Range{};
        g.vars.dtype[v] = ir::DType::none();
    }
    return g;
}

}  // namespace mgedump::test
