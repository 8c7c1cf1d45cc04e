#include "ir/infer/context.h"

#include "ir/describe.h"
#include "ir/error.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir {

InferContext::InferContext(const Graph& g, OprId o, InferState& state)
    : g_(g),
      o_(o),
      state_(state),
      def_(op_def(g.oprs.type[o.value])),
      inputs_(g.inputs_of(o)),
      shapes_(state.scratch.shapes),
      set_(state.scratch.outputs_set) {
    for (size_t i = 0; i < inputs_.size(); ++i)
        if (inputs_[i].value >= state.dtypes.size())
            throw GraphError(fmt::format("{}: input {} refers to var {}, which does not exist", describe_opr(g, o), i,
                                         inputs_[i].value));
    set_.assign(g.oprs.outputs[o.value].count, 0);
}

std::span<const Shape> InferContext::shapes() const {
    shapes_.resize(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i) shapes_[i] = shape(i);
    return shapes_;
}

std::string InferContext::describe_input(size_t i) const {
    const VarId v = inputs_[i];
    StrId name = g_.vars.name[v.value];
    return fmt::format("input {}{} {} {}", i, name.valid() ? fmt::format(" '{}'", g_.str(name)) : std::string(),
                       dtype_string(dtype(i)), shape_string(shape(i)));
}

const ParamValue& InferContext::param(size_t table) const {
    auto params = g_.params_of(o_);
    if (table >= params.size())
        fail("has {} param tables, the rule reads table {}", params.size(), table);
    return params[table];
}

const FieldValue& InferContext::field(std::string_view name, size_t table) const {
    const ParamValue& p = param(table);
    const ParamTableDesc& t = param_table(p.table);
    int idx = find_field(t, name);
    if (idx < 0 || static_cast<size_t>(idx) >= p.fields.size())
        throw Error(fmt::format("inference rule of {}: param {} has no field '{}'", def_.name, t.name, name));
    return p.fields[idx];
}

int64_t InferContext::int_field(std::string_view name, size_t table) const {
    const FieldValue& v = field(name, table);
    if (auto* i = std::get_if<int64_t>(&v)) return *i;
    if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*u);
    if (auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
    throw Error(fmt::format("inference rule of {}: field '{}' is not an integer", def_.name, name));
}

double InferContext::float_field(std::string_view name, size_t table) const {
    const FieldValue& v = field(name, table);
    if (auto* d = std::get_if<double>(&v)) return *d;
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<double>(*u);
    throw Error(fmt::format("inference rule of {}: field '{}' is not a number", def_.name, name));
}

const std::vector<int32_t>& InferContext::ints_field(std::string_view name, size_t table) const {
    const FieldValue& v = field(name, table);
    if (auto* l = std::get_if<std::vector<int32_t>>(&v)) return *l;
    throw Error(fmt::format("inference rule of {}: field '{}' is not an int list", def_.name, name));
}

std::string_view InferContext::enum_field(std::string_view name, size_t table) const {
    const ParamValue& p = param(table);
    const ParamTableDesc& t = param_table(p.table);
    int idx = find_field(t, name);
    if (idx < 0 || !t.fields[idx].enum_type)
        throw Error(fmt::format("inference rule of {}: param {} has no enum field '{}'", def_.name, t.name, name));
    const int64_t value = std::get<int64_t>(p.fields[idx]);
    const EnumMember* m = find_enum_member(*t.fields[idx].enum_type, static_cast<uint32_t>(value));
    if (!m) fail("param {}.{} = {} is not a {} member", t.name, name, value, t.fields[idx].enum_type->name);
    return m->name;
}

const StaticValue* InferContext::value(size_t i) const {
    std::shared_ptr<const StaticValue>& slot = state_.values[inputs_[i].value];
    if (!slot) slot = constant_value(g_, inputs_[i]);
    return slot.get();
}

DType InferContext::config_dtype() const { return g_.oprs.output_dtype[o_.value]; }

void InferContext::set_output(size_t k, DType dtype, const Shape& shape, std::shared_ptr<const StaticValue> value) {
    if (k >= set_.size())
        throw Error(fmt::format("inference rule of {}: sets output {} of {}", def_.name, k, set_.size()));
    const uint32_t v = g_.oprs.outputs[o_.value].begin + static_cast<uint32_t>(k);
    if (state_.values.size() <= v) state_.resize(g_.vars.size());
    state_.dtypes[v] = dtype;
    state_.shapes[v] = shape;
    state_.values[v] = std::move(value);
    set_[k] = 1;
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

void InferContext::expect_inputs(size_t lo, size_t hi) const {
    const size_t n = inputs_.size();
    if (n >= lo && n <= hi) return;
    if (lo == hi) fail("takes {} input{}, has {}", lo, lo == 1 ? "" : "s", n);
    fail("takes {} to {} inputs, has {}", lo, hi, n);
}

bool InferContext::outputs_done() const {
    for (uint8_t s : set_)
        if (!s) return false;
    return true;
}

}  // namespace mgedump::ir
