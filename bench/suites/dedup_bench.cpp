// Param hashing and dedup: in-model dedup (engine/passes/param_dedup.h) and the
// batch's cross-model blob cache (jobs/blob_cache.h). Bytes processed are the
// value bytes looked at.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/support/measure.h"
#include "bench/support/synthetic_models.h"
#include "engine/passes/param_dedup.h"
#include "jobs/blob_cache.h"

namespace mgedump::bench {
namespace {

// 32 MatrixMul weights of 256 KiB, 8 distinct: 24 operators merge away.
void BM_ParamDedup(benchmark::State& state) {
    const ir::Graph base = repeated_weights_graph(32, 8, 256);
    const uint64_t bytes = total_bytes(weight_segments(base));
    engine::ParamDedupStats stats;
    for (auto _ : state) {
        state.PauseTiming();
        ir::Graph g = base;
        state.ResumeTiming();
        stats = engine::dedup_params(g);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
    state.counters["tensors_saved"] = static_cast<double>(stats.tensors_saved);
}
BENCHMARK(BM_ParamDedup)->Unit(benchmark::kMillisecond)->UseRealTime();

// Hashing one model's blobs into an empty cache (every byte is new).
void BM_BlobCacheIntern(benchmark::State& state) {
    const ir::Graph base = weight_heavy_graph(24, 1024);
    const uint64_t bytes = total_bytes(weight_segments(base));
    for (auto _ : state) {
        state.PauseTiming();
        ir::Graph g = base;
        jobs::BlobCache cache;
        state.ResumeTiming();
        benchmark::DoNotOptimize(cache.intern_graph(g));
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_BlobCacheIntern)->Unit(benchmark::kMillisecond)->UseRealTime();

// 16 fine-tuned variants of a 20-layer model sharing 18 layers (90% of the
// weights). The counters say how often each shared byte was hashed.
void BM_CrossModelDedup(benchmark::State& state) {
    constexpr uint32_t kVariants = 16, kLayers = 20, kShared = 18, kWidth = 256;
    std::vector<ir::Graph> variants;
    for (uint32_t v = 0; v < kVariants; ++v) variants.push_back(fine_tuned_variant(v, kLayers, kShared, kWidth));
    uint64_t bytes = 0;
    for (const ir::Graph& g : variants) bytes += total_bytes(weight_segments(g));
    jobs::BlobCacheStats stats;
    for (auto _ : state) {
        state.PauseTiming();
        std::vector<ir::Graph> graphs = variants;
        jobs::BlobCache cache;
        state.ResumeTiming();
        for (ir::Graph& g : graphs) benchmark::DoNotOptimize(cache.intern_graph(g));
        stats = cache.stats();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
    state.counters["unique_bytes"] = static_cast<double>(stats.unique_bytes);
    state.counters["bytes_hashed"] = static_cast<double>(stats.bytes_hashed);
    // 1.0 would be every distinct byte hashed exactly once (sample windows make it a
    // little more); the shared copies are compared with the canonical one instead.
    state.counters["hashed_per_unique"] = static_cast<double>(stats.bytes_hashed) / static_cast<double>(stats.unique_bytes);
    // 1.0: every byte of a later copy compared exactly once.
    state.counters["compared_per_copy"] =
        static_cast<double>(stats.bytes_compared) / static_cast<double>(stats.bytes - stats.unique_bytes);
}
BENCHMARK(BM_CrossModelDedup)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mgedump::bench
