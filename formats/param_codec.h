// One generic encoder/decoder for every OperatorParam table, driven by the param
// vocabulary (ir/param_schema.h), plus the union indices that name the tables on the wire.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include "formats/fbb.h"

#include <cstdint>

#include "ir/param_schema.h"

namespace mgedump::formats {

// OperatorParam union index (1..99) of a param table; 0 if the table is not a union member.
uint8_t param_union_index(ir::ParamTableId table);
// Param table of a union index; invalid id for 0 or unknown indices.
ir::ParamTableId param_table_for_union(uint8_t union_index);

// Builds `value` exactly as flatc 2.0.x's generated CreateXxx helper would: vectors
// first (declaration order), then the table with fields added largest first and, within
// a size, in reverse declaration order; scalars equal to their default are omitted.
// Vectors and inline structs are always written. The DType table (TypeCvt) is
// delegated to encode_dtype. Throws Error (naming table and field) for a value that
// does not fit its field.
flatbuffers::Offset<void> encode_param(Fbb& fbb, const ir::ParamValue& value);
// Reads an already verified param table. Null table → all defaults.
ir::ParamValue decode_param(ir::ParamTableId table, const flatbuffers::Table* t);
// Verifies the table's fields against the schema (for readers): every field within
// bounds, vectors in range. A null table passes, as in generated union verifiers.
bool verify_param(flatbuffers::Verifier& v, ir::ParamTableId table, const void* t);

}  // namespace mgedump::formats
