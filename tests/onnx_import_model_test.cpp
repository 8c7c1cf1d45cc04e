// Whole-model concerns: inputs, outputs, initializers as params, external data,
// large models, and the errors for what cannot be converted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;
using V = std::vector<std::string>;

fs::path temp_dir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("mgedump_onnx_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

TEST(OnnxModelImport, InputsBecomeHost2DeviceCopyWithDeclaredShapesAndOutputsKeepTheirNames) {
    OnnxModel m;
    m.input("image", {1, 3, 4, 4}).output("prob");
    m.node("Relu", {"image"}, {"prob"});
    ir::Graph g = m.import();
    ir::OprId in = find_opr(g, "Host2DeviceCopy");
    EXPECT_EQ(g.str(g.oprs.name[in.value]), "image");
    auto shape = g.tensor_shape(ir::TensorId(g.oprs.tensors[in.value].begin));
    EXPECT_EQ(std::vector<uint32_t>(shape.begin(), shape.end()), (std::vector<uint32_t>{1, 3, 4, 4}));
    ASSERT_EQ(g.outputs.size(), 1u);
    EXPECT_EQ(g.str(g.vars.name[g.outputs[0].value]), "prob");
}

TEST(OnnxModelImport, InitializersAreImmutableTensorsByDefaultAndNamedSharedDeviceTensorsWhenAsked) {
    OnnxModel m;
    m.input("x", {1, 3, 4, 4}).output("y");
    m.ramp("conv.weight", {2, 3, 1, 1});
    m.node("Conv", {"x", "conv.weight"}, {"y"});
    ir::Graph plain = m.import();
    EXPECT_EQ(count_ops(plain, "ImmutableTensor"), 1u);
    EXPECT_EQ(count_ops(plain, "SharedDeviceTensor"), 0u);

    ir::Graph shared = m.import({.params_as_shared_device_tensor = true});
    ASSERT_EQ(count_ops(shared, "SharedDeviceTensor"), 1u);
    engine::DumpOptions o;
    o.keep_param_name = true;
    engine::Dumped d = engine::dump_graph(shared, o);
    EXPECT_EQ(d.result.params, V{"conv.weight"});
}

// PyTorch's exporter merges identical initializers (convnext_tiny's zero biases):
// one initializer read as a Conv bias (viewed (1, OC, 1, 1)) and elsewhere in its
// own shape must stay one param, or --keep-param-name finds its name twice.
TEST(OnnxModelImport, AnInitializerReadInSeveralShapesIsOneParamAndItsViewsAreReshapes) {
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y").output("b_out");
    m.ramp("w", {4, 3, 1, 1});
    m.initializer("shared.bias", {4}, {0.5f, -1, 2, 0.25f});
    m.node("Conv", {"x", "w", "shared.bias"}, {"c"});
    m.initializer_i64("shape", {2}, {4, 4});
    m.node("Reshape", {"c", "shape"}, {"r"});  // (4, 4): channels on axis 0
    m.node("Transpose", {"r"}, {"rt"});        // (4, 4): channels on axis 1
    m.node("Add", {"rt", "shared.bias"}, {"y"});
    m.initializer_i64("col", {2}, {4, 1});
    m.node("Reshape", {"shared.bias", "col"}, {"b_out"});  // a graph output that is a view of the param
    for (bool shared : {false, true}) {
        SCOPED_TRACE(shared ? "params_as_shared" : "constants");
        ir::Graph g = m.import({.params_as_shared_device_tensor = shared});
        if (shared) {
            size_t named = 0;
            for (size_t o = 0; o < g.oprs.size(); ++o)
                named += ir::op_def(g.oprs.type[o]).name == "SharedDeviceTensor" &&
                         g.str(g.oprs.name[o]) == "shared.bias";
            EXPECT_EQ(named, 1u);
            EXPECT_EQ(count_ops(g, "SharedDeviceTensor"), 2u);  // w and shared.bias
            engine::DumpOptions o;
            o.keep_param_name = true;
            for (auto format : {engine::DumpFormat::FBS, engine::DumpFormat::FBS_V2}) {
                o.dump_format = format;
                engine::Dumped d = engine::dump_graph(g, o);
                std::vector<std::string> params = d.result.params;
                std::sort(params.begin(), params.end());
                EXPECT_EQ(params, (V{"shared.bias", "w"}));
            }
        }
        // y = conv(x)ᵀ + bias: bias[ch] lands on column ch.
        std::vector<double> x(12, 0.0);
        const auto out = evaluate(g, {{"x", x}});
        ASSERT_EQ(out.size(), 2u);
        const auto y = engine::eval::to_doubles(out[0].value), b = engine::eval::to_doubles(out[1].value);
        const std::vector<double> bias{0.5, -1, 2, 0.25};
        for (size_t i = 0; i < 16; ++i) EXPECT_DOUBLE_EQ(y[i], 2 * bias[i % 4]) << i;
        EXPECT_EQ(b, bias);
        expect_round_trip(g);
    }
}

TEST(OnnxModelImport, ExternalDataIsReadFromTheSideFileAtItsOffset) {
    fs::path dir = temp_dir("external");
    std::vector<float> w{1, 2, 3, 4, 5, 6};
    {
        std::ofstream side(dir / "weights.bin", std::ios::binary);
        side << "padding!";  // 8 bytes before the tensor
        side.write(reinterpret_cast<const char*>(w.data()), 24);
    }
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y");
    auto& t = m.initializer("w", {2, 3, 1, 1}, {});
    t.clear_raw_data();
    t.set_data_location(OnnxType::EXTERNAL);
    for (auto [k, v] : {std::pair{"location", "weights.bin"}, {"offset", "8"}, {"length", "24"}}) {
        auto* e = t.add_external_data();
        e->set_key(k);
        e->set_value(v);
    }
    m.node("Conv", {"x", "w"}, {"y"});
    ir::Graph g = formats::import_onnx(m.write(dir / "model.onnx"));
    EXPECT_EQ(input_floats(g, find_opr(g, "Convolution"), 1), w);
    expect_round_trip(g);
    fs::remove_all(dir);
}

TEST(OnnxModelImport, MissingExternalDataFileIsAnErrorNamingTheModelAndTensor) {
    fs::path dir = temp_dir("missing");
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y");
    m.external_initializer("w", {2, 3, 1, 1}, "nowhere.bin");
    m.node("Conv", {"x", "w"}, {"y"});
    fs::path model = m.write(dir / "model.onnx");
    try {
        formats::import_onnx(model);
        FAIL();
    } catch (const FormatError& err) {
        std::string msg = err.what();
        EXPECT_NE(msg.find(model.string()), std::string::npos) << msg;
        EXPECT_NE(msg.find("'w'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("nowhere.bin"), std::string::npos) << msg;
    }
    fs::remove_all(dir);
}

TEST(OnnxModelImport, AModelLargerThanProtobufsOld64MBDefaultParses) {
    OnnxModel m;
    m.input("x", {1, 4096}).output("y");
    m.initializer("w", {4096, 4608}, std::vector<float>(4096 * 4608, 0.25f));  // 72 MiB
    m.node("MatMul", {"x", "w"}, {"y"});
    ASSERT_GT(m.bytes().size(), 64u << 20);
    ir::Graph g = m.import();
    EXPECT_EQ(compute_ops(g), V{"MatrixMul"});
}

TEST(OnnxModelImport, MalformedProtobufIsAFormatErrorNamingTheFile) {
    std::string junk = "\x0a\xff\xff\xff\xff\x0f garbage";
    try {
        formats::import_onnx_bytes(ir::Bytes(reinterpret_cast<const std::byte*>(junk.data()), junk.size()),
                                   "junk.onnx", ".");
        FAIL();
    } catch (const FormatError& e) {
        EXPECT_NE(std::string(e.what()).find("junk.onnx: not an ONNX model"), std::string::npos) << e.what();
    }
}

TEST(OnnxModelImport, UnsupportedOperatorNamesFileNodeAndOpType) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("StringNormalizer", {"x"}, {"y"}, "act3");
    EXPECT_EQ(import_error(m),
              "test.onnx: 1 operator type cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported ones): "
              "StringNormalizer (1 node, first 'act3')");
}

// One error for the whole model: every unsupported op type once, in order of first
// appearance, with its node count and first node (its name, else its first output).
TEST(OnnxModelImport, EveryUnsupportedOperatorIsListedInOneError) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("StringNormalizer", {"x"}, {"u1"}, "first_normalizer");
    m.node("Relu", {"u1"}, {"r"});
    m.node("Bernoulli", {"r"}, {"d"});
    m.node("StringNormalizer", {"d"}, {"u2"});
    m.node("StringNormalizer", {"u2"}, {"y"});
    m.node("Relu", {"x"}, {"z"}).set_domain("com.microsoft");
    EXPECT_EQ(import_error(m),
              "test.onnx: 3 operator types cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported "
              "ones): StringNormalizer (3 nodes, first 'first_normalizer'); Bernoulli (1 node, first 'Bernoulli_3'); "
              "com.microsoft:Relu (1 node, first 'Relu_6': domain 'com.microsoft')");
}

// An unnamed node (most of ONNX's own test models) is worded as everywhere else in
// the importer's errors: the node making its first output, else its position.
TEST(OnnxModelImport, AnUnnamedUnsupportedNodeIsNamedByWhatItMakes) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("StringNormalizer", {"x"}, {"y"}).clear_name();
    m.node("Bernoulli", {"x"}, {}).clear_name();
    EXPECT_EQ(import_error(m),
              "test.onnx: 2 operator types cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported "
              "ones): StringNormalizer (1 node, first unnamed node making 'y'); Bernoulli (1 node, first unnamed node #1)");
}

// ONNX graphs are in SSA form: a second definition of a name is refused, not
// silently preferred to the first (which would vanish from the graph).
TEST(OnnxModelImport, ANameTwoNodesDefineIsRefusedNamingBoth) {
    OnnxModel m;
    m.input("x", {2}).output("y");
    m.node("Relu", {"x"}, {"y"}, "r");
    m.node("Sigmoid", {"x"}, {"y"}, "s");
    EXPECT_EQ(import_error(m),
              "test.onnx: node 's' (Sigmoid) defines 'y', which node 'r' (Relu) already defines (an ONNX graph "
              "defines each name once)");
}

TEST(OnnxModelImport, ANodeOutputNamedLikeAnInitializerOrAnInputIsRefused) {
    OnnxModel over_initializer;
    over_initializer.input("x", {2}).output("y");
    over_initializer.initializer("w", {2}, {1, 2});
    over_initializer.node("Relu", {"x"}, {"w"}, "r");
    over_initializer.node("Add", {"x", "w"}, {"y"}, "add");
    EXPECT_EQ(import_error(over_initializer),
              "test.onnx: node 'r' (Relu) defines 'w', which an initializer already defines (an ONNX graph "
              "defines each name once)");

    OnnxModel over_input;
    over_input.input("x", {2}).output("y");
    over_input.node("Relu", {"x"}, {"x"}).clear_name();  // unnamed: called by its place
    over_input.node("Relu", {"x"}, {"y"});
    EXPECT_EQ(import_error(over_input),
              "test.onnx: node #0 (Relu) defines 'x', which a graph input already defines (an ONNX graph "
              "defines each name once)");
}

TEST(OnnxModelImport, AnInitializerListedAsAGraphInputIsOneDefinition) {
    // As older exporters write them: the initializer is the value, not an input.
    OnnxModel m;
    m.input("x", {2}).input("w", {2}).output("y");
    m.initializer("w", {2}, {1, 2});
    m.node("Add", {"x", "w"}, {"y"}, "add");
    const ir::Graph g = m.import();
    EXPECT_EQ(g.oprs.size(), 3u);  // x, the constant w, the Add
}

TEST(OnnxModelImport, AnInputALaterNodeProducesIsRefusedAsOutOfOrder) {
    OnnxModel out_of_order;
    out_of_order.input("x", {2}).output("y");
    out_of_order.node("Sigmoid", {"a"}, {"y"}, "reads_a");
    out_of_order.node("Relu", {"x"}, {"a"}, "makes_a");
    EXPECT_EQ(import_error(out_of_order),
              "test.onnx: node 'reads_a' (Sigmoid): input 'a' is produced by node #1 'makes_a' (Relu), which does "
              "not come before this one (ONNX lists nodes in topological order, and a graph with a cycle has "
              "none)");

    OnnxModel cycle;
    cycle.input("x", {2}).output("y");
    cycle.node("Relu", {"z"}, {"y"}, "first");
    cycle.node("Relu", {"y"}, {"z"}, "second");
    EXPECT_NE(import_error(cycle).find("node 'first' (Relu): input 'z' is produced by node #1 'second' (Relu), "
                                       "which does not come before this one"),
              std::string::npos);

    OnnxModel undefined;
    undefined.input("x", {2}).output("y");
    undefined.node("Relu", {"nowhere"}, {"y"}, "r");
    EXPECT_EQ(import_error(undefined),
              "test.onnx: node 'r' (Relu): input 'nowhere' is produced by no node, initializer or graph input");
}

TEST(OnnxModelImport, UnsupportedAttributeNamesTheAttribute) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    set_attr(m.node("Relu", {"x"}, {"y"}, "r"), "bogus", int64_t{1});
    EXPECT_EQ(import_error(m), "test.onnx: node 'r' (Relu): attribute 'bogus' is not supported");
}

TEST(OnnxModelImport, SymbolicInputDimensionIsAnErrorNamingTheInput) {
    OnnxModel m;
    m.input("x", {1, 3}).output("y");
    m.proto()
        .mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(0)
        ->set_dim_param("batch");
    m.node("Relu", {"x"}, {"y"});
    std::string msg = import_error(m);
    EXPECT_NE(msg.find("graph input 'x': dimension 0 ('batch') is symbolic; fix the input's shape with "
                       "--input-shape x=DxDx..."),
              std::string::npos)
        << msg;
}

// What torch.onnx.export writes for x.view(x.size(0), -1) after a Conv, with
// dynamic_axes on the batch and image axes.
OnnxModel dynamic_axes_model() {
    OnnxModel m;
    m.symbolic_input("x", {"batch", "3", "height", "width"}).output("y");
    m.ramp("w", {2, 3, 3, 3}, 0.01f);
    set_attr(m.node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    m.node("Shape", {"c"}, {"s"});
    m.initializer_i64("zero", {}, {0});
    set_attr(m.node("Gather", {"s", "zero"}, {"n"}), "axis", int64_t{0});
    m.initializer_i64("ax0", {1}, {0});
    m.node("Unsqueeze", {"n", "ax0"}, {"n1"});
    m.initializer_i64("minus1", {1}, {-1});
    set_attr(m.node("Concat", {"n1", "minus1"}, {"shape"}), "axis", int64_t{0});
    m.node("Reshape", {"c", "shape"}, {"y"});
    return m;
}

TEST(OnnxModelImport, InputShapesFixTheSymbolicDimensionsOfADynamicAxesExport) {
    OnnxModel m = dynamic_axes_model();
    EXPECT_NE(import_error(m).find("dimension 0 ('batch') is symbolic"), std::string::npos);
    ir::Graph g = m.import({.input_shapes = {{"x", {2, 3, 5, 4}}}});
    ir::OprId in = find_opr(g, "Host2DeviceCopy");
    auto shape = g.tensor_shape(ir::TensorId(g.oprs.tensors[in.value].begin));
    EXPECT_EQ(std::vector<uint32_t>(shape.begin(), shape.end()), (std::vector<uint32_t>{2, 3, 5, 4}));
    EXPECT_EQ(compute_ops(g), (V{"Convolution", "Reshape"}));
    EXPECT_EQ(input_ints(g, find_opr(g, "Reshape"), 1), (std::vector<int32_t>{2, 40}));
    expect_round_trip(g);
}

TEST(OnnxModelImport, AGivenInputShapeMustFitTheModelsInputs) {
    OnnxModel m = dynamic_axes_model();
    auto error = [&](std::map<std::string, std::vector<int64_t>> shapes) {
        try {
            m.import({.input_shapes = std::move(shapes)});
        } catch (const OptionError& e) {
            return std::string(e.what());
        }
        ADD_FAILURE() << "import succeeded";
        return std::string();
    };
    EXPECT_NE(error({{"x", {1, 3, 8}}})
                  .find("graph input 'x': the given shape [1x3x8] has rank 3, the model declares rank 4"),
              std::string::npos);
    EXPECT_NE(error({{"x", {1, 4, 8, 8}}}).find("has 4 at axis 1, the model declares 3"), std::string::npos);
    EXPECT_NE(error({{"x", {1, 3, 0, 8}}}).find("has dimension 0"), std::string::npos);
    EXPECT_NE(error({{"x", {1, 3, 8, 8}}, {"image", {1}}})
                  .find("an input shape is given for 'image', which is not a graph input (the inputs: x)"),
              std::string::npos);
}

TEST(OnnxModelImport, InputShapeSpecsAreNameEqualsDimsJoinedByX) {
    using formats::parse_onnx_input_shape;
    EXPECT_EQ(parse_onnx_input_shape("x=1x3x224x224"),
              (std::pair<std::string, std::vector<int64_t>>{"x", {1, 3, 224, 224}}));
    EXPECT_EQ(parse_onnx_input_shape("a=b=7"), (std::pair<std::string, std::vector<int64_t>>{"a=b", {7}}));
    EXPECT_EQ(parse_onnx_input_shape("scalar="),
              (std::pair<std::string, std::vector<int64_t>>{"scalar", {}}));
    for (const char* bad : {"x", "=1x2", "x=1xx2", "x=0x2", "x=1x", "x=-1", "x=1.5", "x=1,3"})
        EXPECT_THROW(parse_onnx_input_shape(bad), OptionError) << bad;
}

TEST(OnnxModelImport, OperatorFromAnotherDomainIsAnError) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("Relu", {"x"}, {"y"}, "r").set_domain("com.microsoft");
    EXPECT_EQ(import_error(m),
              "test.onnx: 1 operator type cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported ones): "
              "com.microsoft:Relu (1 node, first 'r': domain 'com.microsoft')");
}

// A Reshape to a graph input's values converts (tests/onnx_import_runtime_values_test.cpp);
// axes MegEngine takes as a param must be constants.
TEST(OnnxModelImport, ShapeDependentValueThatIsNotConstantIsAnError) {
    // Unsqueeze's axes from a graph input give a shape known only at run time
    // (formats/onnx/runtime_axes.cpp); MatMul's mapping of such an A takes a
    // matrix only (its batched form reshapes by the dims it knows at import time).
    OnnxModel m;
    m.input("x", {2, 3}).input("a", {1}, OnnxType::INT64).output("z");
    m.node("Unsqueeze", {"x", "a"}, {"y"}, "us");
    m.node("MatMul", {"y", "y"}, {"z"}, "mm");
    std::string msg = import_error(m);
    EXPECT_NE(msg.find("node 'mm' (MatMul): A has rank 3 and dims known only at run time: only a matrix (rank 2) is "
                       "supported"),
              std::string::npos)
        << msg;
}

}  // namespace
}  // namespace mgedump::test
