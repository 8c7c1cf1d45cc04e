#include "tools/cli/inspect_text.h"

#include <fmt/format.h>

#include "ir/op_registry.h"
#include "ir/param_schema.h"

namespace mgedump::cli {

std::string dtype_text(const ir::DType& d) {
    if (!d.valid) return "unknown";
    std::string name(ir::dtype_name(d.type));
    if (!ir::dtype_is_quantized(d.type)) return name;
    if (ir::dtype_is_asymmetric(d.type))
        return fmt::format("{}(scale={}, zero_point={})", name, d.scale, d.zero_point);
    return fmt::format("{}(scale={})", name, d.scale);
}

std::string shape_text(std::span<const uint32_t> dims) {
    return dims.empty() ? "unknown" : fmt::format("[{}]", fmt::join(dims, ", "));
}

std::string tensor_shape_text(std::span<const uint32_t> dims) {
    return fmt::format("[{}]", fmt::join(dims, ", "));
}

namespace {

// Convolution-like tables call their kernel orientation "mode": only the unusual
// one (CONVOLUTION, a flipped kernel) is worth a mention.
bool mode_shown_only_if_set(std::string_view table) {
    for (std::string_view t : {"Convolution", "ConvBias", "SeparableConv", "Convolution3D", "Conv3DBias",
                               "SeparableConv3D", "LocalShare", "BatchConvBias"})
        if (table == t) return true;
    return false;
}

}  // namespace

std::string op_kind_text(const ir::Graph& g, ir::OprId o) {
    std::string text(ir::op_def(g.oprs.type[o.value]).name);
    // The first param table with an enum field "mode" (Elemwise, ElemwiseMultiType,
    // Pooling, Reduce, ...): for those the mode is what the operator computes.
    for (const ir::ParamValue& p : g.params_of(o)) {
        const ir::ParamTableDesc& t = ir::param_table(p.table);
        const int f = ir::find_field(t, "mode");
        if (f < 0 || t.fields[f].type != ir::FieldType::Enum || size_t(f) >= p.fields.size()) continue;
        const int64_t* v = std::get_if<int64_t>(&p.fields[f]);
        if (!v) continue;
        if (mode_shown_only_if_set(t.name) && p.fields[f] == ir::field_default(p.table, f)) return text;
        const ir::EnumMember* m = ir::find_enum_member(*t.fields[f].enum_type, static_cast<uint32_t>(*v));
        return m ? fmt::format("{}({})", text, m->name) : fmt::format("{}(mode {})", text, *v);
    }
    return text;
}

std::string var_name_text(const ir::Graph& g, ir::VarId v) {
    const ir::StrId name = g.vars.name[v.value];
    return name.valid() && !g.str(name).empty() ? std::string(g.str(name)) : fmt::format("%{}", v.value);
}

}  // namespace mgedump::cli
