// Static inference of a whole graph (ir::infer_graph), alone: what building a graph
// op by op, reading a file or a compatibility rewrite pays for knowing every var's
// dtype and shape. Items are operators. The compare driver's inference/mgedump
// column relates it to a dump of the same graph in the same run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <variant>
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
// noipa, not noinline: GCC folded the two identical functions into one. (clang
// has no noipa, and folds no functions before the linker.)
#if defined(__clang__)
[[gnu::noinline]]
#else
[[gnu::noipa]]
#endif
void infer_warmup(const ir::Graph& g, const std::vector<ir::OprId>& order) {
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

// What the cold benchmarks do before each inference: 4 MiB written (more than
// this machine's L2 per core), a new byte each time so that no write is
// skipped, so the graph's tables, the rules' code and the state come from L3
// or memory afterwards.
class CacheEvictor {
public:
    void operator()() {
        std::fill(buffer_.begin(), buffer_.end(), ++round_);
        benchmark::DoNotOptimize(buffer_.data());
    }

private:
    std::vector<char> buffer_ = std::vector<char>(size_t{4} << 20);
    char round_ = 0;
};

// The same after the caches lost the graph, as in a dump pipeline where
// inference follows other work (the compare driver times it between dumps).
void infer_graph_cold_of(benchmark::State& state, const ir::Graph& g) {
    CacheEvictor evict;
    infer_graph_timed_after(state, g, [&] { evict(); });
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

// Which part of the cold benchmark's extra time is the graph's data and which
// the code: the same eviction, then one part brought back before the timed
// inference. The graph: one read per cache line of every table and param an
// inference reads. The code: an inference of a copy of the graph (the same
// rules over other data; the state it allocates and frees may warm the blocks
// the timed inference's state gets, or not, as the allocator hands them out).
enum class WarmAgain { Graph, Code, GraphAndCode };

template <class Vector>
void read_each_line(const Vector& v, uint64_t& sum) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
    for (size_t i = 0; i < v.size() * sizeof(v[0]); i += 64) sum += bytes[i];
}

// Every table an inference reads, listed by hand (the Graph has no list of its
// columns): a table left out here is counted as code, not data, by the
// GraphWarm/CodeWarm split. vars.owner and the constants' blobs are what
// InferContext::value reads to find and decode a shape constant.
void read_graph_tables(const ir::Graph& g) {
    uint64_t sum = 0;
    read_each_line(g.oprs.type, sum);
    read_each_line(g.oprs.params, sum);
    read_each_line(g.oprs.inputs, sum);
    read_each_line(g.oprs.outputs, sum);
    read_each_line(g.oprs.tensors, sum);
    read_each_line(g.oprs.first_field, sum);
    read_each_line(g.oprs.output_dtype, sum);
    read_each_line(g.vars.dtype, sum);
    read_each_line(g.vars.shape, sum);
    read_each_line(g.vars.owner, sum);
    read_each_line(g.tensors.dtype, sum);
    read_each_line(g.tensors.shape, sum);
    read_each_line(g.tensors.blob, sum);
    // The bytes of the constants inference may decode (ir::kMaxStaticValueElements
    // elements at most, of at most 4 bytes: the widest dtype it tracks); a
    // weight's bytes are never read.
    constexpr size_t kDecodableBytes = ir::kMaxStaticValueElements * sizeof(float);
    for (const ir::BlobId blob : g.tensors.blob)
        if (blob.valid()) {
            const auto bytes = g.blobs.bytes(blob);
            if (!bytes.empty() && bytes.size() <= kDecodableBytes) read_each_line(bytes, sum);
        }
    read_each_line(g.opr_inputs, sum);
    read_each_line(g.dims, sum);
    read_each_line(g.params, sum);
    for (const ir::ParamValue& p : g.params) {
        read_each_line(p.fields, sum);
        for (const ir::FieldValue& f : p.fields)
            std::visit(
                [&](const auto& x) {
                    if constexpr (requires { x.data(); }) read_each_line(x, sum);
                },
                f);
    }
    benchmark::DoNotOptimize(sum);
}

void infer_graph_cold_but(benchmark::State& state, const ir::Graph& g, WarmAgain warm) {
    CacheEvictor evict;
    const ir::Graph copy = g;
    const std::vector<ir::OprId> copy_order = ir::dump_order(copy);
    infer_graph_timed_after(state, g, [&] {
        evict();
        if (warm != WarmAgain::Code) read_graph_tables(g);
        if (warm != WarmAgain::Graph) infer_once(copy, copy_order);
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

// The cold benchmark with a part warm again, for each graph registered below.
void register_cold_but(const std::string& graph, std::function<const ir::Graph&()> graph_of) {
    for (auto [name, warm] : {std::pair{"InferGraphColdGraphWarm/", WarmAgain::Graph},
                              std::pair{"InferGraphColdCodeWarm/", WarmAgain::Code},
                              std::pair{"InferGraphColdGraphAndCodeWarm/", WarmAgain::GraphAndCode}})
        benchmark::RegisterBenchmark(
            (name + graph).c_str(),
            // Copied by an init-capture: clang 14 cannot capture a structured binding.
            [graph_of, part = warm](benchmark::State& s) { infer_graph_cold_but(s, graph_of(), part); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
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
    register_cold_but("operator_heavy", []() -> const ir::Graph& { return suite_graph("operator_heavy"); });
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
            register_cold_but("transformer_encoder",
                              [model]() -> const ir::Graph& { return onnx_model(model); });
        }
    }
    return true;
}();

}  // namespace
}  // namespace mgedump::bench
