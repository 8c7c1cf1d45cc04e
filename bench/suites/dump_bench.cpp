// Dumping one model: to memory (the complete file in one contiguous buffer, as
// MegEngine's dump returns it) and to a file (atomic write), both formats.
// Bytes processed are tensor value bytes; items are operators.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench/suites/corpus.h"
#include "bench/support/measure.h"
#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "formats/onnx/import.h"
#include "tests/never_inferred.h"

namespace mgedump::bench {
namespace {

void report(benchmark::State& state, const engine::DumpResult& r) {
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * r.tensor_value_bytes));
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * r.nr_opr));
    state.counters["file_bytes"] = static_cast<double>(r.tot_bytes);
}

// `recycle`: with a WriteScratch, as a batch worker dumps (buffers reused, warm).
// `digest`: Compute as the CLI and batch do, Skip as the Python module does.
void dump_to_memory(benchmark::State& state, const std::string& graph, engine::DumpFormat format, bool recycle,
                    engine::Digest digest) {
    const ir::Graph& g = suite_graph(graph);
    engine::DumpOptions options;
    options.dump_format = format;
    formats::WriteScratch scratch;
    std::vector<std::byte> spill;
    engine::DumpResult last;
    // One dump before timing, so `spill` is warm, as a long-lived caller's buffer is.
    engine::dump_graph(g, options, recycle ? &scratch : nullptr, into_warm(spill), digest);
    for (auto _ : state) {
        engine::Dumped d = engine::dump_graph(g, options, recycle ? &scratch : nullptr, into_warm(spill), digest);
        benchmark::DoNotOptimize(spill.data());
        last = std::move(d.result);
    }
    report(state, last);
}

// transformer_encoder of the ONNX corpus (MGEDUMP_ONNX_CORPUS), as imported
// (inferred when it was made) and as a hand-assembled graph reaches the dump:
// never inferred (tests/never_inferred.h), so the dump infers it. The pair is
// the compare driver's mgedump and inferring columns, apart, for a profiler:
// callgrind's instruction counts of the two differ by what inference adds to a
// dump, without the clock's noise.
void dump_onnx_model(benchmark::State& state, const std::filesystem::path& path, engine::DumpFormat format,
                     bool never_inferred) {
    static const ir::Graph imported = formats::import_onnx(path);
    const ir::Graph g = never_inferred ? test::as_never_inferred(imported) : imported;
    engine::DumpOptions options;
    options.dump_format = format;
    formats::WriteScratch scratch;
    std::vector<std::byte> spill;
    engine::DumpResult last;
    engine::dump_graph(g, options, &scratch, into_warm(spill), engine::Digest::Skip);
    for (auto _ : state) {
        engine::Dumped d = engine::dump_graph(g, options, &scratch, into_warm(spill), engine::Digest::Skip);
        benchmark::DoNotOptimize(spill.data());
        last = std::move(d.result);
    }
    report(state, last);
}

void dump_to_file(benchmark::State& state, const std::string& graph, engine::DumpFormat format) {
    const ir::Graph& g = suite_graph(graph);
    engine::DumpOptions options;
    options.dump_format = format;
    formats::WriteScratch scratch;
    const auto path = std::filesystem::temp_directory_path() / ("mgedump_bench_" + std::to_string(::getpid()) + ".mge");
    engine::DumpResult last;
    for (auto _ : state) {
        engine::Dumped d = engine::dump_graph(g, options, &scratch);
        engine::write_file_atomically(path.string(), d.bytes);
        last = std::move(d.result);
    }
    std::filesystem::remove(path);
    report(state, last);
}

[[maybe_unused]] const bool registered = [] {
    for (const char* graph : {"weight_heavy", "operator_heavy", "small"})
        for (auto [format, label] : {std::pair{engine::DumpFormat::FBS_V2, "FBS_V2"}, {engine::DumpFormat::FBS, "FBS"}}) {
            const std::string suffix = std::string("/") + graph + "/" + label;
            benchmark::RegisterBenchmark(("DumpToMemory" + suffix).c_str(), dump_to_memory, graph, format, true,
                                         engine::Digest::Skip)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
            benchmark::RegisterBenchmark(("DumpToMemoryDigest" + suffix).c_str(), dump_to_memory, graph, format, true,
                                         engine::Digest::Compute)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
            benchmark::RegisterBenchmark(("DumpToMemoryFresh" + suffix).c_str(), dump_to_memory, graph, format, false,
                                         engine::Digest::Compute)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
            benchmark::RegisterBenchmark(("DumpToFile" + suffix).c_str(), dump_to_file, graph, format)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    if (const char* corpus = std::getenv("MGEDUMP_ONNX_CORPUS")) {
        const std::filesystem::path model = std::filesystem::path(corpus) / "transformer_encoder.onnx";
        if (std::filesystem::exists(model))
            for (auto [format, label] :
                 {std::pair{engine::DumpFormat::FBS_V2, "FBS_V2"}, {engine::DumpFormat::FBS, "FBS"}}) {
                const std::string suffix = std::string("/transformer_encoder/") + label;
                benchmark::RegisterBenchmark(("DumpToMemory" + suffix).c_str(), dump_onnx_model, model, format, false)
                    ->Unit(benchmark::kMicrosecond);
                benchmark::RegisterBenchmark(("DumpToMemoryNeverInferred" + suffix).c_str(), dump_onnx_model, model,
                                             format, true)
                    ->Unit(benchmark::kMicrosecond);
            }
    }
    return true;
}();

}  // namespace
}  // namespace mgedump::bench
