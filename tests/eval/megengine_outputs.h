// A megengine-dumps graph folder as the evaluator tests read it (tests/megengine_dumps.h
// finds the folders): the variants MegEngine wrote, the feeds from inputs/*.npy, and
// a variant's expected outputs in output order.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "engine/eval/evaluator.h"
#include "engine/eval/npy_tensor.h"

namespace mgedump::test {

// The files of a graph folder, <variant>.mge, each with outputs/<variant>/.
inline const char* const kVariants[] = {"v2", "v2_names", "v2_mv1", "fbs", "fbs_names", "fbs_compat814"};

// inputs_dir/<name>.npy for each input of `g` that has one.
inline engine::eval::Feeds feeds_for(const ir::Graph& g, const std::filesystem::path& inputs_dir) {
    engine::eval::Feeds feeds;
    for (const auto& in : engine::eval::graph_inputs(g)) {
        const std::filesystem::path p = inputs_dir / (in.name + ".npy");
        if (std::filesystem::exists(p)) feeds.emplace(in.name, engine::eval::read_npy_tensor(p, in.dtype));
    }
    return feeds;
}

// The output files of a variant, in output order ("<i>_<name>.npy").
inline std::vector<std::filesystem::path> expected_outputs(const std::filesystem::path& dir) {
    std::vector<std::pair<int, std::filesystem::path>> found;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        found.emplace_back(std::stoi(n.substr(0, n.find('_'))), e.path());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::filesystem::path> out;
    for (auto& [i, p] : found) out.push_back(p);
    return out;
}

}  // namespace mgedump::test
