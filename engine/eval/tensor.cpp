#include "engine/eval/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "ir/error.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {

Tensor::Tensor(ir::DType dtype, const ir::Shape& shape) : dtype_(dtype), shape_(shape) {
    if (!shape.known()) throw Error("evaluator: a tensor needs a known shape");
    size_ = ir::dtype_storage_bytes(dtype.type, shape.elements());
    // Value-initialised: a kernel that writes only part of its output (padding,
    // a scatter) leaves zeros, as MegEngine's fresh device memory need not, but
    // nothing may depend on that.
    storage_ = std::shared_ptr<std::byte[]>(new std::byte[size_ ? size_ : 1]());
}

Tensor Tensor::reshaped(const Tensor& from, const ir::Shape& shape) {
    if (shape.elements() != from.elements())
        throw Error(fmt::format("evaluator: cannot view {} as {}", describe_tensor(from), ir::shape_string(shape)));
    Tensor t = from;
    t.shape_ = shape;
    return t;
}

Tensor Tensor::copy_of(ir::DType dtype, const ir::Shape& shape, std::span<const std::byte> bytes) {
    Tensor t(dtype, shape);
    if (bytes.size() != t.size_)
        throw Error(fmt::format("evaluator: a {} {} value needs {} bytes, it has {}", ir::dtype_string(dtype),
                                ir::shape_string(shape), t.size_, bytes.size()));
    if (!bytes.empty()) std::memcpy(t.storage_.get(), bytes.data(), bytes.size());
    return t;
}

Tensor Tensor::view_of(ir::DType dtype, const ir::Shape& shape, std::span<const std::byte> bytes,
                       const std::shared_ptr<const void>& owner) {
    const size_t need = ir::dtype_storage_bytes(dtype.type, shape.elements());
    // Loops over the elements (vectorised or not) need the element's own
    // alignment; x86 vector loads need no more. Protobuf and FlatBuffers place
    // many weights at odd offsets: those are copied.
    const size_t element = std::max<size_t>(1, ir::dtype_bits(dtype.type) / 8);
    const bool aligned = reinterpret_cast<uintptr_t>(bytes.data()) % element == 0;
    if (!owner || !aligned || bytes.size() != need || need == 0) return copy_of(dtype, shape, bytes);
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = shape;
    t.size_ = need;
    // Aliasing: shares ownership of `owner`, points at the bytes.
    t.storage_ = std::shared_ptr<std::byte[]>(std::const_pointer_cast<void>(owner),
                                              const_cast<std::byte*>(bytes.data()));
    return t;
}

void Tensor::check_element_size(size_t bytes) const {
    const uint32_t bits = ir::dtype_bits(dtype_.type);
    if (bits != bytes * 8)
        throw Error(fmt::format("evaluator: {} elements are {} bits, read as {} bytes", ir::dtype_string(dtype_),
                                bits, bytes));
}

std::string describe_tensor(const Tensor& t) {
    return fmt::format("{} {}", ir::dtype_string(t.dtype()), ir::shape_string(t.shape()));
}

}  // namespace mgedump::engine::eval
