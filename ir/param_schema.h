// The vocabulary of operator parameters, as data: every MegEngine param table with
// its fields in declaration order, their types, defaults and enums. One generic
// encoder/decoder (formats/param_codec.h) serves every table; nothing here knows
// about bytes. A field's position in `fields` is its declaration index (the wire
// slot), so tables must list fields exactly in the schema's order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/ids.h"

namespace mgedump::ir {

enum class FieldType : uint8_t {
    Bool,
    Int8,
    UInt8,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float32,
    Float64,
    Enum,                 // 4-byte unsigned enum named by FieldDesc::enum_type
    DTypeEnum,            // 1-byte dtype enum in wire numbering
    DTypeScalar,          // inline struct PersistentDTypeScalar {dtype, 4 raw bytes}
    Int32Vector,          // [int]
    AxisDescVector,       // [AxisDesc]
    IndexDescMaskVector,  // [IndexDescMaskItem]
    DTypeTable,           // a whole DType table (the TypeCvt param)
};

struct EnumMember {
    std::string_view name;
    uint32_t value;
};

struct EnumDesc {
    std::string_view name;
    std::span<const EnumMember> members;
    bool bit_flags = false;  // members are single bits; a value may combine several
};

struct FieldDesc {
    std::string_view name;
    FieldType type;
    // The default exactly as the schema states it: a number ("1e-4", "-1",
    // "18446744073709551615"), "true"/"false", an enum member name ("CROSS_CORRELATION",
    // "MAX_"), or a dtype name ("Byte"). Empty for struct/vector/table fields and
    // for scalars whose default is the implicit zero.
    std::string_view default_text = {};
    const EnumDesc* enum_type = nullptr;
};

struct ParamTableDesc {
    std::string_view name;  // e.g. "Convolution", "ExecutionPolicy", "DType"
    std::span<const FieldDesc> fields;
};

// --- values -----------------------------------------------------------------

struct DTypeScalar {
    DTypeEnum dtype = DTypeEnum::Float32;
    uint8_t storage[4] = {0, 0, 0, 0};  // the scalar's bytes, zero-padded
    bool operator==(const DTypeScalar&) const = default;
};

enum class AxisDescMethod : int8_t { ADD_1 = 0, REMOVE = 1 };
struct AxisDesc {
    AxisDescMethod method = AxisDescMethod::ADD_1;
    int32_t axis = 0;
    bool operator==(const AxisDesc&) const = default;
};

struct IndexDescMaskItem {
    int8_t axis = 0;
    bool begin = false, end = false, step = false, idx = false;
    bool operator==(const IndexDescMaskItem&) const = default;
};

// One field's value. Integers of every width (and enums, bools, dtype enums) are
// int64_t, except UInt64 which is uint64_t; floats of both widths are double
// (every float32 is exactly representable).
using FieldValue = std::variant<int64_t, uint64_t, double, std::vector<int32_t>, std::vector<AxisDesc>,
                                std::vector<IndexDescMaskItem>, DTypeScalar, DType>;

// A parameter instance: which table, and every field's value (defaults filled in).
struct ParamValue {
    ParamTableId table;
    std::vector<FieldValue> fields;
    bool operator==(const ParamValue&) const = default;
};

// --- the registry of tables ---------------------------------------------------

// Every param table, in a fixed order (ParamTableId = position).
std::span<const ParamTableDesc> param_tables();
const ParamTableDesc& param_table(ParamTableId id);
// By table name; invalid id when unknown.
ParamTableId find_param_table(std::string_view name);
// All enums used by the tables.
std::span<const EnumDesc* const> param_enums();
const EnumDesc* find_enum(std::string_view name);

// The parsed default of one field (parsed once, at first use).
const FieldValue& field_default(ParamTableId table, size_t field_index);
// A value of `table` with every field at its default.
ParamValue default_param(ParamTableId table);
// Field index by name, or -1.
int find_field(const ParamTableDesc& table, std::string_view field_name);
// Enum member by name / value.
const EnumMember* find_enum_member(const EnumDesc& e, std::string_view name);
const EnumMember* find_enum_member(const EnumDesc& e, uint32_t value);

}  // namespace mgedump::ir
