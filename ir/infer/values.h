// Element values for static value inference: decoding a tensor's bytes into
// doubles and rounding a computed double the way a dtype stores it.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <memory>

#include "ir/blobs.h"
#include "ir/dtype.h"
#include "ir/infer.h"

namespace mgedump::ir {

// The elements of a contiguous tensor, or nullopt for dtypes whose values are
// not tracked (sub-byte, Float16/BFloat16, Byte, Complex64) or a byte count that
// does not match.
std::optional<std::vector<double>> decode_elements(DType dtype, Bytes bytes, uint64_t count);

// The value of tensor `t` of `g` as static inference holds it: null when the
// tensor has no bytes, more than kMaxStaticValueElements elements or an
// untracked dtype. (An ImmutableTensor's output, however the graph was made.)
std::shared_ptr<const StaticValue> tensor_value(const Graph& g, TensorId t);

// The value of var `v` when it is an ImmutableTensor's output (its tensor's
// value, as above), else null. Rules ask for it through InferContext::value,
// which decodes it on first use: most constants are weights no rule reads, and
// decoding each one into doubles up front cost a fifth of inferring an
// operator-heavy graph.
std::shared_ptr<const StaticValue> constant_value(const Graph& g, VarId v);

// The value of var `v` when it is an ImmutableTensor's output of at most
// out.size() elements, decoded into `out` without allocating; its element
// count, or -1 (not a constant, larger, untracked dtype). Reshape targets and
// Subtensor indices are read this way: a StaticValue allocated for each was a
// quarter of inferring a transformer.
int decode_small_constant(const Graph& g, VarId v, std::span<double> out);

// The same for an Int32 constant, its elements as stored (no doubles): -1 for
// anything else. For a rule's common case (a Reshape's constant target), which
// leaves the rest to the general path above.
int small_int32_constant(const Graph& g, VarId v, std::span<int32_t> out);

// Whether values of this dtype are tracked at all.
bool value_tracked(DType dtype);

// `x` as the dtype stores it: integers truncate toward zero and wrap like C++
// casts of MegEngine's kernels; Float32 rounds to float; Bool is x != 0.
double store_as(DTypeEnum t, double x);

}  // namespace mgedump::ir
