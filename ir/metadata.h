// Model metadata as MegEngine stores it (spec §6.9): dumped with a graph, loaded
// back with it. `user_info` holds arbitrary bytes in a FlatBuffers string.
#pragma once

#include <cstdint>
#include <string>

namespace mgedump::ir {

struct Metadata {
    bool is_valid = false;
    bool graph_modified = false;
    std::string user_info;
    uint64_t optimize_options = 0;
    bool operator==(const Metadata&) const = default;
};

}  // namespace mgedump::ir
