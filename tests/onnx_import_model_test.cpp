// Whole-model concerns: inputs, outputs, initializers as params, external data,
// large models, and the errors for what cannot be converted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;
using V = std::vector<std::string>;

std::string import_error(const OnnxModel& m) {
    try {
        m.import();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "import succeeded";
    return {};
}

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
    m.node("Celu", {"x"}, {"y"}, "act3");
    EXPECT_EQ(import_error(m), "test.onnx: node 'act3' (Celu): operator type is not supported");
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
    EXPECT_NE(msg.find("graph input 'x': dimension 'batch' is symbolic"), std::string::npos) << msg;
}

TEST(OnnxModelImport, OperatorFromAnotherDomainIsAnError) {
    OnnxModel m;
    m.input("x", {4}).output("y");
    m.node("Relu", {"x"}, {"y"}, "r").set_domain("com.microsoft");
    EXPECT_EQ(import_error(m),
              "test.onnx: node 'r' (Relu): operator domain 'com.microsoft' is not supported");
}

TEST(OnnxModelImport, ShapeDependentValueThatIsNotConstantIsAnError) {
    OnnxModel m;
    m.input("x", {2, 3}).input("s", {2}, OnnxType::INT64).output("y");
    m.node("Reshape", {"x", "s"}, {"y"}, "rs");
    std::string msg = import_error(m);
    EXPECT_NE(msg.find("node 'rs' (Reshape): shape (input #1) must be a constant"), std::string::npos) << msg;
}

}  // namespace
}  // namespace mgedump::test
