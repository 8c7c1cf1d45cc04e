// Limits on tensors described by files from outside (graph JSON, .npy), checked
// as each shape is read so that a hostile one is refused with a LimitError that
// names it, before anything is allocated or multiplied out.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ir/dtype.h"

namespace mgedump::formats {

// 2^48 elements: a PiB of Float32, far past any model, and small enough that a
// shape's element count times any dtype's bits never wraps around 64 bits.
inline constexpr uint64_t kMaxTensorElements = uint64_t{1} << 48;

// Values graph JSON spells out or has built in memory ("values", "fill",
// "base64"): 1 GiB each, so one short line of JSON cannot ask for any amount of
// memory. Larger weights belong in .npy files, which are mapped, not copied.
inline constexpr uint64_t kMaxInlineTensorBytes = uint64_t{1} << 30;

// The element count of `shape`; throws LimitError "<what>: shape [..] holds more
// than 2^48 elements" when it exceeds kMaxTensorElements.
uint64_t checked_element_count(std::span<const uint32_t> shape, std::string_view what);

}  // namespace mgedump::formats
