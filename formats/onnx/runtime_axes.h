// Axes and pads known only at run time, for the operators MegEngine takes them as
// a param of (Reduce's axis, Cumsum's axis, AxisAddRemove's axes): the input's rank
// is static, so what those operands decide can be computed at run time as a shape
// var (Reduce's target shape, Reshape's target) or chosen among the static ranks'
// possibilities (Cumsum along each axis, selected by Where). The mappings live in
// formats/onnx/runtime_axes.cpp; the handlers call them when is_runtime_value says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

// Reduce*'s axes (input #1) known only at run time, when their static length alone
// says which they are: none listed (0 values; noop_with_empty_axes decides) or every
// axis (`rank` values: ONNX's axes are unique). nullopt otherwise; more values than
// axes (a repeated axis, which ONNX rejects) is refused.
std::optional<std::vector<int64_t>> axes_fixed_by_length(const Importer& c, int64_t rank);

// Reduce* with axes known only at run time (1 ≤ length < rank): `before` (or nullptr)
// applied element-wise, one Reduce `mode` to the target shape computed at run time,
// `after` (or nullptr); keepdims = 0 then Reshapes to the dims not reduced.
void reduce_over_runtime_axes(Importer& c, const char* before, const char* mode, const char* after);
// Squeeze / Unsqueeze (opset 13+) with axes known only at run time: a Reshape to the
// output shape computed at run time.
void squeeze_runtime_axes(Importer& c);
void unsqueeze_runtime_axes(Importer& c);
// CumSum with its axis known only at run time: a Cumsum along every axis of the
// static rank, the one along the given axis selected by Where.
void cumsum_along_runtime_axis(Importer& c, bool exclusive, bool reverse);
// Pad (opset 11+) with pads known only at run time, mode constant, edge or reflect:
// per axis an IndexingMultiAxisVec at source indices computed at run time
// (constant: then Where puts the value outside the input).
void pad_by_runtime_pads(Importer& c, const std::string& mode);

}  // namespace mgedump::formats::onnx_import
