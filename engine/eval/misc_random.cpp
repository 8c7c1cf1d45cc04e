#include "engine/eval/misc_random.h"

#include <bit>
#include <cmath>
#include <numbers>

#include "engine/eval/half.h"
#include "ir/error.h"

namespace mgedump::engine::eval {
namespace {

uint64_t splitmix64(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// A float computed in `t`'s ctype: MegDNN's dt_float16 / dt_bfloat16
// arithmetic is done in float and rounded where the result becomes a ctype.
float round_to(ir::DTypeEnum t, float x) {
    if (t == ir::DTypeEnum::Float16) return half_to_float(float_to_half(x));
    if (t == ir::DTypeEnum::BFloat16) return bfloat16_to_float(float_to_bfloat16(x));
    return x;
}

void store(ir::DTypeEnum t, Tensor& out, uint64_t i, float x) {
    if (t == ir::DTypeEnum::Float32)
        out.mutable_data<float>()[i] = x;
    else if (t == ir::DTypeEnum::Float16)
        out.mutable_data<uint16_t>()[i] = float_to_half(x);
    else
        out.mutable_data<uint16_t>()[i] = float_to_bfloat16(x);
}

void need_float(const Tensor& out) {
    const ir::DTypeEnum t = out.dtype().type;
    if (t != ir::DTypeEnum::Float32 && t != ir::DTypeEnum::Float16 && t != ir::DTypeEnum::BFloat16)
        throw Error(std::string("random numbers are generated as float dtypes only, not ") +
                    std::string(ir::dtype_name(t)));
}

}  // namespace

Xoroshiro128plus::Xoroshiro128plus(uint64_t seed) {
    s_[0] = splitmix64(seed);
    s_[1] = splitmix64(seed);
}

uint64_t Xoroshiro128plus::next() {
    const uint64_t s0 = s_[0];
    uint64_t s1 = s_[1];
    const uint64_t result = s0 + s1;
    s1 ^= s0;
    s_[0] = std::rotl(s0, 55) ^ s1 ^ (s1 << 14);
    s_[1] = std::rotl(s1, 36);
    return result;
}

float uniform_draw(ir::DTypeEnum t, uint64_t draw) {
    // f = 1 + mantissa / 2^bits; 2 − f is exact in the dtype (and in float).
    const int bits = t == ir::DTypeEnum::Float16 ? 10 : t == ir::DTypeEnum::BFloat16 ? 7 : 23;
    const float f =
        std::bit_cast<float>(static_cast<uint32_t>((0x7Fu << 23) | ((draw >> (64 - bits)) << (23 - bits))));
    return 2.0f - f;
}

void fill_uniform(Xoroshiro128plus& rng, Tensor& out) {
    need_float(out);
    const ir::DTypeEnum t = out.dtype().type;
    for (uint64_t i = 0, n = out.elements(); i < n; ++i) store(t, out, i, uniform_draw(t, rng.next()));
}

void fill_gaussian(Xoroshiro128plus& rng, Tensor& out, float mean_param, float std_param) {
    need_float(out);
    const ir::DTypeEnum t = out.dtype().type;
    const float mean = round_to(t, mean_param), stddev = round_to(t, std_param);
    const uint64_t n = out.elements();
    for (uint64_t i = 0; i < n; i += 2) {
        const float u1 = uniform_draw(t, rng.next()), u2 = uniform_draw(t, rng.next());
        const float r = round_to(t, stddev * std::sqrt(-2 * std::log(u1)));
        // 2·π·u2 is a double product in MegDNN (M_PI), then a ctype.
        const float theta = round_to(t, static_cast<float>(2 * std::numbers::pi * static_cast<double>(u2)));
        store(t, out, i, r * std::cos(theta) + mean);
        if (i + 1 < n) store(t, out, i + 1, r * std::sin(theta) + mean);
    }
}

void dropout(Xoroshiro128plus& rng, float drop_prob, std::span<float> values, std::span<uint8_t> mask) {
    const float scale = 1.0f / (1.0f - drop_prob);
    for (size_t i = 0; i < values.size(); ++i) {
        const bool keep = !(uniform_draw(ir::DTypeEnum::Float32, rng.next()) < drop_prob);
        if (i < mask.size()) mask[i] = keep ? 1 : 0;
        values[i] = keep ? values[i] * scale : 0.0f;
    }
}

}  // namespace mgedump::engine::eval
