// The elemwise family's kernels, listed by kernels_elemwise.cpp; the
// operators other than Elemwise itself live in elemwise_multi_type.cpp and
// elemwise_misc.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/eval/elemwise_values.h"
#include "engine/eval/kernel.h"

namespace mgedump::engine::eval::elemwise {

void elemwise_multi_type(KernelContext& ctx);  // elemwise_multi_type.cpp

// elemwise_misc.cpp
void pow_c(KernelContext& ctx);
void type_cvt(KernelContext& ctx);
void add_update(KernelContext& ctx);
void where(KernelContext& ctx);
void masked_fill(KernelContext& ctx);
void check_non_finite(KernelContext& ctx);
void assert_equal(KernelContext& ctx);
void fake_quant(KernelContext& ctx);
void tqt(KernelContext& ctx);
void lsq(KernelContext& ctx);

// The shape the inputs broadcast to; fails when they do not.
ir::Shape output_shape(const KernelContext& ctx);

// Every input of a kernel as compute type C, with the operands that read them.
template <class C>
struct Inputs {
    std::vector<Widened<C>> widened;
    std::vector<Operand<C>> ops;
    std::span<const Operand<C>> span() const { return ops; }
};
Inputs<float> float_inputs(const KernelContext& ctx);
Inputs<int32_t> int_inputs(const KernelContext& ctx);

// The output tensor a kernel writes: the evaluator's, or a fresh one of
// `dtype` and `shape` when inference left it empty.
Tensor& output(KernelContext& ctx, size_t k, ir::DType dtype, const ir::Shape& shape);

// TypeCvt's conversion (dnn/src/naive/type_cvt): src's elements into dst
// (same element count, dst's dtype). Quantized sides go through float
// (dequantize, quantize); float to integer truncates toward zero (saturating
// where C++ leaves it undefined); integer to integer wraps; to Bool is x != 0.
// Throws Error naming a dtype it does not convert.
void convert(const Tensor& src, Tensor& dst);

}  // namespace mgedump::engine::eval::elemwise
