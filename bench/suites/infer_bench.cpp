// Static inference of a whole graph (ir::infer_graph), alone: what building a graph
// op by op, reading a file or a compatibility rewrite pays for knowing every var's
// dtype and shape. Items are operators. The compare driver's inference/mgedump
// column relates it to a dump of the same graph in the same run.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/suites/corpus.h"
#include "formats/onnx/import.h"
#include "ir/infer.h"
#include "ir/order.h"

namespace mgedump::bench {
namespace {

// One inference, out of line: callgrind counts its instructions per call
// (--toggle-collect='*infer_once*'), apart from the loop and the dump order.
[[gnu::noinline]] void infer_once(const ir::Graph& g, const std::vector<ir::OprId>& order) {
    ir::InferState s = ir::infer_graph(g, order);
    benchmark::DoNotOptimize(s.shapes.data());
}

void infer_graph_of(benchmark::State& state, const ir::Graph& g) {
    const std::vector<ir::OprId> order = ir::dump_order(g);
    for (auto _ : state) infer_once(g, order);
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * order.size()));
}

void infer_whole_graph(benchmark::State& state, const std::string& graph) { infer_graph_of(state, suite_graph(graph)); }

// transformer_encoder of the ONNX corpus (tools/corpus_test.sh), the second
// model, when MGEDUMP_ONNX_CORPUS names the corpus directory: value inference of
// shape tensors, MatrixMul, Reshape and Dimshuffle rather than Elemwise alone.
void infer_onnx_model(benchmark::State& state, const std::filesystem::path& path) {
    static const ir::Graph g = formats::import_onnx(path);
    infer_graph_of(state, g);
}

[[maybe_unused]] const bool registered = [] {
    for (const char* graph : {"operator_heavy", "small"})
        benchmark::RegisterBenchmark((std::string("InferGraph/") + graph).c_str(), infer_whole_graph, graph)
            ->Unit(benchmark::kMicrosecond);
    if (const char* corpus = std::getenv("MGEDUMP_ONNX_CORPUS")) {
        const std::filesystem::path model = std::filesystem::path(corpus) / "transformer_encoder.onnx";
        if (std::filesystem::exists(model))
            benchmark::RegisterBenchmark("InferGraph/transformer_encoder", infer_onnx_model, model)
                ->Unit(benchmark::kMicrosecond);
    }
    return true;
}();

}  // namespace
}  // namespace mgedump::bench
