// MegDNN's random numbers (dnn/src/naive/rng/opr_impl.cpp, dropout/opr_impl.cpp):
// xoroshiro128+ seeded through splitmix64 with the operator's `seed` param, the
// top bits of each draw made a float in (0, 1], Box-Muller pairs for normals.
// MegEngine passes the param's seed to MegDNN unchanged (RNGOprBase), so these
// are MegEngine's own draws: what a loaded graph computes the first time it runs.
// (MegDNN keeps one generator per operator, so a second run of the same loaded
// graph continues the sequence; the evaluator starts every run from the seed.)
#pragma once

#include <cstdint>
#include <span>

#include "engine/eval/tensor.h"

namespace mgedump::engine::eval {

class Xoroshiro128plus {
  public:
    explicit Xoroshiro128plus(uint64_t seed);
    uint64_t next();

  private:
    uint64_t s_[2];
};

// uniform_int2float: 2 − f with f in [1, 2) built from the draw's top bits —
// 23 for Float32, 10 for Float16, 7 for BFloat16 — so a value in (0, 1], exact
// in that dtype. Returned as float.
float uniform_draw(ir::DTypeEnum t, uint64_t draw);

// UniformRNG: every element of `out` (Float32, Float16 or BFloat16) in (0, 1].
void fill_uniform(Xoroshiro128plus& rng, Tensor& out);
// GaussianRNG: Box-Muller, two draws per pair of elements (an odd last element
// takes two draws and keeps the cosine half), mean + std·N(0, 1), rounded to the
// dtype where MegDNN's ctype arithmetic rounds.
void fill_gaussian(Xoroshiro128plus& rng, Tensor& out, float mean, float std);

// DropoutForward: mask[i] = draw ≥ p (a Float32 uniform draw per element), and
// out[i] = in[i]·1/(1 − p) where kept, else 0, computed in float.
void dropout(Xoroshiro128plus& rng, float drop_prob, std::span<float> values, std::span<uint8_t> mask);

}  // namespace mgedump::engine::eval
