#include <gtest/gtest.h>

#include <cstring>

#include "engine/dump.h"
#include "engine/passes/param_dedup.h"
#include "formats/model_reader.h"
#include "ir/builder.h"
#include "ir/op_registry.h"
#include "ir/order.h"

#include <algorithm>

namespace mgedump {
namespace {

using ir::DType;
using ir::DTypeEnum;

std::vector<std::byte> floats(std::initializer_list<float> v) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), std::data(v), b.size());
    return b;
}

// y = (x + c1) * c2, with c2 given separately so tests choose whether it equals c1.
// A c2 of another dtype is converted to Float32 first (Elemwise inputs share a dtype).
ir::Graph two_constants(std::vector<std::byte> c1, std::vector<std::byte> c2, DType d2 = DType::of(DTypeEnum::Float32)) {
    ir::GraphBuilder b;
    auto x = b.input("x", DType::of(DTypeEnum::Float32), {1, 4});
    auto k1 = b.constant(DType::of(DTypeEnum::Float32), {4}, std::move(c1), "c1");
    auto k2 = b.constant(d2, {4}, std::move(c2), "c2");
    if (d2 != DType::of(DTypeEnum::Float32)) k2 = b.op("TypeCvt", {k2}, {{"dtype", DType::of(DTypeEnum::Float32)}});
    auto s = b.op("Elemwise", {x, k1}, {{"mode", "ADD"}});
    auto y = b.op("Elemwise", {s, k2}, {{"mode", "MUL"}});
    b.output(y, "y");
    return b.finish();
}

size_t holders_reached(const formats::LoadedModel& m) {
    size_t n = 0;
    for (size_t i = 0; i < m.graph.oprs.size(); ++i)
        n += m.graph.oprs.type[i] == ir::find_op("ImmutableTensor") ||
             m.graph.oprs.type[i] == ir::find_op("SharedDeviceTensor");
    return n;
}

TEST(ParamDedup, IdenticalConstantsAreStoredOnceAndTheFileStillLoads) {
    ir::Graph g = two_constants(floats({1, 2, 3, 4}), floats({1, 2, 3, 4}));
    for (auto format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions off;
        off.dump_format = format;
        engine::DumpOptions on = off;
        on.dedup_params = true;
        engine::Dumped plain = engine::dump_graph(g, off);
        engine::Dumped merged = engine::dump_graph(g, on);
        EXPECT_EQ(merged.result.nr_opr + 1, plain.result.nr_opr);
        EXPECT_EQ(merged.result.tensor_value_bytes + 16, plain.result.tensor_value_bytes);
        EXPECT_EQ(merged.result.dedup_tensors_saved, 1u);
        EXPECT_EQ(merged.result.dedup_bytes_saved, 16u);
        EXPECT_EQ(plain.result.dedup_tensors_saved, 0u);

        auto bytes = merged.bytes.to_bytes();
        formats::LoadedModel m = formats::read_model(ir::Bytes(bytes), nullptr);
        EXPECT_EQ(holders_reached(m), 1u);
        EXPECT_EQ(m.graph.oprs.size(), merged.result.nr_opr);
    }
}

TEST(ParamDedup, ADedupedDumpEqualsTheDumpOfTheGraphWrittenWithOneSharedConstant) {
    ir::Graph twins = two_constants(floats({1, 2, 3, 4}), floats({1, 2, 3, 4}));
    ir::GraphBuilder b;
    auto x = b.input("x", DType::of(DTypeEnum::Float32), {1, 4});
    auto c = b.constant(DType::of(DTypeEnum::Float32), {4}, floats({1, 2, 3, 4}), "c1");
    // Unused, so every var keeps its index (outputs record their var's original id).
    b.constant(DType::of(DTypeEnum::Float32), {4}, floats({1, 2, 3, 4}), "c2");
    auto s = b.op("Elemwise", {x, c}, {{"mode", "ADD"}});
    auto y = b.op("Elemwise", {s, c}, {{"mode", "MUL"}});
    b.output(y, "y");
    ir::Graph shared = b.finish();

    for (auto format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions off;
        off.dump_format = format;
        engine::DumpOptions on = off;
        on.dedup_params = true;
        EXPECT_EQ(engine::dump_graph(twins, on).bytes.to_bytes(), engine::dump_graph(shared, off).bytes.to_bytes());
    }
}

TEST(ParamDedup, ConstantsThatDifferInBytesOrDtypeAreKeptApart) {
    ir::Graph bytes_differ = two_constants(floats({1, 2, 3, 4}), floats({1, 2, 3, 5}));
    EXPECT_EQ(engine::dedup_params(bytes_differ).tensors_saved, 0u);

    ir::Graph dtype_differs = two_constants(floats({1, 2, 3, 4}), floats({1, 2, 3, 4}), DType::of(DTypeEnum::Int32));
    EXPECT_EQ(engine::dedup_params(dtype_differs).tensors_saved, 0u);
}

TEST(ParamDedup, ParamsWithDifferentKeptNamesAreNotMergedButAnonymousOnesAre) {
    auto build = [] {
        ir::GraphBuilder b;
        auto x = b.input("x", DType::of(DTypeEnum::Float32), {1, 4});
        auto w1 = b.param("w1", DType::of(DTypeEnum::Float32), {4}, floats({1, 1, 1, 1}));
        auto w2 = b.param("w2", DType::of(DTypeEnum::Float32), {4}, floats({1, 1, 1, 1}));
        auto s = b.op("Elemwise", {x, w1}, {{"mode", "ADD"}});
        b.output(b.op("Elemwise", {s, w2}, {{"mode", "ADD"}}), "y");
        return b.finish();
    };
    ir::Graph named = build();
    engine::ParamDedupOptions keep;
    keep.keep_param_name = true;
    EXPECT_EQ(engine::dedup_params(named, keep).tensors_saved, 0u);
    ir::Graph unnamed = build();
    EXPECT_EQ(engine::dedup_params(unnamed).tensors_saved, 1u);
}

TEST(ParamDedup, AConstantThatIsARequestedOutputKeepsItsOwnOperator) {
    ir::GraphBuilder b;
    auto x = b.input("x", DType::of(DTypeEnum::Float32), {1, 4});
    auto c1 = b.constant(DType::of(DTypeEnum::Float32), {4}, floats({1, 2, 3, 4}), "c1");
    auto c2 = b.constant(DType::of(DTypeEnum::Float32), {4}, floats({1, 2, 3, 4}), "c2");
    b.output(b.op("Elemwise", {x, c1}, {{"mode", "ADD"}}), "y");
    b.output(c2, "c2");
    ir::Graph g = b.finish();
    EXPECT_EQ(engine::dedup_params(g).tensors_saved, 0u);
    EXPECT_EQ(g.outputs[1], c2);
}

TEST(ParamDedup, TheSurvivorIsTheFirstInDumpOrderWhateverTheHashTableDoes) {
    ir::Graph g = two_constants(floats({7, 7, 7, 7}), floats({7, 7, 7, 7}));
    const auto order_before = ir::dump_order(g);
    engine::dedup_params(g);
    // Both Elemwise operators now read the constant the dump reaches first.
    ir::VarId first_const;
    for (ir::OprId o : order_before)
        if (g.oprs.type[o.value] == ir::find_op("ImmutableTensor")) {
            first_const = g.output_var(o, 0);
            break;
        }
    size_t uses = std::count(g.opr_inputs.begin(), g.opr_inputs.end(), first_const);
    EXPECT_EQ(uses, 2u);
}

// Three large constants (64 KiB each) feeding one sum: `a`, `b` and `c` chosen by the test.
ir::Graph three_large(std::vector<std::byte> a, std::vector<std::byte> b, std::vector<std::byte> c) {
    ir::GraphBuilder g;
    const uint32_t n = static_cast<uint32_t>(a.size() / 4);
    auto x = g.input("x", DType::of(DTypeEnum::Float32), {n});
    auto y = x;
    for (auto* bytes : {&a, &b, &c})
        y = g.op("Elemwise", {y, g.constant(DType::of(DTypeEnum::Float32), {n}, std::move(*bytes))}, {{"mode", "ADD"}});
    g.output(y, "y");
    return g.finish();
}

std::vector<std::byte> pattern(size_t n, uint8_t seed) {
    std::vector<std::byte> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 7) & 0xff);
    return v;
}

TEST(ParamDedup, LargeValuesWithNoKeyInCommonAreNeverReadWhole) {
    constexpr size_t kSize = 64 << 10;
    ir::Graph g = three_large(pattern(kSize, 1), pattern(kSize, 2), pattern(kSize, 3));
    engine::ParamDuplicates found = engine::find_duplicate_params(g);
    EXPECT_TRUE(found.replace.empty());
    EXPECT_EQ(found.bytes_fully_hashed, 0u);
}

TEST(ParamDedup, ValuesEqualInTheSampledWindowsButNotElsewhereAreKeptApart) {
    constexpr size_t kSize = 64 << 10;
    std::vector<std::byte> a = pattern(kSize, 1), b = a, c = a;
    b[20'000] ^= std::byte{1};  // outside the head, middle and tail windows
    ir::Graph g = three_large(a, b, c);
    engine::ParamDuplicates found = engine::find_duplicate_params(g);
    // c equals a and merges into it; b shares their key but not their bytes.
    ASSERT_EQ(found.replace.size(), 1u);
    EXPECT_EQ(found.stats.bytes_saved, kSize);
    EXPECT_EQ(found.bytes_fully_hashed, 3 * kSize);  // the three sharing a key, each once
    // The dump keeps a and b, and loads with both values intact.
    engine::DumpOptions on;
    on.dedup_params = true;
    auto bytes = std::make_shared<std::vector<std::byte>>(engine::dump_graph(g, on).bytes.to_bytes());
    formats::LoadedModel m = formats::read_model(*bytes, bytes);
    EXPECT_EQ(holders_reached(m), 2u);
    int seen_a = 0, seen_b = 0;
    for (uint32_t t = 0; t < m.graph.tensors.size(); ++t) {
        if (!m.graph.tensors.blob[t].valid()) continue;
        ir::Bytes v = m.graph.blobs.bytes(m.graph.tensors.blob[t]);
        seen_a += v.size() == kSize && std::memcmp(v.data(), a.data(), kSize) == 0;
        seen_b += v.size() == kSize && std::memcmp(v.data(), b.data(), kSize) == 0;
    }
    EXPECT_EQ(seen_a, 1);
    EXPECT_EQ(seen_b, 1);
}

TEST(ParamDedup, NothingToMergeLeavesTheGraphUntouchedAndTheDumpUnchanged) {
    constexpr size_t kSize = 64 << 10;
    ir::Graph g = three_large(pattern(kSize, 1), pattern(kSize, 2), pattern(kSize, 3));
    engine::DumpOptions on, off;
    on.dedup_params = true;
    engine::Dumped d = engine::dump_graph(g, on);
    EXPECT_EQ(d.result.dedup_tensors_saved, 0u);
    EXPECT_EQ(d.bytes.to_bytes(), engine::dump_graph(g, off).bytes.to_bytes());
}

}  // namespace
}  // namespace mgedump
