// What the corpus checks (tests/corpus/*.cpp, target mgedump_corpus_tests) share:
// where tools/make_onnx_corpus.py put the corpus, its models, and their expectation
// files.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>
#include <nlohmann/json.hpp>

namespace mgedump::test {

// Bump with EXPECT_VERSION in tools/make_onnx_corpus.py.
inline constexpr int kExpectVersion = 4;

inline std::filesystem::path corpus_dir() {
    const char* env = std::getenv("MGEDUMP_ONNX_CORPUS");
    return env ? std::filesystem::path(env) : std::filesystem::path(MGEDUMP_SOURCE_DIR) / "build" / "onnx-corpus";
}

// The stems of every .onnx file in the corpus, sorted.
inline std::vector<std::string> corpus_models() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(corpus_dir(), ec))
        if (e.path().extension() == ".onnx") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

inline nlohmann::json read_expectations(const std::string& model) {
    return nlohmann::json::parse(std::ifstream(corpus_dir() / (model + ".expect.json")));
}

}  // namespace mgedump::test
