// Static inference of a whole graph (ir::infer_graph), alone: what building a graph
// op by op, reading a file or a compatibility rewrite pays for knowing every var's
// dtype and shape. Items are operators. The compare driver's inference/mgedump
// column relates it to a dump of the same graph in the same run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/suites/corpus.h"
#include "formats/onnx/import.h"
#include "ir/infer.h"
#include "ir/order.h"

namespace mgedump::bench {
namespace {

[[gnu::always_inline]] inline void run_inference(const ir::Graph& g, const std::vector<ir::OprId>& order) {
    ir::InferState s = ir::infer_graph(g, order);
    benchmark::DoNotOptimize(s.shapes.data());
}

// One inference, out of line: callgrind counts its instructions per call
// (--toggle-collect='*infer_once*'), apart from the loop and the dump order.
[[gnu::noinline]] void infer_once(const ir::Graph& g, const std::vector<ir::OprId>& order) { run_inference(g, order); }

// The first inference in a process also runs one-time paths (the rule table's
// construction, the field cache's first misses, the allocator's first pages for
// the state): one inference before the loop, through a function of its own,
// keeps them out of the timing and out of what callgrind collects in
// infer_once (bench/code_lines.py counts the code lines those calls run).
// noipa, not noinline: GCC folded the two identical functions into one.
[[gnu::noipa]] void infer_warmup(const ir::Graph& g, const std::vector<ir::OprId>& order) {
    run_inference(g, order);
}

void infer_graph_of(benchmark::State& state, const ir::Graph& g) {
    const std::vector<ir::OprId> order = ir::dump_order(g);
    infer_warmup(g, order);
    for (auto _ : state) infer_once(g, order);
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * order.size()));
}

// One inference per iteration, timed by hand with the monotonic clock (40 ns
// a read here, against 0.7 µs for the CPU-time clock that PauseTiming reads),
// after `before` ran untimed.
template <class Before>
void infer_graph_timed_after(benchmark::State& state, const ir::Graph& g, Before before) {
    const std::vector<ir::OprId> order = ir::dump_order(g);
    infer_warmup(g, order);
    for (auto _ : state) {
        before();
        const auto start = std::chrono::steady_clock::now();
        infer_once(g, order);
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * order.size()));
}

// The same after the caches lost the graph, as in a dump pipeline where
// inference follows other work (the compare driver times it between dumps):
// before each inference 4 MiB are written (more than this machine's L2 per
// core), so the graph's tables, the rules' code and the state come from L3 or
// memory.
void infer_graph_cold_of(benchmark::State& state, const ir::Graph& g) {
    std::vector<char> evict(size_t{4} << 20);
    char round = 0;
    infer_graph_timed_after(state, g, [&] {
        std::fill(evict.begin(), evict.end(), ++round);
        benchmark::DoNotOptimize(evict.data());
    });
}

// The same with the caches warm but the TLB empty: before each inference, one
// system call (the CPU-time clock the compare driver reads around each
// method). On a kernel with page-table isolation and no PCID (this project's
// VMs) a system call flushes the TLB, so this is the hot time plus a page walk
// for every code and data page the inference touches: what the rules'
// [[gnu::hot]] placement (ir/infer/rules.h) cuts.
void infer_graph_after_syscall_of(benchmark::State& state, const ir::Graph& g) {
    infer_graph_timed_after(state, g, [] {
        timespec cpu_time;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_time);
        benchmark::DoNotOptimize(cpu_time);
    });
}

void infer_whole_graph(benchmark::State& state, const std::string& graph) { infer_graph_of(state, suite_graph(graph)); }
void infer_whole_graph_cold(benchmark::State& state, const std::string& graph) {
    infer_graph_cold_of(state, suite_graph(graph));
}
void infer_whole_graph_after_syscall(benchmark::State& state, const std::string& graph) {
    infer_graph_after_syscall_of(state, suite_graph(graph));
}

// transformer_encoder of the ONNX corpus (tools/corpus_test.sh), the second
// model, when MGEDUMP_ONNX_CORPUS names the corpus directory: value inference of
// shape tensors, MatrixMul, Reshape and Dimshuffle rather than Elemwise alone.
// Imported once, for the hot and the cold benchmark.
const ir::Graph& onnx_model(const std::filesystem::path& path) {
    static const ir::Graph g = formats::import_onnx(path);
    return g;
}
void infer_onnx_model(benchmark::State& state, const std::filesystem::path& path) {
    infer_graph_of(state, onnx_model(path));
}
void infer_onnx_model_cold(benchmark::State& state, const std::filesystem::path& path) {
    infer_graph_cold_of(state, onnx_model(path));
}
void infer_onnx_model_after_syscall(benchmark::State& state, const std::filesystem::path& path) {
    infer_graph_after_syscall_of(state, onnx_model(path));
}

[[maybe_unused]] const bool registered = [] {
    for (const char* graph : {"operator_heavy", "small"}) {
        benchmark::RegisterBenchmark((std::string("InferGraph/") + graph).c_str(), infer_whole_graph, graph)
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((std::string("InferGraphCold/") + graph).c_str(), infer_whole_graph_cold, graph)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((std::string("InferGraphAfterSyscall/") + graph).c_str(),
                                     infer_whole_graph_after_syscall, graph)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
    }
    if (const char* corpus = std::getenv("MGEDUMP_ONNX_CORPUS")) {
        const std::filesystem::path model = std::filesystem::path(corpus) / "transformer_encoder.onnx";
        if (std::filesystem::exists(model)) {
            benchmark::RegisterBenchmark("InferGraph/transformer_encoder", infer_onnx_model, model)
                ->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark("InferGraphCold/transformer_encoder", infer_onnx_model_cold, model)
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
            benchmark::RegisterBenchmark("InferGraphAfterSyscall/transformer_encoder", infer_onnx_model_after_syscall,
                                         model)
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
        }
    }
    return true;
}();

}  // namespace
}  // namespace mgedump::bench
