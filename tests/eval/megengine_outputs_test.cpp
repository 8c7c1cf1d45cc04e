// The evaluator against MegEngine's own results: every file of
// ../shared/realdata/megengine-dumps was written by MegEngine, loaded back by it,
// fed inputs/*.npy and executed; outputs/<variant>/ holds what it computed. The
// evaluator loads the same file, feeds the same inputs and must compute the
// same values (tolerances in eval_test_util.h: float32 rounding and summation
// order; integers, Bool and quantized storage exactly).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "engine/eval/npy_tensor.h"
#include "formats/model_reader.h"
#include "tests/eval/eval_test_util.h"
#include "tests/eval/megengine_outputs.h"
#include "tests/megengine_dumps.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;
using engine::eval::EvalError;
using engine::eval::Tensor;

// Graphs the evaluator refuses, with the operator its error must name. Each
// is an operator MegEngine has that no importer, rewrite or example of mgedump
// produces; an evaluator refusal is a clear error, never a wrong number.
const std::map<std::string, std::string> kRefused = {
};

// Graphs whose outputs are random draws (MegEngine's RNG state is not ours):
// compared by dtype and shape only.
const std::set<std::string> kRandomOutputs = {
};

class MegEngineOutputs : public ::testing::TestWithParam<std::string> {};

TEST_P(MegEngineOutputs, EvaluatorComputesWhatMegEngineComputed) {
    const std::string graph = GetParam();
    const fs::path dir = test::dumps_dir() / graph;
    int variants = 0;
    for (const char* variant : test::kVariants) {
        const fs::path file = dir / (std::string(variant) + ".mge");
        const fs::path outputs_dir = dir / "outputs" / variant;
        if (!fs::exists(file) || !fs::exists(outputs_dir)) continue;
        ++variants;
        SCOPED_TRACE(file.string());
        auto bytes = test::read_file(file);
        formats::LoadedModel m = formats::read_model(*bytes, bytes);
        const engine::eval::Feeds feeds = test::feeds_for(m.graph, dir / "inputs");
        if (auto r = kRefused.find(graph); r != kRefused.end()) {
            try {
                engine::eval::evaluate(m.graph, feeds);
                ADD_FAILURE() << "expected the evaluator to refuse " << r->second;
            } catch (const EvalError& e) {
                EXPECT_NE(std::string(e.what()).find(r->second), std::string::npos) << e.what();
            }
            continue;
        }
        std::vector<engine::eval::EvalOutput> got;
        try {
            got = engine::eval::evaluate(m.graph, feeds);
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
            continue;
        }
        const std::vector<fs::path> want = test::expected_outputs(outputs_dir);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            const Tensor expected = engine::eval::read_npy_tensor(want[i]);
            if (kRandomOutputs.count(graph)) {
                EXPECT_EQ(got[i].value.dtype().type, expected.dtype().type) << want[i];
                EXPECT_EQ(got[i].value.shape(), expected.shape()) << want[i];
                continue;
            }
            EXPECT_EQ(test::compare_tensors(got[i].value, expected), "") << "output " << want[i].filename();
        }
    }
    EXPECT_GT(variants, 0) << "no file with outputs in " << dir;
}

std::vector<std::string> graphs_with_outputs() {
    std::vector<std::string> out;
    for (const std::string& g : test::graph_folders("outputs")) out.push_back(g);
    return out;
}

INSTANTIATE_TEST_SUITE_P(Dumps, MegEngineOutputs, ::testing::ValuesIn(graphs_with_outputs()), test::graph_test_name);

}  // namespace
}  // namespace mgedump
