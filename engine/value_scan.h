// Counting NaN and infinite float32 values, which MegEngine warns about when it
// dumps them (spec §6.6), at the speed the artifact pass needs: this runs over
// every weight byte of a dump. On x86-64 with AVX2 it is vector code chosen at
// run time; elsewhere a portable loop gives the same counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace mgedump::engine {

// float32 values (little-endian, 4 bytes each; a trailing partial value is
// ignored) whose exponent bits are all ones.
uint64_t count_non_finite_f32(std::span<const std::byte> bytes);

// Copies `src` to `dst` (which must not overlap it) and counts as above, in the
// same loads: the count costs nothing beside a copy bound by memory bandwidth.
uint64_t copy_count_non_finite_f32(std::byte* dst, std::span<const std::byte> src);

}  // namespace mgedump::engine
