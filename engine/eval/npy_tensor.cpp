#include "engine/eval/npy_tensor.h"

#include "formats/npy.h"

namespace mgedump::engine::eval {
namespace {

Tensor from_array(const formats::NpyArray& a, ir::DType dtype) {
    // numpy's 0-d arrays are MegEngine's [1]-shaped scalars.
    ir::Shape shape = a.shape.empty() ? ir::Shape::of({1}) : ir::Shape::of(a.shape);
    return Tensor::copy_of(dtype, shape, a.data);
}

}  // namespace

Tensor read_npy_tensor(const std::filesystem::path& path, ir::DType dtype) {
    // An Int32 input may come from an ONNX INT64 one: its int64 values are taken
    // when each fits, as the importer narrowed the model's own.
    if (dtype.valid && dtype.type == ir::DTypeEnum::Int32)
        return from_array(formats::read_npy_narrowing_int64(path), dtype);
    return from_array(formats::read_npy(path, dtype.type), dtype);
}

Tensor read_npy_tensor(const std::filesystem::path& path) {
    formats::NpyArray a = formats::read_npy(path);
    return from_array(a, ir::DType::of(a.dtype));
}

std::vector<std::byte> npy_image(const Tensor& t) {
    return formats::encode_npy(t.dtype().type, t.shape().dims(), t.bytes());
}

}  // namespace mgedump::engine::eval
