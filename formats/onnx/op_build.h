// Building blocks shared by the decomposing handlers (ops_math, ops_compare,
// ops_reduce, ops_norm): Elemwise and Bool-valued comparisons on vars, scalar
// constants in a value's own dtype (Elemwise takes one dtype, and MegEngine's
// make would promote a Float16 operand next to a Float32 constant), explicit
// broadcasting for the operators that do not broadcast, and dtype checks that
// name the node.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

ir::VarId elemwise(Importer& c, std::string_view mode, std::vector<ir::VarId> inputs);
// `v` converted to `to` (a TypeCvt).
ir::VarId type_cvt(Importer& c, ir::VarId v, ir::DTypeEnum to);
// ElemwiseMultiType EQ / LT / LEQ (two inputs) or ISNAN / ISINF (one): a Bool var.
ir::VarId bool_elemwise(Importer& c, std::string_view mode, std::vector<ir::VarId> inputs);
// An Int32 constant of `shape` (rank 0: [1]) holding `values` (index tables built at import time).
ir::VarId int32_tensor(Importer& c, const std::vector<int64_t>& values, const Shape& shape);
// The same in Float32 (masks and position tables built at import time).
ir::VarId float32_tensor(Importer& c, const std::vector<float>& values, const Shape& shape);
// A Float32 [1, …, 1, n, n] (`leading` unit axes first) with 1 at [i, j] where
// j < i: which entries come before which, for comparisons of n things pairwise.
ir::VarId earlier_mask(Importer& c, int64_t n, size_t leading);
// `v` with a new unit axis at `axis` (AxisAddRemove ADD_1).
ir::VarId with_unit_axis(Importer& c, ir::VarId v, int32_t axis);
// `x` reshaped to `dims`, where one -1 stands for a dim known only at run time:
// Reshape's unspecified axis (its target holds 1 there), which MegEngine sizes
// from the element count. Without a -1, a Reshape to the constant target.
ir::VarId reshaped(Importer& c, ir::VarId x, Shape dims);
// `parts` concatenated along `axis`; a lone part is itself, as MegEngine's
// Concat::make returns it (a Concat of one would not load).
ir::VarId concat(Importer& c, const std::vector<ir::VarId>& parts, int64_t axis);
// A shape-(1) constant holding `value` in the MegEngine dtype of `elem_type`
// (Float16 / BFloat16: a Float32 constant and a TypeCvt).
ir::VarId scalar_as(Importer& c, double value, int32_t elem_type);
// The values an integer dtype of onnx_var_dtype holds (INT64 is held as Int32;
// any other dtype: Int32's).
std::pair<int64_t, int64_t> integer_range(ir::DTypeEnum t);
// ONNX's Round (half to even) of a float var x of `elem_type`, exactly, from
// MegEngine's ROUND (half away from zero): see formats/onnx/op_build.cpp.
ir::VarId round_half_to_even(Importer& c, ir::VarId x, int32_t elem_type);
// x[..., k, ...] along `axis`, the axis dropped (a Subtensor with one constant index).
ir::VarId pick_along(Importer& c, ir::VarId x, int64_t axis, int64_t k);
// v[begin:end] of a 1-D v, with constant bounds (a Subtensor of one range item):
// a part of a shape vector, or one entry kept as a (1)-shaped slice.
ir::VarId slice_1d(Importer& c, ir::VarId v, int64_t begin, int64_t end);
// `v` (of ONNX shape `from`) as `to`: itself when equal, else a Broadcast.
ir::VarId broadcast_to(Importer& c, ir::VarId v, const Shape& from, const Shape& to);
// The numpy broadcast of every input's shape; fails naming them when they do not broadcast.
Shape broadcast_inputs(Importer& c, size_t first, size_t count);
// x reduced over `axes` (normalized, sorted, unique) with one Reduce per axis; the
// axes are kept as size 1 (ONNX keepdims=1).
ir::VarId reduce_axes(Importer& c, ir::VarId x, std::string_view mode, const std::vector<int64_t>& axes);
// x (its ONNX value; `y` is x's var or what an element-wise step made of it)
// ready for a Reduce MAX or MIN over `axes`: along each such axis only the run
// time knows, which may be empty, one more entry holding the mode's identity
// (see op_build.cpp). Other modes, and known axes, are left as they are.
ir::VarId padded_for_empty_extremes(Importer& c, ir::VarId y, const Value& x, std::string_view mode,
                                    const std::vector<int64_t>& axes);
// `y` of keepdims shape `kept` with the `axes` (sorted) removed; `shape` becomes
// the ONNX shape. MegEngine keeps at least one axis (a full reduction stays [1]).
ir::VarId drop_axes(Importer& c, ir::VarId y, const std::vector<int64_t>& axes, Shape& shape);

// Input 0 as the Softmax family (Softmax, LogSoftmax, Hardmax) normalizes it: its
// `axis` attribute (default -1, before opset 13: 1) made non-negative, and before
// opset 13 the input coerced to 2-D [d0·…·d(axis−1), d(axis)·…·d(rank−1)] with
// axis 1 when the axis is not the last (those versions flatten from `axis` on).
// `shape` is what the operator works on; reshape the result back to the input's
// shape when they differ.
struct SoftmaxView {
    ir::VarId var;
    Shape shape;
    int64_t axis = 0;
};
SoftmaxView softmax_view(Importer& c);
// log(softmax(v)) over `axis`, as LogSoftmax maps it: (v − max) − LOG(Σ EXP(v − max))
// with `Reduce` MAX and SUM kept over the axis (no log of a softmax that underflows to 0).
ir::VarId log_softmax_over(Importer& c, ir::VarId v, int64_t axis);

// The one spelling of each ONNX element-type family the handlers test for.
bool is_float_type(int32_t elem_type);  // FLOAT, DOUBLE, FLOAT16, BFLOAT16
bool is_integer_type(int32_t elem_type);  // signed or unsigned, not Bool
bool is_unsigned_type(int32_t elem_type);  // UINT8 … UINT64
bool is_integer_or_bool_type(int32_t elem_type);  // what int_const_as folds to
// The values of ONNX integer type `elem_type` as [lowest, past_highest): both 0
// or a power of two, so exact in a double (INT64's highest, 2^63 − 1, is not).
struct IntegerBounds {
    double lowest;
    double past_highest;
};
IntegerBounds onnx_integer_bounds(int32_t elem_type);
// 1 where `a` and `r` (a remainder of a / b from MOD, which takes b's sign and is
// 0 when the division is exact) differ in sign, else 0, in their integer type
// `elem_type`: where truncating division and fmod part from MegEngine's floor
// division and MOD. No intermediate value can wrap (|a| would at the type's minimum).
ir::VarId remainder_sign_differs(Importer& c, ir::VarId a, ir::VarId r, int32_t elem_type);
// Fails unless input i has a float element type (FLOAT, FLOAT16, DOUBLE, BFLOAT16).
void require_float(Importer& c, size_t i);

}  // namespace mgedump::formats::onnx_import
