// needs_compat_rewrites lets dump skip copying the graph; it must agree with what
// apply_compat_rewrites then does, for every format and a spread of operators.
#include <gtest/gtest.h>

#include "engine/passes/compat_rewrite.h"
#include "ir/builder.h"

namespace mgedump {
namespace {

using engine::DumpFormat;

ir::Graph elemwise(const std::string& mode) {
    const ir::DType f32 = ir::DType::of(ir::DTypeEnum::Float32);
    ir::GraphBuilder b;
    ir::VarId x = b.input("x", f32, {2, 3});
    std::vector<ir::VarId> in{x};
    if (mode == "PRELU") in.push_back(b.input("w", f32, {3}));
    if (mode == "CLIP") {
        in.push_back(b.input("lo", f32, {1}));
        in.push_back(b.input("hi", f32, {1}));
    }
    if (mode == "ADD") in.push_back(b.input("z", f32, {2, 3}));
    b.output(b.op("Elemwise", in, {{"mode", mode}}), "y");
    return b.finish();
}

TEST(CompatRewriteNeeded, AgreesWithWhatTheRewritesDo) {
    for (const char* mode : {"ADD", "RELU", "PRELU", "CLIP", "SILU", "GELU", "H_SWISH", "EXP"})
        for (DumpFormat format : {DumpFormat::FBS, DumpFormat::FBS_V2}) {
            ir::Graph g = elemwise(mode);
            const bool predicted = engine::needs_compat_rewrites(g, format);
            const engine::RewriteStats done = engine::apply_compat_rewrites(g, format);
            EXPECT_EQ(predicted, done.rewritten + done.marked_volatile > 0)
                << mode << (format == DumpFormat::FBS ? " FBS" : " FBS_V2");
        }
}

TEST(CompatRewriteNeeded, PlainAddNeedsNothingAndSomeModeNeedsARewriteForV1) {
    EXPECT_FALSE(engine::needs_compat_rewrites(elemwise("ADD"), DumpFormat::FBS));
    EXPECT_FALSE(engine::needs_compat_rewrites(elemwise("ADD"), DumpFormat::FBS_V2));
    bool any = false;
    for (const char* mode : {"RELU", "PRELU", "CLIP", "SILU", "GELU", "H_SWISH"})
        any = any || engine::needs_compat_rewrites(elemwise(mode), DumpFormat::FBS);
    EXPECT_TRUE(any) << "no rewritable mode in the list: the agreement test would prove nothing";
}

}  // namespace
}  // namespace mgedump
