// The command line's contract with scripts and CI (README "Using it"): exit status 0 / 1 / 2,
// messages that name the program and the way out, -q, what each subcommand reads, convert's
// default format, and `inspect --json` as a document `dump` reads back.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "engine/load.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

namespace fs = std::filesystem;

// A weight of 64 distinct floats (too many to be inline values); `first` may be "nan".
std::string weighted_graph(const std::string& first = "0.25") {
    std::string values = first;
    for (int i = 1; i < 64; ++i) values += ", " + std::to_string(i * 0.5 - 3);
    return R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "data", "dtype": "Float32", "shape": [64]}],
      "constants": [{"name": "w", "dtype": "Float32", "shape": [64], "values": [)" +
           values + R"(]}],
      "operators": [{"op": "Elemwise", "inputs": ["data", "w"], "params": {"mode": "MUL"}, "outputs": ["out"]}],
      "outputs": ["out"]})";
}

struct Split {
    int status;
    std::string out, err;
};

class CliContract : public TempDirTest {
  protected:
    CliContract() : TempDirTest("mgedump_contract_") {}

    // Runs `mgedump ARGS` in the test's directory with stdout and stderr apart.
    Split run_split(const std::string& args) {
        const fs::path o = dir / "stdout.txt", e = dir / "stderr.txt";
        const CliRun r = run_shell("{ cd " + dir.string() + " && " + cli_path() + " " + args + " >" + o.string() +
                                   " 2>" + e.string() + "; }");
        return {r.status, file_bytes(o), file_bytes(e)};
    }
    fs::path small_onnx() {
        OnnxModel m;
        m.input("x", {1, 3}).output("y");
        m.ramp("w", {3});
        m.node("Add", {"x", "w"}, {"y"});
        return m.write(dir / "add.onnx");
    }
};

TEST_F(CliContract, UsageErrorsExitTwo) {
    const std::string g = write("g.json", kAppendixCGraph), out = (dir / "g.mge").string();
    CliRun bad_value = run_cli("dump " + g + " -o " + out + " --keep-var-name 5");
    EXPECT_EQ(bad_value.status, 2) << bad_value.out;
    EXPECT_NE(bad_value.out.find("--keep-var-name"), std::string::npos) << bad_value.out;
    CliRun unknown_flag = run_cli("dump " + g + " -o " + out + " --frobnicate");
    EXPECT_EQ(unknown_flag.status, 2) << unknown_flag.out;
    CliRun missing = run_cli("inspect");
    EXPECT_EQ(missing.status, 2) << missing.out;
    CliRun bad_combination = run_cli("dump " + g + " -o " + out + " --compat-older-version 8.14");
    EXPECT_EQ(bad_combination.status, 2) << bad_combination.out;
    EXPECT_FALSE(fs::exists(out));
    // A model that cannot be read is a failure, not a usage error.
    CliRun broken = run_cli("inspect " + write("broken.mge", "not a model"));
    EXPECT_EQ(broken.status, 1) << broken.out;
}

TEST_F(CliContract, UnknownSubcommandIsNamedWithTheList) {
    CliRun r = run_cli("frobnicate");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("unknown subcommand 'frobnicate'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("dump, batch, inspect, convert, verify"), std::string::npos) << r.out;
    CliRun none = run_cli("");
    EXPECT_EQ(none.status, 2) << none.out;
    EXPECT_NE(none.out.find("dump, batch, inspect, convert, verify"), std::string::npos) << none.out;
}

TEST_F(CliContract, HelpShowsMgedumpAndTheExitStatus) {
    CliRun top = run_cli("--help");
    EXPECT_EQ(top.status, 0);
    EXPECT_NE(top.out.find("Usage: mgedump [OPTIONS] SUBCOMMAND"), std::string::npos) << top.out;
    EXPECT_NE(top.out.find("Exit status:"), std::string::npos) << top.out;
    EXPECT_NE(top.out.find("2  usage or configuration error"), std::string::npos) << top.out;
    CliRun dump = run_cli("dump --help");
    EXPECT_NE(dump.out.find("Usage: mgedump dump [OPTIONS]"), std::string::npos) << dump.out;
    EXPECT_EQ(dump.out.find(cli_path()), std::string::npos) << dump.out;
}

TEST_F(CliContract, QuietPrintsNothingButErrorsAndWarningsGoToStderr) {
    write("nan.json", weighted_graph("\"nan\""));
    Split loud = run_split("dump nan.json -o nan.mge");
    ASSERT_EQ(loud.status, 0) << loud.err;
    EXPECT_NE(loud.out.find("nan.mge"), std::string::npos) << loud.out;
    EXPECT_EQ(loud.out.find("non-finite"), std::string::npos) << loud.out;
    EXPECT_NE(loud.err.find("warning"), std::string::npos) << loud.err;
    EXPECT_NE(loud.err.find("non-finite"), std::string::npos) << loud.err;
    for (const char* args : {"dump nan.json -o q.mge -q", "convert nan.mge -o c.mge -q", "verify -q nan.mge"}) {
        Split quiet = run_split(args);
        EXPECT_EQ(quiet.status, 0) << args << ": " << quiet.err;
        EXPECT_EQ(quiet.out + quiet.err, "") << args;
    }
    EXPECT_TRUE(fs::exists(dir / "q.mge"));
    Split failing = run_split("dump -q missing.json -o m.mge");
    EXPECT_EQ(failing.status, 1);
    EXPECT_EQ(failing.out, "");
    EXPECT_NE(failing.err.find("missing.json"), std::string::npos) << failing.err;
}

TEST_F(CliContract, DumpOfAMgeFileSaysToUseConvert) {
    const std::string g = write("g.json", kAppendixCGraph), mge = (dir / "g.mge").string();
    ASSERT_EQ(run_cli("dump " + g + " -o " + mge).status, 0);
    CliRun r = run_cli("dump " + mge + " -o " + (dir / "again.mge").string());
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(mge + ": a .mge file: dump reads graph JSON and ONNX"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mgedump convert " + mge), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "again.mge"));
}

TEST_F(CliContract, ConvertNamesTheModelWhenTheDumpRefusesItsGraph) {
    // A Softmax over an empty axis dumps to FBS_V2 as it is; FBS's rewrite of it
    // takes a MAX that MegEngine refuses when it runs, so the FBS dump is refused,
    // as an error of the model read, and nothing is written.
    const std::string g = write("sm.json", R"({"format": "mgedump-graph", "version": 1,
        "inputs": [{"name": "x", "dtype": "Float32", "shape": [2, 0]}],
        "operators": [{"op": "Softmax", "name": "sm", "inputs": ["x"], "params": {"axis": 1}}],
        "outputs": ["sm"]})");
    const std::string v2 = (dir / "sm.mge").string(), fbs = (dir / "sm_fbs.mge").string();
    ASSERT_EQ(run_cli("dump " + g + " -o " + v2).status, 0);
    CliRun r = run_cli("convert " + v2 + " -o " + fbs + " --dump-format FBS");
    EXPECT_EQ(r.status, 1) << r.out;
    // The file keeps no operator names (keep_opr_name is off by default): the
    // reader names the Softmax by its type and number.
    EXPECT_NE(r.out.find("mgedump convert: " + v2 + ": operator #1 'Softmax1' (Softmax)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("MAX of an empty input [2,0]"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(fbs));
}

TEST_F(CliContract, ConvertWritesFbsV2ByDefaultAndSaysSo) {
    const std::string g = write("g.json", kAppendixCGraph), fbs = (dir / "fbs.mge").string(), v2 = (dir / "v2.mge").string();
    ASSERT_EQ(run_cli("dump " + g + " -o " + fbs + " --dump-format FBS").status, 0);
    CliRun r = run_cli("convert " + fbs + " -o " + v2);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(engine::load_file(v2).format, formats::ModelFormat::FbsV2);
    EXPECT_NE(r.out.find("written as FBS_V2 model_version 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("FBS (MGBC)"), std::string::npos) << r.out;  // the input's
    CliRun j = run_cli("convert " + fbs + " -o " + v2 + " --json");
    ASSERT_EQ(j.status, 0) << j.out;
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["format"], "FBS_V2");
    EXPECT_EQ(doc["model_version"], 2);
    EXPECT_EQ(doc["input_format"], "FBS (MGBC)");
    // --dump-format FBS still writes FBS.
    ASSERT_EQ(run_cli("convert " + v2 + " -o " + fbs + " --dump-format FBS").status, 0);
    EXPECT_EQ(engine::load_file(fbs).format, formats::ModelFormat::FbsMGBC);
}

// inspect, convert and verify read what dump reads: graph JSON and ONNX.
TEST_F(CliContract, InspectConvertAndVerifyTakeGraphJsonAndOnnx) {
    const std::string g = write("g.json", kAppendixCGraph), onnx = small_onnx().string();
    for (const auto& [input, kind] : {std::pair{g, std::string("graph JSON")}, std::pair{onnx, std::string("ONNX")}}) {
        SCOPED_TRACE(input);
        CliRun inspect = run_cli("inspect " + input);
        EXPECT_EQ(inspect.status, 0) << inspect.out;
        EXPECT_NE(inspect.out.find("(" + kind + ", "), std::string::npos) << inspect.out;
        EXPECT_NE(inspect.out.find("Elemwise"), std::string::npos) << inspect.out;
        CliRun json = run_cli("inspect --json " + input);
        EXPECT_EQ(json.status, 0) << json.out;
        EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;

        const std::string dumped = (dir / "dumped.mge").string(), converted = (dir / "converted.mge").string();
        ASSERT_EQ(run_cli("dump " + input + " -o " + dumped).status, 0);
        CliRun convert = run_cli("convert " + input + " -o " + converted);
        EXPECT_EQ(convert.status, 0) << convert.out;
        EXPECT_NE(convert.out.find("input " + input + ": " + kind), std::string::npos) << convert.out;
        EXPECT_EQ(file_bytes(converted), file_bytes(dumped));  // convert of a non-.mge input is dump

        CliRun verify = run_cli("verify " + input);
        EXPECT_EQ(verify.status, 0) << verify.out;
        EXPECT_NE(verify.out.find("OK   " + input + ": " + kind + ", dumped as FBS_V2"), std::string::npos)
            << verify.out;
    }
}

TEST_F(CliContract, InspectJsonOfSeveralGraphsPrintsOneDocumentDumpReads) {
    std::string mul = kAppendixCGraph;
    mul.replace(mul.find("\"ADD\""), 5, "\"MUL\"");
    write("add.json", kAppendixCGraph);
    write("mul.json", mul);
    ASSERT_EQ(run_split("dump add.json mul.json -o two.mge").status, 0);

    Split first = run_split("inspect --json two.mge");
    ASSERT_EQ(first.status, 0) << first.err;
    nlohmann::json doc;
    ASSERT_NO_THROW(doc = nlohmann::json::parse(first.out)) << first.out;  // one document, not two back to back
    EXPECT_TRUE(doc.is_object());
    EXPECT_NE(first.out.find("\"ADD\""), std::string::npos);
    EXPECT_NE(first.err.find("holds 2 graphs; printing graph 0 (--graph N picks another)"), std::string::npos)
        << first.err;
    write("first.json", first.out);
    ASSERT_EQ(run_split("dump first.json -o first.mge").status, 0);
    ASSERT_EQ(run_split("dump add.json -o add.mge").status, 0);
    EXPECT_EQ(file_bytes(dir / "first.mge"), file_bytes(dir / "add.mge"));

    Split second = run_split("inspect --json --graph 1 two.mge");
    ASSERT_EQ(second.status, 0) << second.err;
    EXPECT_EQ(second.err, "");
    EXPECT_NE(second.out.find("\"MUL\""), std::string::npos) << second.out;
    EXPECT_TRUE(nlohmann::json::accept(second.out));

    Split out_of_range = run_split("inspect --json --graph 2 two.mge");
    EXPECT_EQ(out_of_range.status, 2);
    EXPECT_NE(out_of_range.err.find("holds 2 graph(s)"), std::string::npos) << out_of_range.err;
}

TEST_F(CliContract, InspectJsonValuesRoundTripsToConvertsBytes) {
    write("w.json", weighted_graph());
    ASSERT_EQ(run_split("dump w.json -o model.mge --keep-var-name 2").status, 0);

    Split inspect = run_split("inspect --json --values vals model.mge");
    ASSERT_EQ(inspect.status, 0) << inspect.err;
    EXPECT_EQ(inspect.out.find("base64"), std::string::npos) << inspect.out;
    EXPECT_NE(inspect.out.find("\"npy\": \"vals/"), std::string::npos) << inspect.out;
    size_t npy_files = 0;
    for (const auto& e : fs::directory_iterator(dir / "vals")) npy_files += e.path().extension() == ".npy";
    EXPECT_EQ(npy_files, 1u);
    write("g.json", inspect.out);

    ASSERT_EQ(run_split("dump g.json -o back.mge --keep-var-name 2").status, 0);
    ASSERT_EQ(run_split("convert model.mge -o converted.mge --keep-var-name 2").status, 0);
    EXPECT_EQ(file_bytes(dir / "back.mge"), file_bytes(dir / "converted.mge"));
    EXPECT_EQ(file_bytes(dir / "back.mge"), file_bytes(dir / "model.mge"));

    // Without --values the same value is inline base64.
    Split inline_values = run_split("inspect --json model.mge");
    EXPECT_NE(inline_values.out.find("base64"), std::string::npos);
    // --values needs --json.
    EXPECT_EQ(run_split("inspect --values vals model.mge").status, 2);
}

}  // namespace
}  // namespace mgedump::test
