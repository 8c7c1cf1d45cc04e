#include "tools/cli/model_dot.h"

#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/order.h"
#include "tools/cli/inspect_text.h"

namespace mgedump::cli {
namespace {

// Escapes one piece of label text. Line breaks are added between escaped pieces
// (kBreak), never escaped themselves: an escaped "\n" would show as a literal "\n".
std::string escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out;
}
constexpr std::string_view kBreak = "\\n";  // Graphviz's centred line break

// "Float32 [1, 3, 32, 32]" ("unknown" for what inference did not find).
std::string type_label(const ir::Graph& g, ir::VarId v) {
    return escape(dtype_text(g.vars.dtype[v.value]) + " " + shape_text(g.var_shape(v)));
}
// An edge: "name\nFloat32 [1, 3, 32, 32]".
std::string var_label(const ir::Graph& g, ir::VarId v) {
    return fmt::format("{}{}{}", escape(var_name_text(g, v)), kBreak, type_label(g, v));
}

}  // namespace

std::string graph_to_dot(const ir::Graph& g) {
    std::string out = "digraph mge {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
    for (ir::OprId o : ir::dump_order(g)) {
        std::string label = fmt::format("#{} {}", o.value, escape(op_kind_text(g, o)));
        if (g.oprs.name[o.value].valid())
            label += fmt::format("{}{}", kBreak, escape(g.str(g.oprs.name[o.value])));
        // The outputs under the operator: a var no edge shows (unused, or only
        // consumed outside the drawing) is still visible with its dtype and shape.
        const ir::Range outs = g.oprs.outputs[o.value];
        for (uint32_t v = outs.begin; v < outs.end(); ++v)
            label += fmt::format("{}→ {}: {}", kBreak, escape(var_name_text(g, ir::VarId(v))),
                                 type_label(g, ir::VarId(v)));
        out += fmt::format("  op{} [shape=box, label=\"{}\"];\n", o.value, label);
        const ir::Range tr = g.oprs.tensors[o.value];
        for (uint32_t t = tr.begin; t < tr.end(); ++t) {
            const ir::TensorId id(t);
            const std::string name = g.tensors.name[t].valid() ? escape(g.str(g.tensors.name[t])) : "const";
            out += fmt::format(
                "  t{} [shape=ellipse, style=dashed, label=\"{}{}{} {}\"];\n  t{} -> op{} [style=dashed];\n",
                t, name, kBreak, escape(dtype_text(g.tensors.dtype[t])),
                escape(tensor_shape_text(g.tensor_shape(id))), t, o.value);
        }
        for (ir::VarId v : g.inputs_of(o))
            out += fmt::format("  op{} -> op{} [label=\"{}\"];\n", g.vars.owner[v.value].value, o.value,
                               var_label(g, v));
    }
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        const ir::VarId v = g.outputs[k];
        out += fmt::format(
            "  out{} [shape=doubleoctagon, label=\"output #{}{}{}\"];\n  op{} -> out{} [label=\"{}\"];\n", k,
            k, kBreak, escape(var_name_text(g, v)), g.vars.owner[v.value].value, k, var_label(g, v));
    }
    out += "}\n";
    return out;
}

}  // namespace mgedump::cli
