// Float16 (IEEE binary16) and BFloat16 as bits, converted to and from float as
// MegDNN's types do: half_float rounds to nearest with ties away from zero
// (dnn/include/megdnn/dtype/half.hpp: HALF_ROUND_TIES_TO_EVEN 0), bfloat16 to
// nearest even. Kernels compute these dtypes in float and round the result once.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace mgedump::engine::eval {

inline float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);  // inf / nan
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else {  // subnormal: normalise
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while ((mant & 0x400u) == 0);
        bits = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(bits);
}

inline uint16_t float_to_half(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u)  // inf or nan (nan keeps a quiet payload bit)
        return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u);
    if (abs >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and up round to inf
    if (abs < 0x38800000u) {                        // subnormal or zero in half
        if (abs < 0x33000000u) return sign;         // below half the smallest subnormal
        const uint32_t exp = abs >> 23;
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exp;  // 14..24
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem >= half) ++h;  // ties away from zero
        return static_cast<uint16_t>(sign | h);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13);
    const uint32_t rem = abs & 0x1fffu;
    if (rem >= 0x1000u) ++h;  // ties away from zero
    return static_cast<uint16_t>(sign | h);
}

inline float bfloat16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bfloat16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
    const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace mgedump::engine::eval
