#include "formats/onnx/tensor_file.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "formats/onnx/onnx_proto.h"
#include "ir/error.h"

namespace mgedump::formats {

OnnxTensorFile read_onnx_tensor_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FormatError(fmt::format("{}: cannot open", path.string()));
    std::stringstream buf;
    buf << in.rdbuf();
    auto tensor = std::make_shared<onnx::TensorProto>();
    if (!tensor->ParseFromString(buf.str()))
        throw FormatError(fmt::format("{}: not a serialized ONNX TensorProto", path.string()));
    // The model-file reader resolves every storage form of a tensor (raw_data,
    // typed fields, external data beside the file). It keeps its views alive
    // through the model's message: here that is the tensor itself, held by an
    // aliasing pointer (it owns the tensor and points at no ModelProto).
    OnnxModelFile holder;
    holder.proto = std::shared_ptr<const onnx::ModelProto>(tensor, nullptr);
    holder.label = path.string();
    holder.base_dir = path.parent_path();
    OnnxTensorFile out;
    out.name = tensor->name();
    out.value = OnnxTensorReader(holder).read(*tensor);
    return out;
}

}  // namespace mgedump::formats
