// What an inference rule sees of one operator: its inputs' dtypes, shapes and
// values, its params by field name, and where its outputs go. Rules are plain
// functions (one file per operator family, ir/infer/rules_*.cpp) registered by
// operator name in ir/infer/rules.h.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/infer.h"
#include "ir/op_registry.h"
#include "ir/param_schema.h"

namespace mgedump::ir {

class InferContext {
public:
    InferContext(const Graph& g, OprId o, InferState& state);

    const Graph& graph() const { return g_; }
    OprId opr() const { return o_; }
    const OpDef& def() const { return def_; }

    // --- inputs ---
    size_t nr_inputs() const { return inputs_.size(); }
    // Every input's shape, in order (ndim 0 = not known).
    std::span<const Shape> shapes() const;
    VarId input(size_t i) const { return inputs_[i]; }
    // Read from the state, which holds every var's (inferred, or the graph's record).
    DType dtype(size_t i) const { return state_.dtypes[inputs_[i].value]; }  // invalid = not known
    const Shape& shape(size_t i) const { return state_.shapes[inputs_[i].value]; }  // ndim 0 = not known
    // Known value of input i, or null; a constant's is decoded here on first use (constant_value).
    const StaticValue* value(size_t i) const;
    // "input 1 'w' Float32 [16,4,3,3]"
    std::string describe_input(size_t i) const;

    // --- params (table 0 is `param`, the rest `additional_params`) ---
    const ParamValue& param(size_t table = 0) const;
    int64_t int_field(std::string_view field, size_t table = 0) const;      // ints, bools, enums, dtype enums
    double float_field(std::string_view field, size_t table = 0) const;
    const std::vector<int32_t>& ints_field(std::string_view field, size_t table = 0) const;
    std::string_view enum_field(std::string_view field, size_t table = 0) const;  // member name ("NCHW")
    const FieldValue& field(std::string_view field, size_t table = 0) const;
    // The operator's config output_dtype (OperatorNodeConfig), invalid when not set.
    DType config_dtype() const;

    // --- the operator's own tensors (inputs, constants, params) ---
    uint32_t nr_tensors() const { return g_.oprs.tensors[o_.value].count; }
    TensorId tensor(uint32_t k) const { return TensorId(g_.oprs.tensors[o_.value].begin + k); }

    // --- outputs: a rule sets every numbered output ---
    size_t nr_outputs() const { return g_.oprs.outputs[o_.value].count; }
    void set_output(size_t k, DType dtype, const Shape& shape, std::shared_ptr<const StaticValue> value = {});
    // Output `k` with a value computed at inference time (shape and dtype given).
    void set_output_value(size_t k, DType dtype, const Shape& shape, std::vector<double> elems);

    // Refuses the graph: "operator #3 'conv1' (Convolution): <rule> (inputs: ...)".
    template <class... Args>
    [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
        fail_message(fmt::format(f, std::forward<Args>(args)...));
    }
    [[noreturn]] void fail_message(const std::string& rule) const;

    // Checks the input count against [lo, hi] with MegEngine's reason.
    void expect_inputs(size_t lo, size_t hi) const;

    bool outputs_done() const;

private:
    const Graph& g_;
    OprId o_;
    InferState& state_;
    const OpDef& def_;
    std::span<const VarId> inputs_;
    // Views of state_.scratch, filled for this operator.
    std::vector<Shape>& shapes_;
    std::vector<uint8_t>& set_;
};

using InferRule = void (*)(InferContext&);

}  // namespace mgedump::ir
