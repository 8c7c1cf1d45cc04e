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

// How a copy stores: through the cache (the destination is read again soon, e.g.
// a small buffer handed to write(2)), or streaming past it (a large output buffer
// nobody reads during the dump). Streaming stores skip the read-for-ownership of
// every destination line, a third of a cached copy's memory traffic, and do not
// evict the source chunk the pass hashes next.
enum class Stores : uint8_t { Cached, Streaming };

// Copies `src` to `dst` (which must not overlap it) and counts as above, in the
// same loads: the count costs nothing beside a copy bound by memory bandwidth.
uint64_t copy_count_non_finite_f32(std::byte* dst, std::span<const std::byte> src,
                                   Stores stores = Stores::Cached);

// A plain copy with the same choice of stores.
void copy_bytes(std::byte* dst, std::span<const std::byte> src, Stores stores);

// After streaming stores and before anyone else reads the destination: orders
// them (weakly ordered on x86) before every later store.
void finish_streaming_stores();

}  // namespace mgedump::engine
