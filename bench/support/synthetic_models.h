// Graphs for benchmarks, built in memory with ir::GraphBuilder so the suites run
// without any input files. Shapes are the two ends of what dump cost depends on:
// a few operators with large weights (bytes dominate) and many operators with
// tiny weights (per-operator work dominates). Values are deterministic pseudo-random
// floats, so every run dumps the same bytes.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace mgedump::bench {

// `layers` MatrixMul operators on a [1, width] input, each with a width×width
// float32 parameter: 4·width²·layers bytes of weights.
ir::Graph weight_heavy_graph(uint32_t layers, uint32_t width);

// `blocks` × (Elemwise MUL by a small parameter, Elemwise ADD of a constant,
// RELU): many operators, few weight bytes.
ir::Graph operator_heavy_graph(uint32_t blocks, uint32_t width = 16);

// The batch's "small model": 50 operators and about 100 KB of weights. `seed`
// changes the values (not the shapes), so the cache cannot merge models.
ir::Graph small_model(uint32_t seed);

// Fine-tuned variant `variant` of a base model: the first `shared_layers` of
// `layers` weight tensors equal every other variant's, the rest are its own.
ir::Graph fine_tuned_variant(uint32_t variant, uint32_t layers, uint32_t shared_layers, uint32_t width);

// `layers` weights of which only `distinct` differ (layer l uses weight l % distinct):
// what in-model parameter dedup merges.
ir::Graph repeated_weights_graph(uint32_t layers, uint32_t distinct, uint32_t width);

}  // namespace mgedump::bench
