// The raw vocabulary (spec Appendices A and B) as constant data, kept apart from
// the lookup and default-parsing logic in param_defs.cpp. Internal to ir/.
#pragma once

#include <span>

#include "ir/param_schema.h"

namespace mgedump::ir::detail {

// Param tables in their fixed order (ParamTableId = position).
std::span<const ParamTableDesc> param_table_data();
std::span<const EnumDesc* const> param_enum_data();

}  // namespace mgedump::ir::detail
