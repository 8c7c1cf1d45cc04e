// Loading a dumped model from a file: mapped, verified, read into the IR with
// tensor values viewed in place (zero-copy). Bytes processed are file bytes.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "bench/suites/corpus.h"
#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/load.h"

namespace mgedump::bench {
namespace {

void load_mapped(benchmark::State& state, const std::string& graph, engine::DumpFormat format) {
    engine::DumpOptions options;
    options.dump_format = format;
    const engine::Dumped d = engine::dump_graph(suite_graph(graph), options);
    const auto path = std::filesystem::temp_directory_path() / ("mgedump_load_" + std::to_string(::getpid()) + ".mge");
    engine::write_file_atomically(path.string(), d.bytes);
    for (auto _ : state) {
        formats::LoadedModel m = engine::load_file(path.string());
        benchmark::DoNotOptimize(m.graph.oprs.size());
    }
    std::filesystem::remove(path);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * d.result.tot_bytes));
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * d.result.nr_opr));
}

[[maybe_unused]] const bool registered = [] {
    for (const char* graph : {"weight_heavy", "operator_heavy", "small"})
        for (auto [format, label] : {std::pair{engine::DumpFormat::FBS_V2, "FBS_V2"}, {engine::DumpFormat::FBS, "FBS"}})
            benchmark::RegisterBenchmark((std::string("LoadMapped/") + graph + "/" + label).c_str(), load_mapped,
                                         graph, format)
                ->Unit(benchmark::kMicrosecond)
                ->UseRealTime();
    return true;
}();

}  // namespace
}  // namespace mgedump::bench
