// Operator params between Python keywords and the IR's param tables: values in,
// validated by ir::make_params against the param tables; a dict of fields out.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <string_view>

#include "ir/builder.h"
#include "ir/graph.h"

namespace mgedump::python {

// One keyword value: bool, int, float, str (enum member or dtype name), a numpy
// dtype, a list of ints, or a list of {"method", "axis"} / {"axis", "begin", ...}
// dicts. Throws ValueError naming `label` and `field`.
ir::ParamArg param_arg_from_py(pybind11::handle value, std::string_view label, std::string_view field);

// The operator's params as {field: value}, enum members by name; a field name two
// of its tables share is keyed "Table.field", exactly as Graph.op accepts it back.
pybind11::dict params_to_py(const ir::Graph& g, ir::OprId o);

}  // namespace mgedump::python
