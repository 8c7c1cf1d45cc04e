// The arithmetic of ir/dim_bounds.cpp's walks: upper bounds on dims and element
// counts, capped where they stop saying anything useful, and intervals where the
// values of small Int32 vars (shapes, counts, a Reshape's target) lie when the
// graph runs, combined as MegEngine's Int32 Elemwise would combine the values.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace mgedump::ir {

// Past this a bound says nothing useful (and products stay clear of overflow).
inline constexpr uint64_t kNoUsefulBound = uint64_t{1} << 48;

// The product of `bounds`, at most kNoUsefulBound (0 when one of them is 0).
uint64_t capped_product(const std::vector<uint64_t>& bounds);

// The values an Int32 element may take: lo ≤ v ≤ hi.
struct ValueInterval {
    int64_t lo, hi;
};
using ValueIntervals = std::vector<ValueInterval>;

// Where Elemwise `mode` of x and y lies: MIN, MAX (the schema's MIN_ and MAX_),
// ADD, SUB, MUL, FLOOR_DIV by a positive divisor, and EQ, LT, LEQ (0 or 1: the
// ONNX importer's masks of a target's 0 and −1 entries, and of negative axes).
// Nullopt for another mode, or past what a bound says usefully.
std::optional<ValueInterval> elemwise_interval(std::string_view mode, ValueInterval x, ValueInterval y);

// x[begin:end] of a 1-D x's intervals, sliced as MegEngine's Subtensor slices
// (indexing::apply_slice, its Slice::apply: an absent bound is x's start or
// end, a negative one counts from the end once, an end past x is clamped);
// nullopt for a slice that does not fit x, or an empty one, which has no
// element to bound.
std::optional<ValueIntervals> intervals_between(const ValueIntervals& x, std::optional<int64_t> begin,
                                                std::optional<int64_t> end);

// A shape's bounds from where its values lie (a Broadcast's or Reduce's
// target): each dim at most its value's largest; nullopt for an unknown target
// or a value that may only be negative.
std::optional<std::vector<uint64_t>> bounds_of_target(const std::optional<ValueIntervals>& target);

}  // namespace mgedump::ir
