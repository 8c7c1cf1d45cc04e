// The graph JSON format (formats/GRAPH_JSON.md): a documented, human-writable
// description of a graph. `mgedump dump GRAPH.json` reads it, `mgedump inspect
// --json` writes it, and CI jobs and tests write it by hand.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "formats/side_file_check.h"
#include "ir/graph.h"

namespace mgedump::formats {

struct GraphJsonReadOptions {
    // Names the document in every error message ("graph.json: operators[3] ...").
    std::string label = "graph.json";
    // Directory that "npy" paths are relative to (the JSON file's directory).
    std::filesystem::path base_dir = ".";
    // When set, receives the path of every .npy file read, in document order (once
    // per mention), so a caller knows which files the graph was built from.
    std::vector<std::filesystem::path>* npy_files_read = nullptr;
    // When set, asked about every .npy file before it is read (side_file_check.h).
    SideFileCheck check_side_file;
};

// Parses, builds and validates a graph. Throws FormatError for anything wrong in
// the document (syntax, unknown keys, ill-typed values, dangling or duplicate var
// names, .npy problems), GraphError for structural problems validation finds, and
// LimitError past the limits on hostile input: nesting deeper than kMaxJsonDepth
// (formats/json_depth.h), a shape of more than kMaxTensorElements, values in the
// JSON of more than kMaxInlineTensorBytes (formats/tensor_limits.h). Every message
// starts with the label and names the JSON place.
ir::Graph parse_graph_json(std::string_view text, const GraphJsonReadOptions& options = {});
// Reads `path`; the label is the path and npy paths are relative to its directory.
// With `npy_files_read` and `check_side_file`, as GraphJsonReadOptions has them.
ir::Graph read_graph_json_file(const std::filesystem::path& path,
                               std::vector<std::filesystem::path>* npy_files_read = nullptr,
                               const SideFileCheck& check_side_file = {});

struct GraphJsonWriteOptions {
    // Tensors with at most this many elements, of a dtype JSON numbers hold exactly,
    // are written as "values"; larger ones as base64 or .npy.
    uint64_t max_inline_values = 16;
    // With json_dir set, tensors of more than this many bytes go to .npy files.
    uint64_t npy_threshold_bytes = 64 * 1024;
    // The directory the JSON will be saved in; empty: never write .npy files.
    std::filesystem::path json_dir;
    // Where under json_dir the .npy files go (created if missing).
    std::string npy_subdir = "tensors";
    // nlohmann::json::dump indentation; -1 for one line.
    int indent = 2;
    // Every operator output states its dtype and shape where known (`inspect --json`
    // shows what inference found); otherwise only where the reader would not
    // derive them. The reader checks stated ones against its inference either way.
    bool output_types = false;
};

// Writes every operator of `g` (in a dependency order) so that parsing the result
// reproduces g's operators, params, tensors, var names/dtypes/shapes and outputs.
// Throws GraphError for a graph whose params do not match its operators' tables.
std::string graph_to_json(const ir::Graph& g, const GraphJsonWriteOptions& options = {});

}  // namespace mgedump::formats
