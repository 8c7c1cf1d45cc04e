// `verify --numeric`: a graph is executed as it is and as each dump of it loads
// again (FBS_V2 and FBS, with and without the compatibility rewrites), on the
// same deterministic inputs, and every output is compared with the original's.
// A rewrite or a format that changes a number beyond float32 rounding fails.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/eval/evaluator.h"

namespace mgedump::engine::eval {

// Largest difference of one output of a variant from the same output of the
// graph as given.
struct OutputDiff {
    std::string name;
    double max_abs = 0;
    double max_rel = 0;   // max_abs / max |reference| (0 when the reference is all zero)
    std::string problem;  // dtype/shape disagreement or NaN placement, "" if none
};

struct VariantDiff {
    std::string variant;       // "FBS_V2", "FBS_V2 no_change_graph", "FBS", "FBS no_change_graph"
    std::string not_dumpable;  // why this variant cannot be written ("" if it was)
    std::vector<OutputDiff> outputs;
};

struct NumericReport {
    // Relative to the largest |output| of the reference: float32 outputs may
    // differ by 1e-5 (a rewrite that reorders a sum, e.g. LayerNorm into
    // Reduce/Elemwise, moves the last bits); integers, Bool and quantized
    // storage not at all.
    static constexpr double kFloatTolerance = 1e-5;
    std::vector<VariantDiff> variants;
    bool ok() const;
};

// The comparison of one output against its reference.
OutputDiff diff_output(const std::string& name, const Tensor& got, const Tensor& reference);

NumericReport verify_numeric(const ir::Graph& g, uint64_t seed, const EvalOptions& options = {});

}  // namespace mgedump::engine::eval
