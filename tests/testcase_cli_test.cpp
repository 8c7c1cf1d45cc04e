// Self-checking artifacts from the command line: `dump --input-data`, `inspect`
// and `verify` (plain and --numeric) of the test-case file, a deliberately wrong
// expected value failing `verify --numeric`, bad --input-data refused with
// nothing written, and `batch` test cases (manifest keys, --testcases) written
// deterministically.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "engine/artifact_file.h"
#include "engine/testcase/testcase_dump.h"
#include "formats/npy.h"
#include "testcase_test_util.h"

namespace mgedump {
namespace {

using test::file_bytes;
using test::run_cli;

// test::two_output_model as graph JSON.
constexpr const char* kTwoOutputs = R"({
  "format": "mgedump-graph", "version": 1,
  "inputs": [{"name": "zeta", "dtype": "Float32", "shape": [2, 3]},
             {"name": "alpha", "dtype": "Float32", "shape": [3]}],
  "constants": [{"name": "c", "dtype": "Float32", "shape": [3], "values": [1, 2, 3]}],
  "operators": [{"op": "Elemwise", "inputs": ["zeta", "alpha"], "params": {"mode": "MUL"}, "outputs": ["prod"]},
                {"op": "Elemwise", "inputs": ["prod", "c"], "params": {"mode": "ADD"}, "outputs": ["out"]},
                {"op": "Elemwise", "inputs": ["zeta"], "params": {"mode": "RELU"}, "outputs": ["act"]}],
  "outputs": ["out", "act"]
})";

class TestcaseCli : public test::TempDirTest {
  protected:
    TestcaseCli() : TempDirTest("mgedump_testcase_cli_") {}
    void SetUp() override {
        TempDirTest::SetUp();
        model = write("m.json", kTwoOutputs);
        npy("z.npy", {2, 3}, {1, -2, 3, -4, 5, -6});
        npy("a.npy", {3}, {2, 0.5f, -1});
        npy("small.npy", {1, 3}, {1, 2, 3});
    }
    void npy(const std::string& name, std::vector<uint32_t> shape, const std::vector<float>& v) {
        const auto image =
            formats::encode_npy(ir::DTypeEnum::Float32, shape,
                                ir::Bytes(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4));
        std::ofstream(dir / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(image.data()), image.size());
    }
    // Runs in `dir`, so SPECs name files relative to it.
    test::CliRun in_dir(const std::string& args) {
        return test::run_shell(fmt::format("cd {} && {} {}", dir.string(), test::cli_path(), args));
    }
    std::string model;
};

// The test-case data is read to make the artifact: an -o on it would replace it.
TEST_F(TestcaseCli, AnOutputOnTestCaseDataIsRefusedAndTheDataKept) {
    const std::string before = file_bytes(dir / "a.npy");
    const auto r = in_dir("dump m.json -o a.npy --input-data 'zeta:z.npy;alpha:a.npy'");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("is the input a.npy"), std::string::npos) << r.out;
    EXPECT_EQ(file_bytes(dir / "a.npy"), before);
}

// The same for the strip-info JSON, which dump writes after the artifact.
TEST_F(TestcaseCli, AStripInfoFileOnTestCaseDataIsRefusedAndTheDataKept) {
    const std::string before = file_bytes(dir / "a.npy");
    const auto r = in_dir("dump m.json -o t.mge --input-data 'zeta:z.npy;alpha:a.npy' --strip-info-file ./a.npy");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--strip-info-file ./a.npy is the input a.npy"), std::string::npos) << r.out;
    EXPECT_EQ(file_bytes(dir / "a.npy"), before);
    EXPECT_FALSE(std::filesystem::exists(dir / "t.mge"));
}

TEST_F(TestcaseCli, DumpWritesATestCaseFileThatVerifiesAndInspects) {
    const auto r =
        in_dir("dump m.json -o t.mge --input-data 'zeta:z.npy;alpha:a.npy' --input-data '#rand(0,1)'");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("test-case file (mgbtest0)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2 test case(s) of [act:expect, alpha, out:expect, zeta]"), std::string::npos)
        << r.out;
    EXPECT_EQ(file_bytes(dir / "t.mge").substr(0, 8), "mgbtest0");

    const auto numeric = in_dir("verify --numeric t.mge");
    EXPECT_EQ(numeric.status, 0) << numeric.out;
    EXPECT_NE(numeric.out.find("OK   t.mge: test-case file, 2 test case(s)"), std::string::npos)
        << numeric.out;
    EXPECT_NE(numeric.out.find("case 1: out: err 0 <= maxerr 0.0001"), std::string::npos) << numeric.out;
    EXPECT_NE(numeric.out.find("case 0: act: err 0"), std::string::npos) << numeric.out;

    const auto plain = in_dir("verify t.mge");
    EXPECT_EQ(plain.status, 0) << plain.out;
    EXPECT_NE(plain.out.find("test-case file (mgbtest0, 2 test case(s)), FBS_V2, 3 graph(s)"),
              std::string::npos)
        << plain.out;

    const auto shown = in_dir("inspect t.mge");
    EXPECT_EQ(shown.status, 0) << shown.out;
    EXPECT_NE(shown.out.find("graph #0 of 3 (the model)"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("graph #2 of 3 (test case 1: values of [act:expect, alpha, out:expect, zeta])"),
              std::string::npos)
        << shown.out;
    EXPECT_NE(shown.out.find("assert_eq(out:expect,out)"), std::string::npos) << shown.out;
}

TEST_F(TestcaseCli, JsonResultDescribesTheTestCases) {
    const auto r = in_dir("dump m.json -o t.mge --input-data '#rand(0,1)' --no-assert --json");
    ASSERT_EQ(r.status, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["testcases"]["count"], 1);
    EXPECT_EQ(j["testcases"]["inputs"], (std::vector<std::string>{"alpha", "zeta"}));
    EXPECT_EQ(j["testcases"]["file_bytes"], file_bytes(dir / "t.mge").size());
    const auto numeric = in_dir("verify --numeric t.mge");
    EXPECT_EQ(numeric.status, 0) << numeric.out;
    EXPECT_NE(numeric.out.find("no expected values (written with no_assert)"), std::string::npos)
        << numeric.out;
}

TEST_F(TestcaseCli, AWrongExpectedValueFailsVerifyNumeric) {
    namespace tc = engine::testcase;
    tc::TestcaseOptions o;
    o.input_data = {"#rand(0,1)"};
    tc::Testcases t = tc::make_testcases(test::two_output_model(), o);
    // out:expect (sorted third) off by 3 in its last element.
    engine::eval::Tensor wrong =
        engine::eval::Tensor::copy_of(t.values[0][2].dtype(), t.values[0][2].shape(), t.values[0][2].bytes());
    wrong.mutable_data<float>()[5] += 3.f;
    t.values[0][2] = wrong;
    engine::FileOps ops;
    {
        engine::AtomicFile f((dir / "bad.mge").string(), ops);
        tc::dump_with_testcases(t, {}, f);
        f.commit();
    }
    const auto r = in_dir("verify --numeric bad.mge");
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("FAIL bad.mge"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("case 0: out: err"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not within maxerr 0.0001 — FAIL"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("case 0: act: err 0 <= maxerr"), std::string::npos) << r.out;
    // -q still prints the failure.
    EXPECT_NE(in_dir("verify --numeric -q bad.mge").out.find("FAIL"), std::string::npos);
}

TEST_F(TestcaseCli, BadInputDataIsAUsageErrorAndNothingIsWritten) {
    std::ofstream(dir / "junk.npy") << "not an array";
    write("old.mge", "previous artifact");
    struct Case {
        const char* spec;
        const char* message;
    } cases[] = {
        {"zeta:z.npy", "no data for input 'alpha' (Float32 [3])"},
        {"zeta:small.npy;alpha:a.npy", "input 'zeta' is Float32 [2,3], small.npy holds [1,3]"},
        {"zeta:missing.npy;alpha:a.npy", "missing.npy: cannot open"},
        {"zeta:junk.npy;alpha:a.npy", "junk.npy: "},
        {"#rand(0)", "needs a min and a max"},
    };
    for (const Case& c : cases) {
        for (const char* out : {"new.mge", "old.mge"}) {
            const auto r = in_dir(fmt::format("dump m.json -o {} --input-data '{}'", out, c.spec));
            EXPECT_EQ(r.status, 2) << c.spec << ": " << r.out;
            EXPECT_NE(r.out.find(c.message), std::string::npos) << c.spec << ": " << r.out;
        }
        EXPECT_FALSE(std::filesystem::exists(dir / "new.mge")) << c.spec;
        EXPECT_EQ(file_bytes(dir / "old.mge"), "previous artifact") << c.spec;
    }
    // Test-case flags without input data, and a test-case file of two models.
    EXPECT_EQ(in_dir("dump m.json -o new.mge --maxerr 0.1").status, 2);
    EXPECT_EQ(in_dir("dump m.json m.json -o new.mge --input-data '#rand(0,1)'").status, 2);
    EXPECT_FALSE(std::filesystem::exists(dir / "new.mge"));
}

TEST_F(TestcaseCli, BatchWritesTestCasesFromTheManifestAndTheCommandLineDeterministically) {
    std::filesystem::create_directories(dir / "data");
    std::filesystem::rename(dir / "z.npy", dir / "data/z.npy");
    write("m.jsonl",
          "{\"input\": \"m.json\", \"output\": \"plain.mge\", \"input_data\": null}\n"
          "{\"input\": \"m.json\", \"output\": \"npy.mge\", \"input_data\": \"zeta:data/z.npy;alpha:a.npy\", "
          "\"maxerr\": 0.001}\n"
          "{\"input\": \"m.json\", \"output\": \"rand.mge\"}\n"
          "{\"input\": \"m.json\", \"output\": \"rand2.mge\", \"silent\": true}\n");
    const std::string batch = "batch m.jsonl --testcases '#rand(-1,1)' --testcases '#rand(0,2)'";
    ASSERT_EQ(in_dir(batch + " -q -o out1 --threads 1").status, 0);
    ASSERT_EQ(in_dir(batch + " -q -o out2 --threads 2").status, 0);
    for (const char* f : {"plain.mge", "npy.mge", "rand.mge", "rand2.mge"}) {
        EXPECT_EQ(file_bytes(dir / "out1" / f), file_bytes(dir / "out2" / f)) << f;
        const auto v = in_dir(fmt::format("verify --numeric out1/{}", f));
        EXPECT_EQ(v.status, 0) << f << ": " << v.out;
    }
    EXPECT_NE(file_bytes(dir / "out1/plain.mge").substr(0, 8), "mgbtest0");
    // The report's strip info has what the asserts and the test cases add.
    const auto report = nlohmann::json::parse(file_bytes(dir / "out1/report.json"));
    const auto& types = report["strip_info"]["opr_types"];
    for (const char* t : {"AssertEqual", "SharedDeviceTensor", "Reduce"})
        EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t << " in " << types.dump();
    EXPECT_NE(in_dir("verify --numeric out1/npy.mge").out.find("maxerr 0.001"), std::string::npos);
    EXPECT_NE(in_dir("verify --numeric out1/rand.mge").out.find("2 test case(s)"), std::string::npos);

    // --incremental: unchanged is skipped; a changed .npy makes npy.mge again.
    const auto again = in_dir(batch + " -o out1 --incremental");
    EXPECT_NE(again.out.find("all 4 artifact(s) up to date"), std::string::npos) << again.out;
    npy("data/z.npy", {2, 3}, {6, 5, 4, 3, 2, 1});
    const std::string before = file_bytes(dir / "out1/npy.mge");
    const auto changed = in_dir(batch + " -o out1 --incremental");
    ASSERT_EQ(changed.status, 0) << changed.out;
    EXPECT_NE(changed.out.find("1 written, 3 up to date"), std::string::npos) << changed.out;
    EXPECT_NE(file_bytes(dir / "out1/npy.mge"), before);
}

// One job's artifact over another's test-case data (-o . with the data there)
// would replace what that job reads: refused before anything runs.
TEST_F(TestcaseCli, BatchRefusesAnArtifactOnTestCaseData) {
    write("m.jsonl",
          "{\"input\": \"m.json\", \"output\": \"t.mge\", \"input_data\": \"zeta:z.npy;alpha:a.npy\"}\n"
          "{\"input\": \"m.json\", \"output\": \"a.npy\"}\n");
    const std::string before = file_bytes(dir / "a.npy");
    const auto r = in_dir("batch m.jsonl -o .");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("would overwrite ./a.npy, test-case data of job 1"), std::string::npos) << r.out;
    EXPECT_EQ(file_bytes(dir / "a.npy"), before);
    EXPECT_FALSE(std::filesystem::exists(dir / "t.mge"));
}

TEST_F(TestcaseCli, BatchRefusesMissingTestCaseDataBeforeAnythingRuns) {
    write("m.jsonl",
          "{\"input\": \"m.json\", \"output\": \"a.mge\", \"input_data\": \"zeta:nope.npy;alpha:a.npy\"}\n"
          "{\"input\": \"m.json\", \"output\": \"b.mge\", \"maxerr\": 0.1}\n");
    const auto r = in_dir("batch m.jsonl -o out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("test-case data"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("nope.npy does not exist"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("m.jsonl:2: test cases need input data"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir / "out/a.mge"));
}

}  // namespace
}  // namespace mgedump
