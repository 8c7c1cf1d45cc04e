#include "formats/onnx/importer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "formats/onnx/graph_names.h"
#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_support.h"
#include "formats/onnx/values.h"
#include "ir/error.h"
#include "ir/op_registry.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

const std::unordered_map<std::string_view, Handler>& handler_index() {
    static const auto index = [] {
        std::unordered_map<std::string_view, Handler> m;
        for (auto table : {elementwise_handlers(), conv_handlers(), linear_handlers(), pool_handlers(),
                           shape_handlers(), index_handlers(), resize_handlers(),
                           math_handlers(), compare_handlers(), reduce_handlers(), norm_handlers(),
                           tensor_handlers(), gather_handlers(), loss_handlers(),
                           recurrent_handlers(), einsum_handlers(), quantize_handlers(),
                           window_handlers(), spectral_handlers(), control_handlers(), loop_handlers(),
                           grid_sample_handlers(), roi_align_handlers(), nms_handlers(), unique_handlers(), tfidf_handlers(), training_handlers()})
            for (const OpHandler& h : table) m.emplace(h.op_type, h.convert);
        return m;
    }();
    return index;
}

std::vector<uint32_t> to_dims(const Shape& s, const Importer& at, std::string_view what) {
    std::vector<uint32_t> out;
    for (int64_t d : s) {
        if (d < 0 || d > std::numeric_limits<uint32_t>::max())
            at.fail(fmt::format("{}: dimension {} does not fit a MegEngine shape", what, d));
        out.push_back(static_cast<uint32_t>(d));
    }
    if (out.empty()) out.push_back(1);  // MegEngine tensors have at least one axis
    return out;
}

}  // namespace

int64_t element_count(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
}

ir::DTypeEnum onnx_var_dtype(int32_t t, const Importer& at) {
    using D = ir::DTypeEnum;
    switch (t) {
        case P::FLOAT:
        case P::DOUBLE:
            return D::Float32;
        case P::FLOAT16:
            return D::Float16;
        case P::BFLOAT16:
            return D::BFloat16;
        case P::INT32:
        case P::INT64:
            return D::Int32;
        case P::INT16:
            return D::Int16;
        case P::UINT16:
            return D::Uint16;
        case P::INT8:
            return D::Int8;
        case P::UINT8:
            return D::Uint8;
        case P::BOOL:
            return D::Bool;
        default:
            at.fail(fmt::format("element type {} has no MegEngine dtype", onnx_elem_name(t)));
    }
}

Importer::Importer(const OnnxModelFile& model, const OnnxImportOptions& options)
    : model_(model), options_(options), reader_(model) {}

void Importer::fail(std::string_view what) const {
    if (!node_) throw GraphError(fmt::format("{}: {}", model_.label, what));
    throw GraphError(
        fmt::format("{}: {}: {}", model_.label, node_ref(), what));
}

std::string Importer::node_ref() const {
    if (!node_->name().empty()) return fmt::format("node '{}' ({})", node_->name(), node_->op_type());
    for (const std::string& out : node_->output())
        if (!out.empty()) return fmt::format("unnamed {} node making '{}'", node_->op_type(), out);
    return fmt::format("unnamed {} node", node_->op_type());
}

size_t Importer::input_count() const { return static_cast<size_t>(node_->input_size()); }
bool Importer::has_input(size_t i) const {
    // An override supplies the input (Upsample-7's scales attribute as input #1).
    if (input_overrides_.count(i)) return true;
    return i < input_count() && !node_->input(static_cast<int>(i)).empty();
}
size_t Importer::output_count() const { return static_cast<size_t>(node_->output_size()); }

Value& Importer::lookup(const std::string& name) {
    auto it = values_.find(name);
    if (it == values_.end()) fail_undefined(name);
    return it->second;
}

void Importer::fail_undefined(const std::string& name) const {
    // producers_ holds subgraphs' nodes too, whose names the main graph cannot
    // read: only a producer among the main graph's nodes comes "later".
    const onnx::NodeProto* p = producer(name);
    const auto& nodes = model_.proto->graph().node();
    const auto later = std::find_if(nodes.begin(), nodes.end(), [&](const onnx::NodeProto& n) { return &n == p; });
    if (p && later != nodes.end())
        fail(fmt::format("input '{}' is produced by node #{} '{}' ({}), which does not come before this one (ONNX "
                         "lists nodes in topological order, and a graph with a cycle has none)",
                         name, later - nodes.begin(), p->name().empty() ? name : p->name(), p->op_type()));
    fail(fmt::format("input '{}' is produced by no node, initializer or graph input", name));
}

const Value& Importer::runtime_input(size_t i) const {
    if (!has_input(i)) fail(fmt::format("input #{} is missing", i));
    if (auto it = input_overrides_.find(i); it != input_overrides_.end()) return it->second;
    return const_cast<Importer*>(this)->lookup(node_->input(static_cast<int>(i)));
}

const Value& Importer::input(size_t i) const {
    const Value& v = runtime_input(i);
    if (v.runtime_shape)
        fail(fmt::format("input #{} ('{}') has a shape known only at run time (it depends on values fed at run "
                         "time); this operator's mapping needs the shape at import time",
                         i, i < input_count() ? node_->input(static_cast<int>(i)) : "(given by an attribute)"));
    return v;
}

ir::VarId Importer::var(size_t i) {
    if (!has_input(i)) fail(fmt::format("input #{} is missing", i));
    // An override of an input the node does not list is named after the node.
    const std::string name = i < input_count() ? node_->input(static_cast<int>(i))
                                               : fmt::format("{}:input{}", node_->name(), i);
    auto over = input_overrides_.find(i);
    Value& v = over != input_overrides_.end() ? over->second : lookup(name);
    if (!v.var.valid()) v.var = materialize(v, name);
    return v.var;
}

std::vector<int64_t> Importer::const_ints(size_t i, std::string_view what) const {
    const Value& v = input(i);
    if (!v.is_const) fail(fmt::format("{} (input #{}) must be a constant known at import time", what, i));
    auto ints = decode_ints(v);
    if (!ints)
        fail(fmt::format("{} (input #{}) has element type {}, expected an integer type", what, i,
                         onnx_elem_name(v.elem_type)));
    return *ints;
}

std::vector<double> Importer::const_floats(size_t i, std::string_view what) const {
    const Value& v = input(i);
    if (!v.is_const) fail(fmt::format("{} (input #{}) must be a constant known at import time", what, i));
    auto values = decode_floats(v);
    if (!values)
        fail(fmt::format("{} (input #{}) has element type {}, expected a number type", what, i,
                         onnx_elem_name(v.elem_type)));
    return *values;
}

const onnx::AttributeProto* Importer::attr(std::string_view name) const {
    for (const auto& a : node_->attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

bool Importer::has_attr(std::string_view name) const { return attr(name) != nullptr; }

void Importer::check_attrs(std::initializer_list<std::string_view> known) const {
    for (const auto& a : node_->attribute()) {
        bool ok = false;
        for (std::string_view k : known) ok = ok || a.name() == k;
        for (const std::string& k : handled_attrs_) ok = ok || a.name() == k;
        if (!ok) fail(fmt::format("attribute '{}' is not supported", a.name()));
    }
}

int64_t Importer::attr_int(std::string_view name, int64_t fallback) const {
    const auto* a = attr(name);
    if (!a) return fallback;
    if (a->type() != onnx::AttributeProto::INT) fail(fmt::format("attribute '{}': expected an int", name));
    return a->i();
}

double Importer::attr_float(std::string_view name, double fallback) const {
    const auto* a = attr(name);
    if (!a) return fallback;
    if (a->type() != onnx::AttributeProto::FLOAT) fail(fmt::format("attribute '{}': expected a float", name));
    return a->f();
}

std::string Importer::attr_string(std::string_view name, std::string_view fallback) const {
    const auto* a = attr(name);
    if (!a) return std::string(fallback);
    if (a->type() != onnx::AttributeProto::STRING)
        fail(fmt::format("attribute '{}': expected a string", name));
    return a->s();
}

std::vector<int64_t> Importer::attr_ints(std::string_view name, std::vector<int64_t> fallback) const {
    const auto* a = attr(name);
    if (!a) return fallback;
    if (a->type() != onnx::AttributeProto::INTS)
        fail(fmt::format("attribute '{}': expected a list of ints", name));
    return {a->ints().begin(), a->ints().end()};
}

void Importer::set_output(size_t i, Value v) {
    if (i >= output_count()) fail(fmt::format("produces no output #{}", i));
    const std::string& name = node_->output(static_cast<int>(i));
    if (name.empty()) return;
    values_[name] = std::move(v);
}

void Importer::alias_output_name(const std::string& name, size_t i) {
    values_[name] = lookup(node_->output(static_cast<int>(i)));
}

const Value* Importer::value(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
}

void Importer::set_output_var(size_t i, ir::VarId var, int32_t elem_type, Shape shape,
                              std::vector<int64_t> known_elements) {
    // The importer's ONNX-level shape must be the one MegEngine's inference gives
    // the var it mapped to (ir/infer.h): a disagreement is a mapping bug, found
    // here rather than by a loader. ONNX's rank-0 scalar is MegEngine's [1].
    auto inferred = graph().var_shape(var);
    if (!inferred.empty()) {
        const bool scalar = shape.empty() && inferred.size() == 1 && inferred[0] == 1;
        if (!scalar && !std::equal(shape.begin(), shape.end(), inferred.begin(), inferred.end(),
                                   [](int64_t a, uint32_t b) { return a == static_cast<int64_t>(b); }))
            throw GraphError(fmt::format("{}: {}: output {} has shape [{}] in ONNX terms but [{}] by "
                                         "MegEngine's inference of the operators it maps to (an mgedump mapping bug)",
                                         model_.label, node_ref(), i, fmt::join(shape, ","),
                                         fmt::join(inferred, ",")));
    }
    // Likewise the dtype: ONNX's element type as MegEngine holds it.
    const ir::DType& dtype = graph().vars.dtype[var.value];
    if (dtype.valid && dtype.type != onnx_var_dtype(elem_type, *this))
        throw GraphError(
            fmt::format("{}: {}: output {} is {} in ONNX terms but {} by MegEngine's "
                        "inference of the operators it maps to (an mgedump mapping bug)",
                        model_.label, node_ref(), i, onnx_elem_name(elem_type),
                        ir::dtype_name(dtype.type)));
    Value v;
    v.var = var;
    v.elem_type = elem_type;
    v.shape = std::move(shape);
    if (std::ranges::any_of(known_elements, [](int64_t e) { return e >= 0; }))
        v.known_elements = std::move(known_elements);
    set_output(i, std::move(v));
}

ir::OprId Importer::emit_opr(std::string_view op, std::vector<ir::VarId> inputs, const ir::ParamArgs& params,
                             uint32_t outputs, ir::DType output_dtype) {
    ir::OpTypeId type = ir::find_op(op);
    ir::OpOptions o;
    o.name = ops_in_node_ == 0 ? node_label_ : fmt::format("{}:{}", node_label_, ops_in_node_);
    o.outputs = outputs;
    o.output_dtype = output_dtype;
    ++ops_in_node_;
    std::string label = fmt::format("{}: {} as {}", model_.label, node_ref(), op);
    return builder_.add_op(type, inputs, ir::make_params(ir::op_def(type), params, label), o);
}

ir::VarId Importer::emit(std::string_view op, std::vector<ir::VarId> inputs, const ir::ParamArgs& params) {
    return graph().output_var(emit_opr(op, std::move(inputs), params, 0), 0);
}

ir::VarId Importer::emit_as(ir::DType output_dtype, std::string_view op, std::vector<ir::VarId> inputs,
                            const ir::ParamArgs& params) {
    return graph().output_var(emit_opr(op, std::move(inputs), params, 0, output_dtype), 0);
}

ir::VarId Importer::const_var(ir::DTypeEnum dtype, const Shape& shape, std::vector<std::byte> bytes) {
    return builder_.constant(ir::DType::of(dtype), to_dims(shape, *this, "constant"), std::move(bytes));
}

ir::VarId Importer::const_i32(const std::vector<int64_t>& values) {
    std::vector<std::byte> bytes(values.size() * 4);
    for (size_t k = 0; k < values.size(); ++k) {
        if (values[k] < INT32_MIN || values[k] > INT32_MAX)
            fail(fmt::format("value {} does not fit Int32", values[k]));
        int32_t v = static_cast<int32_t>(values[k]);
        std::memcpy(bytes.data() + 4 * k, &v, 4);
    }
    return const_var(ir::DTypeEnum::Int32, {static_cast<int64_t>(values.size())}, std::move(bytes));
}

ir::VarId Importer::const_f32(float value) {
    std::vector<std::byte> bytes(4);
    std::memcpy(bytes.data(), &value, 4);
    return const_var(ir::DTypeEnum::Float32, {1}, std::move(bytes));
}

ir::VarId Importer::reshape(ir::VarId x, const Shape& shape) {
    return emit("Reshape", {x, const_i32(shape)});
}

ir::VarId Importer::materialize(Value& v, std::string_view name) {
    if (!v.is_const) fail(fmt::format("value '{}' has no var", name));
    auto key = std::make_tuple(v.bytes.data(), v.bytes.size(), v.shape, v.elem_type, v.param_name);
    if (auto it = materialized_.find(key); it != materialized_.end()) return it->second;
    const bool shared = options_.params_as_shared_device_tensor && !v.param_name.empty();
    if (shared) {
        // One initializer is one param: read in another shape (a Conv bias seen as
        // (1, OC, 1, 1), a Reshape folded at import) it is a Reshape of that param.
        if (auto it = params_.find(v.param_name); it != params_.end()) {
            const auto& [bytes, elem_type, param] = it->second;
            if (bytes.data() != v.bytes.data() || bytes.size() != v.bytes.size() || elem_type != v.elem_type)
                fail(fmt::format("two different constants would both be param '{}' (an mgedump mapping bug)",
                                 v.param_name));
            ir::VarId view = param_view(param, v.shape, v.param_name);
            materialized_.emplace(std::move(key), view);
            return view;
        }
    }
    ir::DTypeEnum dtype = onnx_var_dtype(v.elem_type, *this);
    ir::Graph& g = graph();
    ir::BlobId blob;
    if (v.elem_type == P::INT64 || v.elem_type == P::DOUBLE) {
        // MegEngine holds neither: narrow (checked for INT64) into owned bytes.
        std::vector<std::byte> bytes = narrow_to_32bit(v, [&](int64_t bad) {
            fail(fmt::format("constant '{}' holds {}, which does not fit Int32", name, bad));
        });
        blob = g.blobs.add_owned(std::move(bytes));
    } else {
        blob = g.blobs.add_view(v.bytes, v.keepalive);
    }
    ir::OprId o = builder_.add_op(ir::find_op(shared ? "SharedDeviceTensor" : "ImmutableTensor"), {}, {},
                                  ir::OpOptions{.name = std::string(shared ? v.param_name : "")});
    std::vector<uint32_t> dims = to_dims(v.shape, *this, fmt::format("constant '{}'", name));
    builder_.add_tensor(o, shared ? v.param_name : "",
                        shared ? ir::TensorMethod::ValueShared : ir::TensorMethod::ValueAnonymous,
                        ir::DType::of(dtype), dims, "xpux:0", blob);
    ir::VarId out = g.output_var(o, 0);
    g.vars.dtype[out.value] = ir::DType::of(dtype);
    g.vars.shape[out.value] = g.tensors.shape.back();
    if (shared) params_.emplace(v.param_name, std::make_tuple(v.bytes, v.elem_type, out));
    materialized_.emplace(std::move(key), out);
    pinned_.push_back(v.keepalive);
    return out;
}

ir::VarId Importer::param_view(ir::VarId param, const Shape& shape, const std::string& param_name) {
    const Shape dims = shape.empty() ? Shape{1} : shape;
    if (node_) return reshape(param, dims);
    // A graph output that is a view of a param: no node to name the Reshape after.
    ir::OpTypeId type = ir::find_op("Reshape");
    ir::VarId target = const_i32(dims);
    ir::OprId o = builder_.add_op(type, std::vector<ir::VarId>{param, target},
                                  ir::make_params(ir::op_def(type), {}, param_name),
                                  ir::OpOptions{.name = param_name + ":view"});
    return graph().output_var(o, 0);
}

size_t Importer::consumers(const std::string& name) const {
    auto it = consumers_.find(name);
    return it == consumers_.end() ? 0 : it->second;
}

const onnx::NodeProto* Importer::producer(const std::string& name) const {
    auto it = producers_.find(name);
    return it == producers_.end() ? nullptr : it->second;
}

const onnx::NodeProto* Importer::sole_consumer(const std::string& name) const {
    if (consumers(name) != 1) return nullptr;
    auto it = last_consumer_.find(name);
    return it == last_consumer_.end() ? nullptr : it->second;
}

void Importer::declare_inputs() {
    const onnx::GraphProto& g = model_.proto->graph();
    for (const P& t : g.initializer()) {
        Value v = tensor_const(reader_.read(t));
        v.param_name = t.name();
        values_[t.name()] = std::move(v);
    }
    std::vector<std::string> names;  // the graph inputs, for errors
    size_t fixed_used = 0;
    for (const onnx::ValueInfoProto& in : g.input()) {
        if (values_.count(in.name())) continue;  // an initializer listed as input (older exporters)
        names.push_back(in.name());
        const std::string what = fmt::format("graph input '{}'", in.name());
        if (!in.type().has_tensor_type())
            throw GraphError(fmt::format("{}: {}: only tensor inputs are supported", model_.label, what));
        const auto& tt = in.type().tensor_type();
        Value v;
        v.elem_type = tt.elem_type();
        auto fixed = options_.input_shapes.find(in.name());
        if (fixed != options_.input_shapes.end()) {
            ++fixed_used;
            v.shape = fixed->second;
            for (int64_t d : v.shape)
                if (d < 1 || d > UINT32_MAX)
                    throw OptionError(
                        fmt::format("{}: {}: the given shape [{}] has dimension {} (a whole number "
                                    "from 1 is needed)",
                                    model_.label, what, fmt::join(v.shape, "x"), d));
            if (tt.has_shape() && tt.shape().dim_size() != static_cast<int>(v.shape.size()))
                throw OptionError(fmt::format(
                    "{}: {}: the given shape [{}] has rank {}, the model declares rank {}", model_.label,
                    what, fmt::join(v.shape, "x"), v.shape.size(), tt.shape().dim_size()));
            for (int k = 0; k < tt.shape().dim_size(); ++k) {
                const auto& d = tt.shape().dim(k);
                if (d.has_dim_value() && d.dim_value() != v.shape[k])
                    throw OptionError(fmt::format(
                        "{}: {}: the given shape [{}] has {} at axis {}, the model "
                        "declares {}",
                        model_.label, what, fmt::join(v.shape, "x"), v.shape[k], k, d.dim_value()));
            }
        } else {
            for (int k = 0; k < tt.shape().dim_size(); ++k) {
                const auto& d = tt.shape().dim(k);
                if (!d.has_dim_value())
                    throw GraphError(fmt::format(
                        "{}: {}: dimension {} ({}) is symbolic; fix the input's shape with --input-shape "
                        "{}=DxDx... (Python: input_shapes={{'{}': [...]}}) or export with fixed input shapes",
                        model_.label, what, k, d.dim_param().empty() ? "unnamed" : "'" + d.dim_param() + "'",
                        in.name(), in.name()));
                v.shape.push_back(d.dim_value());
            }
        }
        ir::DTypeEnum dtype = onnx_var_dtype(v.elem_type, *this);
        v.var = builder_.input(in.name(), ir::DType::of(dtype), to_dims(v.shape, *this, what));
        values_[in.name()] = std::move(v);
    }
    if (fixed_used != options_.input_shapes.size())
        for (const auto& [name, shape] : options_.input_shapes)
            if (std::find(names.begin(), names.end(), name) == names.end())
                throw OptionError(
                    fmt::format("{}: an input shape is given for '{}', which is not a graph input "
                                "(the inputs: {})",
                                model_.label, name, fmt::join(names, ", ")));
}

void Importer::convert(const onnx::NodeProto& n) {
    node_ = &n;
    node_label_ = n.name();  // else its first named output, else its op type
    for (int k = 0; node_label_.empty() && k < n.output_size(); ++k) node_label_ = n.output(k);
    if (node_label_.empty()) node_label_ = n.op_type();
    ops_in_node_ = 0;
    handled_attrs_.clear();
    input_overrides_.clear();
    if (auto it = fused_bn_.find(n.output_size() > 0 ? n.output(0) : ""); it != fused_bn_.end()) return;
    const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    const auto& index = handler_index();
    // The default domain's key is the op type itself: no string is made per node.
    auto it = default_domain ? index.find(std::string_view(n.op_type())) : index.find(op_key(n));
    if (!default_domain && it == index.end()) fail(fmt::format("operator domain '{}' is not supported", n.domain()));
    // Every operator we map has a required first output (but the recurrent ones,
    // whose Y is optional: ops_recurrent.cpp); handlers may rely on it.
    const bool optional_y = n.op_type() == "RNN" || n.op_type() == "GRU" || n.op_type() == "LSTM";
    if (n.output_size() == 0 || (n.output(0).empty() && !optional_y)) fail("output #0 is missing");
    if (it == index.end()) fail("operator type is not supported");
    if (default_domain && opset_ < 7) upgrade_legacy_node(*this);
    it->second(*this);
    for (int k = 0; k < n.output_size(); ++k)
        if (!n.output(k).empty() && !values_.count(n.output(k)))
            fail(fmt::format("output #{} ('{}') is not supported", k, n.output(k)));
}

ir::Graph Importer::run() {
    const onnx::GraphProto& g = model_.proto->graph();
    refuse_names_defined_twice(g, model_.label);
    count_uses(g, nullptr);
    for (const auto& out : g.output()) ++consumers_[out.name()];
    for (const auto& op : model_.proto->opset_import())
        if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = op.version();
    // Opsets 1..6: each operator's version in force is checked (formats/onnx/op_versions.cpp).
    refuse_unsupported_ops(g, model_.label, opset_,
                           [](std::string_view op) { return handler_index().count(op) != 0; });
    // A model of other domains' operators only (the training optimizers' tests)
    // needs no default-domain opset.
    bool default_domain_nodes = false;
    for (const auto& n : g.node()) default_domain_nodes |= n.domain().empty() || n.domain() == "ai.onnx";
    if (opset_ < 1 && default_domain_nodes)
        throw GraphError(fmt::format("{}: the model imports no version of the default ONNX domain (opset {})",
                                     model_.label, opset_));
    declare_inputs();
    for (const auto& n : g.node()) convert(n);
    node_ = nullptr;
    for (const auto& out : g.output()) {
        auto it = values_.find(out.name());
        if (it == values_.end())
            throw GraphError(
                fmt::format("{}: graph output '{}' is produced by no node", model_.label, out.name()));
        if (!it->second.var.valid()) it->second.var = materialize(it->second, out.name());
        builder_.output(it->second.var, out.name());
    }
    return builder_.finish();
}

void Importer::count_uses(const onnx::GraphProto& g, const onnx::NodeProto* enclosing) {
    for (const auto& n : g.node()) {
        // A value a subgraph reads is read by the node that holds the subgraph: a
        // Conv output an If branch also reads has two consumers, so no BatchNorm
        // is fused into it.
        const onnx::NodeProto* reader = enclosing ? enclosing : &n;
        for (const std::string& in : n.input()) {
            if (in.empty()) continue;
            ++consumers_[in];
            last_consumer_[in] = reader;
        }
        for (const std::string& out : n.output()) producers_[out] = &n;
        for (const onnx::AttributeProto& a : n.attribute()) {
            if (a.has_g()) count_uses(a.g(), reader);
            for (const onnx::GraphProto& sub : a.graphs()) count_uses(sub, reader);
        }
    }
    if (enclosing)
        for (const auto& out : g.output()) {
            ++consumers_[out.name()];
            last_consumer_[out.name()] = enclosing;
        }
}

std::vector<std::string> Importer::import_subgraph(const onnx::GraphProto& g) {
    if (g.input_size() > 0)
        fail(fmt::format("subgraph '{}' has inputs; only subgraphs without inputs (If's branches) are supported",
                         g.name()));
    return convert_subgraph(g, {}, "");
}

std::vector<Value> Importer::import_body(const onnx::GraphProto& body, const std::vector<Value>& inputs,
                                         std::string_view suffix) {
    if (static_cast<size_t>(body.input_size()) != inputs.size())
        fail(fmt::format("the body has {} inputs, {} are given", body.input_size(), inputs.size()));
    std::vector<Value> outputs;
    for (const std::string& name : convert_subgraph(body, inputs, suffix)) outputs.push_back(lookup(name));
    return outputs;
}

std::vector<std::string> Importer::convert_subgraph(const onnx::GraphProto& g, const std::vector<Value>& inputs,
                                                    std::string_view suffix) {
    // Every name the subgraph defines, as it is called in the enclosing graph.
    std::map<std::string, std::string> renamed;
    auto define = [&](const std::string& name) {
        if (!name.empty() && !renamed.emplace(name, name + std::string(suffix)).second)
            fail(fmt::format("subgraph '{}' defines '{}' twice", g.name(), name));
    };
    for (const auto& in : g.input()) define(in.name());
    for (const P& t : g.initializer()) define(t.name());
    for (const auto& n : g.node()) {
        for (const std::string& out : n.output()) define(out);
        // A renamed body's own subgraphs would read the names it had before.
        if (!suffix.empty())
            for (const onnx::AttributeProto& a : n.attribute())
                if (a.has_g() || a.graphs_size() > 0)
                    fail(fmt::format("node '{}' ({}) of the body holds a subgraph; nested subgraphs in a Loop or "
                                     "Scan body are not supported",
                                     n.name(), n.op_type()));
    }
    for (const auto& [from, to] : renamed)
        if (values_.count(to))
            fail(fmt::format("subgraph '{}' defines '{}', a name the enclosing graph already has", g.name(), to));
    auto name_of = [&](const std::string& name) {
        auto it = renamed.find(name);
        return it == renamed.end() ? name : it->second;
    };
    // The node being converted (the If, Loop or Scan), restored once the subgraph's are done.
    NodeState enclosing = save_node_state();
    for (int k = 0; k < g.input_size(); ++k) values_[name_of(g.input(k).name())] = inputs[static_cast<size_t>(k)];
    for (const P& t : g.initializer()) {
        Value v = tensor_const(reader_.read(t));
        // A branch's initializer is a param like the model's; an unrolled body's stays
        // a constant (a param per run would be one name per copy).
        if (suffix.empty()) v.param_name = t.name();
        values_[name_of(t.name())] = std::move(v);
    }
    for (const auto& n : g.node()) {
        if (suffix.empty()) {
            convert(n);
            continue;
        }
        onnx::NodeProto run = n;
        for (std::string& in : *run.mutable_input()) in = name_of(in);
        for (std::string& out : *run.mutable_output()) out = name_of(out);
        if (!n.name().empty()) run.set_name(n.name() + std::string(suffix));
        convert(run);
    }
    restore_node_state(std::move(enclosing));
    std::vector<std::string> outputs;
    for (const auto& out : g.output()) {
        outputs.push_back(name_of(out.name()));
        lookup(outputs.back());  // fails naming the enclosing node when no node of the subgraph made it
    }
    return outputs;
}

void Importer::restore_node_state(NodeState s) {
    node_ = s.node;
    node_label_ = std::move(s.label);
    handled_attrs_ = std::move(s.handled_attrs);
    input_overrides_ = std::move(s.input_overrides);
    ops_in_node_ = s.ops_in_node;
}

std::string op_key(const onnx::NodeProto& n) {
    if (n.domain().empty() || n.domain() == "ai.onnx") return n.op_type();
    return n.domain() + ":" + n.op_type();
}

}  // namespace mgedump::formats::onnx_import

namespace mgedump::formats {

std::pair<std::string, std::vector<int64_t>> parse_onnx_input_shape(std::string_view spec) {
    const size_t eq = spec.rfind('=');
    auto bad = [&](std::string_view why) {
        return OptionError(fmt::format("input shape '{}': {} (expected NAME=1x3x224x224)", spec, why));
    };
    if (eq == std::string_view::npos || eq == 0) throw bad("no NAME=");
    std::pair<std::string, std::vector<int64_t>> out{std::string(spec.substr(0, eq)), {}};
    std::string_view dims = spec.substr(eq + 1);
    while (!dims.empty()) {
        const size_t x = dims.find('x');
        std::string_view d = dims.substr(0, x);
        int64_t v = 0;
        auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
        if (d.empty() || ec != std::errc() || end != d.data() + d.size() || v < 1 || v > UINT32_MAX)
            throw bad(fmt::format("'{}' is not a dimension (a whole number from 1)", d));
        out.second.push_back(v);
        if (x == std::string_view::npos) break;
        dims.remove_prefix(x + 1);
        if (dims.empty()) throw bad("ends with 'x'");
    }
    return out;
}

namespace {

// Imports `model`; with `external_files`, appends the side files its weights were
// read from.
ir::Graph import_model(const OnnxModelFile& model, const OnnxImportOptions& options,
                       std::vector<std::filesystem::path>* external_files) {
    onnx_import::Importer importer(model, options);
    ir::Graph g = importer.run();
    if (external_files) {
        auto files = importer.tensors().external_files();
        external_files->insert(external_files->end(), files.begin(), files.end());
    }
    return g;
}

}  // namespace

ir::Graph import_onnx_bytes(ir::Bytes bytes, const std::string& label, const std::filesystem::path& base_dir,
                            const OnnxImportOptions& options,
                            std::vector<std::filesystem::path>* external_files,
                            std::shared_ptr<const void> owner) {
    OnnxModelFile model = parse_onnx_model(bytes, label, base_dir, std::move(owner));
    model.check_side_file = options.check_side_file;
    return import_model(model, options, external_files);
}

ir::Graph import_onnx(const std::filesystem::path& path, const OnnxImportOptions& options,
                      std::vector<std::filesystem::path>* external_files) {
    OnnxModelFile model = read_onnx_model(path);
    model.check_side_file = options.check_side_file;
    ir::Graph g = import_model(model, options, external_files);
    // Inline weights viewed in the mapped file: a dump into a file preads them.
    if (model.file)
        g.blobs.note_file_regions(model.image, model.file->bytes, model.file->device, model.file->inode,
                                  model.file->fd);
    return g;
}

}  // namespace mgedump::formats
