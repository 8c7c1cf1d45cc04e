// Small graph JSON models and scratch directories for the batch tests.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "formats/npy.h"
#include "jobs/batch.h"

namespace mgedump::test {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed at scope exit.
struct ScratchDir {
    fs::path path;
    ScratchDir() {
        static std::atomic<int> n{0};
        path = fs::temp_directory_path() / fmt::format("mgedump-batch-{}-{}", ::getpid(), n++);
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    fs::path operator/(const std::string& rel) const { return path / rel; }
};

inline void write_text(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

inline std::string read_text(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// x -> (+ c1) -> (* c2) -> out, where c1 and c2 hold `values` (so identical
// constants when `twin` is true) and `seed` varies the values between models.
inline std::string small_graph_json(int seed, bool twin = true, size_t width = 4) {
    std::vector<float> a, b;
    for (size_t i = 0; i < width; ++i) {
        a.push_back(static_cast<float>(seed * 100 + static_cast<int>(i)));
        b.push_back(twin ? a.back() : a.back() + 0.5f);
    }
    return fmt::format(R"({{"format": "mgedump-graph", "version": 1,
 "inputs": [{{"name": "x", "dtype": "Float32", "shape": [1, {w}]}}],
 "constants": [{{"name": "c1", "dtype": "Float32", "shape": [{w}], "values": [{a}]}},
               {{"name": "c2", "dtype": "Float32", "shape": [{w}], "values": [{b}]}}],
 "operators": [{{"op": "Elemwise", "name": "s", "inputs": ["x", "c1"], "params": {{"mode": "ADD"}}}},
               {{"op": "Elemwise", "name": "y", "inputs": ["s", "c2"], "params": {{"mode": "MUL"}}}}],
 "outputs": ["y"]}})",
                       fmt::arg("w", width), fmt::arg("a", fmt::join(a, ", ")), fmt::arg("b", fmt::join(b, ", ")));
}

// A graph whose parameter comes from `npy` (relative to the JSON's directory).
inline std::string npy_graph_json(const std::string& npy, size_t width) {
    return fmt::format(R"({{"format": "mgedump-graph", "version": 1,
 "inputs": [{{"name": "x", "dtype": "Float32", "shape": [1, {w}]}}],
 "constants": [{{"name": "w", "param": true, "npy": "{npy}"}}],
 "operators": [{{"op": "Elemwise", "name": "y", "inputs": ["x", "w"], "params": {{"mode": "ADD"}}}}],
 "outputs": ["y"]}})",
                       fmt::arg("w", width), fmt::arg("npy", npy));
}

inline void write_npy(const fs::path& p, size_t width, float base) {
    std::vector<float> v(width);
    for (size_t i = 0; i < width; ++i) v[i] = base + static_cast<float>(i);
    std::vector<uint32_t> shape{static_cast<uint32_t>(width)};
    auto bytes = formats::encode_npy(ir::DTypeEnum::Float32,
                                     shape, ir::Bytes(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4));
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                             static_cast<std::streamsize>(bytes.size()));
}

// Every regular file under `dir` (relative path → bytes), skipping the report.
inline std::map<std::string, std::string> tree(const fs::path& dir, bool with_stamps = false) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::string rel = fs::relative(e.path(), dir).string();
        if (rel == "report.json") continue;
        if (!with_stamps && rel.starts_with(".mgedump-stamps")) continue;
        out[rel] = read_text(e.path());
    }
    return out;
}

// The report without what may differ between runs (timings, thread count).
inline nlohmann::ordered_json stable_report(const jobs::BatchReport& r) {
    auto j = jobs::report_to_json(r);
    j.erase("run");
    for (auto& a : j["artifacts"]) a.erase("seconds");
    return j;
}

}  // namespace mgedump::test
