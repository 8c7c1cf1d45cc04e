// ONNX models through the command line: `mgedump dump model.onnx` and batch manifests.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "engine/load.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

class OnnxCli : public TempDirTest {
  protected:
    OnnxCli() : TempDirTest("mgedump_onnx_cli_") {}

    fs::path small_cnn(const std::string& name) {
        OnnxModel m;
        m.input("data", {1, 3, 8, 8}).output("prob");
        m.ramp("conv.weight", {4, 3, 3, 3});
        m.ramp("conv.bias", {4});
        set_attr(m.node("Conv", {"data", "conv.weight", "conv.bias"}, {"c"}), "pads",
                 std::vector<int64_t>{1, 1, 1, 1});
        m.node("Relu", {"c"}, {"r"});
        m.node("GlobalAveragePool", {"r"}, {"p"});
        m.node("Flatten", {"p"}, {"f"});
        m.node("Softmax", {"f"}, {"prob"});
        return m.write(dir / name);
    }
};

TEST_F(OnnxCli, DumpConvertsAnOnnxModelAndKeepsParamNamesWhenAsked) {
    fs::path model = small_cnn("cnn.onnx");
    fs::path out = dir / "cnn.mge";
    CliRun r = run_cli("dump " + model.string() + " -o " + out.string() +
                       " --params-as-shared --keep-param-name --dump-format FBS --json");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("\"conv.weight\""), std::string::npos) << r.out;
    formats::LoadedModel m = engine::load_file(out.string());
    EXPECT_EQ(m.format, formats::ModelFormat::FbsMGBC);
    EXPECT_EQ(count_ops(m.graph, "ConvBias"), 1u);
    EXPECT_EQ(count_ops(m.graph, "SharedDeviceTensor"), 2u);
}

TEST_F(OnnxCli, UnsupportedOperatorFailsWithTheNodeAndLeavesNoOutput) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("StringNormalizer", {"x"}, {"y"}, "act");
    fs::path model = m.write(dir / "bad.onnx");
    fs::path out = dir / "bad.mge";
    CliRun r = run_cli("dump " + model.string() + " -o " + out.string());
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("1 operator type cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported ones): "
                         "StringNormalizer (1 node, first 'act')"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(out));
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// The readers name the file in their messages; the command adds it only where
// the message does not (the dump's own errors), so a path is never said twice.
TEST_F(OnnxCli, AnUnreadableModelIsNamedOnceAndLeavesNoOutput) {
    const fs::path garbage = dir / "garbage.onnx";
    std::ofstream(garbage) << "not a model";
    const fs::path out = dir / "out.mge";
    CliRun r = run_cli("dump " + garbage.string() + " -o " + out.string());
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("not an ONNX model"), std::string::npos) << r.out;
    EXPECT_EQ(occurrences(r.out, garbage.string()), 1u) << r.out;
    EXPECT_FALSE(fs::exists(out));
    // A model that is not there, or not a file: named once, with the reason.
    const fs::path missing = dir / "missing.onnx";
    r = run_cli("dump " + missing.string() + " -o " + out.string());
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(occurrences(r.out, missing.string()), 1u) << r.out;
    EXPECT_NE(r.out.find("cannot open: No such file"), std::string::npos) << r.out;
    fs::create_directories(dir / "folder.onnx");
    r = run_cli("dump " + (dir / "folder.onnx").string() + " -o " + out.string());
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(occurrences(r.out, (dir / "folder.onnx").string()), 1u) << r.out;
    EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
    // An option error is the dump's own: it names the input it was dumping.
    const fs::path good = small_cnn("good.onnx");
    r = run_cli("dump " + good.string() + " -o " + out.string() + " --compat-older-version 8.14");
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(occurrences(r.out, good.string()), 1u) << r.out;
    EXPECT_NE(r.out.find("8.14"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
}

// torch.onnx.export(..., dynamic_axes={"data": {0: "batch"}, ...}) gives symbolic dims.
TEST_F(OnnxCli, InputShapeFixesTheSymbolicDimensionsOfADynamicAxesExport) {
    OnnxModel m;
    m.symbolic_input("data", {"batch", "3", "h", "w"}).output("prob");
    m.ramp("conv.weight", {4, 3, 3, 3});
    m.node("Conv", {"data", "conv.weight"}, {"c"});
    m.node("GlobalAveragePool", {"c"}, {"p"});
    m.node("Flatten", {"p"}, {"prob"});
    const fs::path model = m.write(dir / "dynamic.onnx"), out = dir / "dynamic.mge";
    CliRun r = run_cli("dump " + model.string() + " -o " + out.string());
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("dimension 0 ('batch') is symbolic; fix the input's shape with --input-shape data="),
              std::string::npos)
        << r.out;
    r = run_cli("dump " + model.string() + " -o " + out.string() + " --input-shape data=2x3x10x9");
    ASSERT_EQ(r.status, 0) << r.out;
    formats::LoadedModel loaded = engine::load_file(out.string());
    ir::OprId in = find_opr(loaded.graph, "Host2DeviceCopy");
    auto shape = loaded.graph.tensor_shape(ir::TensorId(loaded.graph.oprs.tensors[in.value].begin));
    EXPECT_EQ(std::vector<uint32_t>(shape.begin(), shape.end()), (std::vector<uint32_t>{2, 3, 10, 9}));
    // Malformed, duplicated or unknown shapes are usage errors.
    for (std::string bad :
         {"--input-shape data=2x3xhx9", "--input-shape data=2x3x8x8 --input-shape data=1x3x8x8",
          "--input-shape image=1x3x8x8 --input-shape data=1x3x8x8"}) {
        r = run_cli("dump " + model.string() + " -o " + out.string() + " " + bad);
        EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    }
}

TEST_F(OnnxCli, BatchManifestAcceptsOnnxInputs) {
    small_cnn("cnn.onnx");
    std::ofstream(dir / "jobs.json") << R"({"jobs": [{"input": "cnn.onnx", "output": "cnn.mge"}]})";
    CliRun r = run_cli("batch " + (dir / "jobs.json").string() + " -o " + (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.out;
    formats::LoadedModel m = engine::load_file((dir / "out" / "cnn.mge").string());
    EXPECT_EQ(count_ops(m.graph, "ConvBias"), 1u);
    EXPECT_EQ(count_ops(m.graph, "Pooling"), 1u);
}

TEST_F(OnnxCli, DirectoryBatchPicksUpOnnxModelsBesideGraphJson) {
    fs::create_directories(dir / "in");
    small_cnn("in/cnn.onnx");
    fs::copy_file(fs::path(MGEDUMP_SOURCE_DIR) / "examples" / "tiny_cnn.json", dir / "in" / "tiny_cnn.json");
    CliRun r = run_cli("batch " + (dir / "in").string() + " -o " + (dir / "out").string());
    ASSERT_EQ(r.status, 0) << r.out;
    formats::LoadedModel m = engine::load_file((dir / "out" / "cnn.mge").string());
    EXPECT_EQ(count_ops(m.graph, "ConvBias"), 1u);
    EXPECT_TRUE(fs::exists(dir / "out" / "tiny_cnn.mge"));
}

}  // namespace
}  // namespace mgedump::test
