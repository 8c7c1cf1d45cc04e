// Reference byte strings taken from the spec at test time: the xxd-style hex dump
// that follows a given heading (e.g. "### C.1 FBS v1"). Reading them from the spec
// rather than pasting them keeps the golden bytes and the reference identical.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_paths.h"

namespace mgedump::test {

inline std::vector<uint8_t> spec_hex_dump(const std::string& heading) {
    std::ifstream in(spec_path());
    if (!in) throw std::runtime_error("cannot open " + spec_path());
    std::string line;
    bool in_section = false, in_block = false;
    std::vector<uint8_t> bytes;
    while (std::getline(in, line)) {
        if (!in_section) {
            in_section = line.rfind(heading, 0) == 0;
            continue;
        }
        if (line.rfind("```", 0) == 0) {
            if (in_block) return bytes;
            in_block = true;
            continue;
        }
        if (!in_block) continue;
        // "00000010: 0c 00 00 00 ...  ascii": hex pairs between the colon and the gutter.
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::istringstream hex(line.substr(colon + 1, 16 * 3 + 1));
        std::string pair;
        while (hex >> pair) {
            if (pair.size() != 2) break;
            bytes.push_back(static_cast<uint8_t>(std::stoul(pair, nullptr, 16)));
        }
    }
    throw std::runtime_error("no hex dump after heading '" + heading + "' in " + spec_path());
}

}  // namespace mgedump::test
