// Reading back what an operator already in a graph was built with: the
// operator that made a var, its type's name, and its param fields by name.
// For code that reads the operators of a built graph (the dim bounds of
// ir/dim_bounds.cpp, the ONNX importer's indexing lowering, strip info's
// operator fields, the test-case check's maxerr), which would otherwise each
// walk the param tables their own way.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "ir/graph.h"
#include "ir/param_schema.h"

namespace mgedump::ir {

// The operator that made v; invalid when v records no owner or one out of
// range (a hand-edited file), so callers need no check of their own.
OprId maker_of(const Graph& g, VarId v);

// The name of operator o's type ("Subtensor").
std::string_view type_name_of(const Graph& g, OprId o);

// Field `name` of operator o, from the first of its param tables that has a
// field so named; null when none has (or the table holds fewer fields).
const FieldValue* field_of(const Graph& g, OprId o, std::string_view name);

// Field `name` of operator o when it holds a T, else null.
template <class T>
const T* field_as(const Graph& g, OprId o, std::string_view name) {
    const FieldValue* f = field_of(g, o, name);
    return f ? std::get_if<T>(f) : nullptr;
}

// An integer, bool or enum field (every width but UInt64 is held as int64_t).
std::optional<int64_t> int_field_of(const Graph& g, OprId o, std::string_view name);

// The name of the member enum field `name` holds (Elemwise's and Reduce's
// mode, e.g. "ADD", "MAX_"), or "" when o has no such enum field or its value
// names no member.
std::string_view enum_name_of(const Graph& g, OprId o, std::string_view name);

}  // namespace mgedump::ir
