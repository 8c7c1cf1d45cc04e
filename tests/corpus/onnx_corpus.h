// What the corpus checks (tests/corpus/*.cpp, target mgedump_corpus_tests) share:
// where tools/make_onnx_corpus.py put the corpus, its models, and their expectation
// files.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "formats/onnx/import.h"
#include "ir/error.h"

namespace mgedump::test {

// Bump with EXPECT_VERSION in tools/make_onnx_corpus.py.
inline constexpr int kExpectVersion = 6;

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

// The stems tools/make_onnx_corpus.py means the corpus to hold (it writes
// corpus_models.txt on every run), empty if the file is absent.
inline std::vector<std::string> intended_corpus_models() {
    std::vector<std::string> names;
    std::ifstream in(corpus_dir() / "corpus_models.txt");
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    return names;
}

inline nlohmann::json read_expectations(const std::string& model) {
    return nlohmann::json::parse(std::ifstream(corpus_dir() / (model + ".expect.json")));
}

// A model MegEngine cannot express whole (the full SSD, whose post-processing has
// data-dependent shapes) carries the refusal it must get, as expected_refusal: true
// when it has one, after checking that importing it fails with that message.
inline bool is_expected_refusal(const nlohmann::json& expect, const std::string& name) {
    if (!expect.contains("expected_refusal")) return false;
    const std::string want = expect["expected_refusal"].get<std::string>();
    try {
        formats::import_onnx(corpus_dir() / (name + ".onnx"));
        ADD_FAILURE() << name << " converts, but its expectation says it is refused: " << want;
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
        std::printf("  %-36s refused as expected: %s\n", name.c_str(), want.c_str());
    }
    return true;
}

}  // namespace mgedump::test
