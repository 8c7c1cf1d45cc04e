// The worked example of spec Appendix C must come out byte for byte, in both
// formats: it pins the build order of every table the writers emit.
#include <gtest/gtest.h>

#include "engine/dump.h"
#include "ir/builder.h"
#include "spec_vectors.h"

namespace mgedump {
namespace {

using ir::DType;
using ir::DTypeEnum;

ir::Graph appendix_c_graph() {
    ir::GraphBuilder b("xpux:0");
    ir::VarId data = b.input("data", DType::of(DTypeEnum::Float32), {1, 3});
    ir::VarId c = b.constant<float>({3}, {1.0f, 2.0f, 3.0f}, "const");
    ir::VarId out = b.op("Elemwise", {data, c}, {{"mode", "ADD"}});
    b.output(out, "out");
    ir::Graph g = b.finish();
    g.vars.original_id[out.value] = 7;  // the example's arbitrary original_id
    return g;
}

std::vector<uint8_t> as_u8(const std::vector<std::byte>& v) {
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                                reinterpret_cast<const uint8_t*>(v.data()) + v.size());
}

TEST(AppendixC, FbsV1DumpIsByteIdenticalToTheSpec) {
    engine::DumpOptions options;
    options.dump_format = engine::DumpFormat::FBS;
    engine::Dumped d = engine::dump_graph(appendix_c_graph(), options);
    std::vector<uint8_t> expected = test::spec_hex_dump("### C.1 FBS v1");
    ASSERT_EQ(expected.size(), 492u);
    EXPECT_EQ(as_u8(d.bytes.to_bytes()), expected);
    EXPECT_EQ(d.result.content_hash, 774888699483002881ULL);
    EXPECT_EQ(d.result.tot_bytes, 492u);
    EXPECT_EQ(d.result.tensor_value_bytes, 12u);
    EXPECT_EQ(d.result.nr_opr, 3u);
    EXPECT_EQ(d.result.inputs, std::vector<std::string>{"data"});
    EXPECT_EQ(d.result.outputs, std::vector<std::string>{"out"});
    EXPECT_TRUE(d.result.params.empty());
}

TEST(AppendixC, FbsV2DumpIsByteIdenticalToTheSpec) {
    engine::DumpOptions options;  // Python defaults: FBS_V2, model_version 2
    engine::Dumped d = engine::dump_graph(appendix_c_graph(), options);
    // Every var's shape is static here, so the MiddleTensors carry their shapes:
    // C.3, as MegEngine writes this graph (C.2 is the shape-less 712-byte form).
    std::vector<uint8_t> expected = test::spec_hex_dump("### C.3 FBS_V2");
    ASSERT_EQ(expected.size(), 760u);
    EXPECT_EQ(as_u8(d.bytes.to_bytes()), expected);
    EXPECT_EQ(d.result.content_hash, 0u);
    EXPECT_EQ(d.result.tot_bytes, 760u);
    EXPECT_EQ(d.result.tensor_value_bytes, 12u);
}

}  // namespace
}  // namespace mgedump
