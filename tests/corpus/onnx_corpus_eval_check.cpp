// The evaluator against PyTorch on the ONNX corpus (tools/corpus_test.sh): every
// model tools/make_onnx_corpus.py generated is imported, dumped in FBS_V2 and FBS
// (MegEngine's default dump, compatibility rewrites included) and read back, and
// each of the three graphs (as imported, and each file as loaded) is executed by
// engine::eval on the input the export traced. Every output must be within 1e-4 of
// the largest |output| of PyTorch's own eval-mode forward on that input (the
// <name>.torch.<k>.npy files), and a classifier's argmax must be PyTorch's.
//
// PyTorch computes with other kernels in another summation order (oneDNN, folded
// BatchNorm or not), so bit equality is not expected; 1e-4 of the output's scale is
// the bound, about 1000 float32 ulps of the largest logit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/dump.h"
#include "engine/eval/evaluator.h"
#include "engine/eval/npy_tensor.h"
#include "formats/model_reader.h"
#include "formats/onnx/import.h"
#include "ir/infer/shape_util.h"
#include "tests/corpus/onnx_corpus.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;
namespace eval = engine::eval;

constexpr double kRelTolerance = 1e-4;

// One output against PyTorch's: the largest difference relative to the largest
// |PyTorch output|, and the index of the largest element of each.
struct Comparison {
    double max_abs_diff = 0, max_abs_ref = 0;
    uint64_t mismatched_nans = 0;  // NaN in one and not the other
    uint64_t argmax_got = 0, argmax_want = 0;
    double rel() const { return max_abs_ref > 0 ? max_abs_diff / max_abs_ref : max_abs_diff; }
};

Comparison compare(std::span<const float> got, std::span<const float> want) {
    Comparison c;
    for (size_t i = 0; i < want.size(); ++i) {
        const double g = got[i], w = want[i];
        if (std::isnan(g) || std::isnan(w)) {
            c.mismatched_nans += std::isnan(g) != std::isnan(w);
            continue;
        }
        c.max_abs_ref = std::max(c.max_abs_ref, std::abs(w));
        c.max_abs_diff = std::max(c.max_abs_diff, std::abs(g - w));
        if (g > got[c.argmax_got]) c.argmax_got = i;
        if (w > want[c.argmax_want]) c.argmax_want = i;
    }
    return c;
}

// The graph as imported, and each dump of it as MegEngine would load it.
struct Variant {
    std::string label;
    ir::Graph graph;
    std::shared_ptr<std::vector<std::byte>> file;  // keeps a loaded graph's views alive
};

std::vector<Variant> variants(const fs::path& model) {
    std::vector<Variant> out;
    out.push_back({"imported", formats::import_onnx(model), nullptr});
    for (auto format : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions o;
        o.dump_format = format;
        engine::Dumped d = engine::dump_graph(out.front().graph, o);
        auto bytes = std::make_shared<std::vector<std::byte>>(d.bytes.to_bytes());
        formats::LoadedModel loaded = formats::read_model(ir::Bytes(*bytes), bytes);
        out.push_back({std::string(engine::format_name(format)), std::move(loaded.graph), bytes});
    }
    return out;
}

class OnnxCorpusEval : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxCorpusEval, OutputsMatchPyTorchAsImportedAndInBothFormats) {
    const std::string name = GetParam();
    nlohmann::json expect = read_expectations(name);
    ASSERT_EQ(expect.value("expect_version", 1), kExpectVersion)
        << "stale expectation file; tools/corpus_test.sh regenerates it";
    if (is_expected_refusal(expect, name)) return;
    const auto& output_files = expect["torch_output_files"];
    const bool classifier = expect["classifier"].get<bool>();

    std::vector<eval::Tensor> want;
    for (const auto& f : output_files) want.push_back(eval::read_npy_tensor(corpus_dir() / f.get<std::string>()));

    std::vector<Variant> graphs;
    try {
        graphs = variants(corpus_dir() / (name + ".onnx"));
    } catch (const std::exception& e) {
        // One line per model in the summary, whatever failed: the import or a dump.
        std::printf("  %-36s does not convert: %s\n", name.c_str(), e.what());
        FAIL() << e.what();
    }
    for (Variant& v : graphs) {
        SCOPED_TRACE(v.label);
        const std::vector<eval::GraphInput> inputs = eval::graph_inputs(v.graph);
        ASSERT_EQ(inputs.size(), 1u);
        ASSERT_EQ(inputs[0].name, expect["inputs"][0].get<std::string>());
        eval::Feeds feeds;
        feeds.emplace(inputs[0].name,
                      eval::read_npy_tensor(corpus_dir() / expect["input_file"].get<std::string>(), inputs[0].dtype));

        const auto started = std::chrono::steady_clock::now();
        std::vector<eval::EvalOutput> got;
        try {
            got = eval::evaluate(v.graph, feeds);
        } catch (const std::exception& e) {
            std::printf("  %-36s %-8s does not run: %s\n", name.c_str(), v.label.c_str(), e.what());
            ADD_FAILURE() << e.what();
            continue;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        ASSERT_EQ(got.size(), want.size());

        for (size_t k = 0; k < got.size(); ++k) {
            SCOPED_TRACE("output " + std::to_string(k));
            const eval::Tensor& out = got[k].value;
            ASSERT_EQ(ir::dtype_string(out.dtype()), ir::dtype_string(want[k].dtype()));
            ASSERT_EQ(ir::shape_string(out.shape()), ir::shape_string(want[k].shape()));
            const Comparison c = compare(out.data<float>(), want[k].data<float>());
            EXPECT_EQ(c.mismatched_nans, 0u);
            EXPECT_LE(c.rel(), kRelTolerance) << "largest |difference| " << c.max_abs_diff
                                              << ", largest |PyTorch output| " << c.max_abs_ref;
            std::string argmax;
            if (classifier) {
                EXPECT_EQ(c.argmax_got, c.argmax_want);
                argmax = c.argmax_got == c.argmax_want
                             ? fmt::format("  argmax {} = PyTorch's", c.argmax_got)
                             : fmt::format("  argmax {} != PyTorch's {}", c.argmax_got, c.argmax_want);
            }
            std::printf("  %-36s %-8s %4zu oprs  output %zu %-10s max rel err %.2e (|diff| %.2e of %.3g)%s  %.0f ms\n",
                        name.c_str(), v.label.c_str(), v.graph.oprs.size(), k, ir::shape_string(out.shape()).c_str(),
                        c.rel(), c.max_abs_diff, c.max_abs_ref, argmax.c_str(), seconds * 1e3);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, OnnxCorpusEval, ::testing::ValuesIn(corpus_models()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mgedump::test
