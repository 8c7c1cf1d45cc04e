// Reading ONNX files (formats/onnx/model_file.h): initializers' raw_data stay in the
// file image (views into the mapping, not protobuf copies), and whatever the file
// looks like — fields in any order, repeated fields, records the skeleton walker
// does not read, damage — the model imports exactly as protobuf alone reads it.
#include "formats/onnx/model_file.h"

#include <google/protobuf/io/coded_stream.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/artifact_file.h"
#include "formats/onnx/importer.h"
#include "jobs/model_input.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("mgedump_onnx_file_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

ir::Bytes as_bytes(const std::string& s) { return {reinterpret_cast<const std::byte*>(s.data()), s.size()}; }

// The file a mapping of this process holding `p` maps ("" when none does).
std::string mapped_file_of(const void* p) {
    std::ifstream maps("/proc/self/maps");
    const auto addr = reinterpret_cast<uintptr_t>(p);
    for (std::string line; std::getline(maps, line);) {
        uintptr_t lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2 || addr < lo || addr >= hi) continue;
        size_t slash = line.find('/');
        return slash == std::string::npos ? "" : line.substr(slash);
    }
    return "";
}

// The model as protobuf alone reads it (every byte parsed as parse_onnx_model
// parses what it does not take apart), with parse_onnx_model's errors.
formats::OnnxModelFile plain_model(const std::string& bytes) {
    auto proto = std::make_shared<onnx::ModelProto>();
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetTotalBytesLimit(INT_MAX);
    if (!proto->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
        throw FormatError("test.onnx: not an ONNX model (the bytes do not parse as onnx.ModelProto)");
    if (!proto->has_graph()) throw FormatError("test.onnx: not an ONNX model (ModelProto has no graph)");
    return formats::OnnxModelFile{std::move(proto), "test.onnx", ".", {}, nullptr};
}

// The dumped bytes (FBS_V2, params named) of a model, or the error it gave.
std::string dump_of(const formats::OnnxModelFile& model) {
    try {
        ir::Graph g = formats::onnx_import::Importer(model, {.params_as_shared_device_tensor = true}).run();
        engine::DumpOptions o;
        o.keep_param_name = true;
        std::vector<std::byte> b = engine::dump_graph(g, o).bytes.to_bytes();
        return std::string(reinterpret_cast<const char*>(b.data()), b.size());
    } catch (const Error& e) {
        return std::string("error: ") + e.what();
    }
}

// Imports `bytes` through the skeleton (views into a buffer it owns) and through
// protobuf alone; expects the same dump. Returns the skeleton-read model.
formats::OnnxModelFile expect_same_as_protobuf(const std::string& bytes) {
    auto owned = std::make_shared<std::string>(bytes);
    formats::OnnxModelFile model = formats::parse_onnx_model(as_bytes(*owned), "test.onnx", ".", owned);
    const std::string via_skeleton = dump_of(model), via_protobuf = dump_of(plain_model(bytes));
    EXPECT_EQ(via_skeleton.rfind("error: ", 0), std::string::npos) << via_skeleton;
    EXPECT_TRUE(via_skeleton == via_protobuf) << via_skeleton << "\nvs\n" << via_protobuf;
    return model;
}

// --- hand-made wire format ---
std::string varint(uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
}
std::string record(uint32_t field, const std::string& payload) {
    return varint(uint64_t{field} << 3 | 2) + varint(payload.size()) + payload;
}
std::string varint_record(uint32_t field, uint64_t v) { return varint(uint64_t{field} << 3) + varint(v); }
std::string floats(std::vector<float> v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

// A Conv model whose weights `w` (2, 3, 1, 1) and bias `b` (2) are initializers.
OnnxModel conv_model() {
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y");
    m.ramp("w", {2, 3, 1, 1});
    m.ramp("b", {2}, 0.25f);
    m.node("Conv", {"x", "w", "b"}, {"y"}, "conv");
    return m;
}

TEST(OnnxModelFile, InlineWeightsOfAModelReadFromDiskAreViewsIntoTheMappedFile) {
    fs::path dir = temp_dir("mapped");
    fs::path path = conv_model().write(dir / "model.onnx");
    formats::OnnxModelFile model = formats::read_onnx_model(path);
    formats::OnnxTensorReader reader(model);
    ASSERT_EQ(model.proto->graph().initializer_size(), 2);
    for (const onnx::TensorProto& t : model.proto->graph().initializer()) {
        EXPECT_FALSE(t.has_raw_data()) << "the message holds no copy of " << t.name();
        formats::OnnxTensorBytes b = reader.read(t);
        EXPECT_EQ(mapped_file_of(b.bytes.data()), fs::canonical(path).string()) << t.name();
        EXPECT_EQ(b.keepalive, model.image);
    }
    // The graph holds the mapping: its blobs stay readable after the model is gone.
    ir::Graph g = formats::import_onnx(path);
    ASSERT_EQ(g.blobs.size(), 2u);
    for (uint32_t b = 0; b < 2; ++b)
        EXPECT_EQ(mapped_file_of(g.blobs.bytes(ir::BlobId(b)).data()), fs::canonical(path).string());
    EXPECT_EQ(input_floats(g, find_opr(g, "ConvBias"), 1), (std::vector<float>{0, 0.5f, 1, 1.5f, 2, 2.5f}));
    fs::remove_all(dir);
}

TEST(OnnxModelFile, ABatchInputViewsInlineWeightsInTheFileItMapped) {
    fs::path dir = temp_dir("batch");
    OnnxModel m;  // over 1 MiB, so the batch maps the file rather than reading it
    m.input("x", {1, 512}).output("y");
    m.ramp("w", {512, 640}, 0.001f);
    m.node("MatMul", {"x", "w"}, {"y"});
    fs::path path = m.write(dir / "model.onnx");
    ASSERT_GT(fs::file_size(path), 1u << 20);
    jobs::ModelInput in = jobs::read_model_input(path);
    const ir::Graph& g = in.graph;
    ASSERT_EQ(g.blobs.size(), 1u);
    EXPECT_EQ(mapped_file_of(g.blobs.bytes(ir::BlobId(0)).data()), fs::canonical(path).string());
    fs::remove_all(dir);
}

// A MatMul whose 1.3 MB weight is one inline initializer: large enough that the
// FBS_V2 writer leaves it to the artifact pass.
OnnxModel matmul_model() {
    OnnxModel m;
    m.input("x", {1, 512}).output("y");
    m.ramp("w", {512, 640}, 0.001f);
    m.node("MatMul", {"x", "w"}, {"y"});
    return m;
}

std::string file_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::byte> file_bytes(const fs::path& p) {
    const std::string s = file_text(p);
    const auto* b = reinterpret_cast<const std::byte*>(s.data());
    return std::vector<std::byte>(b, b + s.size());
}

// Dumping a model read from disk into a file preads its weights through the
// descriptor the mapping keeps, never touching the mapping; the file is the same
// as the bytes gathered in memory from the mapping.
TEST(OnnxModelFile, ADumpIntoAFilePreadsTheWeightsAndWritesTheBytesGatheredFromTheMapping) {
    fs::path dir = temp_dir("pread");
    fs::path path = matmul_model().write(dir / "model.onnx");
    ir::Graph g = formats::import_onnx(path);
    ASSERT_EQ(g.blobs.size(), 1u);
    ASSERT_TRUE(g.blobs.region(ir::BlobId(0)).has_value());
    EXPECT_GE(g.blobs.file_descriptor(ir::BlobId(0)), 0);
    for (auto f : {engine::DumpFormat::FBS_V2, engine::DumpFormat::FBS}) {
        engine::DumpOptions o;
        o.dump_format = f;
        const std::vector<std::byte> gathered = engine::dump_graph(g, o).bytes.to_bytes();
        const fs::path out = dir / "out.mge";
        engine::FileOps ops;
        engine::AtomicFile file(out.string(), ops);
        engine::Dumped d = engine::dump_graph(g, o, nullptr, &file);
        file.commit();
        EXPECT_EQ(d.result.bytes_read_from_files, 512u * 640 * 4) << engine::format_name(f);
        EXPECT_TRUE(file_bytes(out) == gathered) << engine::format_name(f);
        // A copy of the graph (as rewrites make) keeps the descriptor with the blob.
        ir::Graph copy = g;
        ir::BlobId shared = copy.blobs.add_shared(g.blobs, ir::BlobId(0));
        EXPECT_EQ(copy.blobs.file_descriptor(shared), g.blobs.file_descriptor(ir::BlobId(0)));
    }
    // The same file read as bytes a caller owns has no descriptor: copied as before.
    auto owned = std::make_shared<std::string>(file_text(path));
    ir::Graph from_bytes = formats::import_onnx_bytes(as_bytes(*owned), "model.onnx", dir, {}, nullptr, owned);
    EXPECT_EQ(from_bytes.blobs.file_descriptor(ir::BlobId(0)), -1);
    engine::FileOps ops;
    engine::AtomicFile file((dir / "b.mge").string(), ops);
    EXPECT_EQ(engine::dump_graph(from_bytes, engine::DumpOptions{}, nullptr, &file).result.bytes_read_from_files, 0u);
    fs::remove_all(dir);
}

// The input shrinking between import and dump is an error naming the tensor, and
// no output is left; the mapping (which would fault past the new end) is not read.
TEST(OnnxModelFile, AnInputFileCutShortBeforeTheDumpIsAnErrorAndLeavesNoOutput) {
    fs::path dir = temp_dir("shrunk");
    fs::path path = matmul_model().write(dir / "model.onnx");
    ir::Graph g = formats::import_onnx(path, {.params_as_shared_device_tensor = true});  // named operators
    const ir::FileRegion region = *g.blobs.region(ir::BlobId(0));
    fs::resize_file(path, region.offset + 1000);
    const fs::path out = dir / "out.mge";
    try {
        engine::FileOps ops;
        engine::AtomicFile file(out.string(), ops);
        engine::dump_graph(g, engine::DumpOptions{}, nullptr, &file);
        file.commit();
        FAIL() << "the short input was not reported";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'w' (SharedDeviceTensor)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("shorter"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);  // the model alone: no temporary file
    fs::remove_all(dir);
}

TEST(OnnxModelFile, BytesWithAnOwnerAreViewedAndBytesWithoutOneAreCopied) {
    auto owned = std::make_shared<std::string>(conv_model().bytes());
    const std::byte* lo = as_bytes(*owned).data();
    const std::byte* hi = lo + owned->size();
    auto inside = [&](ir::Bytes b) { return b.data() >= lo && b.data() + b.size() <= hi; };

    formats::OnnxModelFile viewed = formats::parse_onnx_model(as_bytes(*owned), "m.onnx", ".", owned);
    formats::OnnxTensorReader r1(viewed);
    for (const onnx::TensorProto& t : viewed.proto->graph().initializer()) {
        formats::OnnxTensorBytes b = r1.read(t);
        EXPECT_TRUE(inside(b.bytes)) << t.name();
        EXPECT_EQ(b.keepalive, owned);
    }
    formats::OnnxModelFile copied = formats::parse_onnx_model(as_bytes(*owned), "m.onnx", ".");
    formats::OnnxTensorReader r2(copied);
    for (const onnx::TensorProto& t : copied.proto->graph().initializer()) {
        formats::OnnxTensorBytes b = r2.read(t);
        EXPECT_FALSE(inside(b.bytes)) << t.name();
        EXPECT_EQ(b.keepalive, copied.image);
        EXPECT_EQ(b.bytes.size(), t.name() == "w" ? 24u : 8u);
    }
}

TEST(OnnxModelFile, RawDataFloatDataAndInt64InitializersImportAsProtobufReadsThem) {
    OnnxModel m = conv_model();
    auto& fd = *m.proto().mutable_graph()->add_initializer();  // float_data, no raw_data
    fd.set_name("scale");
    fd.set_data_type(OnnxType::FLOAT);
    fd.add_dims(2);
    fd.add_float_data(3.0f), fd.add_float_data(-1.0f);
    m.initializer_i64("shape", {2}, {1, -1});
    m.node("Reshape", {"y", "shape"}, {"flat"}, "flat");
    m.node("Mul", {"flat", "flat"}, {"sq"}, "sq");
    m.proto().mutable_graph()->clear_output();
    m.output("sq");
    formats::OnnxModelFile model = expect_same_as_protobuf(m.bytes());
    EXPECT_EQ(model.inline_raw_data.size(), 3u);  // w, b, shape; not the float_data one
}

TEST(OnnxModelFile, ConstantNodesAndExternalDataImportAsProtobufReadsThem) {
    fs::path dir = temp_dir("external");
    std::vector<float> w{1, 2, 3, 4, 5, 6};
    std::ofstream(dir / "w.bin", std::ios::binary).write(reinterpret_cast<const char*>(w.data()), 24);
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("out");
    m.external_initializer("w", {2, 3, 1, 1}, "w.bin");
    m.node("Conv", {"x", "w"}, {"y"}, "conv");
    auto& c = m.node("Constant", {}, {"k"}, "k");
    auto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(OnnxType::FLOAT);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->set_raw_data(floats({0.5f}));
    m.node("Add", {"y", "k"}, {"out"}, "add");
    const std::string bytes = m.bytes();
    auto owned = std::make_shared<std::string>(bytes);
    formats::OnnxModelFile model = formats::parse_onnx_model(as_bytes(*owned), "test.onnx", dir, owned);
    formats::OnnxModelFile plain = plain_model(bytes);
    plain.base_dir = dir;
    EXPECT_EQ(dump_of(model), dump_of(plain));
    EXPECT_EQ(dump_of(model).rfind("error: ", 0), std::string::npos) << dump_of(model);
    EXPECT_TRUE(model.inline_raw_data.empty());  // the external tensor has no raw_data
    fs::remove_all(dir);
}

// The records of conv_model() rearranged by hand: the graph record before the
// model's other fields, and a second graph record protobuf merges into the first
// (its initializers appended); raw_data first in a tensor and given twice, where
// protobuf keeps the last.
std::string unusual_model() {
    OnnxModel m = conv_model();
    onnx::ModelProto proto = m.proto();
    onnx::GraphProto graph = proto.graph();
    proto.clear_graph();
    graph.clear_initializer();
    auto tensor = [](const std::string& name, std::vector<int64_t> dims, std::string raw) {
        std::string dims_bytes;
        for (int64_t d : dims) dims_bytes += varint_record(1, static_cast<uint64_t>(d));
        return record(9, floats({99, 99})) + record(8, name) + record(9, raw) +
               varint_record(2, OnnxType::FLOAT) + dims_bytes;
    };
    std::string first = record(5, tensor("w", {2, 3, 1, 1}, floats({1, 2, 3, 4, 5, 6})));
    std::string second = record(5, tensor("b", {2}, floats({7, 8})));
    return record(7, first) + proto.SerializeAsString() + record(7, graph.SerializeAsString() + second);
}

TEST(OnnxModelFile, FieldsInUnusualOrderRepeatedGraphsAndRepeatedRawDataImportAsProtobufReadsThem) {
    const std::string bytes = unusual_model();
    formats::OnnxModelFile model = expect_same_as_protobuf(bytes);
    EXPECT_EQ(model.inline_raw_data.size(), 2u);
    ir::Graph g = formats::onnx_import::Importer(model, {}).run();
    ir::OprId conv = find_opr(g, "ConvBias");
    EXPECT_EQ(input_floats(g, conv, 1), (std::vector<float>{1, 2, 3, 4, 5, 6}));  // the last raw_data
    EXPECT_EQ(input_floats(g, conv, 2), (std::vector<float>{7, 8}));
}

TEST(OnnxModelFile, RecordsTheWalkerDoesNotReadLeaveTheWholeFileToProtobuf) {
    // A group (wire types 3 and 4) at the top level: protobuf keeps it as an
    // unknown field; the walker reads no groups, so nothing is taken out.
    const std::string group =
        varint(uint64_t{100} << 3 | 3) + varint_record(1, 5) + varint(uint64_t{100} << 3 | 4);
    formats::OnnxModelFile model = expect_same_as_protobuf(conv_model().bytes() + group);
    EXPECT_TRUE(model.inline_raw_data.empty());
    EXPECT_TRUE(model.proto->graph().initializer(0).has_raw_data());
    // raw_data (9) written as a varint is an unknown field to protobuf too, not data.
    OnnxModel m = conv_model();
    m.proto().mutable_graph()->mutable_initializer(1)->clear_raw_data();
    m.proto().mutable_graph()->mutable_initializer(1)->add_float_data(7);
    m.proto().mutable_graph()->mutable_initializer(1)->add_float_data(8);
    std::string bytes = m.bytes();
    onnx::ModelProto p;
    ASSERT_TRUE(p.ParseFromString(bytes));
    std::string b_tensor = p.graph().initializer(1).SerializeAsString() + varint_record(9, 12345);
    p.mutable_graph()->mutable_initializer()->RemoveLast();
    bytes = p.SerializeAsString() + record(7, record(5, b_tensor));
    formats::OnnxModelFile odd = expect_same_as_protobuf(bytes);
    EXPECT_EQ(odd.inline_raw_data.size(), 1u);  // only w
}

TEST(OnnxModelFile, EveryTruncationAndCorruptionFailsOrImportsAsProtobufAloneWould) {
    for (const std::string& good : {conv_model().bytes(), unusual_model()}) {
        auto same = [&](const std::string& bad) {
            auto owned = std::make_shared<std::string>(bad);
            std::string via_skeleton, via_protobuf;
            try {
                via_skeleton = dump_of(formats::parse_onnx_model(as_bytes(*owned), "test.onnx", ".", owned));
            } catch (const FormatError& e) {
                via_skeleton = std::string("error: ") + e.what();
            }
            try {
                via_protobuf = dump_of(plain_model(bad));
            } catch (const FormatError& e) {
                via_protobuf = std::string("error: ") + e.what();
            }
            return via_skeleton == via_protobuf;  // the same dump or the same error
        };
        for (size_t n = 0; n < good.size(); ++n) EXPECT_TRUE(same(good.substr(0, n))) << "cut at " << n;
        for (size_t i = 0; i < good.size(); ++i)
            for (char v : {char(0x00), char(0xff), char(good[i] ^ 0x01), char(good[i] + 0x40)}) {
                std::string bad = good;
                bad[i] = v;
                EXPECT_TRUE(same(bad)) << "byte " << i << " set to " << int(v);
            }
    }
}

}  // namespace
}  // namespace mgedump::test
