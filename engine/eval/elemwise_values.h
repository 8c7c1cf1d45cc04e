// Elements of the elemwise family's operands in the type MegDNN computes them in,
// and back: float for the float dtypes (Float16/BFloat16 widened, rounded once
// on the way out), int32 for the integer dtypes (C++'s promotion to int), and
// MegDNN's own quantize/dequantize for the quantized dtypes. Float32 and Int32
// tensors are read and written in place, without a copy.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "engine/eval/elemwise_broadcast.h"
#include "engine/eval/tensor.h"

namespace mgedump::engine::eval::elemwise {

// DTypeParam<T>::quantize (dnn/include/megdnn/dtype.h): real / scale, rounded
// half away from zero, plus the zero point, clamped with fmin/fmax, so NaN
// becomes the lower bound; QuantizedS32 saturates at 2147483520, the largest
// float below 2^31. Sub-byte quantized dtypes are not computed.
int32_t quantize(ir::DType dtype, float real);
// DTypeParam<T>::dequantize: (q − zero point) · scale, in float.
float dequantize(ir::DType dtype, int32_t stored);

// float → integer storage S: C++ truncates toward zero and leaves values
// outside S's range undefined (x86 gives INT_MIN); they saturate instead, and
// NaN becomes 0, as elements.h does for every kernel.
template <class S>
S truncate_float(float x) {
    if (std::isnan(x)) return S{0};
    if (x >= static_cast<float>(std::numeric_limits<S>::max())) return std::numeric_limits<S>::max();
    if (x <= static_cast<float>(std::numeric_limits<S>::min())) return std::numeric_limits<S>::min();
    return static_cast<S>(x);
}

// A tensor's elements as compute type C (float or int32_t), with its shape.
template <class C>
struct Widened {
    std::vector<C> owned;
    const C* data = nullptr;
    ir::Shape shape;
    Operand<C> operand() const { return {data, shape}; }
};

// Float dtypes as float (Float16/BFloat16 exactly), integers and Bool
// converted as static_cast<float>, quantized dtypes dequantized.
Widened<float> widen_float(const Tensor& t);
// Integer dtypes, Bool and the storage integers of quantized dtypes as int32.
Widened<int32_t> widen_int(const Tensor& t);

// Where a kernel writes its results in compute type C: the output tensor
// itself when C is its storage type, else a buffer that finish() stores into
// the tensor. From float: Float16/BFloat16 round as half.h does, quantized
// dtypes quantize, Bool is x != 0, integers truncate toward zero (saturating
// where C++ leaves the conversion undefined, NaN as 0). From int32: integers
// and quantized storage integers truncate to their width (C++20's modular
// conversion), Bool is x != 0, float dtypes convert as static_cast.
template <class C>
class Result {
  public:
    explicit Result(Tensor& out);
    C* data() { return data_; }
    void finish();

  private:
    Tensor& out_;
    std::vector<C> buffer_;
    C* data_;
};

extern template class Result<float>;
extern template class Result<int32_t>;

}  // namespace mgedump::engine::eval::elemwise
