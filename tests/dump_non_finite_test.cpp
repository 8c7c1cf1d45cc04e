// The non-finite count behind dump's warning, over tensors long enough to use the
// blocked scan and its scalar tail: NaNs and infinities count; the largest finite
// value, denormals and negative zero do not.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "engine/dump.h"
#include "ir/builder.h"

namespace mgedump {
namespace {

std::vector<std::byte> float_bytes(const std::vector<float>& v) {
    std::vector<std::byte> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

TEST(DumpNonFinite, CountsNaNsAndInfinitiesInBlocksAndTail) {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    std::vector<float> values(37, 0.5f);  // two blocks of 16 and a tail of 5
    values[0] = std::numeric_limits<float>::quiet_NaN();
    values[15] = -kInf;
    values[16] = std::numeric_limits<float>::max();
    values[20] = std::numeric_limits<float>::denorm_min();
    values[31] = kInf;
    values[33] = -0.0f;
    values[36] = -std::numeric_limits<float>::signaling_NaN();
    ir::GraphBuilder b;
    const ir::DType f32 = ir::DType::of(ir::DTypeEnum::Float32);
    ir::VarId x = b.input("x", f32, {37});
    ir::VarId c = b.constant(f32, {37}, float_bytes(values));
    b.output(b.op("Elemwise", {x, c}, {{"mode", "ADD"}}), "y");
    auto d = engine::dump_graph(b.finish(), engine::DumpOptions{});
    ASSERT_EQ(d.result.warnings.size(), 1u);
    EXPECT_NE(d.result.warnings[0].find("has 4 non-finite"), std::string::npos) << d.result.warnings[0];
}

TEST(DumpNonFinite, FiniteValuesGiveNoWarning) {
    std::vector<float> values(40);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) - 20.5f;
    values[3] = std::numeric_limits<float>::lowest();
    ir::GraphBuilder b;
    const ir::DType f32 = ir::DType::of(ir::DTypeEnum::Float32);
    ir::VarId x = b.input("x", f32, {40});
    ir::VarId c = b.constant(f32, {40}, float_bytes(values));
    b.output(b.op("Elemwise", {x, c}, {{"mode", "ADD"}}), "y");
    EXPECT_TRUE(engine::dump_graph(b.finish(), engine::DumpOptions{}).result.warnings.empty());
}

}  // namespace
}  // namespace mgedump
