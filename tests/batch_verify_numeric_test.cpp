// `mgedump batch --verify-numeric`: each artifact is loaded again and executed
// by the reference evaluator before it is written; the report records its
// largest difference from the model as read, and an artifact that cannot be
// checked fails alone and is not written.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli_run.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

class BatchVerifyNumeric : public TempDirTest {
  protected:
    BatchVerifyNumeric() : TempDirTest("mgedump_batch_numeric_") {}

    void SetUp() override {
        TempDirTest::SetUp();
        fs::create_directories(dir / "in");
        for (const char* m : {"mlp_params.json", "transformer_block.json", "quantized.json"})
            fs::copy(fs::path(source_dir()) / "examples" / m, dir / "in" / m);
    }

    nlohmann::json report(const fs::path& out) {
        std::ifstream in(out / "report.json");
        return nlohmann::json::parse(in);
    }
};

TEST_F(BatchVerifyNumeric, EveryArtifactIsExecutedAndItsDifferenceRecorded) {
    for (const char* format : {"FBS_V2", "FBS"}) {
        const fs::path out = dir / format;
        CliRun r = run_cli("batch " + (dir / "in").string() + " -o " + out.string() + " -q --verify-numeric --dump-format " + format);
        ASSERT_EQ(r.status, 0) << r.out;
        const nlohmann::json j = report(out);
        ASSERT_EQ(j["artifacts"].size(), 3u);
        for (const auto& a : j["artifacts"]) {
            ASSERT_TRUE(a.contains("numeric")) << a.dump();
            // The FBS rewrites (Softmax, LayerNorm into Reduce/Elemwise) may move
            // the last bits, never more than the tolerance.
            EXPECT_LE(a["numeric"]["max_rel"].get<double>(), 1e-5) << a.dump();
            EXPECT_TRUE(fs::exists(out / a["path"].get<std::string>()));
        }
    }
}

TEST_F(BatchVerifyNumeric, TheCheckDoesNotChangeTheBytes) {
    ASSERT_EQ(run_cli("batch " + (dir / "in").string() + " -o " + (dir / "a").string() + " -q").status, 0);
    ASSERT_EQ(run_cli("batch " + (dir / "in").string() + " -o " + (dir / "b").string() + " -q --verify-numeric --threads 1").status, 0);
    for (const char* m : {"mlp_params.mge", "transformer_block.mge", "quantized.mge"})
        EXPECT_EQ(file_bytes(dir / "a" / m), file_bytes(dir / "b" / m)) << m;
}

TEST_F(BatchVerifyNumeric, AnArtifactThatCannotBeExecutedFailsAloneAndIsNotWritten) {
    // CustomOpNode's library is not mgedump's: the evaluator has no kernel for it.
    std::ofstream(dir / "in" / "custom.json") << R"({"format": "mgedump-graph", "version": 1,
 "inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 4]}],
 "operators": [{"op": "CustomOpNode", "inputs": ["x"], "outputs": ["y"]}],
 "outputs": ["y"]})";
    const fs::path out = dir / "out";
    CliRun r = run_cli("batch " + (dir / "in").string() + " -o " + out.string() + " --verify-numeric");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("the evaluator has no kernel for CustomOpNode"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out / "custom.mge"));
    EXPECT_TRUE(fs::exists(out / "mlp_params.mge"));
    // Without the check the same model is written (it is a valid file).
    EXPECT_EQ(run_cli("batch " + (dir / "in").string() + " -o " + (dir / "plain").string() + " -q").status, 0);
    EXPECT_TRUE(fs::exists(dir / "plain" / "custom.mge"));
}

}  // namespace
}  // namespace mgedump::test
