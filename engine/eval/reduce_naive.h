// MegDNN's naive Reduce on one axis (dnn/src/naive/reduce/opr_impl.cpp), shared
// by the Reduce kernel (which chains it over several axes as MegEngine's
// KernScheduler does) and by Softmax (whose naive kernel is built from it).
// It computes in the comp dtype's own arithmetic — float for Float32, half
// rounded after every step for Float16, wrapping integers, QuantizedS32 for
// quantized sums — and in the order of the naive kernel's recursive halving, so
// float results agree with MegEngine's to the last bit, not just to a tolerance.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>

#include "engine/eval/kernel.h"
#include "engine/eval/tensor.h"

namespace mgedump::engine::eval {

enum class ReduceMode { Sum, SumSqr, Product, Min, Max, Mean };
// param::Reduce::DataType; the deprecated FLOAT_IO16xC32 reads as FLOAT_O16xC32,
// as Reduce::make rewrites it.
enum class ReduceDataType { Default, FloatO32xC32, FloatO16xC32, QuintI8xO32, QintI8xO32 };

// By param enum member name ("SUM", "MIN_", "FLOAT_O32xC32"); nullopt for others.
std::optional<ReduceMode> reduce_mode_named(std::string_view name);
std::optional<ReduceDataType> reduce_data_type_named(std::string_view name);
std::string_view reduce_mode_name(ReduceMode mode);

// ReduceForwardImpl::exec: `src` (non-empty along `axis`) reduced along `axis`
// into `dst_dtype`, through the comp dtype the naive kernel picks (QuantizedS32
// for quantized SUM/MEAN, Float32 for a non-DEFAULT data_type, else src's).
// Refuses through `ctx` what MegDNN refuses.
Tensor naive_reduce(const KernelContext& ctx, const Tensor& src, uint32_t axis, ReduceMode mode,
                    ReduceDataType data_type, ir::DType dst_dtype);

// TypeCvt's value conversion (dnn/src/naive/type_cvt): through float, quantized
// values as their real numbers; `src` itself when the dtypes are equal.
Tensor convert_dtype(const Tensor& src, ir::DType dst);

// x rounded to what a `t` element can hold (Float16, BFloat16), else x: the
// rounding MegDNN's half types apply each time a result is stored.
float round_as(ir::DTypeEnum t, float x);

// f(i) for every i in [0, n): independent slices of a kernel, run on oneTBB's
// threads when n·cost (elements touched) is large enough to pay for it.
template <class F>
void for_each_slice(size_t n, size_t cost, const F& f) {
    cost = std::max<size_t>(cost, 1);
    if (n < 2 || n * cost < (size_t{1} << 15)) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    const size_t grain = std::max<size_t>(1, 4096 / cost);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, grain), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) f(i);
    });
}

}  // namespace mgedump::engine::eval
