// Graph JSON text through parse_graph_json (syntax, build, validation), and a
// graph that parses through both writers and back to JSON (`inspect --json`).
#include <filesystem>
#include <string_view>

#include "../targets.h"
#include "exercise.h"
#include "formats/graph_json.h"

namespace mgedump::fuzz {

int fuzz_graph_json(const uint8_t* data, size_t size) {
    formats::GraphJsonReadOptions options;
    options.label = "fuzz.json";
    // The examples' directory, so the seeds' "npy": "weights/..." references resolve.
    options.base_dir = std::filesystem::path(__FILE__).parent_path() / "../../../examples";
    ir::Graph g;
    try {
        g = formats::parse_graph_json(std::string_view(reinterpret_cast<const char*>(data), size), options);
    } catch (const Error&) {
        return 0;
    }
    try_dump_both_formats(g);
    try {
        (void)formats::graph_to_json(g);
    } catch (const Error&) {
    }
    return 0;
}

}  // namespace mgedump::fuzz
