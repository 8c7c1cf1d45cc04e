// How much an evaluation may compute and hold, so that a hostile model (a
// test-case file from outside, a fuzzed graph) is refused with a clear error
// instead of running for hours or exhausting memory. Each operator's work is
// estimated from the shapes static inference gave it before its kernel runs.
#pragma once

#include <cstdint>

#include "ir/infer.h"
#include "ir/infer/context.h"

namespace mgedump::engine::eval {

// 2^42 (4.4e12) estimated multiply-adds: minutes of this evaluator; a resnet50
// image is about 4e9, so only a model built to hang reaches it.
inline constexpr uint64_t kDefaultMaxEvalWork = uint64_t{1} << 42;
// 2^34 bytes (16 GiB) for any one value an operator produces.
inline constexpr uint64_t kDefaultMaxEvalValueBytes = uint64_t{1} << 34;

// The estimated multiply-adds of the operator `c` reads, whose inputs' and
// outputs' shapes `state` knows: every element read and written, and for the operators whose
// output elements each take a window or a dot product (convolutions, matrix
// products, pooling, attention, LRN) the output elements times that inner size
// (a convolution's: its forward output times the filter per output channel, so a
// large filter over a small output is not counted twice). An upper estimate where
// a layout is not modelled; saturates instead of wrapping.
uint64_t estimate_work(const ir::InferContext& c, const ir::InferState& state);

}  // namespace mgedump::engine::eval
