// What a rewrite rule writes with: operands are Refs, each call appends one operator
// to the fragment and returns its output. Reads the graph, never changes it, so rules
// for different operators can run concurrently.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "engine/passes/fragment.h"
#include "engine/passes/op_vocab.h"
#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::engine::passes {

// The comp node of every reachable var, as MegEngine derives it: an operator's
// explicit comp nodes, else its tensor's, else its first input's; "xpux:0" when
// nothing says.
class VarCompNodes {
  public:
    // `order` must be topological (ir::dump_order).
    VarCompNodes(const ir::Graph& g, std::span<const ir::OprId> order, ir::StrId fallback);
    ir::StrId of(ir::VarId v) const;

  private:
    const ir::Graph& g_;
    std::vector<ir::StrId> opr_;
    ir::StrId fallback_;
};

class FragmentBuilder {
  public:
    // `known`: the dtypes and shapes of the graph's vars when its var table lacks
    // them (what a dump inferred for a graph nobody had inferred); null, or a var
    // it does not know: the table's.
    FragmentBuilder(const ir::Graph& g, const VarCompNodes& comp_nodes, ir::OprId source,
                    const ir::InferState* known = nullptr);

    // --- the operator being replaced ---
    const ir::Graph& graph() const { return g_; }
    ir::OprId source() const { return fragment_.source; }
    size_t input_count() const { return inputs_.size(); }
    // Input i of the source; throws GraphError naming the operator when it has fewer.
    ir::VarId input_var(size_t i) const;
    Ref in(size_t i) const { return Ref::var(input_var(i)); }
    // A field of the source's first param table, by name; throws GraphError naming
    // the operator when the table has no such field.
    const ir::FieldValue& field(std::string_view name) const;
    double float_field(std::string_view name) const;
    int64_t int_field(std::string_view name) const;
    uint64_t uint_field(std::string_view name) const;
    // "operator #3 'x' (GroupNorm)", for error messages.
    std::string describe() const;
    // A graph var's dims, empty when not known (from `known`, else the table).
    std::span<const uint32_t> var_dims(ir::VarId v) const;

    // --- what a rule emits ---
    ir::DType dtype(Ref r) const;
    Ref elemwise(Ew mode, std::initializer_list<Ref> inputs);
    Ref elemwise(Ew mode, std::span<const Ref> inputs);
    // A 1-element constant of shape [1] on `like`'s comp node (MegEngine's
    // ImmutableTensor::make from a DTypeScalar).
    Ref scalar_f32(float value, ir::VarId like);
    Ref scalar_i32(int32_t value, ir::VarId like);
    // An Int32 vector constant of shape [n] (shape tensors).
    Ref vector_i32(std::span<const int32_t> values, ir::VarId like);
    // TypeCvt to `to`; like MegEngine's TypeCvt::make, nothing is added when the
    // dtype already matches.
    Ref type_cvt(Ref x, ir::DType to);
    Ref reduce(Ref x, ReduceMode mode, int32_t axis);
    Ref reduce_to_shape(Ref x, ReduceMode mode, Ref target_shape);
    Ref pow_c(Ref x, float exp);
    Ref get_var_shape(Ref x);
    // x[:end] along axis 0, `end` an Int32 var.
    Ref subtensor_to(Ref x, Ref end);
    Ref concat(std::initializer_list<Ref> inputs, int32_t axis);
    // Reshape with OptionalAxisV1 unspec axis (7 = none).
    Ref reshape(Ref x, Ref shape, int32_t unspec_axis = 7);
    Ref uniform_rng(Ref shape, uint64_t seed);
    Ref broadcast(Ref x, Ref shape);
    // A constant of shape [1] holding `value` in `dtype` (float, int or Bool).
    Ref scalar_of(ir::DType dtype, double value, ir::VarId like);

    // The replacement of the source's output 0 (the only one any rule replaces).
    void set_output(Ref r) { fragment_.outputs = {r}; }
    // Keeps the source but makes its first n outputs volatile.
    void mark_volatile_outputs(uint32_t n) { fragment_.volatile_outputs = n; }

    Fragment take() && { return std::move(fragment_); }

  private:
    Ref add(ir::OpTypeId type, std::vector<ir::ParamValue> params, std::vector<Ref> inputs, ir::DType dtype);
    Ref add_constant(ir::DType dtype, std::vector<uint32_t> shape, std::vector<std::byte> bytes,
                     ir::VarId like);

    const ir::Graph& g_;
    const ir::InferState* known_;
    const VarCompNodes& comp_nodes_;
    const Vocab& vocab_;
    std::span<const ir::VarId> inputs_;
    Fragment fragment_;
};

// The dtype a var is treated as: its own (from `known` when it knows it, else
// the table's), or Float32 (MegEngine's default, and what every traced float
// graph uses) when the graph does not say.
ir::DType effective_dtype(const ir::Graph& g, ir::VarId v, const ir::InferState* known = nullptr);

}  // namespace mgedump::engine::passes
