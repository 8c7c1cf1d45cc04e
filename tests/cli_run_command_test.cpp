// `mgedump run` and `mgedump verify --numeric / --against` from the command line:
// values computed by the reference evaluator, checked against the operator's
// definition (the spec's Appendix C graph is data + [1,2,3]) and ONNX's own test
// data; bad inputs are clear errors that leave nothing behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_run.h"
#include "engine/eval/npy_tensor.h"
#include "formats/npy.h"
#include "formats/onnx/onnx_proto.h"
#include "npy_image.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

const fs::path kOnnxAdd = "/usr/share/libonnx-testdata/data/node/test_add";

class RunCommand : public TempDirTest {
  protected:
    RunCommand() : TempDirTest("mgedump_run_cli_") {}

    std::string npy(const std::string& name, ir::DTypeEnum t, std::vector<uint32_t> shape, const void* data,
                    size_t bytes) {
        auto image = formats::encode_npy(t, shape, ir::Bytes(static_cast<const std::byte*>(data), bytes));
        const fs::path p = dir / name;
        std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(image.data()), image.size());
        return p.string();
    }

    // A '<i8' file, which formats::encode_npy does not write (MegEngine has no
    // 64-bit integers).
    std::string npy_of_int64(const std::string& name, std::initializer_list<int64_t> values) {
        const std::vector<std::byte> image = npy_image(
            fmt::format("{{'descr': '<i8', 'fortran_order': False, 'shape': ({},), }}", values.size()),
            int64_bytes(values));
        return write(name, std::string(reinterpret_cast<const char*>(image.data()), image.size()));
    }

    static std::string text_of(const fs::path& p) {
        std::ifstream f(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
    }

    std::vector<float> floats_of(const fs::path& p) {
        engine::eval::Tensor t = engine::eval::read_npy_tensor(p);
        auto d = t.data<float>();
        return {d.begin(), d.end()};
    }
};

TEST_F(RunCommand, WritesEachOutputAsNpyWithTheOperatorsValues) {
    const std::string graph = write("g.json", kAppendixCGraph);
    const float data[3] = {0.5f, -1.0f, 2.0f};
    const std::string in = npy("data.npy", ir::DTypeEnum::Float32, {1, 3}, data, sizeof data);
    CliRun r = run_cli("run " + graph + " -o " + (dir / "out").string() + " --input data=" + in);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("out Float32 [1,3] xxh3:"), std::string::npos) << r.out;
    // Appendix C: out = data + [1, 2, 3].
    EXPECT_EQ(floats_of(dir / "out" / "out.npy"), (std::vector<float>{1.5f, 1.0f, 5.0f}));
}

// An output file named as an --input file or the model would replace what the
// run read: refused (exit 2) before anything is written.
TEST_F(RunCommand, AnOutputOnAnInputFileOrTheModelIsRefusedAndTheFileKept) {
    const std::string graph = write("g.json", kAppendixCGraph);
    const float data[3] = {0.5f, -1.0f, 2.0f};
    const std::string in = npy("out.npy", ir::DTypeEnum::Float32, {1, 3}, data, sizeof data);
    const std::string before = text_of(in);
    CliRun r = run_cli("run " + graph + " -o " + dir.string() + " --input data=" + in);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("the file of --input data="), std::string::npos) << r.out;
    EXPECT_EQ(text_of(in), before);

    // A graph JSON named as the output's file.
    const std::string model = write("out.npy", kAppendixCGraph);
    r = run_cli("run " + model + " -o " + dir.string() + " --random-inputs 1");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("the model itself"), std::string::npos) << r.out;
    EXPECT_EQ(text_of(model), kAppendixCGraph);

    // Elsewhere, the same run writes its output.
    const std::string apart = npy("d.npy", ir::DTypeEnum::Float32, {1, 3}, data, sizeof data);
    r = run_cli("run " + graph + " -o " + (dir / "elsewhere").string() + " --input data=" + apart);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::exists(dir / "elsewhere" / "out.npy"));
}

// OpenBLAS is loaded by the first matrix product (engine/eval/blas_library.h), not
// at startup: the dynamic loader's own trace (LD_DEBUG=files) names every library
// it loads, so a dump must not name it and a run of a MatrixMul must.
TEST_F(RunCommand, OpenBlasIsLoadedByTheFirstMatrixProductNotByADump) {
    const std::string graph = write("mm.json", R"({"format": "mgedump-graph", "version": 1,
      "constants": [{"name": "a", "dtype": "Float32", "shape": [1, 2], "values": [1, 2]},
                    {"name": "b", "dtype": "Float32", "shape": [2, 1], "values": [3, 4]}],
      "operators": [{"op": "MatrixMul", "inputs": ["a", "b"], "outputs": ["y"]}],
      "outputs": ["y"]})");
    const CliRun dump = run_shell("LD_DEBUG=files " + cli_path() + " dump " + graph + " -q -o " +
                                  (dir / "mm.mge").string());
    ASSERT_EQ(dump.status, 0) << dump.out;
    EXPECT_NE(dump.out.find("libtbb"), std::string::npos) << "no loader trace: " << dump.out;
    EXPECT_EQ(dump.out.find("libopenblas"), std::string::npos) << dump.out;

    const CliRun run = run_shell("LD_DEBUG=files " + cli_path() + " run " + graph + " -q -o " +
                                 (dir / "out").string());
    ASSERT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find("libopenblas"), std::string::npos) << run.out;
    // [1,2]·[3,4]ᵀ
    EXPECT_EQ(floats_of(dir / "out" / "y.npy"), (std::vector<float>{11.0f}));
}

TEST_F(RunCommand, RandomInputsAreTheSameForTheSameSeed) {
    const std::string graph = write("g.json", kAppendixCGraph);
    ASSERT_EQ(run_cli("run " + graph + " -q -o " + (dir / "a").string() + " --random-inputs 7").status, 0);
    ASSERT_EQ(run_cli("run " + graph + " -q -o " + (dir / "b").string() + " --random-inputs 7").status, 0);
    ASSERT_EQ(run_cli("run " + graph + " -q -o " + (dir / "c").string() + " --random-inputs 8").status, 0);
    EXPECT_EQ(file_bytes(dir / "a" / "out.npy"), file_bytes(dir / "b" / "out.npy"));
    EXPECT_NE(file_bytes(dir / "a" / "out.npy"), file_bytes(dir / "c" / "out.npy"));
    // Inputs lie in [-1, 1), so out - [1,2,3] does too.
    const std::vector<float> v = floats_of(dir / "a" / "out.npy");
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_GE(v[i] - float(i + 1), -1.0f);
        EXPECT_LT(v[i] - float(i + 1), 1.0f);
    }
}

TEST_F(RunCommand, AModelPastTheWorkLimitIsRefusedAndWritesNothing) {
    // Appendix C: the constant writes 3 elements, the ADD reads 6 and writes 3 (the
    // fed input costs nothing): 12 estimated multiply-adds, past a limit of 10, at the ADD.
    const std::string graph = write("g.json", kAppendixCGraph);
    CliRun r = run_cli("run " + graph + " -o " + (dir / "out").string() + " --random-inputs 1 --max-eval-work 10");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("(Elemwise): evaluating it would pass the evaluator's work limit (12 estimated "
                         "multiply-adds so far with its 9, the limit is 10)"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(dir / "out"));
    EXPECT_EQ(run_cli("run " + graph + " -q -o " + (dir / "out").string() + " --random-inputs 1 --max-eval-work 12")
                  .status,
              0);
}

TEST_F(RunCommand, AMissingInputIsAUsageErrorAndWritesNothing) {
    const std::string graph = write("g.json", kAppendixCGraph);
    CliRun r = run_cli("run " + graph + " -o " + (dir / "out").string());
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("input 'data' (Float32 [1,3]) has no value"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_F(RunCommand, AnUnknownInputNameListsTheModelsInputs) {
    const std::string graph = write("g.json", kAppendixCGraph);
    const float data[3] = {};
    const std::string in = npy("x.npy", ir::DTypeEnum::Float32, {1, 3}, data, sizeof data);
    CliRun r = run_cli("run " + graph + " -o " + (dir / "out").string() + " --input dat=" + in);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("the model has no input 'dat' (its inputs: data)"), std::string::npos) << r.out;
}

TEST_F(RunCommand, AnNpyOfTheWrongShapeOrDtypeIsRefused) {
    const std::string graph = write("g.json", kAppendixCGraph);
    const float four[4] = {};
    const std::string wrong_shape = npy("s.npy", ir::DTypeEnum::Float32, {1, 4}, four, sizeof four);
    CliRun r = run_cli("run " + graph + " -o " + (dir / "out").string() + " --input data=" + wrong_shape);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("input 'data' is Float32 [1,3], the file holds [1,4]"), std::string::npos) << r.out;
    const int32_t ints[3] = {};
    const std::string wrong_dtype = npy("d.npy", ir::DTypeEnum::Int32, {1, 3}, ints, sizeof ints);
    r = run_cli("run " + graph + " -o " + (dir / "out").string() + " --input data=" + wrong_dtype);
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("d.npy"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "out" / "out.npy"));
}

// An ONNX INT64 input is held as Int32 (formats/onnx): its values saved as int64,
// as numpy and PyTorch save indices and token ids, are taken when each fits.
TEST_F(RunCommand, AnInt64NpyFeedsAnOnnxInt64InputWhenEveryValueFitsInt32) {
    OnnxModel m;
    m.input("ids", {3}, OnnxType::INT64).output("y");
    m.ramp("table", {4, 2});  // row r is {r, r + 0.5}
    m.node("Gather", {"table", "ids"}, {"y"});
    const std::string model = write("gather.onnx", m.bytes());
    const std::string in = npy_of_int64("ids.npy", {3, 0, 2});
    CliRun r = run_cli("run " + model + " -o " + (dir / "out").string() + " --input ids=" + in);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(floats_of(dir / "out" / "y.npy"), (std::vector<float>{3, 3.5f, 0, 0.5f, 2, 2.5f}));

    const std::string bad = npy_of_int64("big.npy", {1, int64_t{1} << 40, 2});
    r = run_cli("run " + model + " -o " + (dir / "out2").string() + " --input ids=" + bad);
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("big.npy: holds int64 data ('<i8') for an Int32 input, and element 1 (1099511627776) does "
                         "not fit in 32 bits"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(dir / "out2" / "y.npy"));
}

TEST_F(RunCommand, VerifyNumericComparesEveryFormatWithAndWithoutRewrites) {
    const std::string graph = write("g.json", kAppendixCGraph);
    CliRun r = run_cli("verify --numeric " + graph);
    ASSERT_EQ(r.status, 0) << r.out;
    for (const char* v : {"FBS_V2: out", "FBS_V2 no_change_graph: out", "FBS: out", "FBS no_change_graph: out"})
        EXPECT_NE(r.out.find(v), std::string::npos) << v << "\n" << r.out;
    EXPECT_NE(r.out.find("max abs 0, max rel 0"), std::string::npos) << r.out;
}

TEST_F(RunCommand, VerifyAgainstOnnxTestData) {
    ASSERT_TRUE(fs::exists(kOnnxAdd / "model.onnx")) << "libonnx-testdata is not installed";
    const std::string model = (kOnnxAdd / "model.onnx").string();
    CliRun r = run_cli("verify " + model + " --against " + model + " --data " + kOnnxAdd.string());
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("on 1 data set(s), rtol 1e-3 atol 1e-7"), std::string::npos) << r.out;

    // The same data set with one expected value changed must fail.
    fs::copy(kOnnxAdd / "test_data_set_0", dir / "set", fs::copy_options::recursive);
    onnx::TensorProto t;
    {
        std::ifstream in(dir / "set" / "output_0.pb", std::ios::binary);
        ASSERT_TRUE(t.ParseFromIstream(&in));
    }
    ASSERT_TRUE(t.has_raw_data());
    std::string raw = t.raw_data();
    float first;
    std::memcpy(&first, raw.data(), 4);
    first += 0.5f;
    std::memcpy(raw.data(), &first, 4);
    t.set_raw_data(raw);
    {
        std::ofstream out(dir / "set" / "output_0.pb", std::ios::binary | std::ios::trunc);
        ASSERT_TRUE(t.SerializeToOstream(&out));
    }
    r = run_cli("verify " + model + " --against " + model + " --data " + (dir / "set").string());
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("1 elements outside tolerance"), std::string::npos) << r.out;
}

TEST_F(RunCommand, AgainstWithoutDataIsAUsageError) {
    CliRun r = run_cli("verify x.mge --against m.onnx");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--against MODEL.onnx and --data DIR go together"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mgedump::test
