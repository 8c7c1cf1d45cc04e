// The batch as a CI job expects it (issue 19): manifests checked before anything
// runs, outputs that never destroy inputs, messages that name things once and
// plainly, and incremental runs that survive a moved workspace. Each test fails
// on the behaviour the issue describes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "batch_fixtures.h"
#include "cli_run.h"
#include "jobs/error_text.h"
#include "jobs/manifest.h"
#include "jobs/model_input.h"
#include "jobs/output_path.h"
#include "jobs/progress.h"
#include "jobs/report.h"
#include "onnx_test_model.h"

namespace mgedump::test {
namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

CliRun batch(const std::string& args) { return run_cli("batch " + args); }

// Writes a one-graph a.json and the manifest `name` (`text`) into `in`, then runs
// the batch on that manifest into `out`.
CliRun batch_manifest(const ScratchDir& in, const fs::path& out, const std::string& name, const std::string& text) {
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / name, text);
    return batch(fmt::format("{} -o {}", (in / name).string(), out.string()));
}

// A PID that is no running process: a child that has exited and been reaped.
pid_t dead_pid() {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

// ---- Manifests are checked before anything runs ----

TEST(BatchContract, EveryManifestErrorIsListedWithItsLineAndNothingIsWritten) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "m.jsonl", R"({"input": "a.json"})" "\n"
                               R"({"input": "a.json", "output": "f.mge", "dump_format": "FBS_V3"})" "\n"
                               R"({"input": "a.json", "output": "k.mge", "keep_var_name": 7})" "\n"
                               R"({"input": "a.json", "output": "c.mge", "colour": "red", "dump_format": 1})" "\n"
                               R"({"input": "a.json", "output": "a.mge"})" "\n"
                               R"({"input": "missing.json"})" "\n");
    const fs::path o = out / "o";
    CliRun r = batch(fmt::format("{} -o {}", (in / "m.jsonl").string(), o.string()));
    EXPECT_EQ(r.status, 2) << r.out;
    const std::string m = (in / "m.jsonl").string();
    EXPECT_TRUE(has(r.out, m + ":2: \"dump_format\"")) << r.out;
    EXPECT_TRUE(has(r.out, m + ":3: \"keep_var_name\"")) << r.out;
    // Both problems of line 4, not only the first.
    EXPECT_TRUE(has(r.out, m + ":4: unknown key \"colour\"")) << r.out;
    EXPECT_TRUE(has(r.out, m + ":4: \"dump_format\"")) << r.out;
    EXPECT_TRUE(has(r.out, m + ":5: output \"a.mge\" is already written by job 1 (" + m + ":1)")) << r.out;
    EXPECT_TRUE(has(r.out, m + ":6: input " + (in / "missing.json").string() + " does not exist")) << r.out;
    EXPECT_TRUE(has(r.out, "nothing was written")) << r.out;
    EXPECT_FALSE(fs::exists(o)) << "the batch created its output directory";
}

TEST(BatchContract, AJsonManifestNamesEachBadEntryByItsJsonPath) {
    ScratchDir in, out;
    CliRun r = batch_manifest(in, out.path, "m.json", R"({"defaults": {"keep_var_name": 9},
        "jobs": [{"input": "a.json"}, {"input": "a.json", "output": "b.mge",
                  "variants": [{"suffix": ".x", "output": "y.mge"}]}, {"input": 3}]})");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(has(r.out, "defaults: \"keep_var_name\"")) << r.out;
    EXPECT_TRUE(has(r.out, "jobs[1]: variants[0]: give exactly one of")) << r.out;
    EXPECT_TRUE(has(r.out, "jobs[2]: \"input\": expected a string")) << r.out;
    EXPECT_TRUE(fs::is_empty(out.path));
}

TEST(BatchContract, SyntaxErrorsAreAllListedWithoutTheJsonLibrarysPrefix) {
    ScratchDir in, out;
    CliRun r = batch_manifest(in, out.path, "m.jsonl",
                              R"({"input": "a.json"})" "\n" "{oops\n" R"({"input": "a.json", "output": "b.mge"})"
                              "\n" "[1,\n");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(has(r.out, "m.jsonl:2:2: invalid JSON: syntax error")) << r.out;
    EXPECT_TRUE(has(r.out, "m.jsonl:4:")) << r.out;
    EXPECT_FALSE(has(r.out, "json.exception")) << r.out;
    EXPECT_FALSE(has(r.out, "parse error at line")) << r.out;
    EXPECT_TRUE(fs::is_empty(out.path));
}

TEST(BatchContract, AnEmptyManifestOrDirectoryIsAnErrorUnlessAllowed) {
    ScratchDir in, out;
    write_text(in / "m.jsonl", "\n");
    write_text(in / "list.json", "[]");
    fs::create_directory(in / "empty");
    for (const char* name : {"m.jsonl", "list.json", "empty"}) {
        CliRun r = batch(fmt::format("{} -o {}", (in / name).string(), (out / name).string()));
        EXPECT_EQ(r.status, 2) << name << ": " << r.out;
        EXPECT_TRUE(has(r.out, "no jobs")) << r.out;
        EXPECT_TRUE(has(r.out, "--allow-empty")) << r.out;
        CliRun ok = batch(fmt::format("{} -o {} --allow-empty -q", (in / name).string(), (out / name).string()));
        EXPECT_EQ(ok.status, 0) << name << ": " << ok.out;
    }
}

TEST(BatchContract, DirectoryModeSaysWhichEntriesItSkippedWhenVerbose) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "notes.txt", "x");
    write_text(in / "sub" / "b.json", small_graph_json(2));
    CliRun r = batch(fmt::format("{} -o {} -v", in.path.string(), out.path.string()));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "skipped notes.txt: not a .json, .mge or .onnx file")) << r.out;
    EXPECT_TRUE(has(r.out, "skipped sub: a directory")) << r.out;
    CliRun quiet = batch(fmt::format("{} -o {}", in.path.string(), out.path.string()));
    EXPECT_FALSE(has(quiet.out, "skipped")) << quiet.out;
}

TEST(BatchContract, ANonsenseMemoryBudgetIsRefusedWithTheMinimum) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    for (const char* budget : {"1K", "100", "15M"}) {
        CliRun r = batch(fmt::format("{} -o {} --memory-budget {}", in.path.string(), out.path.string(), budget));
        EXPECT_EQ(r.status, 2) << budget << ": " << r.out;
        EXPECT_TRUE(has(r.out, "16M")) << r.out;
    }
    EXPECT_TRUE(fs::is_empty(out.path));
    EXPECT_EQ(batch(fmt::format("{} -o {} --memory-budget 16M -q", in.path.string(), out.path.string())).status, 0);
}

TEST(BatchContract, AnUnwritableReportOrStripInfoFileIsFoundBeforeTheFirstArtifact) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "file", "x");  // a regular file: nothing can be created below it, not even by root
    for (std::string flag : {"--report", "--strip-info-file"}) {
        const std::string target = (in / "file" / "r.json").string();
        CliRun r = batch(fmt::format("{} -o {} {} {}", in.path.string(), out.path.string(), flag, target));
        EXPECT_EQ(r.status, 2) << flag << ": " << r.out;
        EXPECT_TRUE(has(r.out, target)) << r.out;
        EXPECT_FALSE(has(r.out, ".tmp")) << r.out;  // never the temporary file's name
        EXPECT_FALSE(fs::exists(out / "a.mge")) << flag;
    }
}

// ---- Outputs never destroy what they should not ----

// The report and the strip-info file are written after the artifacts, so one on
// an artifact, on the other or on the manifest replaced it while the run said
// "written".
TEST(BatchContract, AReportOrStripInfoFileOnAnArtifactTheOtherOrTheManifestIsRefused) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "m.jsonl", R"({"input": "a.json", "output": "nets/a.mge"})");
    const std::string manifest = (in / "m.jsonl").string(), manifest_before = read_text(in / "m.jsonl");
    struct Case {
        std::string flags, says;
    };
    for (const Case& c :
         {Case{"--strip-info-file " + (out / "nets" / "a.mge").string(), "the artifact of job 1"},
          Case{"--report " + (out / "nets" / ".." / "nets" / "a.mge").string(), "the artifact of job 1"},
          Case{"--report " + (out / "r.json").string() + " --strip-info-file " + (out / "r.json").string(),
               "the report and the strip-info file are the same file"},
          Case{"--report " + manifest, "would overwrite the manifest"},
          Case{"--strip-info-file -", "standard output carries the summary"}}) {
        CliRun r = batch(fmt::format("{} -o {} {}", manifest, out.path.string(), c.flags));
        EXPECT_EQ(r.status, 2) << c.flags << ": " << r.out;
        EXPECT_TRUE(has(r.out, c.says)) << c.flags << ": " << r.out;
        EXPECT_FALSE(fs::exists(out / "nets" / "a.mge")) << c.flags;
        EXPECT_FALSE(fs::exists(out / "r.json")) << c.flags;
        EXPECT_EQ(read_text(in / "m.jsonl"), manifest_before) << c.flags;
        EXPECT_FALSE(fs::exists("-")) << c.flags;
    }
    // Apart, both are written beside the artifact.
    CliRun apart =
        batch(fmt::format("{} -o {} -q --report {} --strip-info-file {}", manifest, out.path.string(),
                          (out / "r.json").string(), (out / "s.json").string()));
    EXPECT_EQ(apart.status, 0) << apart.out;
    EXPECT_TRUE(fs::exists(out / "nets" / "a.mge"));
    EXPECT_TRUE(has(read_text(out / "r.json"), "\"artifacts\""));
    EXPECT_TRUE(has(read_text(out / "s.json"), "opr_types"));
    // An artifact already there, under another name (a symlink): still refused.
    const std::string artifact = read_text(out / "nets" / "a.mge");
    fs::create_symlink("nets/a.mge", out / "alias.json");
    CliRun alias = batch(fmt::format("{} -o {} --report {}", manifest, out.path.string(), (out / "alias.json").string()));
    EXPECT_EQ(alias.status, 2) << alias.out;
    EXPECT_TRUE(has(alias.out, "the artifact of job 1")) << alias.out;
    EXPECT_EQ(read_text(out / "nets" / "a.mge"), artifact);
}

// A graph's .npy weights are known only once it is read: an artifact on one
// fails that job alone, and the weights stay.
TEST(BatchContract, AnArtifactOnItsGraphsWeightFileFailsThatJobAlone) {
    ScratchDir dir;
    write_npy(dir / "w.npy", 8, 1.0f);
    write_text(dir / "p.json", npy_graph_json("w.npy", 8));
    write_text(dir / "g.json", small_graph_json(1));
    write_text(dir / "m.jsonl", R"({"input": "p.json", "output": "w.npy"})" "\n" R"({"input": "g.json", "output": "g.mge"})");
    const std::string weights = read_text(dir / "w.npy");
    CliRun r = batch(fmt::format("{} -o {}", (dir / "m.jsonl").string(), dir.path.string()));
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(has(r.out, "a weight file this job's graph is read from")) << r.out;
    EXPECT_EQ(read_text(dir / "w.npy"), weights);
    EXPECT_TRUE(fs::exists(dir / "g.mge"));
}

// Job "reader"'s graph reads w.npy (spelled through "sub/.."), where job
// "writer" writes its artifact. Whichever job runs first, the reader fails before
// reading the file (before, it read the weights or the writer's model, by the
// order the jobs ran in) and the writer is written: in both manifest orders, on
// one thread (jobs in order) and on two.
TEST(BatchContract, AWeightFileThatIsAnotherJobsArtifactFailsTheReaderWhicheverRunsFirst) {
    for (const bool writer_first : {true, false})
        for (const int threads : {1, 2}) {
            SCOPED_TRACE(fmt::format("writer first: {}, threads: {}", writer_first, threads));
            ScratchDir dir;
            fs::create_directory(dir / "sub");
            write_npy(dir / "w.npy", 8, 1.0f);
            write_text(dir / "p.json", npy_graph_json("sub/../w.npy", 8));
            write_text(dir / "g.json", small_graph_json(1));
            const std::string writer = R"({"input": "g.json", "output": "w.npy"})";
            const std::string reader = R"({"input": "p.json", "output": "p.mge"})";
            write_text(dir / "m.jsonl", writer_first ? writer + "\n" + reader : reader + "\n" + writer);
            CliRun r = batch(
                fmt::format("{} -o {} --threads {}", (dir / "m.jsonl").string(), dir.path.string(), threads));
            EXPECT_EQ(r.status, 1) << r.out;
            const int writer_job = writer_first ? 1 : 2;
            EXPECT_TRUE(has(r.out, fmt::format("npy \"sub/../w.npy\": job {} ({}:{}) writes its output \"w.npy\" there",
                                               writer_job, (dir / "m.jsonl").string(), writer_job)))
                << r.out;
            const auto report = nlohmann::json::parse(read_text(dir / "report.json"));
            EXPECT_EQ(report["artifacts"][writer_first ? 1 : 0]["status"], "failed") << report.dump();
            EXPECT_EQ(report["artifacts"][writer_first ? 0 : 1]["status"], "written") << report.dump();
            EXPECT_FALSE(fs::exists(dir / "p.mge"));
            EXPECT_TRUE(jobs::read_model_input(dir / "w.npy").graph.oprs.size() > 0);  // the writer's model
        }
}

// The same for the report and the strip-info file, written once the jobs are done.
TEST(BatchContract, AWeightFileThatIsTheReportOrStripInfoFileFailsTheReader) {
    for (const std::string flag : {"--report", "--strip-info-file"}) {
        SCOPED_TRACE(flag);
        ScratchDir dir;
        write_npy(dir / "w.npy", 8, 1.0f);
        write_text(dir / "p.json", npy_graph_json("w.npy", 8));
        write_text(dir / "g.json", small_graph_json(1));
        write_text(dir / "m.jsonl", R"({"input": "p.json"})" "\n" R"({"input": "g.json"})");
        CliRun r = batch(fmt::format("{} -o {} {} {}", (dir / "m.jsonl").string(), (dir / "out").string(), flag,
                                     (dir / "w.npy").string()));
        EXPECT_EQ(r.status, 1) << r.out;
        EXPECT_TRUE(has(r.out, fmt::format("npy \"w.npy\": the batch writes the {} ({}) there once the jobs are done",
                                           flag == "--report" ? "report" : "strip-info file", flag)))
            << r.out;
        EXPECT_FALSE(fs::exists(dir / "out" / "p.mge"));
        EXPECT_TRUE(fs::exists(dir / "out" / "g.mge"));
    }
}

// The same for an ONNX model's external data file.
TEST(BatchContract, AnExternalDataFileThatIsAnotherJobsArtifactFailsTheReader) {
    ScratchDir dir;
    OnnxModel m;
    m.input("x", {1, 3, 2, 2}).output("y");
    m.external_initializer("w", {2, 3, 1, 1}, "w.bin");
    m.node("Conv", {"x", "w"}, {"y"});
    m.write(dir / "m.onnx");
    const std::vector<float> w{1, 2, 3, 4, 5, 6};
    std::ofstream(dir / "w.bin", std::ios::binary).write(reinterpret_cast<const char*>(w.data()), 24);
    write_text(dir / "g.json", small_graph_json(1));
    write_text(dir / "m.jsonl",
               R"({"input": "m.onnx", "output": "m.mge"})" "\n" R"({"input": "g.json", "output": "w.bin"})");
    CliRun r = batch(fmt::format("{} -o {} --threads 1", (dir / "m.jsonl").string(), dir.path.string()));
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(has(r.out, fmt::format("external data 'w.bin': job 2 ({}:2) writes its output \"w.bin\" there",
                                       (dir / "m.jsonl").string())))
        << r.out;
    EXPECT_FALSE(fs::exists(dir / "m.mge"));
    EXPECT_TRUE(fs::exists(dir / "w.bin"));
}

TEST(BatchContract, AnArtifactNeverOverwritesAnInputOfTheBatch) {
    ScratchDir dir;
    engine::DumpOptions fbs;
    fbs.dump_format = engine::DumpFormat::FBS;
    write_text(dir / "g.json", small_graph_json(1));
    ASSERT_EQ(batch(fmt::format("{} -o {} -q --dump-format FBS", dir.path.string(), (dir / "mid").string())).status, 0);
    fs::rename(dir / "mid" / "g.mge", dir / "net.mge");
    fs::remove(dir / "g.json");
    const std::string before = read_text(dir / "net.mge");
    // In place: net.mge would become FBS_V2 over itself.
    CliRun r = batch(fmt::format("{} -o {}", dir.path.string(), dir.path.string()));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_TRUE(has(r.out, "would overwrite " + (dir / "net.mge").string())) << r.out;
    EXPECT_EQ(read_text(dir / "net.mge"), before);
    EXPECT_FALSE(fs::exists(dir / "report.json"));
    // One job's artifact over another job's input, spelled differently.
    write_text(dir / "m.jsonl", R"({"input": "g2.json", "output": "net.mge"})" "\n" R"({"input": "./net.mge", "output": "x.mge"})");
    write_text(dir / "g2.json", small_graph_json(2));
    CliRun m = batch(fmt::format("{} -o {}", (dir / "m.jsonl").string(), dir.path.string()));
    EXPECT_EQ(m.status, 2) << m.out;
    EXPECT_TRUE(has(m.out, "the input of job 2")) << m.out;
    EXPECT_EQ(read_text(dir / "net.mge"), before);
}

TEST(BatchContract, DirectoryModeNeverTakesOutDirsOwnFilesAsInputs) {
    ScratchDir dir;
    write_text(dir / "a.json", small_graph_json(1));
    for (int run = 0; run < 2; ++run) {
        CliRun r = batch(fmt::format("{} -o {} --incremental -v", dir.path.string(), dir.path.string()));
        EXPECT_EQ(r.status, 0) << "run " << run << ": " << r.out;
        auto report = nlohmann::json::parse(read_text(dir / "report.json"));
        EXPECT_EQ(report["totals"]["jobs"], 1) << r.out;
        if (run == 1) {
            EXPECT_TRUE(has(r.out, "skipped report.json: the batch's own report")) << r.out;
            EXPECT_TRUE(has(r.out, "skipped a.mge: an artifact of an earlier batch")) << r.out;
        }
    }
    // Without stamps, an earlier report still names its artifacts.
    fs::remove_all(dir / ".mgedump-stamps");
    CliRun r = batch(fmt::format("{} -o {} -q", dir.path.string(), dir.path.string()));
    EXPECT_EQ(r.status, 0) << r.out;
}

TEST(BatchContract, ALaterRunRemovesStaleTemporaryFilesAndNeverTakesThemForArtifacts) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    ASSERT_EQ(batch(fmt::format("{} -o {} -q --incremental", in.path.string(), out.path.string())).status, 0);
    const fs::path stale = out / fmt::format(".a.mge.tmp-{}-0", dead_pid());
    const fs::path stale_stamp = out / ".mgedump-stamps" / fmt::format(".a.mge.stamp.tmp-{}-3", dead_pid());
    write_text(stale, "partial");
    write_text(stale_stamp, "partial");
    CliRun r = batch(fmt::format("{} -o {} --incremental", in.path.string(), out.path.string()));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_FALSE(fs::exists(stale_stamp));
    // A temporary file's name is never an output, so it can never pass for an artifact.
    EXPECT_THROW(jobs::check_output_name(".a.mge.tmp-123-4"), OptionError);
    EXPECT_THROW(jobs::check_output_name("sub/s.json.tmp.12.0"), OptionError);
}

// ---- Batch messages ----

TEST(BatchContract, AManifestEntrysErrorNamesTheEntryOnceAndDuplicatesCountJobsFromOne) {
    ScratchDir in, out;
    write_text(in / "cnn.json", small_graph_json(1));
    write_text(in / "bad.jsonl", R"({"input": "cnn.json", "colour": 1})" "\n" R"({"input": "cnn.json"})" "\n"
                                 R"({"input": "cnn.json"})" "\n");
    jobs::Manifest m = jobs::read_manifest_file(in / "bad.jsonl", {});
    jobs::BatchOptions o;
    o.out_dir = out.path;
    jobs::BatchReport r = jobs::run_batch(m, o);
    const std::string label = (in / "bad.jsonl").string();
    const std::string& e = r.artifacts[0].error;
    EXPECT_TRUE(e.starts_with(label + ":1: unknown key \"colour\"")) << e;  // not "cnn.json: bad.jsonl:1: ..."
    EXPECT_TRUE(has(r.artifacts[1].error, "already written by job 1 (" + label + ":1)")) << r.artifacts[1].error;
    const std::string summary = jobs::report_summary(r);
    EXPECT_EQ(summary.find("cnn.json: "), std::string::npos) << summary;
}

TEST(BatchContract, AFailedRowWithoutNamesIsCalledByItsJobNumberNeverEmpty) {
    jobs::BatchReport r;
    jobs::ArtifactReport a;
    a.job = 2;
    a.status = jobs::ArtifactStatus::Failed;
    a.error = "m.json: jobs[2]: expected a job object, got 3";
    r.artifacts.push_back(a);
    r.totals.jobs = r.totals.artifacts = r.totals.failed = 1;
    const std::string s = jobs::report_summary(r);
    EXPECT_FALSE(has(s, "()")) << s;
    EXPECT_TRUE(has(s, "  FAILED  job 3: m.json: jobs[2]: expected a job object")) << s;
}

TEST(BatchContract, AModelsJsonSyntaxErrorComesWithoutTheLibrarysPrefix) {
    ScratchDir in, out;
    write_text(in / "bad.json", "{\"format\": \"mgedump-graph\", oops}");
    write_text(in / "a.json", small_graph_json(1));
    CliRun r = batch(fmt::format("{} -o {}", in.path.string(), out.path.string()));
    EXPECT_EQ(r.status, 1) << r.out;  // a job failed; the manifest itself was fine
    EXPECT_TRUE(has(r.out, "bad.json")) << r.out;
    EXPECT_FALSE(has(r.out, "[json.exception")) << r.out;
    auto report = nlohmann::json::parse(read_text(out / "report.json"));
    EXPECT_FALSE(has(report["artifacts"][1]["error"].get<std::string>(), "json.exception")) << report.dump();
}

TEST(BatchContract, ErrorTextNeverShowsTemporaryFileNames) {
    EXPECT_EQ(jobs::without_temp_names("writing /o/.a.mge.tmp-123-4: cannot create: No space"),
              "writing /o/a.mge: cannot create: No space");
    EXPECT_EQ(jobs::without_temp_names("/o/s.json.tmp.77.0: cannot create"), "/o/s.json: cannot create");
    EXPECT_EQ(jobs::without_temp_names("a.tmp is fine"), "a.tmp is fine");
    EXPECT_EQ(jobs::without_json_prefixes("x: [json.exception.type_error.302] type must be string"),
              "x: type must be string");
}

TEST(BatchContract, MoreThreadsThanCoresGiveNoLibraryWarningAndTheReportSaysWhatRan) {
    ScratchDir in, out;
    write_text(in / "a.json", small_graph_json(1));
    write_text(in / "b.json", small_graph_json(2));
    const unsigned many = std::thread::hardware_concurrency() * 4 + 8;
    CliRun r = batch(fmt::format("{} -o {} --threads {}", in.path.string(), out.path.string(), many));
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_FALSE(has(r.out, "TBB Warning")) << r.out;
    auto report = nlohmann::json::parse(read_text(out / "report.json"));
    EXPECT_EQ(report["run"]["threads"], many);
    EXPECT_TRUE(has(r.out, fmt::format("on {} thread(s)", many))) << r.out;
}

// ---- Incremental runs that survive CI workspaces ----

struct Workspace {
    ScratchDir root;
    fs::path ws() const { return root / "ws"; }
    Workspace() {
        write_text(root / "ws" / "a.json", small_graph_json(1));
        write_npy(root / "ws" / "w" / "w.npy", 8, 1.0f);
        write_text(root / "ws" / "p.json", npy_graph_json("w/w.npy", 8));
        write_text(root / "ws" / "m.jsonl", R"({"input": "a.json"})" "\n" R"({"input": "./p.json"})" "\n");
    }
    // `mgedump batch MANIFEST -o OUT --incremental`, run from `cwd`.
    CliRun run(const fs::path& cwd, const std::string& manifest, const fs::path& out) const {
        return run_shell(fmt::format("cd {} && {} batch {} -o {} --incremental", cwd.string(), cli_path(), manifest,
                                     out.string()));
    }
};

TEST(BatchContract, TheSameManifestSpelledAnotherWayOrMovedIsUpToDate) {
    Workspace t;
    const fs::path out = t.root / "out";
    ASSERT_EQ(t.run(t.ws(), "m.jsonl", out).status, 0);
    CliRun absolute = t.run(t.root.path, (t.ws() / "m.jsonl").string(), out);
    EXPECT_TRUE(has(absolute.out, "2 up to date")) << absolute.out;
    CliRun relative = t.run(t.root.path, "ws/../ws/m.jsonl", out);
    EXPECT_TRUE(has(relative.out, "2 up to date")) << relative.out;
    // The workspace moves (as CI checkouts do); the output directory goes with it.
    fs::rename(t.root / "ws", t.root / "moved");
    CliRun moved = t.run(t.root / "moved", "m.jsonl", out);
    EXPECT_TRUE(has(moved.out, "2 up to date")) << moved.out;
    // Content still decides: a changed .npy behind a graph rebuilds only that job.
    write_npy(t.root / "moved" / "w" / "w.npy", 8, 2.0f);
    CliRun changed = t.run(t.root / "moved", "m.jsonl", out);
    EXPECT_TRUE(has(changed.out, "1 written, 1 up to date")) << changed.out;
}

TEST(BatchContract, ARunThatSkippedEverythingSaysSo) {
    Workspace t;
    const fs::path out = t.root / "out";
    ASSERT_EQ(t.run(t.ws(), "m.jsonl", out).status, 0);
    CliRun r = t.run(t.ws(), "m.jsonl", out);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "all 2 artifact(s) up to date")) << r.out;
    EXPECT_TRUE(has(r.out, "nothing written")) << r.out;
    EXPECT_FALSE(has(r.out, "written out of")) << r.out;
    EXPECT_FALSE(has(r.out, "dedup saved")) << r.out;
}

}  // namespace
}  // namespace mgedump::test
