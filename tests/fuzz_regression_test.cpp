// Replays every input the fuzzers once crashed on (tests/fuzz/regressions/<target>/,
// minimised by libFuzzer) through the target's body, built with the normal
// compiler: each must now return normally, its refusal (if any) an mgedump::Error
// caught inside. New crashes go there as tools/fuzz.sh's README section says.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz/targets.h"
#include "test_paths.h"

namespace mgedump {
namespace {

namespace fs = std::filesystem;

using Target = int (*)(const uint8_t*, size_t);

const std::map<std::string, Target>& targets() {
    static const std::map<std::string, Target> t = {
        {"fuzz_read_v1", fuzz::fuzz_read_v1},       {"fuzz_read_v2", fuzz::fuzz_read_v2},
        {"fuzz_onnx", fuzz::fuzz_onnx},             {"fuzz_graph_json", fuzz::fuzz_graph_json},
        {"fuzz_npy", fuzz::fuzz_npy},               {"fuzz_manifest", fuzz::fuzz_manifest},
        {"fuzz_strip_info", fuzz::fuzz_strip_info}, {"fuzz_testcase", fuzz::fuzz_testcase},
    };
    return t;
}

fs::path regressions_dir() { return fs::path(test::source_dir()) / "tests/fuzz/regressions"; }

std::vector<uint8_t> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// "" when `run` returns 0; otherwise what went wrong, for the failure message.
std::string failure_of(Target run, const std::vector<uint8_t>& bytes) {
    try {
        return run(bytes.data(), bytes.size()) == 0 ? "" : "returned non-zero";
    } catch (const std::exception& e) {
        return std::string("threw: ") + e.what();
    } catch (...) {
        return "threw something that is not a std::exception";
    }
}

std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> files;
    if (fs::is_directory(dir))
        for (const auto& e : fs::directory_iterator(dir))
            if (e.is_regular_file()) files.push_back(e.path());
    std::ranges::sort(files);
    return files;
}

TEST(FuzzRegressions, EveryDirectoryNamesATarget) {
    if (!fs::is_directory(regressions_dir())) GTEST_SKIP() << "no regressions yet";
    for (const auto& e : fs::directory_iterator(regressions_dir()))
        EXPECT_TRUE(targets().contains(e.path().filename().string()))
            << e.path() << " is not named after a fuzz target (tests/fuzz/targets.h)";
}

TEST(FuzzRegressions, EverySavedCrashNowReturnsNormally) {
    size_t replayed = 0;
    for (const auto& [name, run] : targets()) {
        for (const fs::path& p : files_in(regressions_dir() / name)) {
            EXPECT_EQ(failure_of(run, read_file(p)), "") << p;
            ++replayed;
        }
    }
    RecordProperty("replayed", static_cast<int>(replayed));
}

// A grown fuzz corpus (tools/fuzz.sh's build-fuzz/corpus, one folder per target)
// replayed through the code as built here, when MGEDUMP_FUZZ_CORPUS names it:
// every input a fuzzing run kept, checked against the current code without
// rebuilding the sanitizer tree. Not part of the default suite (the corpora are
// local), so it skips without the variable.
TEST(FuzzRegressions, AGrownCorpusReplaysWithoutAFailure) {
    const char* dir = std::getenv("MGEDUMP_FUZZ_CORPUS");
    if (!dir) GTEST_SKIP() << "set MGEDUMP_FUZZ_CORPUS to a folder of <target>/ corpora";
    size_t replayed = 0;
    for (const auto& [name, run] : targets()) {
        for (const fs::path& p : files_in(fs::path(dir) / name)) {
            EXPECT_EQ(failure_of(run, read_file(p)), "") << p;
            ++replayed;
        }
    }
    EXPECT_GT(replayed, 0u) << "no corpus files under " << dir;
    std::printf("replayed %zu corpus files\n", replayed);
}

// A fuzzer's first inputs: every target copes with nothing and with one byte.
TEST(FuzzRegressions, TargetsRunOnEmptyAndTrivialInput) {
    for (const auto& [name, run] : targets()) {
        EXPECT_EQ(failure_of(run, {}), "") << name;
        EXPECT_EQ(failure_of(run, {0}), "") << name;
    }
}

}  // namespace
}  // namespace mgedump
