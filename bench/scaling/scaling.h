// The batch scaling benchmark's pieces (see main.cpp for the commands).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mgedump::bench {

void prepare_inputs(const std::filesystem::path& dir, uint32_t small, uint32_t large);

struct ScalingOptions {
    int rounds = 3;
    std::vector<unsigned> threads{1, 2};
    std::string memory_budget_text = "2G";
    std::filesystem::path out_dir;
    std::filesystem::path self;  // this executable, to run children
};
// A Markdown table of medians per set and thread count.
std::string measure_scaling(const std::filesystem::path& dir, const ScalingOptions& options);

// One batch in this process; returns "models bytes seconds".
std::string run_one(const std::filesystem::path& set_dir, const std::filesystem::path& out_dir, unsigned threads,
                    const std::string& budget);

}  // namespace mgedump::bench
