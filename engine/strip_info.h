// What a graph needs from a runtime: MegEngine's strip info (spec §8), computed on
// the graph as the user gave it (before the §9 rewrites), over the operators its
// outputs reach.
#pragma once

#include "formats/strip_info_json.h"
#include "ir/graph.h"
#include "ir/infer.h"

namespace mgedump::engine {

// opr_types: typeinfo names; dtypes: the dtype of every output of those operators,
// plus "Byte" for MegDNN workspace outputs; elemwise_modes: Elemwise mode names
// ("MAX", not the schema's "MAX_"). Each list sorted and without duplicates.
formats::StripInfo compute_strip_info(const ir::Graph& g);
// The same with the dtypes `known` infers (a graph nobody had inferred records
// none for the vars operators compute); vars it does not know take the table's.
formats::StripInfo compute_strip_info(const ir::Graph& g, const ir::InferState& known);

}  // namespace mgedump::engine
