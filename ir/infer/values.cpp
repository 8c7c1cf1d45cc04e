#include "ir/infer/values.h"

#include <cmath>
#include <cstring>

#include "ir/infer/known_op_types.h"
#include "ir/op_registry.h"

namespace mgedump::ir {
namespace {

template <class T>
void decode_as(Bytes bytes, uint64_t count, double* out) {
    for (uint64_t i = 0; i < count; ++i) {
        T x;
        std::memcpy(&x, bytes.data() + i * sizeof(T), sizeof(T));
        out[i] = static_cast<double>(x);
    }
}

size_t tracked_size(DTypeEnum t) {
    switch (t) {
        case DTypeEnum::Float32:
        case DTypeEnum::Int32:
        case DTypeEnum::QuantizedS32: return 4;
        case DTypeEnum::Int16:
        case DTypeEnum::Uint16:
        case DTypeEnum::QuantizedS16: return 2;
        case DTypeEnum::Int8:
        case DTypeEnum::Uint8:
        case DTypeEnum::Bool:
        case DTypeEnum::QuantizedS8:
        case DTypeEnum::Quantized8Asymm: return 1;
        default: return 0;
    }
}

// Decodes `count` elements of a tracked dtype into `out`; false for an untracked
// dtype or a byte count that does not match.
bool decode_into(DType dtype, Bytes bytes, uint64_t count, double* out) {
    // The common case, a shape or an index tensor, before the general switches:
    // their branches were half the cost of reading a Reshape's target.
    if (dtype.valid && dtype.type == DTypeEnum::Int32) {
        if (bytes.size() != count * sizeof(int32_t)) return false;
        decode_as<int32_t>(bytes, count, out);
        return true;
    }
    const size_t size = dtype.valid ? tracked_size(dtype.type) : 0;
    if (size == 0 || bytes.size() != count * size) return false;
    switch (dtype.type) {
        case DTypeEnum::Float32: decode_as<float>(bytes, count, out); return true;
        case DTypeEnum::QuantizedS32: decode_as<int32_t>(bytes, count, out); return true;  // Int32: above
        case DTypeEnum::Int16:
        case DTypeEnum::QuantizedS16: decode_as<int16_t>(bytes, count, out); return true;
        case DTypeEnum::Uint16: decode_as<uint16_t>(bytes, count, out); return true;
        case DTypeEnum::Int8:
        case DTypeEnum::QuantizedS8: decode_as<int8_t>(bytes, count, out); return true;
        case DTypeEnum::Uint8:
        case DTypeEnum::Quantized8Asymm: decode_as<uint8_t>(bytes, count, out); return true;
        case DTypeEnum::Bool:
            decode_as<uint8_t>(bytes, count, out);
            for (uint64_t i = 0; i < count; ++i) out[i] = out[i] != 0 ? 1 : 0;
            return true;
        default: return false;
    }
}

// The tensor behind output `v` of an ImmutableTensor, or invalid. Inlined into
// the small-constant readers (a Reshape target, a Subtensor bound).
[[gnu::always_inline]] inline TensorId constant_tensor(const Graph& g, VarId v) {
    const OprId owner = g.vars.owner[v.value];
    if (g.oprs.type[owner.value] != kImmutableTensorType) return TensorId();
    // Output k of an ImmutableTensor is its tensor k (rules_io.cpp tensor_outputs).
    const uint32_t k = v.value - g.oprs.outputs[owner.value].begin;
    if (k >= g.oprs.tensors[owner.value].count) return TensorId();
    return TensorId(g.oprs.tensors[owner.value].begin + k);
}

// Tensor `t`'s stored elements when it has bytes, a known shape and at most
// `limit` elements: what both the allocating and the in-place decoding check.
struct StoredElements {
    DType dtype;
    Bytes bytes;
    uint64_t count = 0;
};
// Inlined: returned through memory, the optional was a third of reading a
// Reshape's target.
[[gnu::always_inline]] inline std::optional<StoredElements> stored_elements(const Graph& g, TensorId t,
                                                                            uint64_t limit) {
    const BlobId blob = g.tensors.blob[t.value];
    const auto shape = g.tensor_shape(t);
    // element_count, inline: a call for a one-dim shape cost as much as the loop.
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    if (!blob.valid() || shape.empty() || n > limit) return std::nullopt;
    return StoredElements{g.tensors.dtype[t.value], g.blobs.bytes(blob), n};
}

}  // namespace

std::shared_ptr<const StaticValue> tensor_value(const Graph& g, TensorId t) {
    const auto stored = stored_elements(g, t, kMaxStaticValueElements);
    if (!stored) return nullptr;
    auto elems = decode_elements(stored->dtype, stored->bytes, stored->count);
    if (!elems) return nullptr;
    return std::make_shared<const StaticValue>(StaticValue{std::move(*elems)});
}

std::shared_ptr<const StaticValue> constant_value(const Graph& g, VarId v) {
    const TensorId t = constant_tensor(g, v);
    return t.valid() ? tensor_value(g, t) : nullptr;
}

namespace {

// Whether tensor `t` holds Int32 elements with bytes; then their count (-1: an
// empty shape, more than `limit`, or bytes that do not match the shape) and
// bytes. An Int32 tensor of a few elements (a Reshape target, a Subtensor
// index) is nearly every small-constant read: read straight from the tables,
// without the general path's optional and its dtype switches (through them, a
// read cost a fifth more instructions).
[[gnu::always_inline]] inline bool int32_elements(const Graph& g, TensorId t, size_t limit, int& count,
                                                  Bytes& bytes) {
    const BlobId blob = g.tensors.blob[t.value];
    const DType dtype = g.tensors.dtype[t.value];
    if (!(dtype.valid && dtype.type == DTypeEnum::Int32 && blob.valid())) return false;
    const std::span<const uint32_t> shape = g.tensor_shape(t);
    uint64_t n = 1;
    for (uint32_t d : shape) n *= d;
    bytes = g.blobs.bytes(blob);
    count = shape.empty() || n > limit || bytes.size() != n * sizeof(int32_t) ? -1 : static_cast<int>(n);
    return true;
}

}  // namespace

[[gnu::hot]] int small_int32_constant(const Graph& g, VarId v, std::span<int32_t> out) {
    const TensorId t = constant_tensor(g, v);
    int count;
    Bytes bytes;
    if (!t.valid() || !int32_elements(g, t, out.size(), count, bytes) || count < 0) return -1;
    // Element by element: a memcpy call for a few dims cost as much as the rest.
    for (int i = 0; i < count; ++i) std::memcpy(&out[i], bytes.data() + i * sizeof(int32_t), sizeof(int32_t));
    return count;
}

[[gnu::hot]] int decode_small_constant(const Graph& g, VarId v, std::span<double> out) {
    const TensorId t = constant_tensor(g, v);
    if (!t.valid()) return -1;
    int count;
    Bytes bytes;
    if (int32_elements(g, t, out.size(), count, bytes)) [[likely]] {
        if (count > 0) decode_as<int32_t>(bytes, static_cast<uint64_t>(count), out.data());
        return count;
    }
    const auto stored = stored_elements(g, t, out.size());
    if (!stored || !decode_into(stored->dtype, stored->bytes, stored->count, out.data())) return -1;
    return static_cast<int>(stored->count);
}

bool value_tracked(DType dtype) { return dtype.valid && tracked_size(dtype.type) != 0; }

std::optional<std::vector<double>> decode_elements(DType dtype, Bytes bytes, uint64_t count) {
    const size_t size = dtype.valid ? tracked_size(dtype.type) : 0;
    if (size == 0 || bytes.size() != count * size) return std::nullopt;
    std::vector<double> out(count);
    if (!decode_into(dtype, bytes, count, out.data())) return std::nullopt;
    return out;
}

double store_as(DTypeEnum t, double x) {
    auto wrap = [&](auto type_tag) -> double {
        using T = decltype(type_tag);
        if (!std::isfinite(x)) return 0;
        // Through int64 first: the C++ conversion of an out-of-range double is
        // undefined, the wrap of an int64 is not.
        const double clamped = std::fmax(std::fmin(x, 9.2e18), -9.2e18);
        return static_cast<double>(static_cast<T>(static_cast<int64_t>(clamped)));
    };
    switch (t) {
        case DTypeEnum::Float32: return static_cast<double>(static_cast<float>(x));
        case DTypeEnum::Int32:
        case DTypeEnum::QuantizedS32: return wrap(int32_t{});
        case DTypeEnum::Int16:
        case DTypeEnum::QuantizedS16: return wrap(int16_t{});
        case DTypeEnum::Uint16: return wrap(uint16_t{});
        case DTypeEnum::Int8:
        case DTypeEnum::QuantizedS8: return wrap(int8_t{});
        case DTypeEnum::Uint8:
        case DTypeEnum::Quantized8Asymm: return wrap(uint8_t{});
        case DTypeEnum::Bool: return x != 0 ? 1 : 0;
        default: return x;
    }
}

}  // namespace mgedump::ir
