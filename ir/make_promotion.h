// The dtype conversions MegEngine's make functions insert before they build an
// operator: Elemwise and Concat promote their inputs to one dtype
// (intl::BatchedDTypePromotion, src/opr/impl/basic_arith.cpp:20), Elemwise also
// turns int inputs of a float-only mode into Float32 (Elemwise::make, :146), and
// IndexingOneHot / IndexingSetOneHot convert their index to Int32
// (src/opr/impl/indexing.cpp check_index_dtype). A graph MegEngine builds from the
// same calls holds explicit TypeCvt operators; so does the graph the builder makes.
#pragma once

#include <span>
#include <vector>

#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::ir {

// mgb::dtype_promotion (src/core/impl/dtype.cpp:225). Throws GraphError (`who`
// names the operator) for the pairs MegEngine refuses: quantized types of
// different kinds or scales, ints of different signedness.
DType promote_dtypes(DType a, DType b, const std::string& who);

// The inputs `type` is built with: `inputs`, with a TypeCvt appended to `g` (and
// inferred into `state`) for each one MegEngine's make would convert.
std::vector<VarId> promoted_inputs(Graph& g, InferState& state, OpTypeId type, std::span<const VarId> inputs,
                                   std::span<const ParamValue> params, const std::string& who);

}  // namespace mgedump::ir
