#include "ir/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "ir/error.h"
#include "ir/make_promotion.h"
#include "ir/validate.h"

namespace mgedump::ir {
namespace {

std::string type_error(std::string_view label, const ParamTableDesc& t, const FieldDesc& f, std::string_view what) {
    return fmt::format("{}: param {}.{}: {}", label, t.name, f.name, what);
}

// MegEngine's schema spells MAX/MIN as MAX_/MIN_ (Python keywords); the builder takes both.
std::string enum_members(const EnumDesc& e) {
    std::string out;
    for (const EnumMember& m : e.members) {
        std::string_view name = m.name;
        if (name.size() > 1 && name.back() == '_') name.remove_suffix(1);
        fmt::format_to(std::back_inserter(out), "{}{}", out.empty() ? "" : ", ", name);
    }
    return out;
}

// "Convolution: mode, pad_h, ...; ExecutionPolicy: strategy, workspace_limit".
std::string param_fields(const OpDef& op) {
    std::string out;
    for (std::string_view table_name : op.params) {
        const ParamTableDesc& t = param_table(find_param_table(table_name));
        fmt::format_to(std::back_inserter(out), "{}{}:", out.empty() ? "" : "; ", t.name);
        for (size_t i = 0; i < t.fields.size(); ++i)
            fmt::format_to(std::back_inserter(out), "{} {}", i ? "," : "", t.fields[i].name);
    }
    return out;
}

int64_t as_integer(const ParamArg& a, std::string_view label, const ParamTableDesc& t, const FieldDesc& f) {
    if (auto* i = std::get_if<int64_t>(&a)) return *i;
    if (auto* u = std::get_if<uint64_t>(&a)) {
        if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            throw GraphError(type_error(label, t, f, "value out of range"));
        return static_cast<int64_t>(*u);
    }
    if (auto* b = std::get_if<bool>(&a)) return *b ? 1 : 0;
    if (auto* d = std::get_if<double>(&a); d && std::floor(*d) == *d) {
        if (std::fabs(*d) >= 0x1p63) throw GraphError(type_error(label, t, f, fmt::format("{} is out of range", *d)));
        return static_cast<int64_t>(*d);
    }
    throw GraphError(type_error(label, t, f, "expected an integer"));
}

void check_range(int64_t v, int64_t lo, int64_t hi, std::string_view label, const ParamTableDesc& t,
                 const FieldDesc& f) {
    if (v < lo || v > hi)
        throw GraphError(type_error(label, t, f, fmt::format("{} is out of range [{}, {}]", v, lo, hi)));
}

FieldValue convert(const ParamArg& a, std::string_view label, const ParamTableDesc& t, const FieldDesc& f) {
    switch (f.type) {
        case FieldType::Bool: {
            int64_t v = as_integer(a, label, t, f);
            check_range(v, 0, 1, label, t, f);
            return v;
        }
        case FieldType::Int8: {
            int64_t v = as_integer(a, label, t, f);
            check_range(v, INT8_MIN, INT8_MAX, label, t, f);
            return v;
        }
        case FieldType::UInt8: {
            int64_t v = as_integer(a, label, t, f);
            check_range(v, 0, UINT8_MAX, label, t, f);
            return v;
        }
        case FieldType::Int32: {
            int64_t v = as_integer(a, label, t, f);
            check_range(v, INT32_MIN, INT32_MAX, label, t, f);
            return v;
        }
        case FieldType::UInt32: {
            int64_t v = as_integer(a, label, t, f);
            check_range(v, 0, UINT32_MAX, label, t, f);
            return v;
        }
        case FieldType::Int64: return as_integer(a, label, t, f);
        case FieldType::UInt64: {
            if (auto* u = std::get_if<uint64_t>(&a)) return *u;
            int64_t v = as_integer(a, label, t, f);
            if (v < 0) throw GraphError(type_error(label, t, f, "expected a non-negative integer"));
            return static_cast<uint64_t>(v);
        }
        case FieldType::Float32:
        case FieldType::Float64: {
            double d;
            if (auto* x = std::get_if<double>(&a)) d = *x;
            else d = static_cast<double>(as_integer(a, label, t, f));
            if (f.type == FieldType::Float32) {
                // Rounding to float is what a Float32 field means; overflowing to inf is not.
                if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max())
                    throw GraphError(type_error(label, t, f, fmt::format("{} is out of Float32's range", d)));
                d = static_cast<float>(d);
            }
            return d;
        }
        case FieldType::Enum: {
            const EnumDesc& e = *f.enum_type;
            if (auto* s = std::get_if<std::string>(&a)) {
                const EnumMember* m = find_enum_member(e, *s);
                if (!m) m = find_enum_member(e, *s + "_");  // MAX/MIN are spelled MAX_/MIN_ in the schema
                if (!m)
                    throw GraphError(type_error(
                        label, t, f, fmt::format("'{}' is not a {} member (members: {})", *s, e.name, enum_members(e))));
                return int64_t{m->value};
            }
            int64_t v = as_integer(a, label, t, f);
            check_range(v, 0, UINT32_MAX, label, t, f);
            if (!e.bit_flags && !find_enum_member(e, static_cast<uint32_t>(v)))
                throw GraphError(type_error(label, t, f, fmt::format("{} is not a {} value", v, e.name)));
            return v;
        }
        case FieldType::DTypeEnum: {
            if (auto* s = std::get_if<std::string>(&a)) {
                auto d = dtype_from_name(*s);
                if (!d) throw GraphError(type_error(label, t, f, fmt::format("unknown dtype '{}'", *s)));
                return int64_t{static_cast<int8_t>(*d)};
            }
            int64_t v = as_integer(a, label, t, f);
            check_range(v, 0, kDTypeCount - 1, label, t, f);
            return v;
        }
        case FieldType::DTypeScalar:
            if (auto* s = std::get_if<DTypeScalar>(&a)) return *s;
            if (auto* d = std::get_if<double>(&a)) {
                if (std::isfinite(*d) && std::fabs(*d) > std::numeric_limits<float>::max())
                    throw GraphError(type_error(label, t, f, fmt::format("{} is out of Float32's range", *d)));
                DTypeScalar s;
                float x = static_cast<float>(*d);
                std::memcpy(s.storage, &x, 4);
                return s;
            }
            throw GraphError(type_error(label, t, f, "expected a scalar"));
        case FieldType::Int32Vector:
            if (auto* v = std::get_if<std::vector<int32_t>>(&a)) return *v;
            throw GraphError(type_error(label, t, f, "expected a list of integers"));
        case FieldType::AxisDescVector:
            if (auto* v = std::get_if<std::vector<AxisDesc>>(&a)) return *v;
            throw GraphError(type_error(label, t, f, "expected a list of axis descriptions"));
        case FieldType::IndexDescMaskVector:
            if (auto* v = std::get_if<std::vector<IndexDescMaskItem>>(&a)) return *v;
            throw GraphError(type_error(label, t, f, "expected a list of index mask items"));
        case FieldType::DTypeTable:
            if (auto* d = std::get_if<DType>(&a)) return *d;
            if (auto* s = std::get_if<std::string>(&a)) {
                auto d = dtype_from_name(*s);
                if (!d) throw GraphError(type_error(label, t, f, fmt::format("unknown dtype '{}'", *s)));
                return DType::of(*d);
            }
            throw GraphError(type_error(label, t, f, "expected a dtype"));
    }
    throw GraphError(type_error(label, t, f, "unsupported field type"));
}

// Fields MegEngine derives from the inputs rather than taking from the user:
// Dimshuffle.ndim is the input's rank (0 on the wire would make the loader infer
// max(pattern)+1, which is wrong when the pattern drops axes).
void complete_params(const Graph& g, const OpDef& def, std::span<const VarId> inputs, std::vector<ParamValue>& params) {
    if (def.name != "Dimshuffle" || params.empty() || inputs.empty()) return;
    ParamValue& p = params[0];
    const ParamTableDesc& t = param_table(p.table);
    const int ndim = find_field(t, "ndim"), pattern = find_field(t, "pattern");
    if (ndim < 0 || pattern < 0 || std::get<int64_t>(p.fields[ndim]) != 0) return;
    int64_t rank = 0;
    if (inputs[0].value < g.vars.size()) rank = g.vars.shape[inputs[0].value].count;
    if (rank == 0)
        for (int32_t axis : std::get<std::vector<int32_t>>(p.fields[pattern])) rank = std::max<int64_t>(rank, axis + 1);
    p.fields[ndim] = rank;
}

OpOptions named(std::string_view name) {
    OpOptions o;
    o.name = std::string(name);
    return o;
}

}  // namespace

std::vector<ParamValue> make_params(const OpDef& op, const ParamArgs& args, std::string_view op_label) {
    std::vector<ParamValue> params;
    params.reserve(op.params.size());
    for (std::string_view table_name : op.params) params.push_back(default_param(find_param_table(table_name)));

    for (const NamedParamArg& arg : args) {
        std::string_view table_part, field_part = arg.field;
        if (auto dot = arg.field.find('.'); dot != std::string::npos) {
            table_part = std::string_view(arg.field).substr(0, dot);
            field_part = std::string_view(arg.field).substr(dot + 1);
        }
        ParamValue* target = nullptr;
        int field_index = -1;
        for (ParamValue& p : params) {
            const ParamTableDesc& t = param_table(p.table);
            if (!table_part.empty() && t.name != table_part) continue;
            int idx = find_field(t, field_part);
            if (idx < 0) continue;
            if (target)
                throw GraphError(fmt::format("{}: param field '{}' is in both {} and {}; write it as Table.field",
                                             op_label, field_part, param_table(target->table).name, t.name));
            target = &p;
            field_index = idx;
        }
        if (!target)
            throw GraphError(fmt::format("{}: operator {} has no param field '{}' ({})", op_label, op.name, arg.field,
                                         op.params.empty() ? "it has no params" : "its fields: " + param_fields(op)));
        const ParamTableDesc& t = param_table(target->table);
        target->fields[field_index] = convert(arg.value, op_label, t, t.fields[field_index]);
    }
    return params;
}

OprId append_op(Graph& g, OpTypeId type, std::span<const VarId> inputs, std::vector<ParamValue> params,
                const OpOptions& options) {
    const OpDef& def = op_def(type);
    const auto id = OprId(static_cast<uint32_t>(g.oprs.size()));
    g.inferred = false;
    OprTable& o = g.oprs;
    o.type.push_back(type);
    // MegEngine names every operator; an unnamed one gets "<Type><index>", which is
    // also what its output vars are called.
    const std::string opr_name = options.name.empty() ? fmt::format("{}{}", def.name, id.value) : options.name;
    o.name.push_back(g.strings.intern(opr_name));
    o.priority.push_back(options.priority);

    Range cn{static_cast<uint32_t>(g.opr_comp_nodes.size()), static_cast<uint32_t>(options.comp_nodes.size())};
    for (const std::string& c : options.comp_nodes) g.opr_comp_nodes.push_back(g.strings.intern(c));
    o.comp_nodes.push_back(cn);
    o.output_dtype.push_back(options.output_dtype);

    complete_params(g, def, inputs, params);
    Range pr{static_cast<uint32_t>(g.params.size()), static_cast<uint32_t>(params.size())};
    for (ParamValue& p : params) g.params.push_back(std::move(p));
    o.params.push_back(pr);
    o.first_field.push_back(g.first_field_of(id));

    Range in{static_cast<uint32_t>(g.opr_inputs.size()), static_cast<uint32_t>(inputs.size())};
    g.opr_inputs.insert(g.opr_inputs.end(), inputs.begin(), inputs.end());
    o.inputs.push_back(in);

    uint32_t nr_out = options.outputs ? options.outputs : (def.outputs == kAnyCount ? 1 : def.outputs);
    Range out{static_cast<uint32_t>(g.vars.size()), nr_out};
    o.outputs.push_back(out);
    o.tensors.push_back(Range{static_cast<uint32_t>(g.tensors.size()), 0});
    o.blobs.push_back(Range{static_cast<uint32_t>(g.opr_blobs.size()), 0});

    // Output dtype: explicit, else the first input's (good enough for naming and
    // strip info; passes that need exact dtypes set output_dtype).
    DType dtype = options.output_dtype;
    if (!dtype.valid && !inputs.empty() && inputs[0].value < g.vars.size()) dtype = g.vars.dtype[inputs[0].value];
    for (uint32_t k = 0; k < nr_out; ++k) {
        std::string name = opr_name;
        if (nr_out > 1) name += fmt::format(":{}", k);
        g.vars.name.push_back(g.strings.intern(name));
        g.vars.dtype.push_back(dtype);
        g.vars.shape.push_back(Range{});
        g.vars.owner.push_back(id);
        g.vars.flags.push_back(0);
        g.vars.original_id.push_back(static_cast<uint32_t>(g.vars.size() - 1));
    }
    return id;
}

GraphBuilder::GraphBuilder(std::string default_comp_node) : default_comp_node_(std::move(default_comp_node)) {}

TensorId GraphBuilder::add_tensor(OprId opr, std::string_view name, TensorMethod method, DType dtype,
                                  std::span<const uint32_t> shape, std::string_view comp_node, BlobId blob) {
    Graph& g = graph_;
    if (opr.value + 1 != g.oprs.size())
        throw GraphError(fmt::format("operator #{}: tensors can only be added to the newest operator", opr.value));
    const auto id = TensorId(static_cast<uint32_t>(g.tensors.size()));
    g.tensors.name.push_back(name.empty() ? StrId() : g.strings.intern(name));
    g.tensors.dtype.push_back(dtype);
    g.tensors.shape.push_back(g.add_dims(shape));
    g.tensors.comp_node.push_back(g.strings.intern(comp_node));
    g.tensors.method.push_back(method);
    g.tensors.blob.push_back(blob);
    g.tensors.format_type.push_back(1);
    g.oprs.tensors[opr.value].count += 1;
    const OpDef& def = op_def(g.oprs.type[opr.value]);
    if (def.tensors != OpTensors::None && g.oprs.tensors[opr.value].count == g.oprs.outputs[opr.value].count)
        infer(opr, opr.value);
    return id;
}

VarId GraphBuilder::input(std::string_view name, DType dtype, std::vector<uint32_t> shape) {
    OprId o = add_op(find_op("Host2DeviceCopy"), {}, make_params(op_def(find_op("Host2DeviceCopy")), {}, name),
                     named(name));
    add_tensor(o, name, TensorMethod::MetaInput, dtype, shape, default_comp_node_, BlobId());
    VarId v = graph_.output_var(o, 0);
    graph_.vars.dtype[v.value] = dtype;
    graph_.vars.shape[v.value] = graph_.tensors.shape.back();
    return v;
}

VarId GraphBuilder::constant(DType dtype, std::vector<uint32_t> shape, std::vector<std::byte> bytes,
                             std::string_view var_name) {
    OprId o = add_op(find_op("ImmutableTensor"), {}, {}, named(var_name));
    BlobId blob = graph_.blobs.add_owned(std::move(bytes));
    add_tensor(o, {}, TensorMethod::ValueAnonymous, dtype, shape, default_comp_node_, blob);
    VarId v = graph_.output_var(o, 0);
    graph_.vars.dtype[v.value] = dtype;
    graph_.vars.shape[v.value] = graph_.tensors.shape.back();
    return v;
}

VarId GraphBuilder::param(std::string_view name, DType dtype, std::vector<uint32_t> shape,
                          std::vector<std::byte> bytes) {
    OprId o = add_op(find_op("SharedDeviceTensor"), {}, {}, named(name));
    BlobId blob = graph_.blobs.add_owned(std::move(bytes));
    add_tensor(o, name, TensorMethod::ValueShared, dtype, shape, default_comp_node_, blob);
    VarId v = graph_.output_var(o, 0);
    graph_.vars.dtype[v.value] = dtype;
    graph_.vars.shape[v.value] = graph_.tensors.shape.back();
    return v;
}

VarId GraphBuilder::op(std::string_view op_name, std::vector<VarId> inputs, const ParamArgs& params,
                       const OpOptions& options) {
    OpTypeId type = find_op(op_name);
    if (!type.valid())
        throw GraphError(fmt::format("operator #{}{}: unknown operator '{}'", graph_.oprs.size(),
                                     options.name.empty() ? "" : " '" + options.name + "'", op_name));
    std::string label = fmt::format("operator #{} ({}{})", graph_.oprs.size(), op_name,
                                    options.name.empty() ? "" : " '" + options.name + "'");
    OprId o = add_op(type, inputs, make_params(op_def(type), params, label), options);
    return graph_.output_var(o, 0);
}

OprId GraphBuilder::add_op(OpTypeId type, std::span<const VarId> inputs, std::vector<ParamValue> params,
                           const OpOptions& options) {
    const size_t first_new = graph_.oprs.size();
    // The conversions MegEngine's make inserts (ir/make_promotion.h) come first.
    std::vector<VarId> built_inputs;
    if (type.valid() && type.value < op_defs().size()) {
        for (VarId v : inputs)
            if (v.value >= graph_.vars.size())
                throw GraphError(fmt::format("operator #{} ({}): input refers to var {}, which does not exist",
                                             graph_.oprs.size(), op_def(type).name, v.value));
        built_inputs = promoted_inputs(graph_, inferred_, type, inputs, params,
                                       fmt::format("operator #{} ({})", graph_.oprs.size(), op_def(type).name));
        inputs = built_inputs;
    }
    OprId o = append_op(graph_, type, inputs, std::move(params), options);
    // Tensor-owning operators get their tensors after this; they are inferred
    // when their tensor is added.
    if (op_def(type).tensors == OpTensors::None) infer(o, first_new);
    return o;
}

void GraphBuilder::infer(OprId o, size_t first_new) {
    try {
        // The arity and param checks first: rules may index inputs and params.
        validate_operator(graph_, o);
        infer_operator(graph_, o, inferred_);
    } catch (...) {
        // A refused operator (and the conversions made for it) is not left in the
        // graph: a caller that catches the error keeps building a valid graph.
        while (graph_.oprs.size() > first_new) graph_.remove_newest_operator();
        inferred_.resize(graph_.vars.size());
        throw;
    }
    apply_inferred(graph_, inferred_, o);
}

void GraphBuilder::output(VarId var, std::string_view name) {
    if (var.value >= graph_.vars.size())
        throw GraphError(fmt::format("output '{}': var {} does not exist", name, var.value));
    if (!name.empty()) graph_.vars.name[var.value] = graph_.strings.intern(name);
    graph_.outputs.push_back(var);
}

Graph GraphBuilder::finish() {
    validate(graph_, ValidateOptions{});
    // Every operator was inferred as it was added (add_op, add_tensor).
    graph_.inferred = true;
    return std::move(graph_);
}

}  // namespace mgedump::ir
