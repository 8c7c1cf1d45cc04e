#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "formats/graph_json.h"
#include "formats/npy.h"
#include "ir/builder.h"
#include "ir/error.h"
#include "ir/infer.h"
#include "ir/op_registry.h"
#include "ir/order.h"
#include "test_paths.h"

namespace mgedump::formats {
namespace {

namespace fs = std::filesystem;
using ir::DType;
using ir::DTypeEnum;
using ir::Graph;
using ir::OprId;
using ir::VarId;

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("mgedump-gj-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

std::vector<fs::path> examples() {
    std::vector<fs::path> out;
    for (auto& e : fs::directory_iterator(fs::path(test::source_dir()) / "examples"))
        if (e.path().extension() == ".json") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// Wraps a body of operators etc. in the required header.
std::string doc(std::string_view body) {
    return std::string(R"({"format": "mgedump-graph", "version": 1, )") + std::string(body) + "}";
}

std::string error_of(std::string_view text, const GraphJsonReadOptions& o = {}) {
    try {
        parse_graph_json(text, o);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

OprId opr_named(const Graph& g, std::string_view name) {
    for (uint32_t o = 0; o < g.oprs.size(); ++o)
        if (g.str(g.oprs.name[o]) == name) return OprId(o);
    ADD_FAILURE() << "no operator " << name;
    return OprId(0);
}

int64_t int_field(const Graph& g, OprId o, std::string_view field) {
    for (const ir::ParamValue& p : g.params_of(o)) {
        int i = ir::find_field(ir::param_table(p.table), field);
        if (i >= 0) return std::get<int64_t>(p.fields[i]);
    }
    ADD_FAILURE() << "no field " << field;
    return -1;
}

// Same operators (walked from the outputs), params, tensors, names and outputs.
void expect_equivalent(const Graph& a, const Graph& b) {
    ASSERT_EQ(a.oprs.size(), b.oprs.size());
    ASSERT_EQ(a.outputs.size(), b.outputs.size());
    auto oa = ir::dump_order(a), ob = ir::dump_order(b);
    ASSERT_EQ(oa.size(), ob.size());
    std::map<uint32_t, uint32_t> var_map;
    auto str_eq = [&](ir::StrId x, ir::StrId y) {
        return x.valid() == y.valid() && a.str(x) == b.str(y);
    };
    for (size_t i = 0; i < oa.size(); ++i) {
        const OprId x = oa[i], y = ob[i];
        SCOPED_TRACE("operator " + std::string(a.str(a.oprs.name[x.value])));
        EXPECT_EQ(a.oprs.type[x.value], b.oprs.type[y.value]);
        EXPECT_TRUE(str_eq(a.oprs.name[x.value], b.oprs.name[y.value]));
        EXPECT_EQ(a.oprs.priority[x.value], b.oprs.priority[y.value]);
        EXPECT_EQ(a.oprs.output_dtype[x.value], b.oprs.output_dtype[y.value]);
        ASSERT_EQ(a.comp_nodes_of(x).size(), b.comp_nodes_of(y).size());
        for (size_t k = 0; k < a.comp_nodes_of(x).size(); ++k)
            EXPECT_TRUE(str_eq(a.comp_nodes_of(x)[k], b.comp_nodes_of(y)[k]));
        EXPECT_TRUE(std::ranges::equal(a.params_of(x), b.params_of(y)));
        ASSERT_EQ(a.inputs_of(x).size(), b.inputs_of(y).size());
        for (size_t k = 0; k < a.inputs_of(x).size(); ++k)
            EXPECT_EQ(var_map.at(a.inputs_of(x)[k].value), b.inputs_of(y)[k].value);
        ASSERT_EQ(a.oprs.outputs[x.value].count, b.oprs.outputs[y.value].count);
        for (uint32_t k = 0; k < a.oprs.outputs[x.value].count; ++k) {
            VarId va = a.output_var(x, k), vb = b.output_var(y, k);
            var_map[va.value] = vb.value;
            EXPECT_TRUE(str_eq(a.vars.name[va.value], b.vars.name[vb.value])) << a.str(a.vars.name[va.value]);
            EXPECT_EQ(a.vars.dtype[va.value], b.vars.dtype[vb.value]);
            EXPECT_TRUE(std::ranges::equal(a.var_shape(va), b.var_shape(vb)));
            EXPECT_EQ(a.vars.flags[va.value], b.vars.flags[vb.value]);
        }
        ASSERT_EQ(a.oprs.tensors[x.value].count, b.oprs.tensors[y.value].count);
        for (uint32_t k = 0; k < a.oprs.tensors[x.value].count; ++k) {
            const uint32_t ta = a.oprs.tensors[x.value].begin + k, tb = b.oprs.tensors[y.value].begin + k;
            EXPECT_TRUE(str_eq(a.tensors.name[ta], b.tensors.name[tb]));
            EXPECT_EQ(a.tensors.dtype[ta], b.tensors.dtype[tb]);
            EXPECT_TRUE(std::ranges::equal(a.tensor_shape(ir::TensorId(ta)), b.tensor_shape(ir::TensorId(tb))));
            EXPECT_TRUE(str_eq(a.tensors.comp_node[ta], b.tensors.comp_node[tb]));
            EXPECT_EQ(a.tensors.method[ta], b.tensors.method[tb]);
            EXPECT_EQ(a.tensors.format_type[ta], b.tensors.format_type[tb]);
            ASSERT_EQ(a.tensors.blob[ta].valid(), b.tensors.blob[tb].valid());
            if (a.tensors.blob[ta].valid()) {
                EXPECT_TRUE(std::ranges::equal(a.blobs.bytes(a.tensors.blob[ta]), b.blobs.bytes(b.tensors.blob[tb])));
            }
        }
        ASSERT_EQ(a.blobs_of(x).size(), b.blobs_of(y).size());
        for (size_t k = 0; k < a.blobs_of(x).size(); ++k)
            EXPECT_TRUE(std::ranges::equal(a.blobs.bytes(a.blobs_of(x)[k]), b.blobs.bytes(b.blobs_of(y)[k])));
    }
    for (size_t i = 0; i < a.outputs.size(); ++i) {
        EXPECT_EQ(var_map.at(a.outputs[i].value), b.outputs[i].value);
        EXPECT_EQ(a.vars.original_id[a.outputs[i].value], b.vars.original_id[b.outputs[i].value]);
    }
}

void expect_round_trip(const Graph& g, const GraphJsonWriteOptions& w = {}, const GraphJsonReadOptions& r = {}) {
    const std::string text = graph_to_json(g, w);
    Graph back;
    try {
        back = parse_graph_json(text, r);
    } catch (const Error& e) {
        FAIL() << e.what() << "\n" << text;
    }
    expect_equivalent(g, back);
    EXPECT_EQ(graph_to_json(back, w), text) << "writing is not a fixed point";
}

// --- the bundled examples ----------------------------------------------------------

TEST(GraphJson, EveryBundledExampleParsesAndValidates) {
    auto files = examples();
    ASSERT_GE(files.size(), 5u);
    for (const fs::path& p : files) {
        SCOPED_TRACE(p.string());
        Graph g = read_graph_json_file(p);
        EXPECT_FALSE(g.outputs.empty());
    }
}

TEST(GraphJson, TheTinyCnnExampleSaysWhatItMeans) {
    Graph g = read_graph_json_file(fs::path(test::source_dir()) / "examples/tiny_cnn.json");
    EXPECT_EQ(ir::op_def(g.oprs.type[opr_named(g, "conv1").value]).name, "Convolution");
    EXPECT_EQ(int_field(g, opr_named(g, "conv1"), "pad_h"), 1);
    EXPECT_EQ(int_field(g, opr_named(g, "conv1"), "stride_h"), 1);  // default
    EXPECT_EQ(int_field(g, opr_named(g, "pool1"), "mode"), 0);        // MAX_
    EXPECT_EQ(int_field(g, opr_named(g, "gap"), "mode"), 1);          // AVERAGE
    EXPECT_EQ(int_field(g, opr_named(g, "conv2"), "nonlineMode"), 1); // RELU
    ASSERT_EQ(g.outputs.size(), 1u);
    EXPECT_EQ(g.str(g.vars.name[g.outputs[0].value]), "prob");  // renamed by the dict form
    const OprId w = opr_named(g, "conv1.weight");
    const uint32_t t = g.oprs.tensors[w.value].begin;
    EXPECT_EQ(g.tensors.method[t], ir::TensorMethod::ValueAnonymous);
    EXPECT_EQ(g.blobs.bytes(g.tensors.blob[t]).size(), 8u * 3 * 3 * 3 * 4);
    EXPECT_EQ(g.str(g.tensors.comp_node[t]), "xpux:0");
}

TEST(GraphJson, EveryBundledExampleSurvivesAWriteAndReadBack) {
    for (const fs::path& p : examples()) {
        SCOPED_TRACE(p.string());
        expect_round_trip(read_graph_json_file(p));
    }
}

TEST(GraphJson, NpyWeightsAreMappedNotCopied) {
    const fs::path p = fs::path(test::source_dir()) / "examples/npy_weights.json";
    Graph g = read_graph_json_file(p);
    const uint32_t t = g.oprs.tensors[opr_named(g, "w").value].begin;
    EXPECT_EQ(g.tensors.dtype[t], DType::of(DTypeEnum::Float32));
    EXPECT_TRUE(std::ranges::equal(g.tensor_shape(ir::TensorId(t)), std::vector<uint32_t>{4, 4}));
    NpyArray direct = read_npy(p.parent_path() / "weights/w_4x4_f32.npy");
    auto bytes = g.blobs.bytes(g.tensors.blob[t]);
    EXPECT_TRUE(std::ranges::equal(bytes, direct.data));
    float third;
    std::memcpy(&third, bytes.data() + 8, 4);
    EXPECT_EQ(third, 2.0f / 16);
}

// --- round trips of graphs the examples do not cover -------------------------------

Graph awkward_graph() {
    ir::GraphBuilder b("cpu0");
    // 4-D, so that the quantized Convolution below has an NCHW input.
    VarId x = b.input("x", DType::of(DTypeEnum::Float32), {1, 1, 2, 6});
    VarId h = b.constant(DType::of(DTypeEnum::Float16), {2}, {std::byte{0x00}, std::byte{0x3c}, std::byte{0x00},
                                                            std::byte{0xc0}});  // 1.0, -2.0
    // [2,1]: broadcasts against the [1,1,2,3] parts.
    VarId nan = b.constant<float>({2, 1}, {std::numeric_limits<float>::quiet_NaN(), 1.5f}, "nan_and_one_point_five");
    // Split's part sizes are scalars (shape [1], Int32); both parts are 3.
    VarId sizes = b.constant<int32_t>({1}, {3}, "sizes");
    // A [2,1,1,1] filter (OC 2, IC 1) of the same quantized dtype as the converted input.
    VarId p = b.param("weight", DType::quantized(DTypeEnum::Quantized8Asymm, 0.1f, 7), {2, 1, 1, 1},
                      {std::byte{1}, std::byte{250}});
    // Unnamed operators, a multi-output operator, and two vars with the same name.
    ir::OpOptions split;
    split.outputs = 2;
    OprId s = b.graph().oprs.size() ? OprId(static_cast<uint32_t>(b.graph().oprs.size())) : OprId(0);
    b.op("Split", {x, sizes, sizes}, {{"axis", 3}}, split);
    VarId s0 = b.graph().output_var(s, 0), s1 = b.graph().output_var(s, 1);
    ir::OpOptions dup;
    dup.name = "same";
    VarId a = b.op("Elemwise", {s0, s1}, {{"mode", "MAX"}}, dup);
    VarId c = b.op("Elemwise", {a, nan}, {{"mode", "ADD"}}, dup);
    ir::OpOptions fancy;
    fancy.name = "cvt";
    fancy.priority = -3;
    fancy.comp_nodes = {"gpu0", "gpu1"};
    // Quantized8Asymm like the filter: a convolution's input and filter share a dtype.
    fancy.output_dtype = DType::quantized(DTypeEnum::Quantized8Asymm, 0.25f, 3);
    VarId q = b.op("TypeCvt", {c}, {{"dtype", DType::quantized(DTypeEnum::Quantized8Asymm, 0.25f, 3)}}, fancy);
    VarId conv = b.op("Convolution", {q, p}, {{"stride_h", 2}, {"strategy", 3}, {"workspace_limit", ir::ParamArg(uint64_t{1} << 40)}});
    b.op("AxisAddRemove", {h}, {{"desc", std::vector<ir::AxisDesc>{{ir::AxisDescMethod::ADD_1, 0}}}});
    b.op("AddUpdate", {conv, conv},
         {{"alpha", ir::ParamArg(2.0)}, {"beta", ir::DTypeScalar{DTypeEnum::Int32, {5, 0, 0, 0}}}});
    b.output(conv, "");
    b.output(c, "");
    b.output(conv, "");
    Graph g = b.finish();
    // What passes and loaders leave: a producer appended after its consumer, a var
    // dtype the builder would not derive, a loaded output's original id, a tensor
    // without a comp node, an empty-named operator. Passes and loaders infer the
    // operators they add (ir/infer.h), as this does.
    auto infer_added = [&g](OprId o) {
        ir::InferState st;
        st.adopt(g);
        ir::infer_operator(g, o, st);
        ir::apply_inferred(g, st, o);
    };
    ir::OpOptions late;
    late.name = "late";
    // Of s0, so it stands in for `a` with the same dtype and shape.
    OprId l = ir::append_op(g, ir::find_op("Elemwise"), std::vector<VarId>{s0},
                            ir::make_params(ir::op_def(ir::find_op("Elemwise")), {{"mode", "RELU"}}, "late"), late);
    infer_added(l);
    g.redirect(a, g.output_var(l, 0));
    g.vars.original_id[conv.value] = 77;
    g.tensors.comp_node[0] = ir::StrId();
    g.oprs.name[s.value] = g.strings.intern("");
    g.oprs.name[g.vars.owner[conv.value].value] = ir::StrId();  // loaded without operator names
    // A loaded Dimshuffle may carry ndim 0 ("infer"), which the builder would fill in.
    ir::OpOptions shuffle;
    shuffle.name = "shuffle";
    OprId d = ir::append_op(g, ir::find_op("Dimshuffle"), std::vector<VarId>{x},
                            ir::make_params(ir::op_def(ir::find_op("Dimshuffle")), {{"pattern", std::vector<int32_t>{0, 1, 3, 2}}},
                                            "shuffle"),
                            shuffle);
    ir::ParamValue& dp = g.params[g.oprs.params[d.value].begin];
    dp.fields[ir::find_field(ir::param_table(dp.table), "ndim")] = int64_t{0};
    infer_added(d);
    g.outputs.push_back(g.output_var(d, 0));
    return g;
}

TEST(GraphJson, AGraphWithUnnamedDuplicateAndLateOperatorsSurvivesARoundTrip) {
    expect_round_trip(awkward_graph());
}

TEST(GraphJson, HoldersOfSeveralTensorsAndCustomBlobsSurviveARoundTrip) {
    ir::GraphBuilder b;
    VarId x = b.input("x", DType::of(DTypeEnum::Float32), {1});
    ir::OpOptions holder;
    holder.name = "packed";
    holder.outputs = 2;
    OprId o = b.add_op(ir::find_op("MultipleDeviceTensorHolder"), {}, {}, holder);
    b.add_tensor(o, "pa", ir::TensorMethod::ValueShared, DType::of(DTypeEnum::Int8), std::vector<uint32_t>{1}, "xpux:0",
                 b.graph().blobs.add_owned({std::byte{9}}));
    b.add_tensor(o, "pb", ir::TensorMethod::ValueShared, DType::of(DTypeEnum::Int8), std::vector<uint32_t>{1}, "xpux:1",
                 b.graph().blobs.add_owned({std::byte{8}}));
    ir::OpOptions custom;
    custom.name = "custom";
    custom.outputs = 1;
    OprId c = b.add_op(ir::find_op("CustomOpNode"), std::vector<VarId>{x, b.graph().output_var(o, 1)}, {}, custom);
    Graph& g = b.graph();
    g.oprs.blobs[c.value] = ir::Range{static_cast<uint32_t>(g.opr_blobs.size()), 2};
    g.opr_blobs.push_back(g.blobs.add_owned({std::byte{'o'}, std::byte{'p'}}));
    g.opr_blobs.push_back(g.blobs.add_owned({}));
    b.output(g.output_var(c, 0), "y");
    b.output(g.output_var(o, 0), "");
    expect_round_trip(b.finish());
}

TEST(GraphJson, LargeTensorsAreWrittenAsNpyFilesNextToTheJson) {
    TempDir dir;
    ir::GraphBuilder b;
    VarId x = b.input("x", DType::of(DTypeEnum::Float32), {1, 300});
    std::vector<std::byte> big(300 * 4);
    for (size_t i = 0; i < big.size(); ++i) big[i] = std::byte(i * 7);  // not one repeated value
    VarId w = b.constant(DType::of(DTypeEnum::Float32), {300}, big, "big/weight");
    b.output(b.op("Elemwise", {x, w}, {{"mode", "ADD"}}), "y");
    Graph g = b.finish();

    GraphJsonWriteOptions wo;
    wo.json_dir = dir.path;
    wo.npy_threshold_bytes = 1000;
    const std::string text = graph_to_json(g, wo);
    EXPECT_NE(text.find(R"("npy": "tensors/0000_big_weight.npy")"), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(dir.path / "tensors/0000_big_weight.npy"));
    GraphJsonReadOptions ro;
    ro.base_dir = dir.path;
    expect_equivalent(g, parse_graph_json(text, ro));

    // Without a directory the same tensor is inline base64.
    EXPECT_NE(graph_to_json(g).find("\"base64\""), std::string::npos);
}

TEST(GraphJson, ATensorOfOneRepeatedValueIsWrittenAsFill) {
    ir::GraphBuilder b;
    VarId w = b.constant(DType::of(DTypeEnum::Float32), {40}, std::vector<std::byte>(160), "zeros");
    b.output(w, "");
    Graph g = b.finish();
    EXPECT_NE(graph_to_json(g).find(R"("fill": 0.0)"), std::string::npos) << graph_to_json(g);
    expect_round_trip(g);
}

// --- the forms the format accepts --------------------------------------------------

TEST(GraphJson, QuantizedDtypesMayBeWrittenFlatOrAsAnObject) {
    Graph a = parse_graph_json(doc(R"("constants": [{"name": "q", "dtype": "Quantized8Asymm", "scale": 0.5,
        "zero_point": 3, "shape": [1], "values": [4]}], "outputs": ["q"])"));
    Graph b = parse_graph_json(doc(R"("constants": [{"name": "q", "dtype": {"dtype": "Quantized8Asymm",
        "scale": 0.5, "zero_point": 3}, "shape": [1], "values": [4]}], "outputs": ["q"])"));
    EXPECT_EQ(a.tensors.dtype[0], DType::quantized(DTypeEnum::Quantized8Asymm, 0.5f, 3));
    expect_equivalent(a, b);
}

TEST(GraphJson, CommentsNestedValuesFillAndEnumNamesWithoutUnderscoreAreAccepted) {
    // x is Float16 like m (Elemwise inputs share a dtype) and 4-D (NCHW Pooling).
    Graph g = parse_graph_json(doc(R"(
        // a comment
        "inputs": [{"name": "x", "dtype": "Float16", "shape": [1, 1, 2, 2]}],
        "constants": [{"name": "m", "dtype": "Float16", "shape": [2, 2], "values": [[1, 2], [3, 0.5]]},
                      {"name": "z", "dtype": "Bool", "shape": [3], "fill": true}],
        "operators": [{"op": "Elemwise", "name": "mx", "inputs": ["x", "m"], "params": {"mode": "MAX"}},
                      {"op": "Pooling", "name": "p", "inputs": ["mx"], "params": {"Pooling.mode": "AVERAGE"}}],
        "outputs": ["p"])"));
    EXPECT_EQ(int_field(g, opr_named(g, "mx"), "mode"), 18);  // MAX_
    auto m = g.blobs.bytes(g.tensors.blob[g.oprs.tensors[opr_named(g, "m").value].begin]);
    ASSERT_EQ(m.size(), 8u);
    EXPECT_EQ(m[6], std::byte{0x00});  // 0.5 as binary16 is 0x3800
    EXPECT_EQ(m[7], std::byte{0x38});
}

TEST(GraphJson, AnInputWithAValueIsDumpedWithItsDefaultValue) {
    Graph g = parse_graph_json(doc(R"("inputs": [{"name": "x", "dtype": "Int32", "shape": [2], "values": [1, 2]}],
        "outputs": ["x"])"));
    EXPECT_EQ(g.tensors.method[0], ir::TensorMethod::ValueInput);
    EXPECT_EQ(int_field(g, OprId(0), "dump_default_value"), 1);
    expect_round_trip(g);
}

// --- errors name the place ---------------------------------------------------------

struct ErrorCase {
    const char* what;
    std::string text;
    std::string expect;
};

TEST(GraphJson, EveryMistakeIsReportedWithItsJsonPlace) {
    const std::string x = R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 3, 8, 8]}], )";
    const std::string w = R"("constants": [{"name": "w", "dtype": "Float32", "shape": [1, 3, 1, 1], "fill": 1}], )";
    const ErrorCase cases[] = {
        {"unknown operator", doc(x + R"("operators": [{"op": "Convlution", "name": "c", "inputs": ["x"]}],
            "outputs": ["c"])"),
         R"(graph.json: operators[0] ("c"): unknown operator "Convlution")"},
        {"unknown param field", doc(x + w + R"("operators": [{"op": "Convolution", "name": "conv1",
            "inputs": ["x", "w"], "params": {"strde_h": 2}}], "outputs": ["conv1"])"),
         R"(graph.json: operators[0] ("conv1", Convolution): param "strde_h": Convolution has no such field)"},
        {"wrong param type", doc(x + w + R"("operators": [{"op": "Convolution", "name": "conv1",
            "inputs": ["x", "w"], "params": {"stride_h": "2"}}], "outputs": ["conv1"])"),
         R"(graph.json: operators[0] ("conv1", Convolution): param "stride_h": expected an integer, got the string "2")"},
        {"param out of range", doc(x + w + R"("operators": [{"op": "Convolution", "name": "conv1",
            "inputs": ["x", "w"], "params": {"stride_h": -2}}], "outputs": ["conv1"])"),
         R"(graph.json: operators[0] ("conv1", Convolution): param Convolution.stride_h: -2 is out of range)"},
        {"bad enum member", doc(x + R"("operators": [{"op": "Elemwise", "name": "e", "inputs": ["x"],
            "params": {"mode": "RELU7"}}], "outputs": ["e"])"),
         R"(graph.json: operators[0] ("e", Elemwise): param "mode": "RELU7" is not a ElemwiseMode member)"},
        {"unknown key", doc(x + R"("constants": [{"name": "w", "dtype": "Float32", "shape": [1], "vlaues": [1]}],
            "outputs": ["x"])"),
         R"(graph.json: constants[0] ("w"): unknown key "vlaues")"},
        {"unknown top-level key", doc(x + R"("output": ["x"])"), R"(graph.json: unknown key "output")"},
        {"dangling var", doc(x + R"("operators": [{"op": "Elemwise", "name": "add", "inputs": ["x", "nope"],
            "params": {"mode": "ADD"}}], "outputs": ["add"])"),
         R"(graph.json: operators[0] ("add", Elemwise): inputs[1]: no var named "nope")"},
        {"dangling output", doc(x + R"("outputs": ["y"])"), R"(graph.json: outputs[0]: no var named "y")"},
        {"duplicate var name", doc(x + R"("constants": [{"name": "x", "dtype": "Float32", "shape": [1], "fill": 0}],
            "outputs": ["x"])"),
         R"(graph.json: constants[0] ("x"): var name "x" is already defined by inputs[0])"},
        {"duplicate output name", doc(x + R"("operators": [{"op": "Elemwise", "inputs": ["x"], "outputs": ["x"]}],
            "outputs": ["x"])"),
         R"(var name "x" is already defined by inputs[0])"},
        {"duplicate JSON key", doc(x + R"("outputs": ["x"], "outputs": ["x"])"),
         R"(graph.json: duplicate key "outputs")"},
        {"wrong arity", doc(x + R"("operators": [{"op": "Convolution", "name": "c", "inputs": ["x"]}],
            "outputs": ["c"])"),
         R"(graph.json: operators[0] ("c", Convolution): has 1 inputs, Convolution takes 2)"},
        {"wrong output count", doc(x + R"("operators": [{"op": "Elemwise", "inputs": ["x"], "outputs": ["a", "b"]}],
            "outputs": ["a"])"),
         R"(graph.json: operators[0] (Elemwise): "outputs" names 2 vars, Elemwise has 1)"},
        {"variable outputs unnamed", doc(x + R"("operators": [{"op": "Split", "inputs": ["x", "x"]}],
            "outputs": ["x"])"),
         R"(graph.json: operators[0] (Split): Split has a variable number of outputs: list them in "outputs")"},
        {"values count", doc(R"("constants": [{"name": "w", "dtype": "Int32", "shape": [2, 2], "values": [1, 2, 3]}],
            "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): values: 3 numbers given, the shape holds 4)"},
        {"value out of range", doc(R"("constants": [{"name": "w", "dtype": "Int8", "shape": [2], "values": [1, 300]}],
            "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): values[1]: 300 is out of range for Int8)"},
        {"base64 size", doc(R"("constants": [{"name": "w", "dtype": "Float32", "shape": [2], "base64": "AAAAAA=="}],
            "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): "base64": decodes to 4 bytes, but Float32 of shape [2] needs 8)"},
        {"bad base64", doc(R"("constants": [{"name": "w", "dtype": "Float32", "shape": [1], "base64": "AA*A"}],
            "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): "base64": not valid base64)"},
        {"two value sources", doc(R"("constants": [{"name": "w", "dtype": "Float32", "shape": [1], "fill": 1,
            "values": [1]}], "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): give only one of "values" and "fill")"},
        {"no value", doc(R"("constants": [{"name": "w", "dtype": "Float32", "shape": [1]}], "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): needs a value)"},
        {"scale missing", doc(R"("constants": [{"name": "w", "dtype": "QuantizedS8", "shape": [1], "fill": 1}],
            "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): quantized dtype QuantizedS8 needs a "scale")"},
        {"zero point on a symmetric type", doc(R"("constants": [{"name": "w", "dtype": "QuantizedS8", "scale": 1,
            "zero_point": 3, "shape": [1], "fill": 1}], "outputs": ["w"])"),
         R"(dtype QuantizedS8 is symmetric: it takes no zero_point)"},
        {"unknown dtype", doc(R"("inputs": [{"name": "x", "dtype": "Float64", "shape": [1]}], "outputs": ["x"])"),
         R"(graph.json: inputs[0] ("x"): unknown dtype "Float64")"},
        {"negative dimension", doc(R"("inputs": [{"name": "x", "dtype": "Float32", "shape": [1, -3]}],
            "outputs": ["x"])"),
         R"(graph.json: inputs[0] ("x"): shape[1]: expected an integer in [0, 4294967295], got -3)"},
        {"output named twice", doc(x + R"("outputs": {"a": "x", "b": "x"})"),
         R"(graph.json: outputs.b: var "x" is already output as "a")"},
        {"wrong format", R"({"format": "onnx", "version": 1, "outputs": []})",
         R"(graph.json: "format": expected "mgedump-graph", got "onnx")"},
        {"newer version", R"({"format": "mgedump-graph", "version": 2, "outputs": []})",
         R"(graph.json: "version": this mgedump reads version 1, got 2)"},
        {"syntax error", R"({"format": "mgedump-graph",)", R"(graph.json: invalid JSON: )"},
        {"no outputs", doc(x + R"("outputs": [])"), R"(graph.json: the graph has no outputs)"},
        {"bad axis desc", doc(x + R"("operators": [{"op": "AxisAddRemove", "name": "a", "inputs": ["x"],
            "params": {"desc": [{"method": "ADD", "axis": 0}]}}], "outputs": ["a"])"),
         R"(graph.json: operators[0] ("a", AxisAddRemove): param "desc": [0]: method: expected "ADD_1" or "REMOVE")"},
    };
    for (const ErrorCase& c : cases) {
        const std::string err = error_of(c.text);
        EXPECT_NE(err.find(c.expect), std::string::npos) << c.what << "\n  got:      " << err << "\n  expected: " << c.expect;
    }
}

TEST(GraphJson, NpyProblemsNameTheConstantAndTheFile) {
    TempDir dir;
    {
        std::ofstream(dir.path / "junk.npy") << "not numpy";
        auto f = encode_npy(DTypeEnum::Float32, std::vector<uint32_t>{2, 2}, std::vector<std::byte>(16));
        std::ofstream(dir.path / "f.npy", std::ios::binary).write(reinterpret_cast<const char*>(f.data()), f.size());
        std::ofstream(dir.path / "short.npy", std::ios::binary)
            .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() - 4));
    }
    GraphJsonReadOptions o;
    o.base_dir = dir.path;
    const ErrorCase cases[] = {
        {"bad header", doc(R"("constants": [{"name": "w", "npy": "junk.npy"}], "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): npy "junk.npy": )" + (dir.path / "junk.npy").string() +
             ": not a .npy file"},
        {"dtype mismatch", doc(R"("constants": [{"name": "w", "dtype": "Int32", "npy": "f.npy"}], "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): npy "f.npy": )" + (dir.path / "f.npy").string() +
             ": holds '<f4' data, but the declared dtype Int32 is stored as '<i4'"},
        {"shape mismatch", doc(R"("constants": [{"name": "w", "shape": [4], "npy": "f.npy"}], "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): npy "f.npy": its shape [2, 2] does not match the declared shape [4])"},
        {"truncated", doc(R"("constants": [{"name": "w", "npy": "short.npy"}], "outputs": ["w"])"),
         "short.npy: truncated: shape (2, 2) of '<f4' needs 16 data bytes, the file has 12"},
        {"missing file", doc(R"("constants": [{"name": "w", "npy": "gone.npy"}], "outputs": ["w"])"),
         R"(graph.json: constants[0] ("w"): npy "gone.npy": )"},
    };
    for (const ErrorCase& c : cases) {
        const std::string err = error_of(c.text, o);
        EXPECT_NE(err.find(c.expect), std::string::npos) << c.what << "\n  got:      " << err << "\n  expected: " << c.expect;
    }
}

TEST(GraphJson, AFileIsNamedByItsPathInErrors) {
    TempDir dir;
    std::ofstream(dir.path / "g.json") << doc(R"("outputs": ["nothing"])");
    try {
        read_graph_json_file(dir.path / "g.json");
        FAIL() << "no error";
    } catch (const FormatError& e) {
        EXPECT_EQ(std::string(e.what()), (dir.path / "g.json").string() + R"(: outputs[0]: no var named "nothing" is defined before this point)");
    }
}

}  // namespace
}  // namespace mgedump::formats
