// Reading one job's input into a graph: graph JSON (formats/graph_json.h), a .mge
// file of either format (engine/load.h), told apart by the model magic, or an ONNX
// model (formats/onnx/import.h), known by its .onnx name.
// Also the cheap up-front estimate of what a model will cost in memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/load.h"
#include "formats/onnx/import.h"
#include "formats/side_file_check.h"
#include "ir/graph.h"
#include "ir/metadata.h"

namespace mgedump::jobs {

struct ModelInput {
    ir::Graph graph;
    std::optional<ir::Metadata> metadata;  // a loaded .mge file's; re-dumps keep it
    uint64_t file_bytes = 0;
    std::string file_digest;   // xxh3-128 of the input file (an ONNX model's also covers its side files)
    std::string input_digest;  // xxh3-128 of the input file alone, as stamps record it
    // Other files the graph was built from (a graph JSON's .npy files, an ONNX
    // model's external weights), which incremental stamps record next to the input.
    std::vector<std::filesystem::path> dependencies;
};

// ONNX has no magic number: an input is an ONNX model when it is named *.onnx.
bool is_onnx_input(const std::filesystem::path& path);

// Throws Error (FormatError, GraphError, ...) naming the path; OptionError when
// `onnx`'s input shapes do not fit an ONNX model's inputs. `buffers` recycles the
// memory small inputs are read into (engine::map_file). `onnx` is how an ONNX
// input is imported; other inputs ignore it. `check_side_file`, when set, is asked
// about each side file (a graph JSON's .npy, an ONNX model's external data) before
// it is read, and may refuse it (formats/side_file_check.h).
ModelInput read_model_input(const std::filesystem::path& path, engine::ReadBuffers* buffers = nullptr,
                            const formats::OnnxImportOptions& onnx = {},
                            const formats::SideFileCheck& check_side_file = {});

// Bytes a model will hold while in flight: its input (and, for graph JSON, the
// .npy files it names) plus one serialized copy per variant. Never throws: an
// unreadable input costs little and fails when read.
uint64_t estimate_footprint(const std::filesystem::path& path, size_t variants);

}  // namespace mgedump::jobs
