// Static inference of a whole graph (ir::infer_graph), alone: what building a graph
// op by op, reading a file or a compatibility rewrite pays for knowing every var's
// dtype and shape. Items are operators. The compare driver's inference/mgedump
// column relates it to a dump of the same graph in the same run.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/suites/corpus.h"
#include "ir/infer.h"
#include "ir/order.h"

namespace mgedump::bench {
namespace {

void infer_whole_graph(benchmark::State& state, const std::string& graph) {
    const ir::Graph& g = suite_graph(graph);
    const std::vector<ir::OprId> order = ir::dump_order(g);
    for (auto _ : state) {
        ir::InferState s = ir::infer_graph(g, order);
        benchmark::DoNotOptimize(s.shapes.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * order.size()));
}

[[maybe_unused]] const bool registered = [] {
    for (const char* graph : {"operator_heavy", "small"})
        benchmark::RegisterBenchmark((std::string("InferGraph/") + graph).c_str(), infer_whole_graph, graph)
            ->Unit(benchmark::kMicrosecond);
    return true;
}();

}  // namespace
}  // namespace mgedump::bench
