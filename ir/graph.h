// A computing graph as struct-of-arrays tables: operators, vars and tensors are
// rows addressed by small typed ids; variable-length things (inputs, params,
// comp nodes, shapes, blobs) are flat columns addressed by Ranges (CSR).
//
// Operators are created in topological order by the builder and by loaders;
// passes append new operators and redirect consumers, leaving replaced ones
// unreachable (dump order only walks what the outputs reach).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/blobs.h"
#include "ir/dtype.h"
#include "ir/ids.h"
#include "ir/param_schema.h"
#include "ir/strings.h"

namespace mgedump::ir {

// MegEngine's TensorWriteMethod: how a tensor is stored and named (spec §6.6).
enum class TensorMethod : uint8_t {
    MetaInput,       // graph input, no value
    ValueInput,      // graph input with a default value
    ValueShared,     // parameter; named only with keep_param_name
    ValueAnonymous,  // constant; never named
};

inline constexpr uint8_t kVarVolatile = 1;  // var gets no id and cannot be referenced

struct OprTable {
    std::vector<OpTypeId> type;
    std::vector<StrId> name;          // invalid = unnamed
    std::vector<int32_t> priority;
    std::vector<Range> comp_nodes;    // into Graph::opr_comp_nodes; empty = not set explicitly
    std::vector<DType> output_dtype;  // invalid = not set
    std::vector<Range> params;        // into Graph::params, in write order
    std::vector<Range> inputs;        // into Graph::opr_inputs
    std::vector<Range> outputs;       // consecutive VarIds
    std::vector<Range> tensors;       // consecutive TensorIds
    std::vector<Range> blobs;         // into Graph::opr_blobs (v1 `blobs`, v2 `custom_data`)
    // Field 0 of param 0 when it is an integer that fits 32 bits (Elemwise's
    // mode), else kNoFirstField: a copy of what `params` holds, kept beside
    // `type` because inferring an Elemwise read its mode through the param and
    // the param's heap vector, two dependent loads per operator and an eighth of
    // the cache lines a cold inference of transformer_encoder read. append_op
    // writes it; whatever changes a param after append_op calls
    // Graph::refresh_first_field (validate checks that they agree).
    std::vector<int32_t> first_field;

    size_t size() const { return type.size(); }
};
inline constexpr int32_t kNoFirstField = INT32_MIN;

struct VarTable {
    std::vector<StrId> name;
    std::vector<DType> dtype;  // invalid = unknown
    std::vector<Range> shape;  // into Graph::dims; empty = unknown
    std::vector<OprId> owner;
    std::vector<uint8_t> flags;
    // The id recorded as OutputVar.original_id when the var is a graph output; a
    // loaded graph keeps the file's, a built graph uses the var's own index.
    std::vector<uint32_t> original_id;

    size_t size() const { return owner.size(); }
};

struct TensorTable {
    std::vector<StrId> name;  // invalid = anonymous
    std::vector<DType> dtype;
    std::vector<Range> shape;  // into Graph::dims
    std::vector<StrId> comp_node;
    std::vector<TensorMethod> method;
    std::vector<BlobId> blob;           // invalid = no value (META_INPUT)
    std::vector<uint8_t> format_type;   // FBS_V2 TensorFormat union type; 1 = default

    size_t size() const { return method.size(); }
};

struct Graph {
    StringTable strings;
    BlobStore blobs;
    OprTable oprs;
    VarTable vars;
    TensorTable tensors;

    std::vector<VarId> opr_inputs;
    std::vector<ParamValue> params;
    std::vector<StrId> opr_comp_nodes;
    std::vector<BlobId> opr_blobs;
    std::vector<uint32_t> dims;

    // The requested outputs, in order; a var may appear twice.
    std::vector<VarId> outputs;

    // Every operator was inferred (ir/infer.h) and its outputs' dtypes and shapes
    // are in the var table: set by GraphBuilder::finish and the file readers,
    // cleared by append_op and redirect. A dump infers again only without it
    // (inference once per graph, not once per artifact).
    bool inferred = false;

    std::span<const VarId> inputs_of(OprId o) const { return slice(opr_inputs, oprs.inputs[o.value]); }
    std::span<const ParamValue> params_of(OprId o) const { return slice(params, oprs.params[o.value]); }
    std::span<const StrId> comp_nodes_of(OprId o) const { return slice(opr_comp_nodes, oprs.comp_nodes[o.value]); }
    std::span<const BlobId> blobs_of(OprId o) const { return slice(opr_blobs, oprs.blobs[o.value]); }
    std::span<const uint32_t> var_shape(VarId v) const { return slice(dims, vars.shape[v.value]); }
    std::span<const uint32_t> tensor_shape(TensorId t) const { return slice(dims, tensors.shape[t.value]); }
    VarId output_var(OprId o, uint32_t k) const { return VarId(oprs.outputs[o.value].begin + k); }
    std::string_view str(StrId id) const { return strings.view(id); }

    Range add_dims(std::span<const uint32_t> shape);

    // oprs.first_field of `o` from its params (after a change to them).
    void refresh_first_field(OprId o);
    // What oprs.first_field of `o` should hold.
    int32_t first_field_of(OprId o) const;

    // Every use of `from` as an operator input or graph output now uses `to`.
    void redirect(VarId from, VarId to);

    // Takes the newest operator out again, with its vars, tensors, params and
    // input list (a builder undoing an operator that was refused). Nothing may use
    // its outputs yet.
    void remove_newest_operator();

private:
    template <class T>
    static std::span<const T> slice(const std::vector<T>& v, Range r) {
        return std::span<const T>(v.data() + r.begin, r.count);
    }
};

// Element count of a shape (1 for a scalar shape []).
uint64_t element_count(std::span<const uint32_t> shape);

}  // namespace mgedump::ir
