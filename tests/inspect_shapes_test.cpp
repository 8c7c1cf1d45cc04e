// `mgedump inspect` shows each operator output's dtype and shape as static
// inference finds them (ir/infer.h). Expectations come from MegEngine's rules
// (its convolution formula, TypeCvt's target dtype) and from files MegEngine
// wrote (the MiddleTensor shapes it recorded), never from our own output.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli_run.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

using test::CliRun;

// MegEngine's output size of a convolution or pooling window (megdnn's
// infer_conv_shape2d): (i + 2p - f) / s + 1.
uint32_t conv_out(uint32_t in, uint32_t pad, uint32_t filter, uint32_t stride) {
    return (in + 2 * pad - filter) / stride + 1;
}

// The "vars:" section of `inspect`: var name -> "dtype shape" (several vars of
// one name keep the last; the tests use unique names).
std::map<std::string, std::string> listed_vars(const std::string& out) {
    std::map<std::string, std::string> vars;
    static const std::regex line(R"(^  (\S+) +(.+) (unknown|\[[0-9, ]*\])  <- #\d+ .*$)");
    std::istringstream in(out.substr(out.find("\nvars:\n") + 1));
    std::smatch m;
    for (std::string l; std::getline(in, l);)
        if (std::regex_match(l, m, line)) vars[m[1]] = m[2].str() + " " + m[3].str();
    return vars;
}

// "Float32 [1, 16, 32, 32]", as inspect spells a dtype and a shape.
std::string typed(const std::string& dtype, std::initializer_list<uint32_t> dims) {
    std::string s = dtype + " [";
    for (uint32_t d : dims) s += (s.back() == '[' ? "" : ", ") + std::to_string(d);
    return s + "]";
}

class InspectShapes : public test::TempDirTest {
  protected:
    InspectShapes() : TempDirTest("mgedump_inspect_") {}

    // Dumps graph JSON `text` in `format`, every var name kept; returns the .mge path.
    std::string dump(const std::string& text, const std::string& format) {
        const std::string mge = (dir / ("g." + format + ".mge")).string();
        CliRun r = test::run_cli("dump " + write("g.json", text) + " -o " + mge + " --dump-format " + format +
                                 " --keep-var-name 2");
        EXPECT_EQ(r.status, 0) << r.out;
        return mge;
    }
};

// data [1,3,32,32] -> conv (16 filters 3x3, pad 1) -> conv2 (stride 2, no pad),
// and a TypeCvt of conv to Float16.
const char* kConvGraph = R"({
  "format": "mgedump-graph", "version": 1,
  "inputs": [{"name": "data", "dtype": "Float32", "shape": [1, 3, 32, 32]}],
  "constants": [{"name": "w", "dtype": "Float32", "shape": [16, 3, 3, 3], "fill": 0.5},
                {"name": "w2", "dtype": "Float32", "shape": [8, 16, 3, 3], "fill": 0.5}],
  "operators": [
    {"op": "Convolution", "name": "conv", "inputs": ["data", "w"], "params": {"pad_h": 1, "pad_w": 1}},
    {"op": "Convolution", "name": "conv2", "inputs": ["conv", "w2"], "params": {"stride_h": 2, "stride_w": 2}},
    {"op": "TypeCvt", "name": "half", "inputs": ["conv"], "params": {"dtype": "Float16"}},
    {"op": "Elemwise", "name": "sum", "inputs": ["conv2", "conv2"], "params": {"mode": "ADD"}}
  ],
  "outputs": ["sum", "half"]
})";

TEST_F(InspectShapes, ConvolutionShapesFollowMegEnginesFormula) {
    const uint32_t h = conv_out(32, 1, 3, 1), h2 = conv_out(h, 0, 3, 2);
    ASSERT_EQ(h, 32u);
    ASSERT_EQ(h2, 15u);
    // FBS v1 records no var shapes: what inspect shows there is inferred on load.
    for (const char* format : {"FBS", "FBS_V2"}) {
        SCOPED_TRACE(format);
        CliRun r = test::run_cli("inspect " + dump(kConvGraph, format));
        ASSERT_EQ(r.status, 0) << r.out;
        auto vars = listed_vars(r.out);
        EXPECT_EQ(vars["conv"], typed("Float32", {1, 16, h, h})) << r.out;
        EXPECT_EQ(vars["conv2"], typed("Float32", {1, 8, h2, h2})) << r.out;
        EXPECT_EQ(vars["sum"], typed("Float32", {1, 8, h2, h2})) << r.out;
        EXPECT_EQ(vars["w"], typed("Float32", {16, 3, 3, 3})) << r.out;
        EXPECT_NE(r.out.find("Elemwise(ADD)"), std::string::npos) << r.out;
    }
}

// The bug: an output was printed with its first input's dtype.
TEST_F(InspectShapes, TypeCvtOutputHasTheTargetDtype) {
    for (const char* format : {"FBS", "FBS_V2"}) {
        SCOPED_TRACE(format);
        CliRun r = test::run_cli("inspect " + dump(kConvGraph, format));
        ASSERT_EQ(r.status, 0) << r.out;
        EXPECT_EQ(listed_vars(r.out)["half"], typed("Float16", {1, 16, 32, 32})) << r.out;
        const std::string outputs = r.out.substr(r.out.find("\noutputs:\n"));
        EXPECT_NE(outputs.find("half                         Float16 [1, 16, 32, 32]"), std::string::npos)
            << r.out;
    }
    // A file MegEngine wrote (source.json: TypeCvt of x [2, 5] to Float16).
    const std::string real =
        test::shared_dir() + "/realdata/megengine-dumps/opmatrix.TypeCvt.Float32_to_Float16/";
    for (const char* variant : {"fbs.mge", "v2.mge"}) {
        CliRun r = test::run_cli("inspect " + real + variant);
        ASSERT_EQ(r.status, 0) << r.out;
        EXPECT_NE(r.out.find("  y                            Float16 [2, 5] (original id"), std::string::npos)
            << r.out;
    }
}

TEST_F(InspectShapes, ShapesOnlyKnownAtRunTimeAreUnknown) {
    // CondTake's output length depends on the values: MegEngine infers no shape
    // for it, nor for what is computed from it; its dtypes are still known.
    const std::string mge = dump(R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "x", "dtype": "Float32", "shape": [4]}],
      "operators": [
        {"op": "CondTake", "inputs": ["x", "x"], "params": {"mode": "EQ"}, "outputs": ["val", "idx"]},
        {"op": "Elemwise", "name": "r", "inputs": ["val"], "params": {"mode": "RELU"}}],
      "outputs": ["r", "idx"]})",
                                 "FBS");
    CliRun r = test::run_cli("inspect " + mge);
    ASSERT_EQ(r.status, 0) << r.out;
    auto vars = listed_vars(r.out);
    EXPECT_EQ(vars["val"], "Float32 unknown") << r.out;
    EXPECT_EQ(vars["idx"], "Int32 unknown") << r.out;
    EXPECT_EQ(vars["r"], "Float32 unknown") << r.out;
}

TEST_F(InspectShapes, JsonStatesOutputDtypesAndShapesAndReadsThemBack) {
    CliRun r = test::run_cli("inspect --json " + dump(kConvGraph, "FBS"));
    ASSERT_EQ(r.status, 0) << r.out;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    std::map<std::string, nlohmann::json> outputs;  // var name -> its output entry
    for (const auto& op : doc["operators"])
        for (const auto& o : op.value("outputs", nlohmann::json::array()))
            if (o.is_object() && o["name"].is_string()) outputs[o["name"]] = o;
    ASSERT_TRUE(outputs.count("half")) << r.out;
    EXPECT_EQ(outputs["half"]["dtype"], "Float16");
    EXPECT_EQ(outputs["half"]["shape"], nlohmann::json({1, 16, 32, 32}));
    EXPECT_EQ(outputs["conv2"]["dtype"], "Float32");
    EXPECT_EQ(outputs["conv2"]["shape"], nlohmann::json({1, 8, 15, 15}));

    // Accepted back as it is...
    const std::string json = write("back.json", r.out);
    CliRun back = test::run_cli("dump " + json + " -o " + (dir / "back.mge").string());
    EXPECT_EQ(back.status, 0) << back.out;
    // ...and refused, naming the place, when it contradicts inference.
    std::string wrong = r.out;
    wrong.replace(wrong.rfind("\"Float16\""), 9, "\"Int32\"");  // the output's, not TypeCvt's param
    CliRun bad = test::run_cli("dump " + write("bad.json", wrong) + " -o " + (dir / "bad.mge").string());
    EXPECT_NE(bad.status, 0) << bad.out;
    EXPECT_NE(bad.out.find("TypeCvt): outputs[0]: \"dtype\": \"Int32\" contradicts the inferred \"Float16\""),
              std::string::npos)
        << bad.out;
    EXPECT_FALSE(fs::exists(dir / "bad.mge"));
}

TEST_F(InspectShapes, JsonShapeContradictingInferenceIsAnError) {
    const std::string json = write("g.json", R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 5]}],
      "operators": [{"op": "Elemwise", "name": "y", "inputs": ["x"], "params": {"mode": "RELU"},
                     "outputs": [{"name": "y", "shape": [5, 2]}]}],
      "outputs": ["y"]})");
    CliRun r = test::run_cli("dump " + json + " -o " + (dir / "g.mge").string());
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(
        r.out.find(
            "operators[0] (\"y\", Elemwise): outputs[0]: \"shape\": [5, 2] contradicts the inferred [2,5]"),
        std::string::npos)
        << r.out;
}

TEST_F(InspectShapes, DotShowsModesTypesAndOutputNames) {
    CliRun r = test::run_cli("inspect --dot " + dump(kConvGraph, "FBS_V2"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("Elemwise(ADD)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("→ half: Float16 [1, 16, 32, 32]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[label=\"conv\\nFloat32 [1, 16, 32, 32]\"]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("label=\"output #1\\nhalf\""), std::string::npos) << r.out;
    // Graphviz breaks lines at "\n"; an escaped backslash before it would print it.
    EXPECT_EQ(r.out.find("\\\\n"), std::string::npos) << r.out;
}

// Every graph MegEngine wrote both ways: the FBS v1 file (no shapes recorded, so
// inspect shows inferred ones) against the shapes MegEngine recorded in the
// FBS_V2 file's MiddleTensors, by var name.
TEST_F(InspectShapes, InferredShapesMatchMegEnginesRecordedOnes) {
    const fs::path root = fs::path(test::shared_dir()) / "realdata/megengine-dumps";
    if (!fs::exists(root)) GTEST_SKIP() << root << " is missing";
    size_t compared = 0;
    for (const auto& entry : fs::directory_iterator(root)) {
        const fs::path v1 = entry.path() / "fbs_names.mge", v2 = entry.path() / "v2_names.flatc.json";
        if (!fs::exists(v1) || !fs::exists(v2)) continue;
        std::map<std::string, std::vector<nlohmann::json>> recorded;
        const nlohmann::json file = nlohmann::json::parse(test::file_bytes(v2));
        for (const auto& t : file["middle_tensors"])
            if (t.contains("name") && t.contains("shape")) recorded[t["name"]].push_back(t["shape"]);
        CliRun r = test::run_cli("inspect " + v1.string());
        ASSERT_EQ(r.status, 0) << v1 << ": " << r.out;
        for (const auto& [name, text] : listed_vars(r.out)) {
            auto it = recorded.find(name);
            if (it == recorded.end() || it->second.size() != 1)
                continue;  // not recorded, or not by a unique name
            if (text.ends_with(" unknown")) {
                ADD_FAILURE() << v1 << ": var " << name << " has no inferred shape; MegEngine recorded "
                              << it->second[0].dump();
                continue;
            }
            const std::string shape = text.substr(text.rfind(" [") + 1);
            EXPECT_EQ(nlohmann::json::parse(shape), it->second[0]) << v1 << ": var " << name;
            ++compared;
        }
    }
    EXPECT_GT(compared, 1000u);  // 248 graphs, most with several vars
}

}  // namespace
}  // namespace mgedump
