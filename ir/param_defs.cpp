// Lookups over the param vocabulary and the one-time parse of its default texts.
#include <fmt/format.h>

#include <charconv>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "ir/error.h"
#include "ir/param_defs_data.h"
#include "ir/param_schema.h"

namespace mgedump::ir {
namespace {

[[noreturn]] void bad_default(const ParamTableDesc& table, const FieldDesc& field, std::string_view why) {
    throw Error(fmt::format("param table {}: field {}: default \"{}\" {}", table.name, field.name,
                            field.default_text, why));
}

// Whole-string parse with from_chars, so "1e-4" as float is the float nearest 1e-4, not a
// rounded double, and trailing junk is rejected rather than ignored.
template <class T>
bool parse_number(std::string_view text, T& out) {
    if (text.empty()) {
        out = T{};
        return true;
    }
    // from_chars rejects a leading '+', and the schema never writes one; nothing to strip.
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc{} && ptr == end;
}

int64_t parse_enum_default(const ParamTableDesc& table, const FieldDesc& field) {
    const EnumDesc* e = field.enum_type;
    if (!e) bad_default(table, field, "belongs to an enum field without an enum type");
    if (field.default_text.empty()) return 0;
    if (const EnumMember* m = find_enum_member(*e, field.default_text)) return m->value;
    // Bit-flag enums state their default as a number (ExecutionPolicy.strategy = 1).
    uint32_t v = 0;
    if (!parse_number(field.default_text, v))
        bad_default(table, field, fmt::format("is not a member of {}", e->name));
    uint32_t known = 0;
    for (const EnumMember& m : e->members) known |= m.value;
    bool ok = e->bit_flags ? (v & ~known) == 0 : find_enum_member(*e, v) != nullptr;
    if (!ok) bad_default(table, field, fmt::format("is not a value of {}", e->name));
    return v;
}

FieldValue parse_default(const ParamTableDesc& table, const FieldDesc& field) {
    auto number = [&]<class T>(T) -> T {
        T v{};
        if (!parse_number(field.default_text, v))
            bad_default(table, field, "is not a valid number of its type");
        return v;
    };
    auto no_default = [&] {
        if (!field.default_text.empty()) bad_default(table, field, "given for a field that cannot have one");
    };
    switch (field.type) {
        case FieldType::Bool:
            if (field.default_text.empty() || field.default_text == "false") return int64_t{0};
            if (field.default_text == "true") return int64_t{1};
            bad_default(table, field, "is not true or false");
        case FieldType::Int8:
            return int64_t{number(int8_t{})};
        case FieldType::UInt8:
            return int64_t{number(uint8_t{})};
        case FieldType::Int32:
            return int64_t{number(int32_t{})};
        case FieldType::UInt32:
            return int64_t{number(uint32_t{})};
        case FieldType::Int64:
            return int64_t{number(int64_t{})};
        case FieldType::UInt64:
            return uint64_t{number(uint64_t{})};
        case FieldType::Float32:
            return double{number(float{})};
        case FieldType::Float64:
            return double{number(double{})};
        case FieldType::Enum:
            return parse_enum_default(table, field);
        case FieldType::DTypeEnum: {
            if (field.default_text.empty()) return int64_t{0};
            auto t = dtype_from_name(field.default_text);
            if (!t) bad_default(table, field, "is not a dtype name");
            return int64_t{static_cast<int8_t>(*t)};
        }
        case FieldType::DTypeScalar:
            no_default();
            return DTypeScalar{};
        case FieldType::Int32Vector:
            no_default();
            return std::vector<int32_t>{};
        case FieldType::AxisDescVector:
            no_default();
            return std::vector<AxisDesc>{};
        case FieldType::IndexDescMaskVector:
            no_default();
            return std::vector<IndexDescMaskItem>{};
        case FieldType::DTypeTable:
            no_default();
            return DType::of(DTypeEnum::Float32);
    }
    bad_default(table, field, fmt::format("has unknown field type {}", static_cast<int>(field.type)));
}

// Everything derived from the constant tables, built once (magic static: thread-safe;
// a throw here resurfaces on every later use instead of leaving half-built state).
struct Registry {
    std::vector<std::vector<FieldValue>> defaults;
    std::unordered_map<std::string_view, uint32_t> table_by_name;
    std::unordered_map<std::string_view, const EnumDesc*> enum_by_name;

    Registry() {
        auto tables = detail::param_table_data();
        defaults.reserve(tables.size());
        for (uint32_t i = 0; i < tables.size(); ++i) {
            const ParamTableDesc& t = tables[i];
            if (!table_by_name.emplace(t.name, i).second)
                throw Error(fmt::format("param table {} is defined twice", t.name));
            std::unordered_set<std::string_view> names;
            std::vector<FieldValue> values;
            values.reserve(t.fields.size());
            for (const FieldDesc& f : t.fields) {
                if (!names.insert(f.name).second)
                    throw Error(fmt::format("param table {}: field {} is defined twice", t.name, f.name));
                values.push_back(parse_default(t, f));
            }
            defaults.push_back(std::move(values));
        }
        for (const EnumDesc* e : detail::param_enum_data())
            if (!enum_by_name.emplace(e->name, e).second)
                throw Error(fmt::format("param enum {} is defined twice", e->name));
    }
};

const Registry& registry() {
    static const Registry r;
    return r;
}

uint32_t checked_index(ParamTableId id) {
    if (!id.valid() || id.value >= detail::param_table_data().size())
        throw Error(fmt::format("param table id {} out of range", id.value));
    return id.value;
}

}  // namespace

std::span<const ParamTableDesc> param_tables() { return detail::param_table_data(); }

const ParamTableDesc& param_table(ParamTableId id) { return detail::param_table_data()[checked_index(id)]; }

ParamTableId find_param_table(std::string_view name) {
    const auto& map = registry().table_by_name;
    auto it = map.find(name);
    return it == map.end() ? ParamTableId{} : ParamTableId{it->second};
}

std::span<const EnumDesc* const> param_enums() { return detail::param_enum_data(); }

const EnumDesc* find_enum(std::string_view name) {
    const auto& map = registry().enum_by_name;
    auto it = map.find(name);
    return it == map.end() ? nullptr : it->second;
}

const FieldValue& field_default(ParamTableId table, size_t field_index) {
    const auto& fields = registry().defaults[checked_index(table)];
    if (field_index >= fields.size())
        throw Error(fmt::format("param table {}: no field #{} (it has {})", param_table(table).name,
                                field_index, fields.size()));
    return fields[field_index];
}

ParamValue default_param(ParamTableId table) {
    return ParamValue{table, registry().defaults[checked_index(table)]};
}

int find_field(const ParamTableDesc& table, std::string_view field_name) {
    for (size_t i = 0; i < table.fields.size(); ++i)
        if (table.fields[i].name == field_name) return static_cast<int>(i);
    return -1;
}

const EnumMember* find_enum_member(const EnumDesc& e, std::string_view name) {
    for (const EnumMember& m : e.members)
        if (m.name == name) return &m;
    return nullptr;
}

const EnumMember* find_enum_member(const EnumDesc& e, uint32_t value) {
    // Most enums number their members 0, 1, 2, ... in order: look there first
    // (inference reads an Elemwise mode name per operator).
    if (value < e.members.size() && e.members[value].value == value) return &e.members[value];
    for (const EnumMember& m : e.members)
        if (m.value == value) return &m;
    return nullptr;
}

}  // namespace mgedump::ir
