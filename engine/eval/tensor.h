// A value the evaluator computed: dtype, shape and contiguous row-major storage
// in the dtype's own element type (quantized types hold their storage integers,
// Float16 and BFloat16 their bits). Storage is shared, never written after the
// kernel that made it returns, so a Reshape or an Identity can pass it on without
// a copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ir/dtype.h"
#include "ir/infer.h"

namespace mgedump::engine::eval {

class Tensor {
public:
    Tensor() = default;
    // Zero-filled storage for `shape` (which must be known).
    Tensor(ir::DType dtype, const ir::Shape& shape);
    // Shares `from`'s storage under another shape of the same element count.
    static Tensor reshaped(const Tensor& from, const ir::Shape& shape);
    // A copy of `bytes` (a constant's value).
    static Tensor copy_of(ir::DType dtype, const ir::Shape& shape, std::span<const std::byte> bytes);
    // `bytes` in place, kept valid by `owner` (a graph's stored tensor): no copy
    // when the bytes are aligned for their elements and have an owner, a copy
    // otherwise. Kernels never write their inputs, so the view is never written.
    static Tensor view_of(ir::DType dtype, const ir::Shape& shape, std::span<const std::byte> bytes,
                          const std::shared_ptr<const void>& owner);

    ir::DType dtype() const { return dtype_; }
    const ir::Shape& shape() const { return shape_; }
    uint64_t elements() const { return shape_.known() ? shape_.elements() : 0; }
    bool empty() const { return !storage_; }

    std::span<const std::byte> bytes() const { return {storage_.get(), size_}; }
    std::span<std::byte> mutable_bytes() { return {storage_.get(), size_}; }
    // The elements as `T`; throws Error when T's size is not the dtype's storage size.
    template <class T>
    std::span<const T> data() const {
        check_element_size(sizeof(T));
        return {reinterpret_cast<const T*>(storage_.get()), size_ / sizeof(T)};
    }
    template <class T>
    std::span<T> mutable_data() {
        check_element_size(sizeof(T));
        return {reinterpret_cast<T*>(storage_.get()), size_ / sizeof(T)};
    }

private:
    void check_element_size(size_t bytes) const;

    ir::DType dtype_ = ir::DType::none();
    ir::Shape shape_;
    std::shared_ptr<std::byte[]> storage_;
    size_t size_ = 0;
};

// "Float32 [1,3,224,224]"
std::string describe_tensor(const Tensor& t);

}  // namespace mgedump::engine::eval
