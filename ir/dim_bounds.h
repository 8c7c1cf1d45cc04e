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
// Reshape to a constant target, Concat, Subtensor, single-index
// IndexingMultiAxisVec, Split, TopK or TypeCvt moves, sums or keeps them). A TopK's k
// known only at run time bounds its rows where k is made of shapes and
// constants (GetVarShape, Subtensor, Concat, Reduce MIN/MAX, Elemwise
// MIN/MAX/ADD: torchvision's min(k, Shape(x)[0]) is at most k). Nullopt when
// some operator on the way has no rule here (the caller then refuses what
// needed the bound).
std::optional<std::vector<uint64_t>> dim_upper_bounds(const Graph& g, VarId v);

}  // namespace mgedump::ir
