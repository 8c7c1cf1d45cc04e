// Shared pieces of the elemwise family's rules (rules_elemwise.cpp,
// elemwise_misc.cpp): MegDNN's dtype categories, its broadcasting, and the
// per-element arithmetic used for static values.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "ir/infer/context.h"

namespace mgedump::ir::elemwise {

// param::Elemwise::Mode by value (ir/param_defs_tables.cpp kElemwiseModeMembers,
// which numbers them 0..85 in this order; MAX_/MIN_ there are MAX/MIN here).
// clang-format off
enum Mode : int {
    RELU, ABS, ACOS, ASIN, CEIL, COS, EXP, EXPM1, FLOOR, LOG, LOG1P, NEGATE, SIGMOID, SIN, TANH,
    ABS_GRAD, ADD, FLOOR_DIV, MAX, MIN, MOD, MUL, POW, SIGMOID_GRAD, SUB, SWITCH_GT0, TANH_GRAD,
    TRUE_DIV, LOG_SUM_EXP, LT, LEQ, EQ, SHL, SHR, COND_LEQ_MOV, FUSE_MUL_ADD3, FUSE_MUL_ADD4,
    FUSE_ADD_RELU, FUSE_ADD_SIGMOID, FUSE_ADD_TANH, FAST_TANH, FAST_TANH_GRAD, ROUND, RMULH, ATAN2,
    ERF, ERFINV, ERFC, ERFCINV, H_SWISH, H_SWISH_GRAD, FUSE_ADD_H_SWISH, NOT, AND, OR, XOR, SILU,
    SILU_GRAD, GELU, GELU_GRAD, COND_LT_MOV, NEQ, ISNAN, ISINF, SINH, COSH, ASINH, ACOSH, ATANH, TAN,
    ASINH_GRAD, ACOSH_GRAD, ATANH_GRAD, PRELU, CLIP, PRELU_GRAD, SOFTPLUS, SOFTPLUS_GRAD, RELU6,
    RELU6_GRAD, HSIGMOID, HSIGMOID_GRAD, LOGSIGMOID, SQRT, SQUARE, SIGN,
    kModeCount
};
// clang-format on

// megdnn::DTypeCategory (dnn/include/megdnn/dtype.h MEGDNN_DEF_DT): Uint16 is INT,
// every quantized type QUANTIZED; IntB*, UintB4 are LOWBIT, Byte OTHER.
enum class Cat { Float, Int, Bool, Quantized, LowBit, Other, Complex };
// By wire value (inline: asked for every Elemwise operator).
inline constexpr std::array<Cat, kDTypeCount> kCategories = {
    Cat::Float,     Cat::Int,       Cat::Int,       Cat::Int,       Cat::Int,       Cat::LowBit,    // Float32..IntB1
    Cat::LowBit,    Cat::LowBit,    Cat::Other,     Cat::Float,     Cat::LowBit,    Cat::Quantized,  // IntB2..Q8Asymm
    Cat::Quantized, Cat::Quantized, Cat::Quantized, Cat::Quantized, Cat::Quantized, Cat::Float,      // QS32..BFloat16
    Cat::Bool,      Cat::Int,       Cat::Quantized, Cat::Complex,                                    // Bool..Complex64
};
inline Cat category(DTypeEnum t) {
    const auto i = static_cast<size_t>(static_cast<uint8_t>(t));
    return i < kCategories.size() ? kCategories[i] : Cat::Other;
}
const char* category_name(Cat c);

// Same dtype as MegEngine compares them for Elemwise: enum and, for quantized
// types, scale (within dtype_promotion's 1e-6) and zero point.
bool same_dtype(DType a, DType b);

// megdnn::Elemwise::deduce_shape (dnn/src/common/elemwise/opr_impl.cpp:296):
// right-aligned; a [1] operand takes the other's shape; per dim equal, or one of
// them 1, or one of them 0 (the result is then 0). Unknown in, unknown out;
// nullopt when the shapes do not broadcast.
std::optional<Shape> elemwise_shape(std::span<const Shape> shapes);
// The same on the shapes where they are (a rule's inputs), without copying them.
std::optional<Shape> elemwise_shape(std::span<const Shape* const> shapes);

// TensorLayout::broadcast (dnn/src/common/basic_types.cpp:438): whether `src`
// expands to `dst` (a [1] expands to anything; otherwise no more dims than dst
// and every dim equal to dst's or 1). Unknown shapes pass.
bool broadcasts_to(const Shape& src, const Shape& dst);

// The elements of `value` (shape `src`) read at every position of `dst`, which
// `src` broadcasts to.
std::vector<double> broadcast_elements(const std::vector<double>& value, const Shape& src, const Shape& dst);

// One element of Elemwise `mode` (the param's numeric value) on `args`, as
// dnn/src/common/elemwise/kern_defs.cuh computes it for dtype `t` (before the
// result is stored as `t`); nullopt when the kernel's result is not modelled
// or undefined (integer division by 0, shift out of range).
std::optional<double> eval_elemwise(int mode, DTypeEnum t, const double* args);

// Elemwise ModeTrait facts MegEngine's Elemwise::make reads (basic_arith.cpp:140):
// int inputs of a mode without int kernels are converted to Float32.
bool elemwise_mode_allows_int(int mode);
bool elemwise_mode_allows_float(int mode);

// Rules of elemwise_misc.cpp.
void infer_powc(InferContext& ctx);
void infer_type_cvt(InferContext& ctx);
void infer_add_update(InferContext& ctx);
void infer_where(InferContext& ctx);
void infer_masked_fill(InferContext& ctx);
void infer_fake_quant(InferContext& ctx);
void infer_tqt(InferContext& ctx);
void infer_lsq(InferContext& ctx);
void infer_check_non_finite(InferContext& ctx);

}  // namespace mgedump::ir::elemwise
