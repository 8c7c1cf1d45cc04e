// A graph nothing inferred (tables written directly: Graph::inferred false, no
// shape or dtype recorded for a computed var) is inferred by the dump itself
// (engine/dump.cpp), and every check, pass and writer after that reads what was
// inferred (through the state; the copy the passes change keeps the table as
// given): the bytes must be the same as the same graph built gives, through the
// compatibility rewrites, the make folds and the param dedup, in both formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "engine/dump.h"
#include "engine/passes/compat_rewrite.h"
#include "formats/graph_json.h"
#include "tests/megengine_dumps.h"
#include "tests/model_test_util.h"

namespace mgedump::engine {
namespace {

namespace fs = std::filesystem;
using test::dumps_dir;
using test::graph_folders;

using test::as_never_inferred;

TEST(DumpNeverInferred, EverySourceGraphDumpsTheSameBytesAsWhenBuilt) {
    int graphs = 0, copied = 0;
    for (const std::string& folder : graph_folders("source.json")) {
        SCOPED_TRACE(folder);
        ir::Graph g;
        try {
            g = formats::read_graph_json_file(dumps_dir() / folder / "source.json");
        } catch (const std::exception&) {
            continue;  // the folders that hold a refused graph (their own tests say why)
        }
        ASSERT_TRUE(g.inferred) << "the graph JSON reader infers as it builds";
        ++graphs;
        for (DumpFormat format : {DumpFormat::FBS_V2, DumpFormat::FBS}) {
            // A graph MegEngine cannot load in this format is refused both ways; only
            // the built graph's dump may decide that (a refusal of the never-inferred
            // graph alone fails the test).
            DumpOptions options;
            options.dump_format = format;
            std::vector<std::byte> built;
            try {
                built = dump_graph(g, options).bytes.to_bytes();
            } catch (const std::exception& e) {
                EXPECT_THROW((void)dump_graph(as_never_inferred(g), options), std::exception) << e.what();
                continue;
            }
            const std::vector<std::byte> unmarked = dump_graph(as_never_inferred(g), options).bytes.to_bytes();
            if (needs_compat_rewrites(g, format)) ++copied;
            EXPECT_FALSE(built.empty());
            EXPECT_TRUE(std::equal(built.begin(), built.end(), unmarked.begin(), unmarked.end()))
                << (format == DumpFormat::FBS ? "FBS" : "FBS_V2") << ": " << built.size() << " bytes built, "
                << unmarked.size() << " never inferred";
        }
    }
    std::cout << graphs << " graphs, " << copied << " dumps through the rewrites\n";
    // The folders hold graphs of every kind, many of them rewritten (the copy path).
    EXPECT_GT(graphs, 100);
    EXPECT_GT(copied, 20);
}

// A rewrite's replacement var takes the shape of the var it replaces where
// inference knows none for it: here Where's, rewritten to arithmetic with an
// input of unknown shape, while Where's own rule gives [2,3]. For a graph nobody
// inferred that shape is only in the dump's state, not in the var table (the
// fuzz targets' never-inferred check found FBS_V2 writing it unknown).
TEST(DumpNeverInferred, AReplacementTakesTheInferredShapeOfTheVarItReplaces) {
    const ir::Graph g = formats::parse_graph_json(
        R"({"format": "mgedump-graph", "version": 1,
            "inputs": [{"name": "m", "dtype": "Bool", "shape": [2, 3]},
                       {"name": "a", "dtype": "Float32", "shape": [2, 3]},
                       {"name": "b", "dtype": "Float32", "shape": []}],
            "operators": [{"op": "Where", "name": "y", "inputs": ["m", "a", "b"]}],
            "outputs": ["y"]})",
        formats::GraphJsonReadOptions{});
    for (DumpFormat format : {DumpFormat::FBS_V2, DumpFormat::FBS}) {
        ASSERT_TRUE(needs_compat_rewrites(g, format));
        DumpOptions options;
        options.dump_format = format;
        const std::vector<std::byte> built = dump_graph(g, options).bytes.to_bytes();
        EXPECT_EQ(dump_graph(as_never_inferred(g), options).bytes.to_bytes(), built);
        if (format != DumpFormat::FBS_V2) continue;  // FBS records no middle-tensor shapes
        auto bytes = test::owned_bytes(built);
        const formats::LoadedModel m = test::load_bytes(bytes);
        const auto shape = m.graph.var_shape(m.graph.outputs[0]);
        EXPECT_EQ(std::vector<uint32_t>(shape.begin(), shape.end()), (std::vector<uint32_t>{2, 3}));
    }
}

}  // namespace
}  // namespace mgedump::engine
