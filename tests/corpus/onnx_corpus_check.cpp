// The ONNX corpus check (tools/corpus_test.sh): every model tools/make_onnx_corpus.py
// generated converts to FBS and FBS_V2, loads back with the readers, and has the
// operators, params and param bytes its expectation file (computed from the ONNX
// graph with the onnx package) says: the number of compute operators, the one-to-one
// families among them, params and param bytes. Not part of the default suite: it
// needs the generated corpus.
//
// A second test checks static shape/dtype inference (ir/infer.h) on the imported
// graph: every graph output's inferred shape and dtype against what PyTorch computes,
// and every ONNX tensor's against the reference shape the expectation records for it
// (the exporter's value_info; PyTorch 1.13 records none, so onnx's shape inference of
// the exported file — see tools/make_onnx_corpus.py).
//
// The evaluator's check against PyTorch's outputs is tests/corpus/onnx_corpus_eval_check.cpp.
//
//   MGEDUMP_ONNX_CORPUS=DIR build/mgedump_corpus_tests
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <nlohmann/json.hpp>

#include "engine/dump.h"
#include "formats/model_reader.h"
#include "formats/onnx/import.h"
#include "formats/onnx/importer.h"
#include "formats/onnx/model_file.h"
#include "ir/op_registry.h"
#include "tests/corpus/onnx_corpus.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

// MegEngine operator families that correspond one to one to ONNX operators.
const std::map<std::string, std::vector<std::string_view>>& families() {
    static const std::map<std::string, std::vector<std::string_view>> f{
        {"conv", {"ConvBias", "Convolution", "Convolution3D"}},
        {"deconv", {"ConvolutionBackwardData", "Convolution3DBackwardData"}},
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

std::string fmt_count(const std::string& what, int n) { return " " + what + " " + std::to_string(n); }

class OnnxCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxCorpus, ConvertsToBothFormatsAndMatchesTheOnnxGraph) {
    const fs::path model = corpus_dir() / (GetParam() + ".onnx");
    nlohmann::json expect = read_expectations(GetParam());
    if (is_expected_refusal(expect, GetParam())) return;
    ir::Graph g = formats::import_onnx(model, {.params_as_shared_device_tensor = true});
    for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
        SCOPED_TRACE(format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2");
        if (format == engine::DumpFormat::FBS_V2 && fbs_v2_refused(expect)) {
            expect_fbs_v2_refusal(g, GetParam());
            continue;
        }
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
        // Null where the script's count has no rule for some ONNX operator (listed).
        if (!expect["compute_operators"].is_null()) {
            EXPECT_EQ(c.compute, expect["compute_operators"].get<int64_t>());
        } else if (format == engine::DumpFormat::FBS) {
            std::string ops;
            for (const auto& [op, n] : expect["compute_operators_no_rule"].items())
                ops += fmt_count(op, n.get<int>());
            std::printf("  %-36s compute count unchecked, the script has no rule for:%s\n", GetParam().c_str(),
                        ops.c_str());
        }
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
            "  %-36s %-6s nr_opr %5llu  compute %4lld  params %4lld  param bytes %11lld  file %11zu\n",
            GetParam().c_str(), format == engine::DumpFormat::FBS ? "FBS" : "FBS_V2",
            static_cast<unsigned long long>(d.result.nr_opr), static_cast<long long>(c.compute),
            static_cast<long long>(c.params), static_cast<long long>(c.param_bytes), bytes->size());
    }
}

// The MegEngine dtype an ONNX element type imports as (INT64 → Int32, DOUBLE →
// Float32: formats/onnx/ONNX_IMPORT.md); nullopt for types the corpus does not use.
std::optional<ir::DTypeEnum> megengine_dtype(int64_t onnx_elem_type) {
    switch (onnx_elem_type) {
        case 1: case 11: return ir::DTypeEnum::Float32;  // FLOAT, DOUBLE
        case 6: case 7: return ir::DTypeEnum::Int32;     // INT32, INT64
        case 9: return ir::DTypeEnum::Bool;
        case 10: return ir::DTypeEnum::Float16;
        default: return std::nullopt;
    }
}

std::optional<ir::DTypeEnum> megengine_dtype(std::string_view torch_dtype) {
    if (torch_dtype == "float32" || torch_dtype == "float64") return ir::DTypeEnum::Float32;
    if (torch_dtype == "int64" || torch_dtype == "int32") return ir::DTypeEnum::Int32;
    if (torch_dtype == "bool") return ir::DTypeEnum::Bool;
    return std::nullopt;
}

// MegEngine has no rank-0 tensors: an ONNX/PyTorch scalar [] is [1].
std::vector<uint32_t> megengine_dims(const nlohmann::json& dims) {
    std::vector<uint32_t> out;
    for (const auto& d : dims) out.push_back(d.get<uint32_t>());
    if (out.empty()) out.push_back(1);
    return out;
}

template <class Dims>
std::string dims_string(const Dims& dims) {
    if (dims.empty()) return "unknown";
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

bool same_dims(std::span<const uint32_t> a, const std::vector<uint32_t>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Where a var came from, for messages: its operator's type and name.
std::string describe_var(const ir::Graph& g, ir::VarId v) {
    ir::OprId o = g.vars.owner[v.value];
    return std::string(ir::op_def(g.oprs.type[o.value]).name) + " '" +
           std::string(g.strings.view(g.oprs.name[o.value])) + "'";
}

// Which vars are computed from a CondTake's output (the operators in the graph's
// own order, each after its inputs' producers): their shapes depend on the data.
std::vector<bool> computed_after_a_selection(const ir::Graph& g) {
    std::vector<bool> after(g.vars.size(), false);
    for (uint32_t o = 0; o < g.oprs.size(); ++o) {
        const ir::OprId id(o);
        bool depends = ir::op_def(g.oprs.type[o]).name == "CondTake";
        for (ir::VarId in : g.inputs_of(id)) depends = depends || after[in.value];
        const ir::Range outs = g.oprs.outputs[o];
        for (uint32_t v = outs.begin; v < outs.end(); ++v) after[v] = depends;
    }
    return after;
}

TEST_P(OnnxCorpus, InfersTheShapesOfPyTorchAndOfOnnxValueInfo) {
    const fs::path model = corpus_dir() / (GetParam() + ".onnx");
    nlohmann::json expect = read_expectations(GetParam());
    ASSERT_EQ(expect.value("expect_version", 1), kExpectVersion)
        << "stale expectation file; tools/corpus_test.sh regenerates it";
    if (is_expected_refusal(expect, GetParam())) return;

    // The importer itself rather than import_onnx: its value table maps every ONNX
    // tensor name to the graph var that holds it. Var names cannot: a var is named
    // after its operator, i.e. after the ONNX *node* ("/conv1/Conv", or with ":k"
    // for a node's later operators), never after the tensor ("/conv1/Conv_output_0");
    // only the graph input and outputs carry tensor names.
    formats::OnnxModelFile file = formats::read_onnx_model(model);
    formats::onnx_import::Importer importer(file, {.params_as_shared_device_tensor = true});
    ir::Graph g = importer.run();

    // Graph outputs: known, and equal to what PyTorch computes.
    const auto& torch_outputs = expect["torch_outputs"];
    ASSERT_EQ(g.outputs.size(), torch_outputs.size());
    int outputs_equal = 0;
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        ir::VarId v = g.outputs[k];
        auto want = megengine_dims(torch_outputs[k]["shape"]);
        auto got = g.var_shape(v);
        auto want_dtype = megengine_dtype(torch_outputs[k]["dtype"].get<std::string>());
        ASSERT_TRUE(want_dtype) << torch_outputs[k]["dtype"];
        // A detector's output has the rank and dtype of PyTorch's, its length
        // known only when the graph runs (MegEngine's inference leaves it unknown).
        const bool data_dependent = has_data_dependent_outputs(expect) && got.empty();
        if (data_dependent) {
            const auto* value = importer.value(expect["outputs"][k].get<std::string>());
            ASSERT_NE(value, nullptr);
            EXPECT_TRUE(value->runtime_shape) << "output #" << k;
            EXPECT_EQ(value->shape.size(), want.size()) << "output #" << k << ": the rank";
        }
        bool ok = (data_dependent || same_dims(got, want)) && g.vars.dtype[v.value].valid &&
                  g.vars.dtype[v.value].type == *want_dtype;
        outputs_equal += ok;
        EXPECT_TRUE(ok) << "output #" << k << " (" << describe_var(g, v) << "): PyTorch " << dims_string(want)
                        << " " << ir::dtype_name(*want_dtype) << ", inferred " << dims_string(got) << " "
                        << (g.vars.dtype[v.value].valid ? ir::dtype_name(g.vars.dtype[v.value].type) : "unknown");
    }

    // Every ONNX tensor with a reference shape: the exporter's value_info where it
    // records one, else onnx's inference (the script checks the two agree).
    std::map<std::string, nlohmann::json> reference;
    for (const auto& [name, t] : expect["onnx_value_info"].items()) reference[name] = t;
    for (const auto& [name, t] : expect["value_info"].items()) reference[name] = t;
    for (const auto& [name, t] : expect["declared_outputs"].items()) reference[name] = t;
    // Folded: the tensor is an import-time constant with no graph var of its own, so
    // there is nothing inference could know; its import-time shape is checked
    // instead. On this corpus those are the Identity aliases torch writes for shared
    // initializers (their readers get the initializer's SharedDeviceTensor var), Clip
    // bounds and other Constant nodes, and the integer shape arithmetic of chunk and
    // multi-head attention (Shape -> Gather -> Add -> Div -> Mul -> Slice operands).
    int equal = 0, mismatched = 0, unknown = 0, folded = 0, missing = 0, dtype_mismatched = 0,
        data_dependent = 0;
    std::map<std::string, int> folded_ops;  // by the ONNX op type producing the tensor
    const std::vector<bool> after_selection = computed_after_a_selection(g);
    for (const auto& [name, t] : reference) {
        auto want = megengine_dims(t["dims"]);
        const formats::onnx_import::Value* value = importer.value(name);
        if (!value) {
            ++missing;
            ADD_FAILURE() << name << ": the importer has no value of that name";
            continue;
        }
        if (!value->var.valid()) {
            ++folded;
            ++folded_ops[expect["node_output_ops"].value(name, std::string("graph input/initializer"))];
            std::vector<uint32_t> own;
            for (int64_t d : value->shape) own.push_back(static_cast<uint32_t>(d));
            if (own.empty()) own.push_back(1);
            EXPECT_EQ(own, want) << name << ": folded constant's import-time shape";
            continue;
        }
        auto got = g.var_shape(value->var);
        // The importer's own propagated shape, to tell an importer bug from a rule's.
        std::string own = "[";
        for (size_t i = 0; i < value->shape.size(); ++i) own += (i ? "," : "") + std::to_string(value->shape[i]);
        own += "]";
        if (got.empty() && has_data_dependent_outputs(expect) && after_selection[value->var.value]) {
            // After a selection: a shape MegEngine's inference does not know (a
            // CondTake's output has no static shape, and what is computed from it,
            // its GetVarShape included, none either), where onnx's symbolic
            // inference may.
            ++data_dependent;
        } else if (got.empty()) {
            ++unknown;
            ADD_FAILURE() << name << " (" << describe_var(g, value->var) << "): shape not inferred; reference "
                          << dims_string(want) << ", importer's own " << own;
        } else if (!same_dims(got, want)) {
            ++mismatched;
            ADD_FAILURE() << name << " (" << describe_var(g, value->var) << "): inferred " << dims_string(got)
                          << ", reference " << dims_string(want) << ", importer's own " << own;
        } else {
            ++equal;
        }
        auto want_dtype = megengine_dtype(t["elem_type"].get<int64_t>());
        ir::DType got_dtype = g.vars.dtype[value->var.value];
        if (want_dtype && !(got_dtype.valid && got_dtype.type == *want_dtype)) {
            ++dtype_mismatched;
            ADD_FAILURE() << name << " (" << describe_var(g, value->var) << "): inferred dtype "
                          << (got_dtype.valid ? ir::dtype_name(got_dtype.type) : "unknown") << ", reference "
                          << ir::dtype_name(*want_dtype);
        }
    }
    // Every ONNX node output has a reference (the script's folding leaves none
    // unknown), but for a detector's the lengths its selections leave to the data.
    if (has_data_dependent_outputs(expect))
        EXPECT_LE(static_cast<int64_t>(reference.size()), expect["node_outputs"].get<int64_t>());
    else
        EXPECT_EQ(static_cast<int64_t>(reference.size()), expect["node_outputs"].get<int64_t>());
    std::printf(
        "  %-36s outputs %zu/%zu equal to PyTorch;  tensors %4zu: %4d equal, %d mismatched, %d unknown, "
        "%d dtype mismatched, %3d folded at import, %d missing, %d after a selection\n",
        GetParam().c_str(), static_cast<size_t>(outputs_equal), g.outputs.size(), reference.size(), equal,
        mismatched, unknown, dtype_mismatched, folded, missing, data_dependent);
    std::string breakdown;
    for (const auto& [op, n] : folded_ops) breakdown += fmt_count(op, n);
    std::printf("  %-36s folded at import: %s\n", "", breakdown.c_str());
}

INSTANTIATE_TEST_SUITE_P(Corpus, OnnxCorpus, ::testing::ValuesIn(corpus_models()),
                         [](const auto& info) { return info.param; });

TEST(OnnxCorpusPresent, HasEveryModelTheIssueNamesAndTheScriptLists) {
    auto names = corpus_models();
    // The script's whole table (a model whose export failed shows here as missing),
    // and the first nine models whatever an older script listed.
    std::vector<std::string> wanted = intended_corpus_models();
    for (const char* want : {"resnet18", "resnet18_unfused_bn", "resnet50", "mobilenet_v2", "shufflenet_v2_x0_5",
                             "squeezenet1_1", "efficientnet_b0", "vgg11", "transformer_encoder"})
        wanted.push_back(want);
    const std::vector<std::string> streamed = streamed_corpus_models();
    for (const std::string& want : wanted) {
        if (std::find(streamed.begin(), streamed.end(), want) != streamed.end()) {
            // Checked one at a time by tools/corpus_test.sh, its .onnx deleted after
            // (vgg11 among them): what stays is an expectation file of this version.
            std::error_code ec;
            EXPECT_TRUE(fs::exists(corpus_dir() / (want + ".expect.json"), ec) &&
                        read_expectations(want).value("expect_version", 1) == kExpectVersion)
                << want << " (streamed) has no current expectation file in " << corpus_dir();
            continue;
        }
        EXPECT_NE(std::find(names.begin(), names.end(), want), names.end())
            << want << " missing from " << corpus_dir() << " (run tools/make_onnx_corpus.py)";
    }
}

}  // namespace
}  // namespace mgedump::test

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
