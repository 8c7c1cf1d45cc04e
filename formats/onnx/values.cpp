#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/values.h"

#include "formats/half_bits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

template <class T>
std::vector<T> load(const Value& v) {
    std::vector<T> out(v.bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), v.bytes.data(), out.size() * sizeof(T));
    return out;
}

template <class To, class From>
std::vector<To> widen(const std::vector<From>& in) {
    return std::vector<To>(in.begin(), in.end());
}

template <class T>
std::shared_ptr<std::vector<std::byte>> owned_bytes(const std::vector<T>& values) {
    auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes->data(), values.data(), bytes->size());
    return bytes;
}

}  // namespace

std::optional<std::vector<int64_t>> decode_ints(const Value& v) {
    switch (v.elem_type) {
        case P::INT64:
            return load<int64_t>(v);
        case P::INT32:
            return widen<int64_t>(load<int32_t>(v));
        case P::INT16:
            return widen<int64_t>(load<int16_t>(v));
        case P::INT8:
            return widen<int64_t>(load<int8_t>(v));
        case P::UINT8:
        case P::BOOL:
            return widen<int64_t>(load<uint8_t>(v));
        case P::UINT16:
            return widen<int64_t>(load<uint16_t>(v));
        case P::UINT32:
            return widen<int64_t>(load<uint32_t>(v));
        default:
            return std::nullopt;
    }
}

std::optional<std::vector<double>> decode_floats(const Value& v) {
    switch (v.elem_type) {
        case P::FLOAT:
            return widen<double>(load<float>(v));
        case P::DOUBLE:
            return load<double>(v);
        case P::FLOAT16:
        case P::BFLOAT16: {
            std::vector<double> out;
            for (uint16_t bits : load<uint16_t>(v))
                out.push_back(v.elem_type == P::FLOAT16 ? half_to_float(bits) : bfloat16_to_float(bits));
            return out;
        }
        default: {
            auto ints = decode_ints(v);
            if (!ints) return std::nullopt;
            return widen<double>(*ints);
        }
    }
}

std::vector<std::byte> narrow_to_32bit(const Value& v, const std::function<void(int64_t)>& overflow) {
    if (v.elem_type == P::DOUBLE) {
        std::vector<float> f = widen<float>(load<double>(v));
        return *owned_bytes(f);
    }
    std::vector<int32_t> out;
    for (int64_t x : load<int64_t>(v)) {
        if (x < INT32_MIN || x > INT32_MAX) overflow(x);
        out.push_back(static_cast<int32_t>(x));
    }
    return *owned_bytes(out);
}

Value bytes_const(int32_t elem_type, Shape shape, std::shared_ptr<std::vector<std::byte>> bytes) {
    Value v;
    v.elem_type = elem_type;
    v.shape = std::move(shape);
    v.is_const = true;
    v.bytes = ir::Bytes(bytes->data(), bytes->size());
    v.keepalive = std::move(bytes);
    return v;
}

Value tensor_const(const OnnxTensorBytes& t) {
    Value v;
    v.elem_type = t.elem_type;
    v.shape = t.dims;
    v.is_const = true;
    v.bytes = t.bytes;
    v.keepalive = t.keepalive;
    return v;
}

Value int64_const(const std::vector<int64_t>& values, Shape shape) {
    return bytes_const(P::INT64, std::move(shape), owned_bytes(values));
}

Value float_const(const std::vector<float>& values, Shape shape) {
    return bytes_const(P::FLOAT, std::move(shape), owned_bytes(values));
}

Value double_const(const std::vector<double>& values, Shape shape) {
    return bytes_const(P::DOUBLE, std::move(shape), owned_bytes(values));
}

Value float_const_as(int32_t elem_type, const std::vector<float>& values, Shape shape) {
    if (elem_type == P::DOUBLE) return double_const(std::vector<double>(values.begin(), values.end()), std::move(shape));
    if (elem_type != P::FLOAT16 && elem_type != P::BFLOAT16) return float_const(values, std::move(shape));
    std::vector<uint16_t> bits(values.size());
    for (size_t k = 0; k < values.size(); ++k)
        bits[k] = elem_type == P::FLOAT16 ? float_to_half(values[k]) : float_to_bfloat16(values[k]);
    return bytes_const(elem_type, std::move(shape), owned_bytes(bits));
}

namespace {
// The conversion to T is modular (C++20) for every integer T.
template <class T>
std::shared_ptr<std::vector<std::byte>> wrapped_bytes(const std::vector<int64_t>& values) {
    std::vector<T> out(values.size());
    for (size_t k = 0; k < values.size(); ++k) out[k] = static_cast<T>(values[k]);
    return owned_bytes(out);
}
}  // namespace

Value int_const_as(int32_t elem_type, const std::vector<int64_t>& values, Shape shape) {
    std::shared_ptr<std::vector<std::byte>> bytes;
    switch (elem_type) {
        case P::INT8: bytes = wrapped_bytes<int8_t>(values); break;
        case P::UINT8: bytes = wrapped_bytes<uint8_t>(values); break;
        case P::BOOL: {  // one byte, 0 or 1
            std::vector<int64_t> truth(values.size());
            for (size_t k = 0; k < values.size(); ++k) truth[k] = values[k] != 0;
            bytes = wrapped_bytes<uint8_t>(truth);
            break;
        }
        case P::INT16: bytes = wrapped_bytes<int16_t>(values); break;
        case P::UINT16: bytes = wrapped_bytes<uint16_t>(values); break;
        case P::INT32: bytes = wrapped_bytes<int32_t>(values); break;
        case P::UINT32: bytes = wrapped_bytes<uint32_t>(values); break;
        case P::INT64:
        case P::UINT64: bytes = owned_bytes(values); break;
        default:
            throw std::logic_error(fmt::format("int_const_as: element type {} is not an integer type", elem_type));
    }
    return bytes_const(elem_type, std::move(shape), std::move(bytes));
}

bool is_foldable_shape_const(const Value& v) {
    return v.is_const && (v.elem_type == P::INT64 || v.elem_type == P::INT32) &&
           element_count(v.shape) <= kMaxFoldedElements;
}

Value gather_const(const Value& x, const std::vector<std::vector<int64_t>>& indices,
                   const std::vector<int64_t>& source_axis) {
    const size_t elem = onnx_elem_size(x.elem_type), rank = indices.size();
    std::vector<int64_t> stride(x.shape.size(), 1);
    for (size_t a = x.shape.size(); a-- > 1;) stride[a - 1] = stride[a] * x.shape[a];
    Shape out;
    for (const auto& list : indices) out.push_back(static_cast<int64_t>(list.size()));
    auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(element_count(out)) * elem);
    std::vector<size_t> at(rank, 0);  // the output position, odometer-style
    for (size_t k = 0; k * elem < bytes->size(); ++k) {
        int64_t from = 0;
        for (size_t a = 0; a < rank; ++a) from += indices[a][at[a]] * stride[source_axis[a]];
        std::copy_n(x.bytes.begin() + from * static_cast<int64_t>(elem), elem, bytes->begin() + k * elem);
        for (size_t a = rank; a-- > 0;)
            if (++at[a] < indices[a].size()) break;
            else at[a] = 0;
    }
    return bytes_const(x.elem_type, std::move(out), bytes);
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
    Shape out(std::max(a.size(), b.size()), 1);
    for (size_t k = 0; k < out.size(); ++k) {
        int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
        int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
        if (da != db && da != 1 && db != 1) return std::nullopt;
        out[out.size() - 1 - k] = da == 1 ? db : da;
    }
    return out;
}

std::optional<int64_t> counted_from_end(int64_t v, int64_t n) {
    if (v < -n || v >= n) return std::nullopt;
    return v < 0 ? v + n : v;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const Importer& at, std::string_view what) {
    const std::optional<int64_t> position = counted_from_end(axis, rank);
    if (!position) at.fail(fmt::format("{} {} is out of range for rank {}", what, axis, rank));
    return *position;
}

}  // namespace mgedump::formats::onnx_import
