#include "ir/infer/context.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>

#include "ir/describe.h"
#include "ir/error.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir {

void InferContext::fail_missing_input(size_t i) const {
    throw GraphError(fmt::format("{}: input {} refers to var {}, which does not exist", describe_opr(g_, o_), i,
                                 inputs_[i].value));
}

void InferContext::prepare_outputs() {
    // In 64 bits: a hand-edited file's begin + count can wrap around 32.
    const uint64_t end = uint64_t{outputs_.begin} + outputs_.count;
    if (end > g_.vars.size())
        throw GraphError(fmt::format("{}: outputs are vars {}..{}, but the graph has {} vars", describe_opr(g_, o_),
                                     outputs_.begin, end - 1, g_.vars.size()));
    if (end > state_.dtypes.size()) state_.resize(g_.vars.size());
    if (outputs_.count > 64) state_.scratch.outputs_set.assign(outputs_.count - 64, 0);
}

std::string InferContext::describe_input(size_t i) const {
    const VarId v = inputs_[i];
    StrId name = g_.vars.name[v.value];
    return fmt::format("input {}{} {} {}", i, name.valid() ? fmt::format(" '{}'", g_.str(name)) : std::string(),
                       dtype_string(dtype(i)), shape_string(shape(i)));
}

void InferContext::fail_missing_param_table(size_t table) const {
    fail("has {} param tables, the rule reads table {}", g_.oprs.params[o_.value].count, table);
}

void InferContext::fail_output_index(size_t k) const {
    throw Error(fmt::format("inference rule of {}: sets output {} of {}", def().name, k, outputs_.count));
}

// The table's description is looked up only on a miss.
const FieldCacheSlot& fill_field_cache(ParamTableId table, FieldName field) {
    FieldCacheSlot& slot = field_cache_slot(table, field);
    const ParamTableDesc& desc = param_table(table);
    const int index = find_field(desc, field.name());
    slot = {field.text, table.value, index, index >= 0 ? desc.fields[index].enum_type : nullptr};
    return slot;
}

FieldRef resolve_field(std::string_view table, FieldName name) noexcept {
    FieldRef ref{name};
    const ParamTableId id = find_param_table(table);
    if (!id.valid()) return ref;
    const ParamTableDesc& desc = param_table(id);
    const int index = find_field(desc, name.name());
    if (index < 0) return ref;
    ref.table = id.value;
    ref.index = index;
    ref.enum_type = desc.fields[index].enum_type;
    return ref;
}

int64_t enum_member_value(std::string_view enum_name, std::string_view member) {
    const EnumDesc* e = find_enum(enum_name);
    const EnumMember* m = e ? find_enum_member(*e, member) : nullptr;
    if (!m) throw Error(fmt::format("inference: the schema has no enum member {}.{}", enum_name, member));
    return m->value;
}

// A FieldRef constant read before its dynamic initialization ran is all zeros:
// table 0 (Empty, no fields) and a null name, so every read of it falls to the
// by-name path and fails there. Said plainly rather than as "no field ''".
static void fail_if_unresolved(FieldName name) {
    if (name.text == nullptr)
        throw std::logic_error(
            "inference: a rule read a param field constant that is not initialized yet (inference ran from a "
            "static initializer, before the rules' FieldRef constants were resolved)");
}

void InferContext::fail_no_field(const ParamValue& p, FieldName name) const {
    fail_if_unresolved(name);
    throw Error(fmt::format("inference rule of {}: param {} has no field '{}'", def().name, param_table(p.table).name,
                            name.name()));
}

int64_t InferContext::int_of(const FieldValue& v, FieldName name) const {
    if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*u);
    if (auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
    throw Error(fmt::format("inference rule of {}: field '{}' is not an integer", def().name, name));
}

double InferContext::float_field(FieldName name, size_t table) const {
    const FieldValue& v = field(name, table);
    if (auto* d = std::get_if<double>(&v)) return *d;
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<double>(*u);
    throw Error(fmt::format("inference rule of {}: field '{}' is not a number", def().name, name));
}

const std::vector<int32_t>& InferContext::ints_field(FieldName name, size_t table) const {
    const FieldValue& v = field(name, table);
    if (auto* l = std::get_if<std::vector<int32_t>>(&v)) return *l;
    throw Error(fmt::format("inference rule of {}: field '{}' is not an int list", def().name, name));
}

std::string_view InferContext::enum_field_general(FieldName name, size_t table) const {
    const ParamValue& p = param(table);
    const FieldCacheSlot& slot = cached_field(p.table, name);
    const int idx = slot.index;
    if (!slot.enum_type || static_cast<size_t>(idx) >= p.fields.size()) [[unlikely]] {
        fail_if_unresolved(name);
        throw Error(fmt::format("inference rule of {}: param {} has no enum field '{}'", def().name,
                                param_table(p.table).name, name));
    }
    const EnumDesc& type = *slot.enum_type;
    const int64_t value = std::get<int64_t>(p.fields[idx]);
    const EnumMember* m = find_enum_member(type, static_cast<uint32_t>(value));
    if (!m) fail("param {}.{} = {} is not a {} member", param_table(p.table).name, name, value, type.name);
    return m->name;
}

const StaticValue* InferContext::constant_input_value(size_t i) const {
    const StaticValue*& slot = values_[inputs_[i].value];
    slot = state_.keep(constant_value(g_, inputs_[i]));
    return slot;
}

[[gnu::hot]] int InferContext::small_value(size_t i, std::span<double> out) const {
    const uint32_t v = inputs_[i].value;
    if (const StaticValue* known = values_[v]) {
        if (known->elems.size() > out.size()) return -1;
        std::copy(known->elems.begin(), known->elems.end(), out.begin());
        return static_cast<int>(known->elems.size());
    }
    return decode_small_constant(g_, inputs_[i], out);
}

void InferContext::set_output_value(size_t k, DType dtype, const Shape& shape, std::vector<double> elems) {
    std::shared_ptr<const StaticValue> value;
    if (shape.known() && shape.elements() == elems.size() && elems.size() <= kMaxStaticValueElements)
        value = std::make_shared<const StaticValue>(StaticValue{std::move(elems)});
    set_output(k, dtype, shape, std::move(value));
}

void InferContext::fail_message(const std::string& rule) const {
    std::string inputs;
    for (size_t i = 0; i < inputs_.size(); ++i) inputs += (i ? "; " : "") + describe_input(i);
    throw GraphError(inputs.empty() ? fmt::format("{}: {}", describe_opr(g_, o_), rule)
                                    : fmt::format("{}: {} ({})", describe_opr(g_, o_), rule, inputs));
}

void InferContext::fail_input_count(size_t lo, size_t hi) const {
    const size_t n = inputs_.size();
    if (lo == hi) fail("takes {} input{}, has {}", lo, lo == 1 ? "" : "s", n);
    fail("takes {} to {} inputs, has {}", lo, hi, n);
}

bool InferContext::more_outputs_done() const {
    for (size_t k = 64; k < outputs_.count; ++k)
        if (!state_.scratch.outputs_set[k - 64]) return false;
    return true;
}

}  // namespace mgedump::ir
