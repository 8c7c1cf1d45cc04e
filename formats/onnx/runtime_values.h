// Inputs whose values are known only at run time. ONNX gives shape-like operands
// (Reshape's shape, Slice's starts, TopK's K, Clip's bounds, ...) as tensors, and
// ONNX's own tests feed them as graph inputs. Where MegEngine's operator takes that
// operand as a var (Reshape's and Broadcast's target, Subtensor's index vars,
// TopK's k, Split's part sizes, an Elemwise operand), the importer maps it to a var
// and computes ONNX's rules for it (0 copies a dim, -1 is inferred, starts and ends
// clamp to the axis) with Elemwise on Int32, exactly; the output's dims are then
// known only at run time (Value::runtime_shape; static inference leaves them
// unknown, the evaluator infers them again on the actual values). Where MegEngine
// takes the operand as a param (Reduce's axis, Cumsum's axis, AxisAddRemove's
// axes, Padding's offsets), the static rank bounds what the operand can say:
// formats/onnx/runtime_axes.h computes it at run time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

// Input #i is given and its value is not known at import time.
bool is_runtime_value(const Importer& c, size_t i);

// Input #i (any integer or float type) as an Int32 var of its static shape (a
// rank-0 value is [1]); float values are truncated toward zero (TypeCvt), as ONNX's
// cast to int64 does.
ir::VarId int32_var(Importer& c, size_t i, std::string_view what);
// How many elements input #i (a 1-D shape-like operand) holds: its static shape's,
// for a constant and a runtime value alike. Fails unless it is rank 0 or 1 and, when
// `expected` >= 0, unless it holds that many.
int64_t operand_length(const Importer& c, size_t i, std::string_view what, int64_t expected = -1);

// Elemwise on Int32 vars (ADD, SUB, MUL, MIN, MAX, LT, EQ, FLOOR_DIV, NEGATE):
// MegEngine's comparisons keep the Int32 type, giving 0 or 1.
ir::VarId int_op(Importer& c, std::string_view mode, std::vector<ir::VarId> inputs);
// Element k of a 1-D var, as a [1] var (Subtensor with a scalar index).
ir::VarId element(Importer& c, ir::VarId v, int64_t k);
// The Int32 vector [0, 1, ..., n−1] for a [1] Int32 var n >= 0 known only at run
// time: an exclusive Cumsum of n ones (exact).
ir::VarId iota(Importer& c, ir::VarId n);

// Output #i is `var`, of rank `rank` with dims known only at run time (when
// MegEngine's static inference does know its shape, that shape).
void set_runtime_output(Importer& c, size_t i, ir::VarId var, int32_t elem_type, size_t rank);
// The same where some dims are known at import time: `dims` holds them, −1 for
// each the run time decides (NonZero's (rank, count)). The mappings that need one
// dim, not the whole shape, read it there (GatherND's index tuple length).
void set_runtime_output(Importer& c, size_t i, ir::VarId var, int32_t elem_type, Shape dims);

// The elements the import knows of input #i, a 1-D integer value (a shape):
// a constant's, its Value::known_elements, else −1 for each of its elements.
std::vector<int64_t> known_elements_of(const Importer& c, size_t i);

// Whether one of inputs #0..count−1 has a shape known only at run time.
bool any_runtime_shape(const Importer& c, size_t count);
// The dims numpy's broadcasting gives inputs #0..count−1 (right-aligned) where
// the import knows them: a dim other than 1 wins (the run time checks the
// others match it or are 1), all 1 is 1, else −1.
Shape broadcast_runtime_dims(const Importer& c, size_t count);
// Output #0 = Elemwise `mode` of inputs #0..count−1 (of one element type), one of
// which has a shape known only at run time: MegEngine's Elemwise broadcasts as
// numpy does (right-aligned, a 1 stretched; other pairs refused) when it executes,
// so the result has ONNX's shape, of the largest rank. `float_only` refuses other
// element types (TRUE_DIV, the float functions).
void elemwise_of_runtime_shapes(Importer& c, std::string_view mode, size_t count, bool float_only);

// The mappings of operators with runtime operands (formats/onnx/runtime_ops.cpp),
// which the operators' handlers call when is_runtime_value says so.
void clip_to_runtime_bounds(Importer& c);      // Clip: min (#1) or max (#2)
void reshape_to_runtime_shape(Importer& c);    // Reshape: shape (#1)
void expand_to_runtime_shape(Importer& c);     // Expand: shape (#1)
void tile_to_runtime_repeats(Importer& c);     // Tile: repeats (#1)
void constant_of_runtime_shape(Importer& c);   // ConstantOfShape: shape (#0)
void range_of_runtime_values(Importer& c);     // Range: start, limit or delta
void slice_with_runtime_bounds(Importer& c);   // Slice (opset >= 10): starts, ends, axes or steps
void split_to_runtime_sizes(Importer& c, int64_t axis);  // Split: split (#1)

}  // namespace mgedump::formats::onnx_import
