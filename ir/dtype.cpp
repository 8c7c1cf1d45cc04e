#include "ir/dtype.h"

#include <array>

namespace mgedump::ir {
namespace {

struct DTypeInfo {
    std::string_view name;
    uint8_t bits;
    bool quantized;
    bool asymmetric;
};

// Indexed by the wire value.
constexpr std::array<DTypeInfo, kDTypeCount> kInfo = {{
    {"Float32", 32, false, false},       {"Uint8", 8, false, false},
    {"Int8", 8, false, false},           {"Int16", 16, false, false},
    {"Int32", 32, false, false},         {"IntB1", 1, false, false},
    {"IntB2", 2, false, false},          {"IntB4", 4, false, false},
    {"Byte", 8, false, false},           {"Float16", 16, false, false},
    {"UintB4", 4, false, false},         {"Quantized8Asymm", 8, true, true},
    {"QuantizedS32", 32, true, false},   {"QuantizedS8", 8, true, false},
    {"Quantized4Asymm", 4, true, true},  {"QuantizedS4", 4, true, false},
    {"QuantizedS16", 16, true, false},   {"BFloat16", 16, false, false},
    {"Bool", 8, false, false},           {"Uint16", 16, false, false},
    {"QuantizedS1", 1, true, false},     {"Complex64", 64, false, false},
}};

constexpr bool quantized_mask_matches_table() {
    for (size_t i = 0; i < kInfo.size(); ++i)
        if (kInfo[i].quantized != (((kQuantizedDTypes >> i) & 1u) != 0)) return false;
    return (kQuantizedDTypes >> kInfo.size()) == 0;
}
static_assert(quantized_mask_matches_table(), "kQuantizedDTypes (dtype.h) disagrees with the dtype table");

const DTypeInfo& info(DTypeEnum t) { return kInfo.at(static_cast<size_t>(static_cast<int8_t>(t))); }

}  // namespace

std::string_view dtype_name(DTypeEnum t) { return info(t).name; }

std::optional<DTypeEnum> dtype_from_name(std::string_view name) {
    for (size_t i = 0; i < kInfo.size(); ++i)
        if (kInfo[i].name == name) return static_cast<DTypeEnum>(i);
    return std::nullopt;
}

uint32_t dtype_bits(DTypeEnum t) { return info(t).bits; }
bool dtype_is_asymmetric(DTypeEnum t) { return info(t).asymmetric; }

uint64_t dtype_storage_bytes(DTypeEnum t, uint64_t elements) {
    return (elements * dtype_bits(t) + 7) / 8;
}

}  // namespace mgedump::ir
