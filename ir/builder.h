// Building a graph in a few lines:
//
//   GraphBuilder b;
//   VarId x = b.input("data", DType::of(DTypeEnum::Float32), {1, 3});
//   VarId c = b.constant<float>({3}, {1, 2, 3});
//   VarId y = b.op("Elemwise", {x, c}, {{"mode", "ADD"}});
//   b.output(y, "out");
//   Graph g = b.finish();   // validated
//
// Operators are named by registry name (ir/op_registry.h); parameters by field
// name, with values as numbers, bools, enum member names or int lists. A field
// name that two of an operator's param tables share is written "Table.field".
#pragma once

#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/graph.h"
#include "ir/infer.h"
#include "ir/op_registry.h"

namespace mgedump::ir {

using ParamArg = std::variant<int64_t, uint64_t, double, bool, std::string, std::vector<int32_t>,
                              std::vector<AxisDesc>, std::vector<IndexDescMaskItem>, DTypeScalar, DType>;
struct NamedParamArg {
    std::string field;
    ParamArg value;
    NamedParamArg(std::string f, ParamArg v) : field(std::move(f)), value(std::move(v)) {}
    NamedParamArg(std::string f, int v) : field(std::move(f)), value(int64_t{v}) {}
    NamedParamArg(std::string f, const char* v) : field(std::move(f)), value(std::string(v)) {}
    NamedParamArg(std::string f, float v) : field(std::move(f)), value(double{v}) {}
};
using ParamArgs = std::vector<NamedParamArg>;

struct OpOptions {
    std::string name;                     // operator name; also names its output vars
    int32_t priority = 0;
    std::vector<std::string> comp_nodes;  // explicit operator comp nodes
    DType output_dtype = DType::none();
    uint32_t outputs = 0;                 // numbered outputs; 0 = the registry's count
};

// Fills a param table's fields from named arguments; throws GraphError naming the
// operator, table and field on unknown fields or ill-typed values.
std::vector<ParamValue> make_params(const OpDef& op, const ParamArgs& args, std::string_view op_label);

class GraphBuilder {
public:
    explicit GraphBuilder(std::string default_comp_node = "xpux:0");

    // A graph input (Host2DeviceCopy, META_INPUT): shape and dtype, no value.
    VarId input(std::string_view name, DType dtype, std::vector<uint32_t> shape);
    // A constant (ImmutableTensor, VALUE_ANONYMOUS).
    VarId constant(DType dtype, std::vector<uint32_t> shape, std::vector<std::byte> bytes,
                   std::string_view var_name = {});
    template <class T>
    VarId constant(std::vector<uint32_t> shape, std::initializer_list<T> values, std::string_view var_name = {});
    // A parameter (SharedDeviceTensor, VALUE_SHARED), named so keep_param_name has a name to keep.
    VarId param(std::string_view name, DType dtype, std::vector<uint32_t> shape, std::vector<std::byte> bytes);

    // An operator by registry name; returns its first output. Its outputs' dtypes
    // and shapes are inferred at once (ir/infer.h): a graph MegEngine would refuse
    // throws GraphError here, naming the operator, its inputs and the rule.
    VarId op(std::string_view op_name, std::vector<VarId> inputs, const ParamArgs& params = {},
             const OpOptions& options = {});
    // The general form: explicit param values; returns the operator.
    OprId add_op(OpTypeId type, std::span<const VarId> inputs, std::vector<ParamValue> params,
                 const OpOptions& options);
    // A tensor owned by `opr` (only while `opr` is the newest operator: tensors are consecutive).
    TensorId add_tensor(OprId opr, std::string_view name, TensorMethod method, DType dtype,
                        std::span<const uint32_t> shape, std::string_view comp_node, BlobId blob);

    // Marks `var` as the next requested output and names it.
    void output(VarId var, std::string_view name);

    Graph& graph() { return graph_; }
    // What inference knows of the graph so far (values of small tensors).
    const InferState& inferred() const { return inferred_; }
    // Validates and hands the graph over.
    Graph finish();

private:
    // Validates and infers `o`; on a refusal removes every operator from index
    // `first_new` on before rethrowing.
    void infer(OprId o, size_t first_new);

    Graph graph_;
    InferState inferred_;
    std::string default_comp_node_;
};

// Appends an operator to an existing graph (used by passes as well as the builder).
OprId append_op(Graph& g, OpTypeId type, std::span<const VarId> inputs, std::vector<ParamValue> params,
                const OpOptions& options);

template <class T>
VarId GraphBuilder::constant(std::vector<uint32_t> shape, std::initializer_list<T> values,
                             std::string_view var_name) {
    static_assert(std::is_arithmetic_v<T>);
    DTypeEnum t = std::is_same_v<T, float>     ? DTypeEnum::Float32
                  : std::is_same_v<T, int32_t> ? DTypeEnum::Int32
                  : std::is_same_v<T, uint8_t> ? DTypeEnum::Uint8
                  : std::is_same_v<T, int8_t>  ? DTypeEnum::Int8
                  : std::is_same_v<T, int16_t> ? DTypeEnum::Int16
                                               : DTypeEnum::Byte;
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) std::memcpy(bytes.data(), std::data(values), bytes.size());
    return constant(DType::of(t), std::move(shape), std::move(bytes), var_name);
}

}  // namespace mgedump::ir
