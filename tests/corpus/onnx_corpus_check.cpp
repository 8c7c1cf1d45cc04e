// The ONNX corpus check (tools/corpus_test.sh): every model tools/make_onnx_corpus.py
// generated converts to FBS and FBS_V2, loads back with the readers, and has the
// operators, params and param bytes its expectation file (computed from the ONNX
// graph with the onnx package) says: the number of compute operators, the one-to-one
// families among them, params and param bytes. Not part of the default suite: it
// needs the generated corpus.
//
//   MGEDUMP_ONNX_CORPUS=DIR build/mgedump_corpus_tests
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/dump.h"
#include "formats/model_reader.h"
#include "formats/onnx_import.h"
#include "ir/op_registry.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
    const char* env = std::getenv("MGEDUMP_ONNX_CORPUS");
    return env ? fs::path(env) : fs::path(MGEDUMP_SOURCE_DIR) / "build" / "onnx-corpus";
}

std::vector<std::string> corpus_models() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(corpus_dir(), ec))
        if (e.path().extension() == ".onnx") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// MegEngine operator families that correspond one to one to ONNX operators.
const std::map<std::string, std::vector<std::string_view>>& families() {
    static const std::map<std::string, std::vector<std::string_view>> f{
        {"conv", {"ConvBias", "Convolution"}},
        {"deconv", {"ConvolutionBackwardData"}},
        {"matmul", {"MatrixMul", "BatchedMatrixMul"}},
        {"pooling", {"Pooling"}},
        {"softmax", {"Softmax"}},
    };
    return f;
}

struct Census {
    std::map<std::string, int64_t> families;
    int64_t params = 0, param_bytes = 0, oprs = 0, compute = 0;
};

Census census(const ir::Graph& g) {
    Census c;
    c.oprs = static_cast<int64_t>(g.oprs.size());
    for (size_t o = 0; o < g.oprs.size(); ++o) {
        std::string_view name = ir::op_def(g.oprs.type[o]).name;
        c.compute += name != "Host2DeviceCopy" && name != "ImmutableTensor" && name != "SharedDeviceTensor";
        for (const auto& [family, ops] : families())
            if (std::find(ops.begin(), ops.end(), name) != ops.end()) ++c.families[family];
        if (name == "SharedDeviceTensor") {
            ++c.params;
            ir::Range t = g.oprs.tensors[o];
            c.param_bytes += static_cast<int64_t>(g.blobs.bytes(g.tensors.blob[t.begin]).size());
        }
    }
    return c;
}

class OnnxCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxCorpus, ConvertsToBothFormatsAndMatchesTheOnnxGraph) {
    const fs::path model = corpus_dir() / (GetParam() + ".onnx");
    nlohmann::json expect =
        nlohmann::json::parse(std::ifstream(corpus_dir() / (GetParam() + ".expect.json")));
    ir::Graph g = formats::import_onnx(model, {.params_as_shared_device_tensor = true});
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        SCOPED_TRACE(format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2");
        engine::DumpOptions o;
        o.dump_format = format;
        o.keep_param_name = true;
        o.no_change_graph = true;  // the operators as imported, for counting
        engine::Dumped d = engine::dump_graph(g, o);
        auto bytes = std::make_shared<std::vector<std::byte>>(d.bytes.to_bytes());
        formats::LoadedModel loaded = formats::read_model(ir::Bytes(*bytes), bytes);
        Census c = census(loaded.graph);
        for (const auto& [family, count] : expect["families"].items())
            EXPECT_EQ(c.families[family], count.get<int64_t>()) << family;
        EXPECT_EQ(c.compute, expect["compute_operators"].get<int64_t>());
        EXPECT_EQ(c.params, expect["params"].get<int64_t>());
        EXPECT_EQ(c.param_bytes, expect["param_bytes"].get<int64_t>());
        EXPECT_EQ(loaded.graph.outputs.size(), expect["outputs"].size());
        EXPECT_EQ(d.result.nr_opr, static_cast<uint64_t>(c.oprs));
        // The default dump (with MegEngine's compatibility rewrites) works too.
        o.no_change_graph = false;
        engine::Dumped rewritten = engine::dump_graph(g, o);
        auto rb = std::make_shared<std::vector<std::byte>>(rewritten.bytes.to_bytes());
        EXPECT_NO_THROW(formats::read_model(ir::Bytes(*rb), rb));
        std::printf(
            "  %-22s %-6s nr_opr %5llu  compute %4lld  params %4lld  param bytes %11lld  file %11zu\n",
            GetParam().c_str(), format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2",
            static_cast<unsigned long long>(d.result.nr_opr), static_cast<long long>(c.compute),
            static_cast<long long>(c.params), static_cast<long long>(c.param_bytes), bytes->size());
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, OnnxCorpus, ::testing::ValuesIn(corpus_models()),
                         [](const auto& info) { return info.param; });

TEST(OnnxCorpusPresent, HasEveryModelTheIssueNames) {
    auto names = corpus_models();
    for (const char* want :
         {"resnet18", "resnet18_unfused_bn", "resnet50", "mobilenet_v2", "shufflenet_v2_x0_5",
          "squeezenet1_1", "efficientnet_b0", "vgg11", "transformer_encoder"})
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end())
            << want << " missing from " << corpus_dir() << " (run tools/make_onnx_corpus.py)";
}

}  // namespace
}  // namespace mgedump::test

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
