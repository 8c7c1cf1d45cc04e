// The graphs every suite measures, built once per process.
#pragma once

#include <string>

#include "ir/graph.h"

namespace mgedump::bench {

// "weight_heavy": 24 × 1024² float32 (96 MiB, 49 operators).
// "operator_heavy": 3,000 Elemwise operators (~8,000 in all) with 16-float weights.
// "small": small_model(0), the batch's 50-operator model.
const ir::Graph& suite_graph(const std::string& name);

}  // namespace mgedump::bench
