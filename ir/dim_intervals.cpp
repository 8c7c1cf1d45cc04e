#include "ir/dim_intervals.h"

#include <algorithm>

#include "ir/infer/indexing_slices.h"

namespace mgedump::ir {

uint64_t capped_product(const std::vector<uint64_t>& bounds) {
    uint64_t p = 1;
    for (uint64_t d : bounds)
        p = d == 0 ? 0 : std::min(kNoUsefulBound, p > kNoUsefulBound / d ? kNoUsefulBound : p * d);
    return p;
}

std::optional<ValueInterval> elemwise_interval(std::string_view mode, ValueInterval x, ValueInterval y) {
    // In 128 bits: dims' bounds reach 2^48.
    const auto limit = static_cast<__int128>(kNoUsefulBound);
    auto within = [&](__int128 lo, __int128 hi) -> std::optional<ValueInterval> {
        if (lo < -limit || hi > limit) return std::nullopt;
        return ValueInterval{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
    };
    if (mode == "MIN_") return ValueInterval{std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    if (mode == "MAX_") return ValueInterval{std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    if (mode == "ADD") return within(__int128{x.lo} + y.lo, __int128{x.hi} + y.hi);
    if (mode == "SUB") return within(__int128{x.lo} - y.hi, __int128{x.hi} - y.lo);
    if (mode == "MUL") {
        const __int128 p[] = {__int128{x.lo} * y.lo, __int128{x.lo} * y.hi, __int128{x.hi} * y.lo,
                              __int128{x.hi} * y.hi};
        return within(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
    }
    if (mode == "FLOOR_DIV" && x.lo >= 0 && y.lo >= 1) return ValueInterval{x.lo / y.hi, x.hi / y.lo};
    if (mode == "LT" || mode == "LEQ") {
        const bool strict = mode == "LT";
        if (strict ? x.hi < y.lo : x.hi <= y.lo) return ValueInterval{1, 1};
        if (strict ? x.lo >= y.hi : x.lo > y.hi) return ValueInterval{0, 0};
        return ValueInterval{0, 1};
    }
    if (mode == "EQ") {
        if (x.lo == x.hi && y.lo == y.hi && x.lo == y.lo) return ValueInterval{1, 1};
        if (x.hi < y.lo || y.hi < x.lo) return ValueInterval{0, 0};
        return ValueInterval{0, 1};
    }
    return std::nullopt;
}

std::optional<ValueIntervals> intervals_between(const ValueIntervals& x, std::optional<int64_t> begin,
                                                std::optional<int64_t> end) {
    indexing::AxisSlice taken;
    if (indexing::apply_slice(static_cast<uint32_t>(x.size()), begin, end, std::nullopt, false, taken) !=
            indexing::SliceFault::None ||
        taken.size == 0)
        return std::nullopt;
    const auto first = x.begin() + taken.begin;
    return ValueIntervals(first, first + taken.size);
}

std::optional<std::vector<uint64_t>> bounds_of_target(const std::optional<ValueIntervals>& target) {
    if (!target || target->empty()) return std::nullopt;
    std::vector<uint64_t> out;
    for (const ValueInterval& d : *target) {
        if (d.hi < 0) return std::nullopt;
        out.push_back(static_cast<uint64_t>(d.hi));
    }
    return out;
}

}  // namespace mgedump::ir
