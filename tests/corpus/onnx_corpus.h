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

#include "engine/dump.h"
#include "formats/onnx/import.h"
#include "ir/error.h"

namespace mgedump::test {

// Bump with EXPECT_VERSION in tools/make_onnx_corpus.py.
inline constexpr int kExpectVersion = 7;

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

// The stems listed one a line in a file tools/make_onnx_corpus.py writes into the
// corpus on every run, empty if the file is absent.
inline std::vector<std::string> corpus_list(const char* file) {
    std::vector<std::string> names;
    std::ifstream in(corpus_dir() / file);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    return names;
}

// The stems the script means the corpus to hold.
inline std::vector<std::string> intended_corpus_models() { return corpus_list("corpus_models.txt"); }

// Those of them whose .onnx tools/corpus_test.sh deletes once checked (the script's
// STREAMED: too large to keep all): only their expectation files stay.
inline std::vector<std::string> streamed_corpus_models() { return corpus_list("corpus_streamed.txt"); }

inline nlohmann::json read_expectations(const std::string& model) {
    return nlohmann::json::parse(std::ifstream(corpus_dir() / (model + ".expect.json")));
}

// FBS_V2 is one FlatBuffer, whose 32-bit offsets cap the file at 2 GiB with the
// weights inside it (formats/fbs_v2_writer.cpp): MegEngine's format cannot hold a
// model with more weight bytes (vit_h_14, regnet_y_128gf: 2.5 GB), and the dump must
// refuse it with this message; FBS stores the values outside its FlatBuffer. No
// corpus model is near the boundary (the next largest holds 1.2 GB), where the
// writer's per-tensor allowance would matter.
inline constexpr int64_t kFbsV2MaxBytes = int64_t{1} << 31;
inline constexpr const char* kFbsV2Refusal = "an FBS_V2 file cannot exceed 2 GiB";
inline bool fbs_v2_refused(const nlohmann::json& expect) {
    return expect["param_bytes"].get<int64_t>() >= kFbsV2MaxBytes;
}

// Checks that dumping `g` in FBS_V2 fails with kFbsV2Refusal, and says so.
inline void expect_fbs_v2_refusal(const ir::Graph& g, const std::string& name) {
    engine::DumpOptions o;
    o.dump_format = engine::DumpFormat::FBS_V2;
    try {
        engine::dump_graph(g, o);
        ADD_FAILURE() << name << " dumps in FBS_V2, though its weights pass 2 GiB";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find(kFbsV2Refusal), std::string::npos) << e.what();
        std::printf("  %-36s FBS_V2   refused as expected: %s\n", name.c_str(), kFbsV2Refusal);
    }
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

// A detector's outputs: lengths that depend on the data (make_onnx_corpus.py's
// DATA_DEPENDENT_OUTPUTS), which static inference leaves unknown.
inline bool has_data_dependent_outputs(const nlohmann::json& expect) {
    return expect.value("data_dependent_outputs", false);
}

}  // namespace mgedump::test
