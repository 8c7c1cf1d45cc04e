#include "ir/order.h"

#include <fmt/format.h>

#include "ir/describe.h"
#include "ir/error.h"

namespace mgedump::ir {

std::vector<OprId> dump_order(const Graph& g) {
    enum : uint8_t { kUnseen, kOnStack, kDone };
    std::vector<uint8_t> state(g.oprs.size(), kUnseen);
    std::vector<OprId> order;
    order.reserve(g.oprs.size());

    // Explicit stack of (operator, next input to visit): deep graphs must not
    // overflow the call stack.
    struct Frame {
        OprId opr;
        uint32_t next_input;
    };
    std::vector<Frame> stack;
    for (VarId out : g.outputs) {
        if (out.value >= g.vars.size()) throw GraphError(fmt::format("graph output refers to missing var {}", out.value));
        OprId root = g.vars.owner[out.value];
        if (state[root.value] == kDone) continue;
        stack.push_back({root, 0});
        state[root.value] = kOnStack;
        while (!stack.empty()) {
            Frame& f = stack.back();
            auto inputs = g.inputs_of(f.opr);
            if (f.next_input < inputs.size()) {
                VarId in = inputs[f.next_input++];
                if (in.value >= g.vars.size())
                    throw GraphError(fmt::format("{}: input {} refers to var {}, which does not exist",
                                                 describe_opr(g, f.opr), f.next_input - 1, in.value));
                OprId producer = g.vars.owner[in.value];
                if (state[producer.value] == kOnStack)
                    throw GraphError(fmt::format("{}: cycle through input {} ({})", describe_opr(g, f.opr),
                                                 f.next_input - 1, describe_var(g, in)));
                if (state[producer.value] == kUnseen) {
                    state[producer.value] = kOnStack;
                    stack.push_back({producer, 0});
                }
            } else {
                state[f.opr.value] = kDone;
                order.push_back(f.opr);
                stack.pop_back();
            }
        }
    }
    return order;
}

VarNumbering number_vars(const Graph& g, const std::vector<OprId>& order) {
    VarNumbering n;
    n.compact_id.assign(g.vars.size(), VarNumbering::kNone);
    for (OprId o : order) {
        Range outs = g.oprs.outputs[o.value];
        for (uint32_t v = outs.begin; v < outs.end(); ++v)
            if (!(g.vars.flags[v] & kVarVolatile)) n.compact_id[v] = n.count++;
    }
    return n;
}

}  // namespace mgedump::ir
