// The state of one ONNX import, shared by the operator handlers: the values
// flowing between ONNX nodes (graph vars, import-time constants, or both), the
// node being converted, and helpers that name the file, node and op type in
// every error. Internal to formats/onnx/*.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "formats/onnx/import.h"
#include "formats/onnx/model_file.h"
#include "ir/builder.h"

namespace onnx {
class NodeProto;
class AttributeProto;
class GraphProto;
}  // namespace onnx

namespace mgedump::formats::onnx_import {

using Shape = std::vector<int64_t>;

// A value between ONNX nodes. Shapes are static (every dim known): the importer
// propagates them from the declared input shapes. A constant's bytes are known at
// import time; it becomes a graph var (ImmutableTensor or SharedDeviceTensor) only
// when a runtime operator consumes it.
struct Value {
    int32_t elem_type = 0;  // onnx::TensorProto::DataType
    Shape shape;
    ir::VarId var;  // invalid until it is (or becomes) a graph var
    bool is_const = false;
    ir::Bytes bytes;
    std::shared_ptr<const void> keepalive;
    std::string param_name;  // set for initializers: the SharedDeviceTensor name
    // The dims depend on values known only at run time (a Reshape to a graph
    // input's values; formats/onnx/runtime_values.h): `shape` holds the rank, each
    // dim -1 unless it is known at import time (NonZero's rank). Importer::input
    // refuses such a value; the handlers that can take it read it with
    // Importer::runtime_input.
    bool runtime_shape = false;
    // A 1-D integer value computed when the graph runs whose elements the import
    // partly knows: Shape of a value with some dims known only at run time holds
    // the dims known at import time here, -1 where the run time decides, and a
    // Concat of such values and constants the parts' (runtime_values.h:
    // known_elements_of). Readers take it as dims, which are never negative, so a
    // constant -1 among them (a Reshape target's "the rest") reads as not known.
    // Gather of known elements is then a constant, as Shape of a static shape is
    // (torchvision's `if x.shape[1] == 1` on a selection of rows), and
    // ConstantOfShape keeps the known dims. Empty for every other value.
    std::vector<int64_t> known_elements;
};

int64_t element_count(const Shape& s);

class Importer {
  public:
    Importer(const OnnxModelFile& model, const OnnxImportOptions& options);
    ir::Graph run();

    // --- the node being converted ---
    const onnx::NodeProto& node() const { return *node_; }
    [[noreturn]] void fail(std::string_view what) const;
    // The node as messages name it: "node 'conv1' (Conv)", or "unnamed Conv node
    // making 'y'" (its operators take that output's name, which is no node's).
    std::string node_ref() const;
    size_t input_count() const;          // declared inputs, including empty (omitted) ones
    bool has_input(size_t i) const;      // declared and not omitted
    const Value& input(size_t i) const;  // fails when omitted or when its shape is a runtime one
    const Value& runtime_input(size_t i) const;  // fails when omitted; may have a runtime shape
    ir::VarId var(size_t i);             // the input as a graph var (materializes constants)
    bool is_const(size_t i) const { return has_input(i) && runtime_input(i).is_const; }
    std::vector<int64_t> const_ints(size_t i, std::string_view what) const;
    std::vector<double> const_floats(size_t i, std::string_view what) const;
    size_t output_count() const;

    // Attributes. check_attrs fails on any attribute not listed (an attribute we do
    // not understand could change the result).
    void check_attrs(std::initializer_list<std::string_view> known) const;
    // An attribute another layer took care of (formats/onnx/legacy.cpp: opset < 7's
    // broadcast, is_test): check_attrs accepts it for the current node.
    void mark_attr_handled(std::string_view name) { handled_attrs_.emplace_back(name); }
    // Input #i of the current node as its handler sees it (legacy broadcasting's B
    // reshaped for numpy rules, Upsample-7's scales attribute): input(i) and var(i)
    // return `v` instead, and has_input(i) is true.
    void override_input(size_t i, Value v) { input_overrides_[i] = std::move(v); }
    bool has_attr(std::string_view name) const;
    int64_t attr_int(std::string_view name, int64_t fallback) const;
    double attr_float(std::string_view name, double fallback) const;
    std::string attr_string(std::string_view name, std::string_view fallback) const;
    std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> fallback = {}) const;
    const onnx::AttributeProto* attr(std::string_view name) const;

    // --- results ---
    void set_output(size_t i, Value v);
    // `known_elements`: Value::known_elements of a 1-D integer output, −1 where
    // the run time decides; kept only when some element is known.
    void set_output_var(size_t i, ir::VarId var, int32_t elem_type, Shape shape,
                        std::vector<int64_t> known_elements = {});
    // Another node's output `name` is the same value as this node's output #i (a
    // fused operator produced it).
    void alias_output_name(const std::string& name, size_t i);
    // Any value by name; nullptr when none has that name (yet).
    const Value* value(const std::string& name) const;

    // The nodes of a subgraph without inputs (an If's branch), converted as the
    // enclosing graph's own: they read its values by name, and their outputs become
    // values of it. Returns the subgraph's output names, in order; the node being
    // converted is current again afterwards. A subgraph that redefines a name of
    // the enclosing graph is refused.
    std::vector<std::string> import_subgraph(const onnx::GraphProto& g);
    // One run of a Loop or Scan body: its inputs bound to `inputs`, its nodes
    // converted with every name the body defines suffixed by `suffix` (so the runs
    // of an unrolled loop do not collide), its outputs returned in order. Names the
    // body does not define are the enclosing graph's. A body holding subgraphs of its
    // own is refused.
    std::vector<Value> import_body(const onnx::GraphProto& body, const std::vector<Value>& inputs,
                                   std::string_view suffix);

    // --- building ---
    // An operator named after the node (the second and later operators of one node
    // get ":1", ":2", ...).
    ir::VarId emit(std::string_view op, std::vector<ir::VarId> inputs, const ir::ParamArgs& params = {});
    ir::OprId emit_opr(std::string_view op, std::vector<ir::VarId> inputs, const ir::ParamArgs& params,
                       uint32_t outputs, ir::DType output_dtype = ir::DType::none());
    // An operator whose output dtype is given by its config (ElemwiseMultiType's
    // comparisons, ISNAN and ISINF output Bool).
    ir::VarId emit_as(ir::DType output_dtype, std::string_view op, std::vector<ir::VarId> inputs,
                      const ir::ParamArgs& params = {});
    ir::VarId const_var(ir::DTypeEnum dtype, const Shape& shape, std::vector<std::byte> bytes);
    ir::VarId const_i32(const std::vector<int64_t>& values);  // 1-D Int32
    ir::VarId const_f32(float value);                         // shape (1)
    ir::VarId materialize(Value& v, std::string_view name);
    // x reshaped to `shape` (a Reshape with a constant target).
    ir::VarId reshape(ir::VarId x, const Shape& shape);
    ir::Graph& graph() { return builder_.graph(); }
    const OnnxImportOptions& options() const { return options_; }
    const OnnxTensorReader& tensors() const { return reader_; }
    // How many nodes (and graph outputs) read the value `name`.
    size_t consumers(const std::string& name) const;
    // A later node's handler reads this: BN outputs already produced by a fused Conv.
    std::map<std::string, std::string>& fused_batch_norms() { return fused_bn_; }
    const onnx::NodeProto* producer(const std::string& name) const;
    const onnx::NodeProto* sole_consumer(const std::string& name) const;
    const std::string& label() const { return model_.label; }
    // The default-domain opset the model imports.
    int64_t opset() const { return opset_; }

  private:
    void declare_inputs();
    // consumers_, producers_ and last_consumer_ of `g` and its subgraphs, whose
    // reads count as reads by `enclosing` (the node holding them; null for the model's graph).
    void count_uses(const onnx::GraphProto& g, const onnx::NodeProto* enclosing);
    // The state of the node being converted, kept across the conversion of a
    // subgraph's nodes (import_subgraph, import_body).
    struct NodeState {
        const onnx::NodeProto* node;
        std::string label;
        std::vector<std::string> handled_attrs;
        std::map<size_t, Value> input_overrides;
        uint32_t ops_in_node;
    };
    NodeState save_node_state() const {
        return {node_, node_label_, handled_attrs_, input_overrides_, ops_in_node_};
    }
    void restore_node_state(NodeState s);
    // import_subgraph and import_body: g's nodes converted in this graph's scope,
    // its inputs bound to `inputs` and every name it defines suffixed by `suffix`
    // (empty: kept). Returns its output names as this graph calls them.
    std::vector<std::string> convert_subgraph(const onnx::GraphProto& g, const std::vector<Value>& inputs,
                                              std::string_view suffix);
    void convert(const onnx::NodeProto& n);
    Value& lookup(const std::string& name);
    // lookup's refusal: a name a later node of the graph produces (nodes out of
    // topological order, or a cycle) is said to be that, not "produced by no node".
    [[noreturn]] void fail_undefined(const std::string& name) const;
    // `param` (a SharedDeviceTensor) seen as `shape`: a Reshape.
    ir::VarId param_view(ir::VarId param, const Shape& shape, const std::string& param_name);

    const OnnxModelFile& model_;
    OnnxImportOptions options_;
    OnnxTensorReader reader_;
    ir::GraphBuilder builder_;
    std::map<std::string, Value> values_;
    std::map<std::string, size_t> consumers_;
    std::map<std::string, const onnx::NodeProto*> producers_;
    std::map<std::string, const onnx::NodeProto*> last_consumer_;
    std::map<std::string, std::string> fused_bn_;
    // One graph var per constant (bytes, shape, type, name), however many ONNX names
    // (Identity aliases) or readers it has.
    std::map<std::tuple<const std::byte*, size_t, Shape, int32_t, std::string>, ir::VarId> materialized_;
    // The SharedDeviceTensor of each initializer (params_as_shared), by param name:
    // its bytes, element type and var, in the shape it was first read in.
    std::map<std::string, std::tuple<ir::Bytes, int32_t, ir::VarId>> params_;
    std::vector<std::shared_ptr<const void>> pinned_;  // keeps those addresses from being reused
    const onnx::NodeProto* node_ = nullptr;
    // The node's name, else its first named output, else its op type: what its
    // operators are named after (emit_opr).
    std::string node_label_;
    std::vector<std::string> handled_attrs_;   // for the current node
    std::map<size_t, Value> input_overrides_;  // for the current node
    uint32_t ops_in_node_ = 0;
    int64_t opset_ = 0;
};

// Param arguments from 64-bit integers and doubles (NamedParamArg's own
// constructors take int and float, which int64_t and double would make ambiguous).
inline ir::NamedParamArg int_param(std::string field, int64_t v) {
    return {std::move(field), ir::ParamArg(v)};
}
inline ir::NamedParamArg float_param(std::string field, double v) {
    return {std::move(field), ir::ParamArg(v)};
}

// Handlers convert one node each; tables group them by family.
using Handler = void (*)(Importer&);
struct OpHandler {
    std::string_view op_type;
    Handler convert;
};
std::span<const OpHandler> elementwise_handlers();
std::span<const OpHandler> conv_handlers();
std::span<const OpHandler> linear_handlers();
std::span<const OpHandler> pool_handlers();
std::span<const OpHandler> shape_handlers();
std::span<const OpHandler> index_handlers();
std::span<const OpHandler> resize_handlers();
std::span<const OpHandler> math_handlers();
std::span<const OpHandler> compare_handlers();
std::span<const OpHandler> reduce_handlers();
std::span<const OpHandler> norm_handlers();
std::span<const OpHandler> tensor_handlers();
std::span<const OpHandler> gather_handlers();
std::span<const OpHandler> loss_handlers();
std::span<const OpHandler> recurrent_handlers();
std::span<const OpHandler> einsum_handlers();
std::span<const OpHandler> quantize_handlers();
std::span<const OpHandler> window_handlers();
std::span<const OpHandler> spectral_handlers();
std::span<const OpHandler> control_handlers();
std::span<const OpHandler> loop_handlers();
std::span<const OpHandler> grid_sample_handlers();
std::span<const OpHandler> roi_align_handlers();
std::span<const OpHandler> nms_handlers();
std::span<const OpHandler> unique_handlers();
std::span<const OpHandler> tfidf_handlers();
// Operators of other domains are keyed "DOMAIN:OpType" (op_key).
std::span<const OpHandler> training_handlers();

// The handler key of node `n`: its op type in the default domain (empty or
// "ai.onnx"), else "DOMAIN:OpType".
std::string op_key(const onnx::NodeProto& n);

// ONNX element type → MegEngine dtype of a graph var; INT64 becomes Int32 (MegEngine
// has no 64-bit integers) and DOUBLE Float32.
ir::DTypeEnum onnx_var_dtype(int32_t elem_type, const Importer& at);

}  // namespace mgedump::formats::onnx_import
