// Pieces shared by the graph JSON reader and writer (not a public interface):
// dtype specs, tensor values as JSON numbers, and param fields by name.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/blobs.h"
#include "ir/builder.h"
#include "ir/dtype.h"
#include "ir/param_schema.h"

namespace mgedump::formats::graph_json {

// Ordered, so {"name_in_file": var} outputs keep the order they were written in.
using Json = nlohmann::ordered_json;

// Throws FormatError "<ctx>: <msg>".
[[noreturn]] void fail(std::string_view ctx, std::string_view msg);
// "a string", "an integer", ... for "expected X, got Y" messages.
std::string kind_of(const Json& j);

// A dtype from its parts: `dtype` is a name or {"dtype", "scale", "zero_point"};
// `scale`/`zero_point` are sibling keys of a tensor entry (may be null).
ir::DType parse_dtype(const Json& dtype, const Json* scale, const Json* zero_point, std::string_view ctx);
// A name for plain dtypes, {"dtype", "scale"[, "zero_point"]} for quantized ones.
Json dtype_to_json(const ir::DType& d);

// A float as JSON: the shortest decimal that reads back to the same float32
// (for float32 values) or double; NaN and infinities as "nan", "inf", "-inf".
Json float_to_json(double v, bool is_float32);
// A JSON number (or "nan"/"inf"/"-inf") as double.
std::optional<double> json_to_float(const Json& j);

// One element of dtype `t` from a JSON number into `out` (dtype_bits(t)/8 bytes).
void encode_element(const Json& v, ir::DTypeEnum t, std::byte* out, std::string_view ctx);
// One element back as JSON; nullopt when JSON cannot hold it exactly.
std::optional<Json> decode_element(const std::byte* in, ir::DTypeEnum t);
// Whether `encode_element` handles `t` (byte-aligned, non-complex).
bool has_json_elements(ir::DTypeEnum t);

// "values" (flat or nested lists, or a scalar for one element) to bytes; the count
// must be `elements`.
std::vector<std::byte> values_to_bytes(const Json& values, ir::DTypeEnum t, uint64_t elements, std::string_view ctx);
// Every element `v`.
std::vector<std::byte> fill_bytes(const Json& v, ir::DTypeEnum t, uint64_t elements, std::string_view ctx);
// A flat list, or nullopt when some element has no exact JSON form.
std::optional<Json> bytes_to_values(ir::Bytes bytes, ir::DTypeEnum t);

// A param field value from JSON, checked against the field's type; ranges are
// left to ir::make_params.
ir::ParamArg param_from_json(const Json& j, const ir::FieldDesc& f, std::string_view ctx);
// The JSON a field value is written as (enum members by name, without MegEngine's trailing '_').
Json param_to_json(const ir::FieldValue& v, const ir::FieldDesc& f);

}  // namespace mgedump::formats::graph_json
