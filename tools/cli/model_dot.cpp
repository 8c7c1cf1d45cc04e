#include "tools/cli/model_dot.h"

#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/order.h"

namespace mgedump::cli {
namespace {

std::string escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out;
}

std::string var_label(const ir::Graph& g, ir::VarId v) {
    std::string label = std::string(g.str(g.vars.name[v.value]));
    const ir::DType d = g.vars.dtype[v.value];
    if (d.valid) label += fmt::format("\\n{}", ir::dtype_name(d.type));
    if (!g.vars.shape[v.value].empty()) label += fmt::format(" [{}]", fmt::join(g.var_shape(v), ","));
    return escape(label);
}

}  // namespace

std::string graph_to_dot(const ir::Graph& g) {
    std::string out = "digraph mge {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
    for (ir::OprId o : ir::dump_order(g)) {
        const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
        std::string label = std::string(def.name);
        if (g.oprs.name[o.value].valid()) label += "\\n" + escape(g.str(g.oprs.name[o.value]));
        out += fmt::format("  op{} [shape=box, label=\"#{} {}\"];\n", o.value, o.value, label);
        const ir::Range tr = g.oprs.tensors[o.value];
        for (uint32_t t = tr.begin; t < tr.end(); ++t) {
            const ir::TensorId id(t);
            std::string tl = g.tensors.name[t].valid() ? escape(g.str(g.tensors.name[t])) : "const";
            tl += fmt::format("\\n{} [{}]", ir::dtype_name(g.tensors.dtype[t].type), fmt::join(g.tensor_shape(id), ","));
            out += fmt::format("  t{} [shape=ellipse, style=dashed, label=\"{}\"];\n  t{} -> op{} [style=dashed];\n",
                               t, tl, t, o.value);
        }
        auto inputs = g.inputs_of(o);
        for (size_t k = 0; k < inputs.size(); ++k) {
            const ir::VarId v = inputs[k];
            out += fmt::format("  op{} -> op{} [label=\"{}\"];\n", g.vars.owner[v.value].value, o.value,
                               var_label(g, v));
        }
    }
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        const ir::VarId v = g.outputs[k];
        out += fmt::format("  out{} [shape=doubleoctagon, label=\"output #{}\"];\n  op{} -> out{} [label=\"{}\"];\n", k,
                           k, g.vars.owner[v.value].value, k, var_label(g, v));
    }
    out += "}\n";
    return out;
}

}  // namespace mgedump::cli
