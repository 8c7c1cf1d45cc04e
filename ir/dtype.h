// Element types of tensors and vars: the 22 dtypes of MegEngine's dtype.fbs, with
// their storage sizes and, for quantized types, scale and zero point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mgedump::ir {

// Values are MegEngine's wire numbering (dtype.fbs is append-only), so a DTypeEnum
// can be written as is; they are not megdnn's in-memory enum values.
enum class DTypeEnum : int8_t {
    Float32 = 0, Uint8 = 1, Int8 = 2, Int16 = 3, Int32 = 4, IntB1 = 5, IntB2 = 6, IntB4 = 7,
    Byte = 8, Float16 = 9, UintB4 = 10, Quantized8Asymm = 11, QuantizedS32 = 12,
    QuantizedS8 = 13, Quantized4Asymm = 14, QuantizedS4 = 15, QuantizedS16 = 16,
    BFloat16 = 17, Bool = 18, Uint16 = 19, QuantizedS1 = 20, Complex64 = 21,
};
inline constexpr int kDTypeCount = 22;

std::string_view dtype_name(DTypeEnum t);
std::optional<DTypeEnum> dtype_from_name(std::string_view name);
// Bits one element occupies in packed storage (1, 2 or 4 for sub-byte types).
uint32_t dtype_bits(DTypeEnum t);
// The quantized types, one bit per wire value (dtype.cpp checks it against its
// table). Inline: inference asks it of every operator's inputs, and a call each
// time was a tenth of an Elemwise rule.
inline constexpr uint32_t kQuantizedDTypes = (1u << 11) | (1u << 12) | (1u << 13) | (1u << 14) | (1u << 15) |
                                             (1u << 16) | (1u << 20);
constexpr bool dtype_is_quantized(DTypeEnum t) {
    const auto i = static_cast<uint32_t>(static_cast<uint8_t>(t));
    return i < 32 && ((kQuantizedDTypes >> i) & 1u) != 0;
}
// Asymmetric quantized types carry a zero point as well as a scale.
bool dtype_is_asymmetric(DTypeEnum t);
// Bytes of a packed contiguous tensor of `elements` elements (sub-byte types round up).
uint64_t dtype_storage_bytes(DTypeEnum t, uint64_t elements);

// A complete dtype as stored on the wire: an enum plus linear quantization
// parameters for the quantized types. `valid == false` means "not set" (a null
// DType offset on the wire).
struct DType {
    // Laid out as one 8-byte register: four one-byte members (the fourth a
    // member, always 0, not padding), then the scale. With the scale between
    // the bytes, or with a padding byte, GCC built a DType passed by value with
    // narrow stores and the next rule's 8-byte load of it could not be forwarded
    // from them: a store-forwarding stall per Elemwise input, a quarter of
    // inferring one.
    DTypeEnum type = DTypeEnum::Float32;
    uint8_t zero_point = 0;
    bool valid = true;
    uint8_t reserved = 0;
    float scale = 0.0f;

    static DType none() { return DType{DTypeEnum::Float32, 0, false, 0, 0.0f}; }
    static DType of(DTypeEnum t) { return DType{t, 0, true, 0, 0.0f}; }
    static DType quantized(DTypeEnum t, float scale, uint8_t zero_point = 0) {
        return DType{t, zero_point, true, 0, scale};
    }
    bool operator==(const DType&) const = default;
};
static_assert(sizeof(DType) == 8 && offsetof(DType, scale) == 4, "DType: four one-byte members and the scale, no padding");

}  // namespace mgedump::ir
