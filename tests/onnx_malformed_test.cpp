// Damaged ONNX files: every truncation and many single-byte corruptions of a small
// model either import (the damage hit a value) or fail with mgedump's own Error —
// never a crash, never another exception type. Whatever imports must also dump.
#include <gtest/gtest.h>

#include <string>

#include "engine/dump.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

OnnxModel small_model() {
    OnnxModel m;
    m.input("data", {1, 3, 8, 8}).output("out");
    m.ramp("conv.weight", {4, 3, 3, 3});
    m.ramp("conv.bias", {4});
    set_attr(m.node("Conv", {"data", "conv.weight", "conv.bias"}, {"c"}, "conv"), "pads",
             std::vector<int64_t>{1, 1, 1, 1});
    m.node("Relu", {"c"}, {"r"}, "relu");
    set_attr(m.node("MaxPool", {"r"}, {"p"}, "pool"), "kernel_shape", std::vector<int64_t>{2, 2});
    m.initializer_i64("shape", {2}, {1, -1});
    m.node("Reshape", {"p", "shape"}, {"f"}, "flatten");
    m.node("Softmax", {"f"}, {"out"}, "softmax");
    return m;
}

// A second model touching the shape, index and reduction handlers.
OnnxModel shape_model() {
    OnnxModel m;
    m.input("x", {1, 4, 6, 6}).output("out");
    m.ramp("bn.scale", {4});
    m.ramp("bn.bias", {4});
    m.ramp("bn.mean", {4});
    m.initializer("bn.var", {4}, {1, 2, 3, 4});
    m.node("BatchNormalization", {"x", "bn.scale", "bn.bias", "bn.mean", "bn.var"}, {"bn"}, "bn");
    set_attr(m.node("Transpose", {"bn"}, {"t"}, "transpose"), "perm", std::vector<int64_t>{0, 1, 3, 2});
    set_attr(m.node("Concat", {"bn", "t"}, {"cat"}, "concat"), "axis", int64_t{1});
    m.initializer_i64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
    m.node("Pad", {"cat", "pads"}, {"pd"}, "pad");
    set_attr(m.node("ReduceMean", {"pd"}, {"rm"}, "mean"), "axes", std::vector<int64_t>{2});
    m.initializer_i64("axis2", {1}, {2});
    m.initializer_i64("axis0", {1}, {0});
    m.node("Squeeze", {"rm", "axis2"}, {"sq"}, "squeeze");
    m.node("Unsqueeze", {"sq", "axis0"}, {"us"}, "unsqueeze");
    m.initializer_i64("starts", {1}, {2});
    m.initializer_i64("ends", {1}, {6});
    m.node("Slice", {"us", "starts", "ends", "axis2"}, {"sl"}, "slice");
    m.node("Flatten", {"sl"}, {"fl"}, "flatten");
    m.ramp("fc.w", {5, 32}, 0.01f);
    m.ramp("fc.b", {5});
    set_attr(m.node("Gemm", {"fl", "fc.w", "fc.b"}, {"gm"}, "fc"), "transB", int64_t{1});
    m.initializer_i64("pick", {2}, {0, 2});
    set_attr(m.node("Gather", {"gm", "pick"}, {"out"}, "gather"), "axis", int64_t{1});
    return m;
}

// "" when the bytes import and dump; the error message when they are refused.
// Any other exception escapes and fails the test; a crash fails the run.
std::string try_import(const std::string& bytes) {
    try {
        ir::Graph g = formats::import_onnx_bytes(
            ir::Bytes(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), "damaged.onnx", ".");
        engine::dump_graph(g, engine::DumpOptions{});
        return "";
    } catch (const Error& e) {
        return e.what();
    }
}

TEST(OnnxMalformed, TheUndamagedModelsImport) {
    EXPECT_EQ(try_import(small_model().bytes()), "");
    EXPECT_EQ(try_import(shape_model().bytes()), "");
}

TEST(OnnxMalformed, EveryTruncationIsRefusedWithAnErrorNamingTheFile) {
    for (const std::string& good : {small_model().bytes(), shape_model().bytes()}) {
        size_t refused = 0;
        for (size_t n = 0; n < good.size(); ++n) {
            const std::string msg = try_import(good.substr(0, n));
            if (msg.empty()) continue;
            ++refused;
            EXPECT_NE(msg.find("damaged.onnx"), std::string::npos) << msg;
        }
        // A cut can land between complete fields and still parse (protobuf has no
        // length header), but then the graph lacks its output, node or weights.
        EXPECT_GT(refused, good.size() * 9 / 10);
    }
}

TEST(OnnxMalformed, SingleByteCorruptionsImportOrFailCleanly) {
    size_t refused = 0, total = 0;
    for (const std::string& good : {small_model().bytes(), shape_model().bytes()})
        for (size_t i = 0; i < good.size(); ++i)
            for (char v : {char(0x00), char(0xff), char(good[i] ^ 0x01), char(good[i] + 0x40)}) {
                if (v == good[i]) continue;
                std::string bad = good;
                bad[i] = v;
                refused += !try_import(bad).empty();
                ++total;
            }
    EXPECT_GT(refused, total / 10);
}

}  // namespace
}  // namespace mgedump::test
