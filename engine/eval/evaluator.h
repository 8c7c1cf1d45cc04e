// The reference evaluator: executes a graph on the CPU with MegEngine's semantics
// (MegDNN's naive kernels define each operator), so that a conversion, a
// compatibility rewrite or a format change can be shown to keep the numbers.
//
// Static inference (ir/infer.h) runs again operator by operator on the actual
// values, so every kernel gets outputs of the dtype and shape MegEngine would
// give them, and a shape computed from a value (a Reshape to GetVarShape·2) is
// known by the time it is needed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/eval/kernel.h"
#include "engine/eval/tensor.h"
#include "engine/eval/work_budget.h"
#include "ir/graph.h"

namespace mgedump::engine::eval {

struct EvalOptions {
    // Threads the parallel kernels may use (oneTBB arena); 0 = every core.
    int threads = 0;
    // Bounds on hostile models (engine/eval/work_budget.h): the estimated
    // multiply-adds of the whole evaluation and the bytes of any one value. An
    // evaluation that would pass either is refused with a LimitError before the
    // operator that would cross it runs.
    uint64_t max_work = kDefaultMaxEvalWork;
    uint64_t max_value_bytes = kDefaultMaxEvalValueBytes;
};

// A graph input: a Host2DeviceCopy reached from the outputs, named by its tensor.
struct GraphInput {
    std::string name;
    ir::DType dtype;
    ir::Shape shape;
    bool has_default = false;  // a VALUE_INPUT tensor: the feed may be left out
    ir::OprId opr;
};
// In the order the graph's dump order reaches them.
std::vector<GraphInput> graph_inputs(const ir::Graph& g);

// Input values by input name.
using Feeds = std::map<std::string, Tensor, std::less<>>;

struct EvalOutput {
    std::string name;  // the output var's name, or "output<i>" when it has none
    Tensor value;
};

// Executes `g` on `feeds` and returns its outputs in g.outputs order. Throws
// EvalError for a missing or unknown feed, a feed of the wrong dtype or shape,
// an operator without a kernel or with params its kernel does not implement;
// GraphError when the graph breaks an inference rule; LimitError past
// options.max_work or options.max_value_bytes.
std::vector<EvalOutput> evaluate(const ir::Graph& g, const Feeds& feeds, const EvalOptions& options = {});

// Deterministic inputs for every graph input: floats uniform in [-1, 1)
// (xoshiro from `seed`, one stream per input in name order), integers in
// [0, 4), Bool alternating, quantized storage integers in [-8, 8). Inputs with a
// default value get it.
Feeds random_feeds(const ir::Graph& g, uint64_t seed);

}  // namespace mgedump::engine::eval
