// WritePlan::megengine_builder only changes how the builder works (the
// benchmarks' naive baseline regrows from FlatBuffers' default size and pools
// shared strings in FlatBuffers' set): the bytes must be the ones mgedump's
// pre-sized, hash-pooled builder writes, in both formats.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>

#include "formats/write_plan.h"
#include "ir/builder.h"
#include "ir/order.h"

namespace mgedump {
namespace {

ir::Graph graph_bigger_than_default_builder() {
    const ir::DType f32 = ir::DType::of(ir::DTypeEnum::Float32);
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", f32, {1, 64});
    for (int i = 0; i < 6; ++i) {
        std::vector<std::byte> w(64 * 64 * 4);
        for (size_t k = 0; k < w.size(); ++k) w[k] = static_cast<std::byte>(k * 7 + i);
        x = b.op("MatrixMul", {x, b.param(fmt::format("w{}", i), f32, {64, 64}, std::move(w))});
    }
    b.output(x, "y");
    return b.finish();
}

std::vector<std::byte> flat(const formats::Serialized& s) { return s.to_bytes(); }

TEST(WritePlanMegEngineBuilder, WritesTheSameBytesInBothFormats) {
    const ir::Graph g = graph_bigger_than_default_builder();
    for (bool v1 : {false, true}) {
        formats::WritePlan presized{.graph = g};
        presized.order = ir::dump_order(g);
        presized.numbering = ir::number_vars(g, presized.order);
        formats::WritePlan growing = presized;
        growing.megengine_builder = true;
        formats::WriteStats s1, s2;
        auto a = v1 ? formats::write_fbs_v1(presized, s1) : formats::write_fbs_v2(presized, s1);
        auto b = v1 ? formats::write_fbs_v1(growing, s2) : formats::write_fbs_v2(growing, s2);
        EXPECT_GT(a.size(), 64u * 1024u);  // far past FlatBuffers' 1 KiB start, so it regrew
        EXPECT_EQ(flat(a), flat(b)) << (v1 ? "FBS" : "FBS_V2");
        EXPECT_EQ(s1.content_hash, s2.content_hash);
    }
}

}  // namespace
}  // namespace mgedump
