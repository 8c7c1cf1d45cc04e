#include "engine/passes/fragment_builder.h"

#include <fmt/format.h>

#include <cstring>

#include "ir/describe.h"
#include "ir/error.h"

namespace mgedump::engine::passes {
namespace {

ir::ParamValue param_with(ir::ParamTableId table,
                          std::initializer_list<std::pair<std::string_view, ir::FieldValue>> fields) {
    ir::ParamValue p = ir::default_param(table);
    const ir::ParamTableDesc& desc = ir::param_table(table);
    for (const auto& [name, value] : fields) {
        int idx = ir::find_field(desc, name);
        if (idx < 0)
            throw Error(fmt::format("compat rewrite: param table {} has no field '{}'", desc.name, name));
        p.fields[idx] = value;
    }
    return p;
}

template <class T>
std::vector<std::byte> bytes_of(std::span<const T> values) {
    std::vector<std::byte> out(values.size_bytes());
    if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
    return out;
}

const ir::DType kInt32 = ir::DType::of(ir::DTypeEnum::Int32);
const ir::DType kFloat32 = ir::DType::of(ir::DTypeEnum::Float32);

}  // namespace

ir::DType effective_dtype(const ir::Graph& g, ir::VarId v, const ir::InferState* known) {
    const ir::DType d = known ? known->dtype(g, v) : g.vars.dtype[v.value];
    return d.valid ? d : kFloat32;
}

// --- VarCompNodes ---------------------------------------------------------------

VarCompNodes::VarCompNodes(const ir::Graph& g, std::span<const ir::OprId> order, ir::StrId fallback)
    : g_(g), opr_(g.oprs.size()), fallback_(fallback) {
    for (ir::OprId o : order) {
        auto explicit_cns = g.comp_nodes_of(o);
        ir::Range tensors = g.oprs.tensors[o.value];
        auto inputs = g.inputs_of(o);
        if (!explicit_cns.empty())
            opr_[o.value] = explicit_cns[0];
        else if (!tensors.empty())
            opr_[o.value] = g.tensors.comp_node[tensors.begin];
        else if (!inputs.empty())
            opr_[o.value] = of(inputs[0]);  // producers come earlier in `order`
    }
}

ir::StrId VarCompNodes::of(ir::VarId v) const {
    ir::OprId o = g_.vars.owner[v.value];
    uint32_t k = v.value - g_.oprs.outputs[o.value].begin;
    // Multi-output operators may place each output on its own comp node.
    auto explicit_cns = g_.comp_nodes_of(o);
    if (k < explicit_cns.size()) return explicit_cns[k];
    ir::Range tensors = g_.oprs.tensors[o.value];
    if (explicit_cns.empty() && k < tensors.count) return g_.tensors.comp_node[tensors.begin + k];
    ir::StrId cn = opr_[o.value];
    return cn.valid() ? cn : fallback_;
}

// --- FragmentBuilder: the source ---------------------------------------------------

FragmentBuilder::FragmentBuilder(const ir::Graph& g, const VarCompNodes& comp_nodes, ir::OprId source,
                                 const ir::InferState* known)
    : g_(g), known_(known), comp_nodes_(comp_nodes), vocab_(vocab()), inputs_(g.inputs_of(source)) {
    fragment_.source = source;
}

std::span<const uint32_t> FragmentBuilder::var_dims(ir::VarId v) const {
    return known_ ? known_->dims(g_, v) : g_.var_shape(v);
}

ir::VarId FragmentBuilder::input_var(size_t i) const {
    if (i >= inputs_.size())
        throw GraphError(fmt::format("{}: the compatibility rewrite needs input {}, but it has {} inputs",
                                     describe(), i, inputs_.size()));
    return inputs_[i];
}

std::string FragmentBuilder::describe() const { return ir::describe_opr(g_, fragment_.source); }

const ir::FieldValue& FragmentBuilder::field(std::string_view name) const {
    auto params = g_.params_of(fragment_.source);
    if (!params.empty()) {
        int idx = ir::find_field(ir::param_table(params[0].table), name);
        if (idx >= 0 && static_cast<size_t>(idx) < params[0].fields.size()) return params[0].fields[idx];
    }
    throw GraphError(fmt::format(
        "{}: the compatibility rewrite needs param field '{}', which it does not have", describe(), name));
}

double FragmentBuilder::float_field(std::string_view name) const {
    const ir::FieldValue& v = field(name);
    if (auto* d = std::get_if<double>(&v)) return *d;
    throw GraphError(fmt::format("{}: param field '{}' is not a float", describe(), name));
}

int64_t FragmentBuilder::int_field(std::string_view name) const {
    const ir::FieldValue& v = field(name);
    if (auto* i = std::get_if<int64_t>(&v)) return *i;
    if (auto* u = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*u);
    throw GraphError(fmt::format("{}: param field '{}' is not an integer", describe(), name));
}

uint64_t FragmentBuilder::uint_field(std::string_view name) const {
    const ir::FieldValue& v = field(name);
    if (auto* u = std::get_if<uint64_t>(&v)) return *u;
    if (auto* i = std::get_if<int64_t>(&v); i && *i >= 0) return static_cast<uint64_t>(*i);
    throw GraphError(fmt::format("{}: param field '{}' is not an unsigned integer", describe(), name));
}

// --- FragmentBuilder: emitting ----------------------------------------------------

ir::DType FragmentBuilder::dtype(Ref r) const {
    return r.local ? fragment_.ops[r.index].dtype : effective_dtype(g_, ir::VarId(r.index), known_);
}

Ref FragmentBuilder::add(ir::OpTypeId type, std::vector<ir::ParamValue> params, std::vector<Ref> inputs,
                         ir::DType dtype) {
    fragment_.ops.push_back(NewOp{type, std::move(params), std::move(inputs), dtype, std::nullopt});
    return Ref::op(static_cast<uint32_t>(fragment_.ops.size() - 1));
}

Ref FragmentBuilder::add_constant(ir::DType dtype, std::vector<uint32_t> shape, std::vector<std::byte> bytes,
                                  ir::VarId like) {
    Ref r = add(vocab_.immutable_tensor, {}, {}, dtype);
    fragment_.ops.back().constant =
        ConstValue{dtype, std::move(shape), std::move(bytes), comp_nodes_.of(like)};
    return r;
}

Ref FragmentBuilder::elemwise(Ew mode, std::initializer_list<Ref> inputs) {
    return elemwise(mode, std::span<const Ref>(inputs.begin(), inputs.size()));
}

Ref FragmentBuilder::elemwise(Ew mode, std::span<const Ref> inputs) {
    // Elemwise computes in its operands' dtype (comparisons included: they give 0/1
    // in that dtype, not Bool).
    ir::DType out = dtype(inputs[0]);
    return add(vocab_.elemwise,
               {param_with(vocab_.elemwise_param, {{"mode", int64_t{static_cast<uint32_t>(mode)}}})},
               std::vector<Ref>(inputs.begin(), inputs.end()), out);
}

Ref FragmentBuilder::scalar_f32(float value, ir::VarId like) {
    return add_constant(kFloat32, {1}, bytes_of(std::span<const float>(&value, 1)), like);
}

Ref FragmentBuilder::scalar_i32(int32_t value, ir::VarId like) {
    return add_constant(kInt32, {1}, bytes_of(std::span<const int32_t>(&value, 1)), like);
}

Ref FragmentBuilder::vector_i32(std::span<const int32_t> values, ir::VarId like) {
    return add_constant(kInt32, {static_cast<uint32_t>(values.size())}, bytes_of(values), like);
}

Ref FragmentBuilder::type_cvt(Ref x, ir::DType to) {
    if (dtype(x) == to) return x;
    return add(vocab_.type_cvt, {param_with(vocab_.dtype_param, {{"dtype", to}})}, {x}, to);
}

Ref FragmentBuilder::reduce(Ref x, ReduceMode mode, int32_t axis) {
    return add(vocab_.reduce,
               {param_with(vocab_.reduce_param,
                           {{"mode", int64_t{static_cast<uint32_t>(mode)}}, {"axis", int64_t{axis}}})},
               {x}, dtype(x));
}

Ref FragmentBuilder::reduce_to_shape(Ref x, ReduceMode mode, Ref target_shape) {
    // The 2-input form keeps the default axis (2147483647: "use target_shape").
    return add(vocab_.reduce,
               {param_with(vocab_.reduce_param, {{"mode", int64_t{static_cast<uint32_t>(mode)}}})},
               {x, target_shape}, dtype(x));
}

Ref FragmentBuilder::pow_c(Ref x, float exp) {
    return add(vocab_.pow_c, {param_with(vocab_.pow_c_param, {{"exp", double{exp}}})}, {x}, dtype(x));
}

Ref FragmentBuilder::get_var_shape(Ref x) {
    return add(vocab_.get_var_shape, {ir::default_param(vocab_.optional_axis_v1_param)}, {x}, kInt32);
}

Ref FragmentBuilder::subtensor_to(Ref x, Ref end) {
    ir::IndexDescMaskItem item;
    item.axis = 0;
    item.end = true;
    return add(vocab_.subtensor,
               {param_with(vocab_.index_desc_param, {{"items", std::vector<ir::IndexDescMaskItem>{item}}})},
               {x, end}, dtype(x));
}

Ref FragmentBuilder::concat(std::initializer_list<Ref> inputs, int32_t axis) {
    Ref first = *inputs.begin();
    return add(vocab_.concat, {param_with(vocab_.axis_param, {{"axis", int64_t{axis}}})},
               std::vector<Ref>(inputs), dtype(first));
}

Ref FragmentBuilder::reshape(Ref x, Ref shape, int32_t unspec_axis) {
    return add(vocab_.reshape, {param_with(vocab_.optional_axis_v1_param, {{"axis", int64_t{unspec_axis}}})},
               {x, shape}, dtype(x));
}

Ref FragmentBuilder::uniform_rng(Ref shape, uint64_t seed) {
    // The param's dtype field stays at its default, Float32.
    return add(vocab_.uniform_rng, {param_with(vocab_.uniform_rng_param, {{"seed", seed}})}, {shape},
               kFloat32);
}

Ref FragmentBuilder::broadcast(Ref x, Ref shape) {
    return add(vocab_.broadcast, {ir::default_param(vocab_.empty_param)}, {x, shape}, dtype(x));
}

Ref FragmentBuilder::scalar_of(ir::DType dtype, double value, ir::VarId like) {
    std::vector<std::byte> bytes(ir::dtype_storage_bytes(dtype.type, 1));
    auto put = [&](auto v) { std::memcpy(bytes.data(), &v, std::min(bytes.size(), sizeof v)); };
    switch (dtype.type) {
        case ir::DTypeEnum::Float32: put(static_cast<float>(value)); break;
        case ir::DTypeEnum::Int32: put(static_cast<int32_t>(value)); break;
        case ir::DTypeEnum::Int16: put(static_cast<int16_t>(value)); break;
        case ir::DTypeEnum::Uint16: put(static_cast<uint16_t>(value)); break;
        case ir::DTypeEnum::Int8: put(static_cast<int8_t>(value)); break;
        case ir::DTypeEnum::Uint8:
        case ir::DTypeEnum::Bool: put(static_cast<uint8_t>(value)); break;
        default:
            throw GraphError(fmt::format("{}: cannot make a {} constant", describe(), ir::dtype_name(dtype.type)));
    }
    return add_constant(dtype, {1}, std::move(bytes), like);
}

}  // namespace mgedump::engine::passes
