// ONNX models (ModelProto files, as torch.onnx.export writes them) into the IR.
// A model converts fully or not at all: an operator, attribute or value the
// importer cannot map is an error naming the file, the node, its op type and
// what is missing. Which ONNX operators map to which MegEngine operators, and
// what is folded at import time, is listed in formats/onnx/ONNX_IMPORT.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/side_file_check.h"
#include "ir/blobs.h"
#include "ir/graph.h"

namespace mgedump::formats {

struct OnnxImportOptions {
    // Initializers become SharedDeviceTensor named after the initializer (so
    // keep_param_name has names to keep) instead of anonymous ImmutableTensor.
    bool params_as_shared_device_tensor = false;
    // Fold BatchNormalization into the Conv before it when that Conv feeds nothing
    // else (weights and bias rescaled); otherwise BN becomes one FUSE_MUL_ADD3.
    bool fold_batch_norm = true;
    // Shapes for graph inputs by name, replacing the declared ones: a model exported
    // with symbolic dimensions (torch.onnx.export's dynamic_axes) converts with them
    // fixed. A numeric declared dimension must agree; an unknown name is an error.
    std::map<std::string, std::vector<int64_t>> input_shapes;
    // When set, asked about every external data file before it is mapped
    // (side_file_check.h). Not a conversion option: stamps do not record it.
    SideFileCheck check_side_file;
};

// "NAME=1x3x224x224" (`mgedump dump --input-shape`) as a name and its dims; a
// scalar is "NAME=". Throws OptionError naming `spec` when it is malformed.
std::pair<std::string, std::vector<int64_t>> parse_onnx_input_shape(std::string_view spec);

// Throws FormatError (unreadable or malformed file, missing external data) or
// GraphError (unsupported operator, attribute or value), naming the file.
// With `external_files`, the side files the weights were read from are appended
// there (as import_onnx_bytes does).
ir::Graph import_onnx(const std::filesystem::path& path, const OnnxImportOptions& options = {},
                      std::vector<std::filesystem::path>* external_files = nullptr);

// The same from a file image already in memory; `label` names it in errors and
// external data is looked up relative to `base_dir`. With `owner` keeping `bytes`
// alive (a mapped file), the graph views inline weights in `bytes` and holds
// `owner`; without it they are copied. With `external_files`, the
// side files the weights were read from (sorted, each once) are appended there, so
// callers that fingerprint a model's input can cover them too.
ir::Graph import_onnx_bytes(ir::Bytes bytes, const std::string& label, const std::filesystem::path& base_dir,
                            const OnnxImportOptions& options = {},
                            std::vector<std::filesystem::path>* external_files = nullptr,
                            std::shared_ptr<const void> owner = nullptr);

}  // namespace mgedump::formats
