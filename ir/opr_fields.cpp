#include "ir/opr_fields.h"

#include "ir/op_registry.h"

namespace mgedump::ir {

OprId maker_of(const Graph& g, VarId v) {
    const OprId o = g.vars.owner[v.value];
    return o.valid() && o.value < g.oprs.size() ? o : OprId();
}

std::string_view type_name_of(const Graph& g, OprId o) { return op_def(g.oprs.type[o.value]).name; }

const FieldValue* field_of(const Graph& g, OprId o, std::string_view name) {
    for (const ParamValue& p : g.params_of(o)) {
        const int k = find_field(param_table(p.table), name);
        if (k >= 0 && static_cast<size_t>(k) < p.fields.size()) return &p.fields[static_cast<size_t>(k)];
    }
    return nullptr;
}

std::optional<int64_t> int_field_of(const Graph& g, OprId o, std::string_view name) {
    const int64_t* f = field_as<int64_t>(g, o, name);
    return f ? std::optional<int64_t>(*f) : std::nullopt;
}

std::string_view enum_name_of(const Graph& g, OprId o, std::string_view name) {
    for (const ParamValue& p : g.params_of(o)) {
        const ParamTableDesc& table = param_table(p.table);
        const int k = find_field(table, name);
        if (k < 0 || static_cast<size_t>(k) >= p.fields.size() || !table.fields[k].enum_type) continue;
        const int64_t* value = std::get_if<int64_t>(&p.fields[static_cast<size_t>(k)]);
        const EnumMember* m =
            value ? find_enum_member(*table.fields[k].enum_type, static_cast<uint32_t>(*value)) : nullptr;
        return m ? m->name : std::string_view();
    }
    return {};
}

}  // namespace mgedump::ir
