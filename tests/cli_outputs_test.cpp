// What `-o PATH` does to what is at PATH (engine/artifact_file.h): "-" is standard
// output, a FIFO is written through, a symlink's target is replaced, a directory is
// an error; temporary files are unnamed where possible, and the named ones killed
// runs leave are removed by a later run. Everything happens in a temporary
// directory; no real /dev node is written.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <span>
#include <thread>

#include "cli_run.h"
#include "engine/artifact_file.h"
#include "formats/npy.h"
#include "onnx_test_model.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

using test::file_bytes;

std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> names;
    for (auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
}

// A PID that no process has: a child that has exited and been reaped.
pid_t dead_pid() {
    pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

bool supports_o_tmpfile(const fs::path& dir) {
#ifdef O_TMPFILE
    int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY, 0600);
    if (fd < 0) return false;
    ::close(fd);
    return true;
#else
    return false;
#endif
}

// Unblocks a thread stuck opening `fifo` for reading (if the writer never came).
void release_reader(const fs::path& fifo) {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
}

class CliOutputs : public test::TempDirTest {
  protected:
    CliOutputs() : TempDirTest("mgedump_outputs_") {}
    void SetUp() override {
        TempDirTest::SetUp();
        graph = write("g.json", test::kAppendixCGraph);
    }

    // The artifact as written to a regular file, for comparison.
    std::string reference() {
        test::CliRun r = test::run_cli("dump " + graph + " -o " + (dir / "ref.mge").string());
        EXPECT_EQ(r.status, 0) << r.out;
        std::string bytes = file_bytes(dir / "ref.mge");
        fs::remove(dir / "ref.mge");
        return bytes;
    }

    // Runs the CLI and returns only what it wrote to standard output (stderr goes to err).
    std::string stdout_of(const std::string& args, int& status) {
        FILE* p = popen((test::cli_path() + " " + args + " 2>" + (dir / "stderr.txt").string()).c_str(), "r");
        std::string out = test::read_stream(p);
        int s = pclose(p);
        status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
        err = file_bytes(dir / "stderr.txt");
        fs::remove(dir / "stderr.txt");
        return out;
    }

    std::string graph, err;
};

TEST_F(CliOutputs, DashWritesTheArtifactToStandardOutputAndTheSummaryToStderr) {
    const std::string want = reference();
    ASSERT_FALSE(want.empty());
    int status = 0;
    EXPECT_EQ(stdout_of("dump " + graph + " -o -", status), want);
    EXPECT_EQ(status, 0) << err;
    EXPECT_NE(err.find("content_hash"), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "-"));
    EXPECT_FALSE(fs::exists(fs::current_path() / "-"));

    EXPECT_EQ(stdout_of("dump " + graph + " -o - --json", status).size(), want.size());
    EXPECT_NE(err.find("\"nr_opr\""), std::string::npos) << err;
}

TEST_F(CliOutputs, ConvertToDashEqualsConvertToAFile) {
    ASSERT_EQ(test::run_cli("dump " + graph + " -o " + (dir / "in.mge").string()).status, 0);
    test::CliRun r = test::run_cli("convert " + (dir / "in.mge").string() + " -o " + (dir / "c.mge").string());
    ASSERT_EQ(r.status, 0) << r.out;
    int status = 0;
    EXPECT_EQ(stdout_of("convert " + (dir / "in.mge").string() + " -o -", status), file_bytes(dir / "c.mge"));
    EXPECT_EQ(status, 0) << err;
}

TEST_F(CliOutputs, AppendToDashIsRefused) {
    int status = 0;
    EXPECT_EQ(stdout_of("dump " + graph + " -o - --append", status), "");
    EXPECT_NE(status, 0);
    EXPECT_NE(err.find("--append"), std::string::npos) << err;
}

// The strip-info JSON is a second output: on the artifact's file or a model read,
// one write would replace the other while the run reported success.
TEST_F(CliOutputs, AStripInfoFileOnTheOutputOrAnInputIsRefusedAndNothingIsWritten) {
    const std::string out = (dir / "out.mge").string();
    test::CliRun same_as_output = test::run_cli("dump " + graph + " -o " + out + " --strip-info-file " +
                                                (dir / "sub" / ".." / "out.mge").string());
    EXPECT_EQ(same_as_output.status, 2) << same_as_output.out;
    EXPECT_NE(same_as_output.out.find("is the output file"), std::string::npos) << same_as_output.out;
    EXPECT_FALSE(fs::exists(out));

    const std::string json_before = file_bytes(graph);
    test::CliRun on_json_input =
        test::run_cli("dump " + graph + " -o " + out + " --strip-info-file " + graph);
    EXPECT_EQ(on_json_input.status, 2) << on_json_input.out;
    EXPECT_NE(on_json_input.out.find("is the input model"), std::string::npos) << on_json_input.out;
    EXPECT_EQ(file_bytes(graph), json_before);
    EXPECT_FALSE(fs::exists(out));

    // A .mge input under another name (a hard link) is still the input.
    const std::string model = (dir / "model.mge").string();
    ASSERT_EQ(test::run_cli("dump " + graph + " -o " + model).status, 0);
    const std::string model_before = file_bytes(model);
    fs::create_hard_link(model, dir / "also.mge");
    test::CliRun on_mge_input = test::run_cli("convert " + model + " -o " + out + " --strip-info-file " +
                                              (dir / "also.mge").string());
    EXPECT_EQ(on_mge_input.status, 2) << on_mge_input.out;
    EXPECT_NE(on_mge_input.out.find("is the input model"), std::string::npos) << on_mge_input.out;
    EXPECT_EQ(file_bytes(model), model_before);
    EXPECT_FALSE(fs::exists(out));

    // Standard output carries the summary (or, with -o -, the artifact): "-" is
    // refused, not taken as a file named "-".
    test::CliRun dash = test::run_cli("convert " + model + " -o " + out + " --strip-info-file -");
    EXPECT_EQ(dash.status, 2) << dash.out;
    EXPECT_NE(dash.out.find("standard output"), std::string::npos) << dash.out;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists("-"));

    // Another file is what the flag is for.
    test::CliRun apart = test::run_cli("convert " + model + " -o " + out + " --strip-info-file " +
                                       (dir / "strip.json").string());
    EXPECT_EQ(apart.status, 0) << apart.out;
    EXPECT_EQ(file_bytes(out), model_before);
    EXPECT_EQ(file_bytes(dir / "strip.json").front(), '{');
}

TEST_F(CliOutputs, SameFileIsOneFileByAnyNameAndNeverTwoFiles) {
    std::ofstream(dir / "a") << "a";
    std::ofstream(dir / "b") << "b";
    fs::create_hard_link(dir / "a", dir / "hard");
    fs::create_symlink("a", dir / "soft");
    fs::create_directories(dir / "sub");
    EXPECT_TRUE(engine::same_file(dir / "a", dir / "hard"));
    EXPECT_TRUE(engine::same_file(dir / "soft", dir / "a"));
    EXPECT_TRUE(engine::same_file(dir / "sub" / ".." / "a", dir / "a"));
    EXPECT_FALSE(engine::same_file(dir / "a", dir / "b"));
    // Not there yet: the same path once absolute and normal, or not.
    EXPECT_TRUE(engine::same_file(dir / "new", dir / "sub" / ".." / "new"));
    EXPECT_FALSE(engine::same_file(dir / "new", dir / "sub" / "new"));
    EXPECT_FALSE(engine::same_file(dir / "new", dir / "a"));
    EXPECT_FALSE(engine::same_file("-", "-"));  // standard output is no file
    // A dangling symlink is where AtomicFile would write: the path it names.
    fs::create_symlink("sub/target", dir / "dangling");
    EXPECT_TRUE(engine::same_file(dir / "dangling", dir / "sub" / "target"));
    EXPECT_TRUE(engine::same_file(dir / "sub" / "target", dir / "dangling"));
    EXPECT_FALSE(engine::same_file(dir / "dangling", dir / "target"));
    // One that loops names no file: the same as nothing, itself included.
    fs::create_symlink("loop", dir / "loop");
    EXPECT_FALSE(engine::same_file(dir / "loop", dir / "loop"));
    ASSERT_TRUE(engine::file_identity(dir / "hard").has_value());
    EXPECT_EQ(engine::file_identity(dir / "hard"), engine::file_identity(dir / "a"));
    EXPECT_NE(engine::file_identity(dir / "a"), engine::file_identity(dir / "b"));
    EXPECT_FALSE(engine::file_identity(dir / "dangling").has_value());
}

// An artifact written over the graph it is made from would lose the source: dump
// and convert refuse it before reading anything. A .mge file converted onto
// itself is the one in-place case, replaced whole once the new file is written.
TEST_F(CliOutputs, AnOutputOnItsOwnSourceGraphIsRefusedAndTheSourceKept) {
    const fs::path json = dir / "source.json";
    fs::copy_file(graph, json);
    fs::create_directories(dir / "sub");
    const std::string before = file_bytes(json);
    for (const std::string command : {"dump", "convert"}) {
        test::CliRun r = test::run_cli(command + " " + json.string() + " -o " + (dir / "sub" / ".." / "source.json").string());
        EXPECT_EQ(r.status, 2) << command << ": " << r.out;
        EXPECT_NE(r.out.find("is the input " + json.string()), std::string::npos) << command << ": " << r.out;
        EXPECT_EQ(file_bytes(json), before) << command;
    }
    // Any of several inputs, by another name.
    fs::create_symlink("source.json", dir / "link.json");
    test::CliRun second = test::run_cli("dump " + graph + " " + json.string() + " -o " + (dir / "link.json").string());
    EXPECT_EQ(second.status, 2) << second.out;
    EXPECT_EQ(file_bytes(json), before);

    // A weight .npy the graph JSON names is read to make the artifact too: known
    // once the graph is read, and refused before the artifact replaces anything.
    const float one = 1.0f;
    const std::vector<uint32_t> shape{1, 1};
    const auto npy = formats::encode_npy(ir::DTypeEnum::Float32, shape,
                                         ir::Bytes(reinterpret_cast<const std::byte*>(&one), sizeof one));
    std::ofstream(dir / "w.npy", std::ios::binary).write(reinterpret_cast<const char*>(npy.data()), npy.size());
    const std::string weights = file_bytes(dir / "w.npy");
    std::ofstream(dir / "npy.json") << R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 1]}],
      "constants": [{"name": "w", "param": true, "npy": "w.npy"}],
      "operators": [{"op": "Elemwise", "name": "y", "inputs": ["x", "w"], "params": {"mode": "ADD"}}],
      "outputs": ["y"]})";
    for (const std::string command : {"dump", "convert"}) {
        test::CliRun r = test::run_cli(command + " " + (dir / "npy.json").string() + " -o " + (dir / "w.npy").string());
        EXPECT_EQ(r.status, 2) << command << ": " << r.out;
        EXPECT_NE(r.out.find("is the input " + (dir / "w.npy").string()), std::string::npos) << command << ": " << r.out;
        EXPECT_EQ(file_bytes(dir / "w.npy"), weights) << command;
    }

    // And the strip-info JSON, written after the artifact.
    for (const std::string command : {"dump", "convert"}) {
        test::CliRun r = test::run_cli(command + " " + (dir / "npy.json").string() + " -o " +
                                       (dir / "o.mge").string() + " --strip-info-file " + (dir / "w.npy").string());
        EXPECT_EQ(r.status, 2) << command << ": " << r.out;
        EXPECT_NE(r.out.find("--strip-info-file " + (dir / "w.npy").string() + " is the input"), std::string::npos)
            << command << ": " << r.out;
        EXPECT_EQ(file_bytes(dir / "w.npy"), weights) << command;
        EXPECT_FALSE(fs::exists(dir / "o.mge")) << command;
    }
    // Each before the weight file is read: one that is not even a .npy file is
    // refused as the output, not reported as a broken weight (exit 1).
    std::ofstream(dir / "bad.npy") << "not a .npy file";
    std::ofstream(dir / "bad.json") << R"({"format": "mgedump-graph", "version": 1,
      "inputs": [{"name": "x", "dtype": "Float32", "shape": [1, 1]}],
      "constants": [{"name": "w", "npy": "bad.npy"}],
      "operators": [{"op": "Elemwise", "name": "y", "inputs": ["x", "w"], "params": {"mode": "ADD"}}],
      "outputs": ["y"]})";
    for (const std::string command : {"dump", "convert"}) {
        test::CliRun r = test::run_cli(command + " " + (dir / "bad.json").string() + " -o " + (dir / "bad.npy").string());
        EXPECT_EQ(r.status, 2) << command << ": " << r.out;
        EXPECT_NE(r.out.find("npy \"bad.npy\": -o " + (dir / "bad.npy").string() + " is the input"), std::string::npos)
            << command << ": " << r.out;
        EXPECT_EQ(file_bytes(dir / "bad.npy"), "not a .npy file") << command;
    }
    // The same for an ONNX model's external data (too short to be the weights).
    test::OnnxModel onnx_model;
    onnx_model.input("x", {1, 3, 2, 2}).output("y");
    onnx_model.external_initializer("w", {2, 3, 1, 1}, "w.bin");
    onnx_model.node("Conv", {"x", "w"}, {"y"});
    onnx_model.write(dir / "m.onnx");
    std::ofstream(dir / "w.bin") << "short";
    for (const std::string command : {"dump", "convert"}) {
        test::CliRun r = test::run_cli(command + " " + (dir / "m.onnx").string() + " -o " + (dir / "w.bin").string());
        EXPECT_EQ(r.status, 2) << command << ": " << r.out;
        EXPECT_NE(r.out.find("external data 'w.bin': -o " + (dir / "w.bin").string() + " is the input"),
                  std::string::npos)
            << command << ": " << r.out;
        EXPECT_EQ(file_bytes(dir / "w.bin"), "short") << command;
    }

    const fs::path model = dir / "m.mge";
    ASSERT_EQ(test::run_cli("dump " + graph + " -o " + model.string() + " --dump-format FBS").status, 0);
    ASSERT_EQ(test::run_cli("convert " + model.string() + " -o " + (dir / "apart.mge").string()).status, 0);
    test::CliRun in_place = test::run_cli("convert " + model.string() + " -o " + model.string());
    EXPECT_EQ(in_place.status, 0) << in_place.out;
    EXPECT_EQ(file_bytes(model), file_bytes(dir / "apart.mge"));  // now FBS_V2, as convert writes by default
}

TEST_F(CliOutputs, AFifoIsWrittenThroughAndStaysAFifo) {
    const std::string want = reference();
    const fs::path fifo = dir / "pipe.mge";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    std::string got;
    std::thread reader([&] { got = file_bytes(fifo); });
    test::CliRun r = test::run_cli("dump " + graph + " -o " + fifo.string());
    release_reader(fifo);
    reader.join();
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(got, want);
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
    EXPECT_EQ(names_in(dir), (std::set<std::string>{"g.json", "pipe.mge"}));
}

TEST_F(CliOutputs, ASymlinkStaysAndItsTargetIsReplaced) {
    const std::string want = reference();
    fs::create_directories(dir / "real");
    fs::create_directories(dir / "out");
    std::ofstream(dir / "real" / "target.mge") << "old contents";
    fs::create_symlink("../real/target.mge", dir / "out" / "link.mge");
    test::CliRun r = test::run_cli("dump " + graph + " -o " + (dir / "out" / "link.mge").string());
    ASSERT_EQ(r.status, 0) << r.out;
    ASSERT_TRUE(fs::is_symlink(dir / "out" / "link.mge"));
    EXPECT_EQ(fs::read_symlink(dir / "out" / "link.mge"), fs::path("../real/target.mge"));
    EXPECT_EQ(file_bytes(dir / "real" / "target.mge"), want);
    EXPECT_EQ(names_in(dir / "real"), std::set<std::string>{"target.mge"});  // no temporary file left
    EXPECT_EQ(names_in(dir / "out"), std::set<std::string>{"link.mge"});
}

TEST_F(CliOutputs, ADanglingSymlinkGetsItsTargetCreated) {
    fs::create_symlink("made.mge", dir / "link.mge");
    test::CliRun r = test::run_cli("dump " + graph + " -o " + (dir / "link.mge").string());
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::is_symlink(dir / "link.mge"));
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "made.mge")));
    EXPECT_EQ(file_bytes(dir / "made.mge"), file_bytes(dir / "link.mge"));
}

TEST_F(CliOutputs, ADirectoryIsAnErrorAndIsLeftAlone) {
    fs::create_directories(dir / "out.mge");
    std::ofstream(dir / "out.mge" / "keep.txt") << "keep";
    test::CliRun r = test::run_cli("dump " + graph + " -o " + (dir / "out.mge").string());
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find((dir / "out.mge").string()), std::string::npos) << r.out;
    EXPECT_TRUE(fs::is_directory(dir / "out.mge"));
    EXPECT_EQ(names_in(dir / "out.mge"), std::set<std::string>{"keep.txt"});
    EXPECT_EQ(file_bytes(dir / "out.mge" / "keep.txt"), "keep");
    EXPECT_EQ(names_in(dir), (std::set<std::string>{"g.json", "out.mge"}));

    fs::create_symlink("out.mge", dir / "to_dir");  // a symlink to a directory too
    r = test::run_cli("dump " + graph + " -o " + (dir / "to_dir").string());
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
    EXPECT_EQ(names_in(dir / "out.mge"), std::set<std::string>{"keep.txt"});
}

TEST_F(CliOutputs, ALaterRunRemovesStaleTempFilesOfDeadWritersOnly) {
    const std::string dead = ".g.mge.tmp-" + std::to_string(dead_pid()) + "-0";
    const std::string dead_other = ".other.mge.tmp-" + std::to_string(dead_pid()) + "-17";
    const std::string alive = ".g.mge.tmp-" + std::to_string(::getpid()) + "-0";
    const std::set<std::string> not_ours = {
        "g.mge.tmp-" + std::to_string(dead_pid()) + "-0",    // no leading dot
        ".g.mge.tmp-x1-0",                                   // PID not a number
        "..tmp-" + std::to_string(dead_pid()) + "-0" + "x",  // trailing junk
        ".tmp-" + std::to_string(dead_pid()) + "-0",         // no NAME
        ".g.mge.tmp-" + std::to_string(dead_pid()),          // no counter
        "notes.txt",
    };
    for (const std::string& n : not_ours) std::ofstream(dir / n) << "x";
    for (const std::string& n : {dead, dead_other, alive}) std::ofstream(dir / n) << "partial";
    const std::string a_dir = ".d.mge.tmp-" + std::to_string(dead_pid()) + "-0";
    fs::create_directories(dir / a_dir);  // a directory of the same shape is never touched

    test::CliRun r = test::run_cli("dump " + graph + " -o " + (dir / "g.mge").string());
    ASSERT_EQ(r.status, 0) << r.out;
    std::set<std::string> want = not_ours;
    want.insert({"g.json", "g.mge", alive, a_dir});
    EXPECT_EQ(names_in(dir), want);
}

TEST_F(CliOutputs, RemoveStaleTempFilesKeepsLockedFilesAndSymlinks) {
    const fs::path locked = dir / (".a.mge.tmp-" + std::to_string(dead_pid()) + "-3");
    std::ofstream(locked) << "partial";
    int fd = ::open(locked.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);  // a writer in another PID namespace, say
    fs::create_symlink("notes.txt", dir / (".b.mge.tmp-" + std::to_string(dead_pid()) + "-0"));
    const fs::path stale = dir / (".c.mge.tmp-" + std::to_string(dead_pid()) + "-0");
    std::ofstream(stale) << "partial";

    EXPECT_EQ(engine::remove_stale_temp_files(dir), std::vector<fs::path>{stale});
    EXPECT_TRUE(fs::exists(locked));
    ::close(fd);
    EXPECT_EQ(engine::remove_stale_temp_files(dir), std::vector<fs::path>{locked});
    EXPECT_EQ(names_in(dir).size(), 2u);  // g.json and the symlink
    EXPECT_TRUE(engine::remove_stale_temp_files(dir / "missing").empty());
    EXPECT_TRUE(engine::remove_stale_temp_files("").empty());

    EXPECT_TRUE(engine::is_temp_file_name(".a.mge.tmp-12-0"));
    EXPECT_FALSE(engine::is_temp_file_name("a.mge"));
    EXPECT_FALSE(engine::is_temp_file_name(".a.mge.tmp-12-"));
}

// That no temporary file is visible while an artifact is written is checked on
// AtomicFile itself (next test): a CLI-level check had to stall the run on a FIFO
// input, which depends on the order the command opens its files in and could hang.
TEST_F(CliOutputs, AtomicFileUsesAnUnnamedFileAndFallsBackToANamedOne) {
    const std::string bytes = "artifact bytes";
    std::span<const std::byte> seg(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    if (supports_o_tmpfile(dir)) {
        engine::FileOps ops;
        engine::AtomicFile f((dir / "a.mge").string(), ops);
        f.write(seg);
        EXPECT_EQ(names_in(dir), std::set<std::string>{"g.json"});
        f.commit();
        EXPECT_EQ(names_in(dir), (std::set<std::string>{"a.mge", "g.json"}));
        EXPECT_EQ(file_bytes(dir / "a.mge"), bytes);
    }
    struct NoTmpfile : engine::FileOps {
        int open_unnamed(const std::string&) override {
            errno = EOPNOTSUPP;
            return -1;
        }
    } ops;
    {
        engine::AtomicFile f((dir / "b.mge").string(), ops);
        f.write(seg);
        std::set<std::string> names = names_in(dir);
        names.erase("g.json");
        names.erase("a.mge");
        ASSERT_EQ(names.size(), 1u);
        EXPECT_TRUE(engine::is_temp_file_name(*names.begin())) << *names.begin();
        EXPECT_TRUE(engine::remove_stale_temp_files(dir).empty());  // its writer (we) is alive
        f.commit();
    }
    EXPECT_EQ(file_bytes(dir / "b.mge"), bytes);
    {
        engine::AtomicFile f((dir / "c.mge").string(), ops);
        f.write(seg);
    }  // abandoned: its named temporary file goes too
    std::set<std::string> names = names_in(dir);
    EXPECT_FALSE(names.count("c.mge"));
    for (const std::string& n : names) EXPECT_FALSE(engine::is_temp_file_name(n)) << n;
}

}  // namespace
}  // namespace mgedump
