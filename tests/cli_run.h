// Running the built mgedump binary from tests, capturing its exit status and
// everything it printed (stdout and stderr together); a fixture with a fresh
// directory per test; reading a file back whole.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_paths.h"

namespace mgedump::test {

struct CliRun {
    int status;  // exit status; -1 if killed by a signal
    std::string out;
};

// Everything left to read from `p`.
inline std::string read_stream(FILE* p) {
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    return out;
}

inline CliRun run_shell(const std::string& command) {
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    std::string out = read_stream(p);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline CliRun run_cli(const std::string& args) { return run_shell(cli_path() + " " + args); }

// The bytes of the file at `p` ("" if it cannot be read).
inline std::string file_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The spec's Appendix C graph as graph JSON (names as there).
inline const char* const kAppendixCGraph = R"({
  "format": "mgedump-graph", "version": 1,
  "inputs": [{"name": "data", "dtype": "Float32", "shape": [1, 3]}],
  "constants": [{"name": "const", "dtype": "Float32", "shape": [3], "values": [1, 2, 3]}],
  "operators": [{"op": "Elemwise", "inputs": ["data", "const"], "params": {"mode": "ADD"}, "outputs": ["out"]}],
  "outputs": ["out"]
})";

// A test with its own empty directory `dir` (temp dir / PREFIX + pid + test name),
// removed afterwards.
class TempDirTest : public ::testing::Test {
  protected:
    explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() /
              (prefix_ + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }

    // Writes `text` to dir/NAME; returns that path.
    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(dir / name) << text;
        return (dir / name).string();
    }

    std::filesystem::path dir;

  private:
    std::string prefix_;
};

}  // namespace mgedump::test
