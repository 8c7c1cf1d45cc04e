// Import-time constants: decoding their bytes, making new ones (folded shape
// arithmetic, rescaled weights) and shape rules shared by several handlers.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

std::optional<std::vector<int64_t>> decode_ints(const Value& v);
std::optional<std::vector<double>> decode_floats(const Value& v);
// INT64 → Int32 (calls `overflow` with a value that does not fit), DOUBLE → Float32.
std::vector<std::byte> narrow_to_32bit(const Value& v, const std::function<void(int64_t)>& overflow);

// A constant over bytes it owns, or over a stored tensor (viewed, not copied).
Value bytes_const(int32_t elem_type, Shape shape, std::shared_ptr<std::vector<std::byte>> bytes);
Value tensor_const(const OnnxTensorBytes& t);
Value int64_const(const std::vector<int64_t>& values, Shape shape);
Value float_const(const std::vector<float>& values, Shape shape);
Value double_const(const std::vector<double>& values, Shape shape);
// `values` as a constant of float type `elem_type`: FLOAT, DOUBLE, or FLOAT16 /
// BFLOAT16 rounded to nearest even (formats/half_bits.h).
Value float_const_as(int32_t elem_type, const std::vector<float>& values, Shape shape);
// `values` as a constant of ONNX integer type `elem_type` (signed or unsigned,
// 8 to 64 bits) or BOOL, each wrapped to the type's width as
// numpy's astype between integer types does (two's complement; BOOL: nonzero is
// 1). Folds keep their operands' type: a folded UINT8 sum stored as INT64 kept
// 200 + 100 as 300 where ONNX gives 44, and a Cast to BOOL gave an INT64 that
// Where and And refuse.
Value int_const_as(int32_t elem_type, const std::vector<int64_t>& values, Shape shape);

// Shape arithmetic folds at import time: integer constants of at most this many
// elements (a pads or shape vector seen as a matrix, say). Weights stay operators.
inline constexpr int64_t kMaxFoldedElements = 4096;
bool is_foldable_shape_const(const Value& v);
// A new constant gathered from `x`: output axis k runs over indices[k] of x's axis
// source_axis[k] (a Transpose's permutation with every index; a Slice's picks per axis).
Value gather_const(const Value& x, const std::vector<std::vector<int64_t>>& indices,
                   const std::vector<int64_t>& source_axis);

// Numpy broadcasting; nullopt when the shapes do not broadcast.
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);
// `v` in [-n, n), negative counting from the end, as a position in [0, n);
// nullopt outside (an axis of a rank-n tensor, an index into an axis of n).
std::optional<int64_t> counted_from_end(int64_t v, int64_t n);
// An axis attribute in [-rank, rank) → [0, rank); fails naming `what` otherwise.
int64_t normalize_axis(int64_t axis, int64_t rank, const Importer& at, std::string_view what);

}  // namespace mgedump::formats::onnx_import
