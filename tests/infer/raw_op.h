// An operator added to a builder's graph without the conversions the builder
// makes first (ir/make_promotion.h): what a loader hands to inference, so a test
// can reach the rule itself.
#pragma once

#include <string_view>
#include <vector>

#include "ir/builder.h"
#include "ir/validate.h"

namespace mgedump::test {

inline ir::VarId raw_op(ir::GraphBuilder& b, std::string_view name, std::vector<ir::VarId> inputs,
                        const ir::ParamArgs& params = {}) {
    ir::Graph& g = b.graph();
    const ir::OpTypeId type = ir::find_op(name);
    const ir::OprId o = ir::append_op(g, type, inputs, ir::make_params(ir::op_def(type), params, name), {});
    ir::validate_operator(g, o);
    ir::InferState state = b.inferred();
    ir::infer_operator(g, o, state);
    ir::apply_inferred(g, state, o);
    return g.output_var(o, 0);
}

}  // namespace mgedump::test
