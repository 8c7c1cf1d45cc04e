// Upper bounds on the dims of vars whose shape static inference leaves unknown:
// what a CondTake selected, and what is computed from it. MegEngine's graph has
// no such bounds; an importer needs one where a MegEngine operator takes a size
// as a param that ONNX leaves to the data (NMSKeep's max_output for an ONNX
// NonMaxSuppression whose limit is "every box", over boxes a mask selected).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace mgedump::ir {

// For each dim of `v`, a number it cannot exceed when the graph runs: its dim
// where static inference knows the shape, else what the operators that made it
// allow (a CondTake's output holds at most its input's elements; an Elemwise's
// dim is at most the largest of its inputs'; a Dimshuffle, AxisAddRemove,
// Reshape, Concat, Subtensor, single-index IndexingMultiAxisVec, Split, TopK,
// MatrixMul, ROIAlign, Softmax, indexing write or TypeCvt moves, sums or keeps
// them). Values of a few elements made of shapes and constants (GetVarShape,
// Subtensor, Concat, Reduce MIN/MAX/SUM/PRODUCT, Elemwise MIN/MAX/ADD/SUB/MUL/
// FLOOR_DIV/EQ/LT/LEQ) are bounded too: a
// TopK's k known only at run time (torchvision's min(k, Shape(x)[0]) is at
// most k), a Reshape's or Broadcast's target. Element counts are kept apart
// from the dims where operators only move elements (a Reshape to a target of
// such values bounds each dim by the whole count), so that a CondTake of them
// or a view as rows is bounded by the count. Nullopt when some operator on the
// way has no rule here (the caller then refuses what needed the bound).
std::optional<std::vector<uint64_t>> dim_upper_bounds(const Graph& g, VarId v);

}  // namespace mgedump::ir
