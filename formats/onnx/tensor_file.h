// A serialized ONNX TensorProto on its own (the input_N.pb / output_N.pb files
// of ONNX's backend test data sets, which many exporters write too).
#pragma once

#include <filesystem>
#include <string>

#include "formats/onnx/model_file.h"

namespace mgedump::formats {

struct OnnxTensorFile {
    std::string name;       // the TensorProto's name ("" when it has none)
    OnnxTensorBytes value;  // element type, dims and little-endian bytes
};

// Throws FormatError naming `path` when it cannot be read or is not a TensorProto
// of a supported element type with as many bytes as its dims need.
OnnxTensorFile read_onnx_tensor_file(const std::filesystem::path& path);

}  // namespace mgedump::formats
