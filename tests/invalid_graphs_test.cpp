// Graphs MegEngine would refuse are refused by mgedump before a byte is written:
// from `mgedump dump` (non-zero exit, the operator and the broken rule on stderr,
// no file at the output path) and from `mgedump batch` (each such job failed with
// its message in the report, the valid job written, exit status 1). The same
// table is exercised from Python in tests/python/test_invalid_graphs.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cli_run.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

struct InvalidCase {
    const char* name;
    // The graph's sections (inputs, constants, operators, outputs), without the header.
    const char* graph;
    // Every one must appear in the error: the operator ('name' (Type)) and the rule.
    std::vector<std::string> expect;
    // The JSON place the CLI puts before the message; empty when the error is not
    // about an operator of the file as written (a compatibility rewrite's).
    std::string place;
};

// clang-format off
const std::vector<InvalidCase>& cases() {
    static const std::vector<InvalidCase> all = {
        {"conv_in_channels",
         R"("inputs": [{"name": "data", "dtype": "Float32", "shape": [1, 3, 32, 32]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [16, 4, 3, 3], "fill": 1}],
            "operators": [{"op": "Convolution", "name": "conv1", "inputs": ["data", "w"]}],
            "outputs": ["conv1"])",
         {"'conv1' (Convolution)", "weight [16,4,3,3] needs 4 input channels", "input 0 has 3"},
         R"(operators[0] ("conv1", Convolution))"},
        {"matmul_k_mismatch",
         R"("inputs": [{"name": "a", "dtype": "Float32", "shape": [2, 32]}],
            "constants": [{"name": "b", "dtype": "Float32", "shape": [31, 10], "fill": 1}],
            "operators": [{"op": "MatrixMul", "name": "mm", "inputs": ["a", "b"]}],
            "outputs": ["mm"])",
         {"'mm' (MatrixMul)", "K=32", "K=31", "K must match"},
         R"(operators[0] ("mm", MatrixMul))"},
        {"reshape_element_count",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]}],
            "constants": [{"name": "tshape", "dtype": "Int32", "shape": [2], "values": [4, 2]}],
            "operators": [{"op": "Reshape", "name": "rs", "inputs": ["x", "tshape"]}],
            "outputs": ["rs"])",
         {"'rs' (Reshape)", "[2,3] (6 elements)", "[4,2] (8 elements)"},
         R"(operators[0] ("rs", Reshape))"},
        {"pooling_stride_0",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 3, 8, 8]}],
            "operators": [{"op": "Pooling", "name": "pool", "inputs": ["x"], "params": {"stride_h": 0}}],
            "outputs": ["pool"])",
         {"'pool' (Pooling)", "stride_h 0", "a stride of 0 is refused"},
         R"(operators[0] ("pool", Pooling))"},
        {"convolution_stride_0",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 3, 8, 8]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4, 3, 3, 3], "fill": 1}],
            "operators": [{"op": "Convolution", "name": "conv", "inputs": ["x", "w"], "params": {"stride_h": 0}}],
            "outputs": ["conv"])",
         {"'conv' (Convolution)", "stride_h 0", "a stride of 0 is refused"},
         R"(operators[0] ("conv", Convolution))"},
        {"elemwise_relu_2_inputs",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]},
                       {"name": "y", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "relu", "inputs": ["x", "y"], "params": {"mode": "RELU"}}],
            "outputs": ["relu"])",
         {"'relu' (Elemwise)", "mode RELU takes 1 input, has 2"},
         R"(operators[0] ("relu", Elemwise))"},
        {"elemwise_add_3_inputs",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]},
                       {"name": "y", "dtype": "Float32", "shape": [2, 3]},
                       {"name": "z", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "add", "inputs": ["x", "y", "z"], "params": {"mode": "ADD"}}],
            "outputs": ["add"])",
         {"'add' (Elemwise)", "mode ADD takes 2 inputs, has 3"},
         R"(operators[0] ("add", Elemwise))"},
        {"softmax_axis_5_on_4d",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 2, 3, 4]}],
            "operators": [{"op": "Softmax", "name": "sm", "inputs": ["x"], "params": {"axis": 5}}],
            "outputs": ["sm"])",
         {"'sm' (Softmax)", "axis 5 is out of range for a 4-dim input"},
         R"(operators[0] ("sm", Softmax))"},
        {"mha_4_inputs_only_biaskv",
         R"("inputs": [{"name": "q", "dtype": "Float32", "shape": [2, 4, 8]},
                       {"name": "k", "dtype": "Float32", "shape": [2, 4, 8]},
                       {"name": "v", "dtype": "Float32", "shape": [2, 4, 8]}],
            "constants": [{"name": "wb", "dtype": "Float32", "shape": [1], "fill": 1}],
            "operators": [{"op": "MultiHeadAttn", "name": "mha", "inputs": ["q", "k", "v", "wb"],
                           "params": {"tensor_combination_type": "ONLY_BIASKV", "num_heads": 1,
                                      "embeding_size": 8, "k_size": 8, "v_size": 8},
                           "outputs": ["mha:0", "mha:1", "mha:2", "mha:3"]}],
            "outputs": ["mha:0"])",
         {"'mha' (MultiHeadAttn)", "with 4 inputs tensor_combination_type must be NONE, got ONLY_BIASKV"},
         R"(operators[0] ("mha", MultiHeadAttn))"},
        {"mha_4_inputs_all",
         R"("inputs": [{"name": "q", "dtype": "Float32", "shape": [2, 4, 8]},
                       {"name": "k", "dtype": "Float32", "shape": [2, 4, 8]},
                       {"name": "v", "dtype": "Float32", "shape": [2, 4, 8]}],
            "constants": [{"name": "wb", "dtype": "Float32", "shape": [1], "fill": 1}],
            "operators": [{"op": "MultiHeadAttn", "name": "mha", "inputs": ["q", "k", "v", "wb"],
                           "params": {"tensor_combination_type": "ALL", "num_heads": 1,
                                      "embeding_size": 8, "k_size": 8, "v_size": 8},
                           "outputs": ["mha:0", "mha:1", "mha:2", "mha:3"]}],
            "outputs": ["mha:0"])",
         {"'mha' (MultiHeadAttn)", "with 4 inputs tensor_combination_type must be NONE, got ALL"},
         R"(operators[0] ("mha", MultiHeadAttn))"},
        {"group_norm_backward_3_inputs",
         R"("inputs": [{"name": "dy", "dtype": "Float32", "shape": [2, 4, 3, 3]},
                       {"name": "x", "dtype": "Float32", "shape": [2, 4, 3, 3]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4], "fill": 1}],
            "operators": [{"op": "GroupNormBackward", "name": "gnb", "inputs": ["dy", "x", "w"],
                           "params": {"group": 2}}],
            "outputs": ["gnb:0"])",
         {"'gnb' (GroupNormBackward)", "takes 5 inputs", "has 3"},
         R"(operators[0] ("gnb", GroupNormBackward))"},
        {"instance_norm_backward_3_inputs",
         R"("inputs": [{"name": "dy", "dtype": "Float32", "shape": [2, 4, 3, 3]},
                       {"name": "x", "dtype": "Float32", "shape": [2, 4, 3, 3]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4], "fill": 1}],
            "operators": [{"op": "InstanceNormBackward", "name": "inb", "inputs": ["dy", "x", "w"]}],
            "outputs": ["inb:0"])",
         {"'inb' (InstanceNormBackward)", "takes 5 inputs", "has 3"},
         R"(operators[0] ("inb", InstanceNormBackward))"},
        {"convolution3d_io16xc32_on_float32",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 2, 4, 4, 4]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4, 2, 3, 3, 3], "fill": 1}],
            "operators": [{"op": "Convolution3D", "name": "c3d", "inputs": ["x", "w"],
                           "params": {"data_type": "FLOAT_IO16xC32"}}],
            "outputs": ["c3d"])",
         {"'c3d' (Convolution3D)", "data_type FLOAT_IO16xC32 needs Float16 inputs", "input 0 is Float32"},
         R"(operators[0] ("c3d", Convolution3D))"},
        {"elemwise_multi_type_qadd_1_input",
         R"("inputs": [{"name": "x", "dtype": "QuantizedS8", "scale": 0.5, "shape": [2, 3]}],
            "operators": [{"op": "ElemwiseMultiType", "name": "qadd", "inputs": ["x"], "params": {"mode": "QADD"},
                           "output_dtype": {"dtype": "QuantizedS8", "scale": 0.5}}],
            "outputs": ["qadd"])",
         {"'qadd' (ElemwiseMultiType)", "mode QADD takes 2 inputs, has 1"},
         R"(operators[0] ("qadd", ElemwiseMultiType))"},
        {"elemwise_multi_type_eq_without_output_dtype",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]},
                       {"name": "y", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "ElemwiseMultiType", "name": "eq", "inputs": ["x", "y"], "params": {"mode": "EQ"}}],
            "outputs": ["eq"])",
         {"'eq' (ElemwiseMultiType)", "mode EQ needs an output dtype"},
         R"(operators[0] ("eq", ElemwiseMultiType))"},
        {"batch_norm_4_inputs",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 4, 3, 3]}],
            "constants": [{"name": "s", "dtype": "Float32", "shape": [1, 4, 1, 1], "fill": 1},
                          {"name": "b", "dtype": "Float32", "shape": [1, 4, 1, 1], "fill": 0},
                          {"name": "m", "dtype": "Float32", "shape": [1, 4, 1, 1], "fill": 0}],
            "operators": [{"op": "BatchNorm", "name": "bn", "inputs": ["x", "s", "b", "m"],
                           "outputs": ["bn:0", "bn:1", "bn:2", "bn:3", "bn:4", "bn:5"]}],
            "outputs": ["bn:5"])",
         {"'bn' (BatchNorm)", "takes 3 inputs", "or 5", "has 4"},
         R"(operators[0] ("bn", BatchNorm))"},
        {"layer_norm_2_inputs",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3, 4]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4], "fill": 1}],
            "operators": [{"op": "LayerNorm", "name": "ln", "inputs": ["x", "w"],
                           "params": {"normalized_dim": 1, "normalized_size": 4}}],
            "outputs": ["ln:0"])",
         {"'ln' (LayerNorm)", "takes 1 input", "or 3", "has 2"},
         R"(operators[0] ("ln", LayerNorm))"},
        {"group_norm_2_inputs",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 4, 3, 3]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4], "fill": 1}],
            "operators": [{"op": "GroupNorm", "name": "gn", "inputs": ["x", "w"], "params": {"group": 2}}],
            "outputs": ["gn:0"])",
         {"'gn' (GroupNorm)", "takes 1 input", "or 3", "has 2"},
         R"(operators[0] ("gn", GroupNorm))"},
        {"elemwise_mul_on_quantized_s8",
         R"("inputs": [{"name": "x", "dtype": "QuantizedS8", "scale": 0.5, "shape": [2, 3]},
                       {"name": "y", "dtype": "QuantizedS8", "scale": 0.5, "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "mul", "inputs": ["x", "y"], "params": {"mode": "MUL"}}],
            "outputs": ["mul"])",
         {"'mul' (Elemwise)", "mode MUL does not take quantized inputs"},
         R"(operators[0] ("mul", Elemwise))"},
        {"reduce_one_input_default_axis",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Reduce", "name": "red", "inputs": ["x"], "params": {"mode": "SUM"}}],
            "outputs": ["red"])",
         {"'red' (Reduce)", "needs an axis", "axis is 2147483647"},
         R"(operators[0] ("red", Reduce))"},
        {"dimshuffle_axis_out_of_range",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Dimshuffle", "name": "ds", "inputs": ["x"], "params": {"pattern": [0, 2]}}],
            "outputs": ["ds"])",
         {"'ds' (Dimshuffle)", "pattern entry 2 is out of range for ndim 2"},
         R"(operators[0] ("ds", Dimshuffle))"},
        {"dimshuffle_wrong_ndim",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Dimshuffle", "name": "ds", "inputs": ["x"],
                           "params": {"pattern": [1, 0], "ndim": 3}}],
            "outputs": ["ds"])",
         {"'ds' (Dimshuffle)", "ndim is 3, the input has 2 dims"},
         R"(operators[0] ("ds", Dimshuffle))"},
        {"group_convolution_4d_filter",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 4, 8, 8]}],
            "constants": [{"name": "w", "dtype": "Float32", "shape": [4, 2, 3, 3], "fill": 1}],
            "operators": [{"op": "Convolution", "name": "gconv", "inputs": ["x", "w"], "params": {"sparse": "GROUP"}}],
            "outputs": ["gconv"])",
         {"'gconv' (Convolution)", "GROUP convolution needs a 5-dim filter", "[4,2,3,3]"},
         R"(operators[0] ("gconv", Convolution))"},
        {"elemwise_neq",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]},
                       {"name": "y", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "neq", "inputs": ["x", "y"], "params": {"mode": "NEQ"}}],
            "outputs": ["neq"])",
         {"'neq' (Elemwise)", "mode NEQ is not an Elemwise mode MegEngine can run", "ElemwiseMultiType NEQ"},
         R"(operators[0] ("neq", Elemwise))"},
        {"elemwise_isnan",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "isnan", "inputs": ["x"], "params": {"mode": "ISNAN"}}],
            "outputs": ["isnan"])",
         {"'isnan' (Elemwise)", "mode ISNAN is not an Elemwise mode MegEngine can run", "ElemwiseMultiType ISNAN"},
         R"(operators[0] ("isnan", Elemwise))"},
        {"elemwise_isinf",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "isinf", "inputs": ["x"], "params": {"mode": "ISINF"}}],
            "outputs": ["isinf"])",
         {"'isinf' (Elemwise)", "mode ISINF is not an Elemwise mode MegEngine can run", "ElemwiseMultiType ISINF"},
         R"(operators[0] ("isinf", Elemwise))"},
        // Valid as written (it dumps with --no-change-graph, below), but the SQUARE →
        // POW rewrite would change its output's dtype: MegEngine's replace_var refuses.
        {"elemwise_square_int32_rewrite",
         R"("inputs": [{"name": "x", "dtype": "Int32", "shape": [2, 3]}],
            "operators": [{"op": "Elemwise", "name": "sq", "inputs": ["x"], "params": {"mode": "SQUARE"}}],
            "outputs": ["sq"])",
         {"'sq' (Elemwise)", "compatibility rewrite", "Int32", "no_change_graph"},
         ""},
        // MegEngine builds it and refuses it when it runs (Reduce::KernScheduler::execute).
        {"reduce_max_of_empty_input",
         R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 0]}],
            "operators": [{"op": "Reduce", "name": "mx", "inputs": ["x"], "params": {"mode": "MAX", "axis": 1}}],
            "outputs": ["mx"])",
         {"'mx' (Reduce)", "MAX of an empty input [2,0] into a non-empty output [2,1]"},
         R"(operators[0] ("mx", Reduce))"},
        {"maxpool_uint8",
         R"("inputs": [{"name": "x", "dtype": "Uint8", "shape": [1, 3, 8, 8]}],
            "operators": [{"op": "Pooling", "name": "mp", "inputs": ["x"], "params": {"mode": "MAX"}}],
            "outputs": ["mp"])",
         {"'mp' (Pooling)", "input 0 is Uint8"},
         R"(operators[0] ("mp", Pooling))"},
    };
    return all;
}
// clang-format on

// Test names and failure messages show the case's name, not its bytes.
void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }

std::string graph_json(const InvalidCase& c) {
    return std::string(R"({"format": "mgedump-graph", "version": 1, )") + c.graph + "}";
}

fs::path fresh_dir(const std::string& tag) {
    fs::path d = fs::temp_directory_path() / ("mgedump_invalid_" + std::to_string(::getpid()) + "_" + tag);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), {}};
}

class InvalidGraphsDump : public ::testing::TestWithParam<InvalidCase> {
  protected:
    void SetUp() override { dir = fresh_dir(GetParam().name); }
    void TearDown() override { fs::remove_all(dir); }
    fs::path dir;
};

TEST_P(InvalidGraphsDump, RefusesWithTheOperatorAndTheRuleAndWritesNothing) {
    const InvalidCase& c = GetParam();
    write_file(dir / "g.json", graph_json(c));
    const test::CliRun r =
        test::run_cli("dump " + (dir / "g.json").string() + " -o " + (dir / "out.mge").string());
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.status, -1) << "killed by a signal: " << r.out;
    for (const std::string& s : c.expect)
        EXPECT_NE(r.out.find(s), std::string::npos) << "missing \"" << s << "\" in:\n" << r.out;
    EXPECT_NE(r.out.find("g.json"), std::string::npos) << r.out;
    if (!c.place.empty()) {
        EXPECT_NE(r.out.find(c.place), std::string::npos) << "missing \"" << c.place << "\" in:\n" << r.out;
    }
    EXPECT_FALSE(fs::exists(dir / "out.mge"));
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename(), "g.json") << "left behind: " << e.path();
}

INSTANTIATE_TEST_SUITE_P(InvalidGraphsCli, InvalidGraphsDump, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<InvalidCase>& info) {
                             return std::string(info.param.name);
                         });

// The SQUARE case is refused only because of the rewrite: kept as built, it dumps.
TEST(InvalidGraphsRewrite, SquareOnInt32DumpsWithNoChangeGraph) {
    const fs::path dir = fresh_dir("square_no_change");
    const InvalidCase* c = nullptr;
    for (const InvalidCase& k : cases())
        if (std::string(k.name) == "elemwise_square_int32_rewrite") c = &k;
    ASSERT_NE(c, nullptr);
    write_file(dir / "g.json", graph_json(*c));
    const test::CliRun r = test::run_cli("dump " + (dir / "g.json").string() + " -o " +
                                         (dir / "out.mge").string() + " --no-change-graph");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::exists(dir / "out.mge")) << r.out;
    fs::remove_all(dir);
}

// One batch over every invalid graph and one valid graph: the valid artifact is
// written, every invalid job is failed with its message in the report, exit 1.
TEST(InvalidGraphsBatch, EveryInvalidJobFailsWithItsMessageAndTheValidOneIsWritten) {
    const fs::path dir = fresh_dir("batch");
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    for (const InvalidCase& c : cases()) write_file(in / (std::string(c.name) + ".json"), graph_json(c));
    write_file(in / "valid.json", R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "data", "dtype": "Float32", "shape": [1, 3]}],
      "constants": [{"name": "c", "dtype": "Float32", "shape": [3], "values": [1, 2, 3]}],
      "operators": [{"op": "Elemwise", "name": "sum", "inputs": ["data", "c"], "params": {"mode": "ADD"}}],
      "outputs": ["sum"]})");

    const test::CliRun r = test::run_cli("batch " + in.string() + " -o " + out.string() + " --threads 2");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(fs::exists(out / "valid.mge")) << r.out;
    EXPECT_NE(r.out.find("1 written, 0 up to date, " + std::to_string(cases().size()) + " failed"),
              std::string::npos)
        << r.out;
    ASSERT_TRUE(fs::exists(out / "report.json")) << r.out;

    const auto report = nlohmann::json::parse(read_text(out / "report.json"));
    EXPECT_EQ(report["totals"]["failed"], cases().size());
    EXPECT_EQ(report["totals"]["written"], 1);
    std::map<std::string, nlohmann::json> by_path;
    for (const auto& a : report["artifacts"]) by_path[a["path"].get<std::string>()] = a;

    ASSERT_TRUE(by_path.count("valid.mge")) << report.dump(2);
    EXPECT_EQ(by_path["valid.mge"]["status"], "written");
    for (const InvalidCase& c : cases()) {
        const std::string path = std::string(c.name) + ".mge";
        SCOPED_TRACE(c.name);
        ASSERT_TRUE(by_path.count(path)) << report.dump(2);
        const nlohmann::json& a = by_path[path];
        EXPECT_EQ(a["status"], "failed") << a.dump(2);
        const std::string error = a.value("error", "");
        for (const std::string& s : c.expect)
            EXPECT_NE(error.find(s), std::string::npos) << "missing \"" << s << "\" in: " << error;
        if (!c.place.empty()) {
            EXPECT_NE(error.find(c.place), std::string::npos) << error;
        }
        EXPECT_FALSE(fs::exists(out / path));
    }
    // Nothing but the valid artifact, the report and its stamp: no temporaries of
    // failed jobs, and no stamp that would let --incremental skip them.
    for (const auto& e : fs::recursive_directory_iterator(out)) {
        const std::string f = fs::relative(e.path(), out).string();
        EXPECT_TRUE(f == "valid.mge" || f == "report.json" || f == ".mgedump-stamps" ||
                    f == ".mgedump-stamps/valid.mge.stamp")
            << "left behind: " << e.path();
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace mgedump
