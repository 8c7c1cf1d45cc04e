// How `mgedump inspect` spells vars and operators, shared by the text summary and
// the Graphviz output so both say the same thing.
#pragma once

#include <span>
#include <string>

#include "ir/graph.h"

namespace mgedump::cli {

// "Float32", "QuantizedS8(scale=0.5)", "Quantized8Asymm(scale=0.1, zero_point=128)";
// "unknown" when inference found no dtype.
std::string dtype_text(const ir::DType& d);
// "[1, 16, 32, 32]"; "unknown" when the shape is not statically known (empty).
std::string shape_text(std::span<const uint32_t> dims);
// A tensor's shape: always known, "[]" is a scalar.
std::string tensor_shape_text(std::span<const uint32_t> dims);
// The operator's type with its mode when it has one ("Elemwise(ADD)",
// "Pooling(MAX)"): for Elemwise-like operators the mode is what they compute.
std::string op_kind_text(const ir::Graph& g, ir::OprId o);
// The var's name, or "%<var index>" for an unnamed one.
std::string var_name_text(const ir::Graph& g, ir::VarId v);

}  // namespace mgedump::cli
