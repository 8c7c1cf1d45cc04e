// The graphs MegEngine wrote in ../shared/realdata/megengine-dumps (one folder
// per graph), for tests parameterized over them: the folder, the graph names, a
// file's bytes, and a test name made from a graph name.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/test_paths.h"

namespace mgedump::test {

inline std::filesystem::path dumps_dir() {
    return std::filesystem::path(shared_dir()) / "realdata" / "megengine-dumps";
}

// The graph folders' names, sorted; with `holding`, only those holding that file.
inline std::vector<std::string> graph_folders(const std::string& holding = "") {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dumps_dir(), ec))
        if (holding.empty() ? e.is_directory() : std::filesystem::exists(e.path() / holding))
            out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// The file's bytes, shared so a loaded model can keep them.
inline std::shared_ptr<std::vector<std::byte>> read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    auto bytes = std::make_shared<std::vector<std::byte>>(std::filesystem::file_size(p));
    in.read(reinterpret_cast<char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    return bytes;
}

// A graph folder's name as a test name (gtest allows only [A-Za-z0-9_]).
inline std::string graph_test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string s = info.param;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

}  // namespace mgedump::test
