// Reused write buffers (formats/write_scratch.h) never change bytes: every dump
// made with a scratch, whose recycled memory is poisoned, equals a fresh dump.
#include "formats/write_scratch.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/dump.h"
#include "formats/graph_json.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "test_paths.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

std::vector<ir::Graph> bundled_examples() {
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(test::source_dir() + "/examples"))
        if (e.path().extension() == ".json") paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    std::vector<ir::Graph> graphs;
    for (const fs::path& p : paths) graphs.push_back(formats::read_graph_json_file(p));
    return graphs;
}

std::vector<engine::DumpOptions> every_format() {
    engine::DumpOptions v2, v1, v1_814;
    v1.dump_format = v1_814.dump_format = engine::DumpFormat::FBS;
    v1_814.compat_older_version = "8.14";
    v2.keep_var_name = 2;  // middle tensors too
    return {v2, v1, v1_814};
}

std::vector<std::byte> fresh_bytes(const ir::Graph& g, const engine::DumpOptions& o) {
    return engine::dump_graph(g, o).bytes.to_bytes();
}

TEST(WriteScratch, EveryExampleTwiceRoundThroughOnePoisonedScratchEqualsFreshDumps) {
    std::vector<ir::Graph> graphs = bundled_examples();
    ASSERT_GE(graphs.size(), 3u);
    for (const engine::DumpOptions& o : every_format()) {
        formats::WriteScratch scratch;
        scratch.poison_buffers(true);
        formats::WriteScratchStats after_first_round;
        for (int round = 0; round < 2; ++round) {
            for (size_t i = 0; i < graphs.size(); ++i)
                EXPECT_EQ(engine::dump_graph(graphs[i], o, &scratch).bytes.to_bytes(),
                          fresh_bytes(graphs[i], o))
                    << "example " << i << ", round " << round << ", " << engine::format_name(o.dump_format);
            if (round == 0) after_first_round = scratch.stats();
        }
        // The scratch now holds a block as large as the largest model needed, so
        // every dump of the second round is built in it.
        EXPECT_GE(after_first_round.buffers_reused, 1u);
        EXPECT_EQ(scratch.stats().buffers_reused - after_first_round.buffers_reused, graphs.size());
        EXPECT_EQ(scratch.stats().buffers_allocated, after_first_round.buffers_allocated);
    }
}

TEST(WriteScratch, ABufferStillHeldIsNotHandedOutAgain) {
    std::vector<ir::Graph> graphs = bundled_examples();
    const engine::DumpOptions o;
    formats::WriteScratch scratch;
    scratch.poison_buffers(true);
    {
        engine::Dumped a = engine::dump_graph(graphs[0], o, &scratch);
        engine::Dumped b = engine::dump_graph(graphs[1], o, &scratch);
        EXPECT_EQ(scratch.stats().buffers_reused, 0u);
        EXPECT_EQ(a.bytes.to_bytes(), fresh_bytes(graphs[0], o));
        EXPECT_EQ(b.bytes.to_bytes(), fresh_bytes(graphs[1], o));
    }
    engine::Dumped c = engine::dump_graph(graphs[0], o, &scratch);
    EXPECT_EQ(scratch.stats().buffers_reused, 1u);
    EXPECT_EQ(c.bytes.to_bytes(), fresh_bytes(graphs[0], o));
}

TEST(WriteScratch, BuffersAboveTheRetainLimitAreFreedNotKept) {
    std::vector<ir::Graph> graphs = bundled_examples();
    formats::WriteScratch scratch(/*max_retained_bytes=*/0);
    for (int i = 0; i < 3; ++i) engine::dump_graph(graphs[0], engine::DumpOptions{}, &scratch);
    EXPECT_EQ(scratch.stats().buffers_reused, 0u);
    EXPECT_GE(scratch.stats().buffers_allocated, 3u);
}

// FBS v1 cannot hold an empty constant; the writer finds out mid-build.
ir::Graph graph_with_empty_constant() {
    ir::GraphBuilder b;
    ir::Graph& g = b.graph();
    ir::OprId o = b.add_op(ir::find_op("ImmutableTensor"), {}, {}, {});
    ir::BlobId blob = g.blobs.add_owned({});
    const std::vector<uint32_t> shape{0};
    b.add_tensor(o, {}, ir::TensorMethod::ValueAnonymous, ir::DType::of(ir::DTypeEnum::Uint8), shape,
                 "xpux:0", blob);
    b.output(g.output_var(o, 0), "empty");
    return b.finish();
}

// Neither of MegEngine's loaders takes an empty constant (seen in a real MegEngine:
// ONNX's test_tril_zero in FBS_V2 failed with "assertion `value.initialized()'"):
// both writers refuse it, naming the operator, and neither points at the other format.
TEST(WriteScratch, AnEmptyConstantIsRefusedInBothFormats) {
    const ir::Graph bad = graph_with_empty_constant();
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        engine::DumpOptions o;
        o.dump_format = format;
        try {
            engine::dump_graph(bad, o);
            ADD_FAILURE() << "dumped an empty constant as " << engine::format_name(format);
        } catch (const GraphError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("(ImmutableTensor): empty constant: MegEngine's"), std::string::npos) << what;
            EXPECT_EQ(what.find("dump with"), std::string::npos) << what;
        }
    }
}

TEST(WriteScratch, AWriterFailingMidBuildReturnsItsBufferForTheNextDump) {
    ir::Graph good = bundled_examples()[0];
    ir::Graph bad = graph_with_empty_constant();
    engine::DumpOptions v1;
    v1.dump_format = engine::DumpFormat::FBS;
    formats::WriteScratch scratch;
    engine::dump_graph(good, v1, &scratch);
    EXPECT_THROW(engine::dump_graph(bad, v1, &scratch), GraphError);
    EXPECT_EQ(scratch.stats().buffers_reused, 1u);  // the failing dump had started building
    engine::Dumped d = engine::dump_graph(good, v1, &scratch);
    EXPECT_EQ(scratch.stats().buffers_reused, 2u);
    EXPECT_EQ(scratch.stats().buffers_allocated, 1u);
    EXPECT_EQ(d.bytes.to_bytes(), fresh_bytes(good, v1));
}

}  // namespace
}  // namespace mgedump
