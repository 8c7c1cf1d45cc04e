#include "bench/support/synthetic_models.h"

#include <cstring>
#include <string>
#include <vector>

#include "ir/builder.h"

namespace mgedump::bench {
namespace {

const ir::DType kF32 = ir::DType::of(ir::DTypeEnum::Float32);

// splitmix64: cheap, deterministic, and values that do not compress or repeat.
std::vector<std::byte> random_floats(size_t count, uint64_t seed) {
    std::vector<std::byte> bytes(count * sizeof(float));
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < count; ++i) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        float f = static_cast<float>(static_cast<int32_t>(z >> 40) - (1 << 23)) / float(1 << 23);
        std::memcpy(bytes.data() + i * sizeof(float), &f, sizeof f);
    }
    return bytes;
}

ir::OpOptions named(std::string name) {
    ir::OpOptions o;
    o.name = std::move(name);
    return o;
}

// The matmul chain both weight-heavy shapes use; `seed_of(layer)` picks each weight.
template <class SeedOf>
ir::Graph matmul_chain(uint32_t layers, uint32_t width, SeedOf seed_of) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("data", kF32, {1, width});
    for (uint32_t l = 0; l < layers; ++l) {
        std::string name = "fc" + std::to_string(l);
        ir::VarId w = b.param(name + ".weight", kF32, {width, width},
                              random_floats(size_t{width} * width, seed_of(l)));
        x = b.op("MatrixMul", {x, w}, {}, named(name));
        x = b.op("Elemwise", {x}, {{"mode", "RELU"}}, named(name + ".relu"));
    }
    b.output(x, "out");
    return b.finish();
}

}  // namespace

ir::Graph weight_heavy_graph(uint32_t layers, uint32_t width) {
    return matmul_chain(layers, width, [](uint32_t l) { return l + 1; });
}

ir::Graph operator_heavy_graph(uint32_t blocks, uint32_t width) {
    ir::GraphBuilder b;
    ir::VarId x = b.input("data", kF32, {1, width});
    for (uint32_t i = 0; i < blocks; ++i) {
        std::string name = "block" + std::to_string(i);
        ir::VarId scale = b.param(name + ".scale", kF32, {width}, random_floats(width, i + 1));
        ir::VarId bias = b.constant(kF32, {width}, random_floats(width, ~uint64_t{i}));
        x = b.op("Elemwise", {x, scale}, {{"mode", "MUL"}}, named(name + ".mul"));
        x = b.op("Elemwise", {x, bias}, {{"mode", "ADD"}}, named(name + ".add"));
        x = b.op("Elemwise", {x}, {{"mode", "RELU"}}, named(name + ".relu"));
    }
    b.output(x, "out");
    return b.finish();
}

ir::Graph small_model(uint32_t seed) {
    // 12 blocks of (param, MatrixMul, RELU, constant, ADD) + input = 61 operators;
    // 12 × 45×45 floats + biases ≈ 100 KB.
    constexpr uint32_t kBlocks = 12, kWidth = 45;
    ir::GraphBuilder b;
    ir::VarId x = b.input("data", kF32, {1, kWidth});
    for (uint32_t i = 0; i < kBlocks; ++i) {
        std::string name = "layer" + std::to_string(i);
        const uint64_t s = uint64_t{seed} * 1000 + i;
        ir::VarId w = b.param(name + ".weight", kF32, {kWidth, kWidth}, random_floats(kWidth * kWidth, s));
        ir::VarId bias = b.constant(kF32, {1, kWidth}, random_floats(kWidth, ~s));
        x = b.op("MatrixMul", {x, w}, {}, named(name));
        x = b.op("Elemwise", {x, bias}, {{"mode", "ADD"}}, named(name + ".bias"));
        x = b.op("Elemwise", {x}, {{"mode", "RELU"}}, named(name + ".relu"));
    }
    b.output(x, "out");
    return b.finish();
}

ir::Graph fine_tuned_variant(uint32_t variant, uint32_t layers, uint32_t shared_layers, uint32_t width) {
    return matmul_chain(layers, width, [&](uint32_t l) -> uint64_t {
        return l < shared_layers ? l + 1 : (uint64_t{variant} + 1) << 32 | l;
    });
}

ir::Graph repeated_weights_graph(uint32_t layers, uint32_t distinct, uint32_t width) {
    return matmul_chain(layers, width, [&](uint32_t l) { return l % distinct + 1; });
}

}  // namespace mgedump::bench
