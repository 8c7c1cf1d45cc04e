#include "ir/describe.h"

#include <fmt/format.h>

#include "ir/op_registry.h"

namespace mgedump::ir {

std::string describe_opr(const Graph& g, OprId o) {
    if (o.value >= g.oprs.size()) return fmt::format("operator #{} (nonexistent)", o.value);
    OpTypeId t = g.oprs.type[o.value];
    std::string_view type = t.valid() && t.value < op_defs().size() ? op_def(t).name : "unknown type";
    StrId name = g.oprs.name[o.value];
    if (name.valid()) return fmt::format("operator #{} '{}' ({})", o.value, g.str(name), type);
    return fmt::format("operator #{} ({})", o.value, type);
}

std::string describe_var(const Graph& g, VarId v) {
    if (v.value >= g.vars.size()) return fmt::format("var {} (nonexistent)", v.value);
    StrId name = g.vars.name[v.value];
    return name.valid() ? fmt::format("var {} '{}'", v.value, g.str(name)) : fmt::format("var {}", v.value);
}

}  // namespace mgedump::ir
