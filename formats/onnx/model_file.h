// An ONNX ModelProto read from disk, and the bytes of its tensors. The file is
// mapped, and the raw_data of the graph's initializers stays in the mapping: only a
// skeleton of the message without those payloads goes through protobuf, and tensor
// views point into the file image (or into the message's own strings and repeated
// fields for everything else), each holding what it points into. External-data
// tensors are views into their side files, each mapped once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "formats/side_file_check.h"
#include "ir/blobs.h"

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace mgedump::formats {

struct MappedImage {
    ir::Bytes bytes;
    uint64_t device = 0, inode = 0;
    int fd = -1;
};

struct OnnxModelFile {
    std::shared_ptr<const onnx::ModelProto> proto;
    std::string label;               // the path, for messages
    std::filesystem::path base_dir;  // where external data paths are relative to
    // The raw_data of graph initializers, taken out of `proto` and viewed in the file
    // image `image` keeps alive (keyed by the initializer's message in `proto`).
    std::unordered_map<const onnx::TensorProto*, ir::Bytes> inline_raw_data;
    std::shared_ptr<const void> image;
    // Set by read_onnx_model: the mapped file and a descriptor on it, both owned by
    // `image`, so an importer can note where each view lies in the file.
    std::optional<MappedImage> file;
    // Asked about each external data file before it is mapped (the importer's
    // OnnxImportOptions::check_side_file).
    SideFileCheck check_side_file;
};

// Parses a whole file image (no 64 MB cap; ONNX's 2 GiB protobuf limit holds).
// With `owner` keeping `bytes` alive, initializers' raw_data are views into `bytes`;
// without one, `bytes` are copied once first. Throws FormatError naming `label`
// when the bytes are not a ModelProto.
OnnxModelFile parse_onnx_model(ir::Bytes bytes, std::string label, std::filesystem::path base_dir,
                               std::shared_ptr<const void> owner = nullptr);
// Maps `path` read-only and parses it as above (inline weights are not copied).
OnnxModelFile read_onnx_model(const std::filesystem::path& path);

// One tensor's value as stored: ONNX element type, dims, little-endian bytes.
struct OnnxTensorBytes {
    int32_t elem_type = 0;
    std::vector<int64_t> dims;
    ir::Bytes bytes;
    std::shared_ptr<const void> keepalive;
};

// Resolves tensor values from the model: initializers' raw_data are viewed in the
// file image, other raw_data and float_data in the message; int32/int64/double typed fields are copied into
// owned bytes; external data is viewed in its mapped side file. Throws FormatError naming the tensor.
class OnnxTensorReader {
  public:
    explicit OnnxTensorReader(const OnnxModelFile& model) : model_(model) {}
    OnnxTensorBytes read(const onnx::TensorProto& t) const;
    // The external data files read so far, in path order.
    std::vector<std::filesystem::path> external_files() const;

  private:
    ir::Bytes map_external(const std::string& location, std::shared_ptr<const void>& keepalive,
                           std::string_view tensor) const;

    const OnnxModelFile& model_;
    // path → mapping; ordered so nothing depends on hash order.
    mutable std::map<std::string, std::shared_ptr<const void>> mappings_;
};

// Bytes one element of an ONNX element type occupies; 0 for types we cannot hold.
size_t onnx_elem_size(int32_t elem_type);
std::string_view onnx_elem_name(int32_t elem_type);

}  // namespace mgedump::formats
