#include "engine/strip_info.h"

#include <set>
#include <string>

#include "ir/op_registry.h"
#include "ir/opr_fields.h"
#include "ir/order.h"

namespace mgedump::engine {
namespace {

using ir::DType;
using ir::DTypeEnum;

// Elemwise's mode as MegEngine's strip info spells it: the schema's MIN_ and
// MAX_ without the underscore.
std::string_view elemwise_mode(const ir::Graph& g, ir::OprId o) {
    std::string_view name = ir::enum_name_of(g, o, "mode");
    if (name.size() > 1 && name.back() == '_') name.remove_suffix(1);
    return name;
}

// The dtype MegEngine gives output k. Var dtypes from the builder default to the
// first input's, which is wrong for operators whose output type is fixed or comes
// from a param, and strip info must list the real ones (e.g. "Bool", "Int32").
DType output_dtype(const ir::Graph& g, const ir::InferState& known, ir::OprId o, uint32_t k) {
    if (g.oprs.output_dtype[o.value].valid) return g.oprs.output_dtype[o.value];
    const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
    const std::string_view n = def.name;
    const uint32_t nr_out = g.oprs.outputs[o.value].count;
    if (n == "TypeCvt") return std::get<DType>(g.params_of(o)[0].fields[0]);
    if (n == "Eye" || n == "Alloc")
        return DType::of(static_cast<DTypeEnum>(ir::int_field_of(g, o, "dtype").value()));
    if (n == "GetVarShape" || n == "Argmax" || n == "Argmin") return DType::of(DTypeEnum::Int32);
    if ((n == "Argsort" || n == "CondTake" || n == "TopK") && k == 1) return DType::of(DTypeEnum::Int32);
    if (n == "CheckNonFinite" && k + 1 == nr_out) return DType::of(DTypeEnum::Int32);
    if (n == "Dropout" && k == 1) return DType::of(DTypeEnum::Byte);  // the mask
    if (n == "Elemwise") {
        const std::string_view mode = elemwise_mode(g, o);
        if (mode == "LT" || mode == "LEQ" || mode == "EQ" || mode == "NEQ" || mode == "ISNAN" || mode == "ISINF")
            return DType::of(DTypeEnum::Bool);
    }
    return known.dtype(g, g.output_var(o, k));
}

}  // namespace

formats::StripInfo compute_strip_info(const ir::Graph& g) { return compute_strip_info(g, ir::InferState{}); }

formats::StripInfo compute_strip_info(const ir::Graph& g, const ir::InferState& known) {
    std::set<std::string> types, dtypes, modes;
    for (ir::OprId o : ir::dump_order(g)) {
        const ir::OpDef& def = ir::op_def(g.oprs.type[o.value]);
        types.emplace(def.typeinfo);
        for (uint32_t k = 0; k < g.oprs.outputs[o.value].count; ++k) {
            DType d = output_dtype(g, known, o, k);
            if (d.valid) dtypes.emplace(ir::dtype_name(d.type));
        }
        if (def.workspace) dtypes.emplace("Byte");
        if (def.name == "Elemwise") modes.emplace(elemwise_mode(g, o));
    }
    return formats::StripInfo{{types.begin(), types.end()}, {dtypes.begin(), dtypes.end()}, {modes.begin(), modes.end()}};
}

}  // namespace mgedump::engine
