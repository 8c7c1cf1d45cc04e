// Small typed indices into the graph tables. A distinct type per table keeps an
// OprId from being used where a VarId is meant; all fit in 32 bits.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace mgedump::ir {

template <class Tag>
struct Id {
    static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();
    uint32_t value = kInvalid;

    constexpr Id() = default;
    constexpr explicit Id(uint32_t v) : value(v) {}
    constexpr bool valid() const { return value != kInvalid; }
    constexpr explicit operator bool() const { return valid(); }
    constexpr auto operator<=>(const Id&) const = default;
};

using OprId = Id<struct OprTag>;
using VarId = Id<struct VarTag>;
using TensorId = Id<struct TensorTag>;
using StrId = Id<struct StrTag>;
using BlobId = Id<struct BlobTag>;
using ParamTableId = Id<struct ParamTableTag>;
using OpTypeId = Id<struct OpTypeTag>;

// A half-open range [begin, begin + count) into a flat column (CSR style).
struct Range {
    uint32_t begin = 0;
    uint32_t count = 0;
    constexpr uint32_t end() const { return begin + count; }
    constexpr bool empty() const { return count == 0; }
    constexpr bool operator==(const Range&) const = default;
};

}  // namespace mgedump::ir

template <class Tag>
struct std::hash<mgedump::ir::Id<Tag>> {
    size_t operator()(mgedump::ir::Id<Tag> id) const noexcept { return std::hash<uint32_t>{}(id.value); }
};
