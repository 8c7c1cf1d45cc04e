#include "engine/eval/elemwise_values.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "engine/eval/elements.h"
#include "engine/eval/half.h"
#include "ir/error.h"

namespace mgedump::engine::eval::elemwise {
namespace {

using E = ir::DTypeEnum;

[[noreturn]] void not_computed(ir::DTypeEnum t, const char* as) {
    throw Error(std::string("the evaluator's elemwise kernels do not read or write ") +
                std::string(ir::dtype_name(t)) + " tensors " + as);
}

}  // namespace

int32_t quantize(ir::DType dtype, float real) {
    if (!ir::dtype_is_quantized(dtype.type) || ir::dtype_bits(dtype.type) < 8)
        not_computed(dtype.type, "as quantized values");
    return static_cast<int32_t>(eval::quantize(dtype, real));  // one quantizer for every kernel
}

float dequantize(ir::DType dtype, int32_t stored) { return eval::dequantize(dtype, stored); }

Widened<float> widen_float(const Tensor& t) {
    Widened<float> w;
    w.shape = t.shape();
    const ir::DType d = t.dtype();
    if (d.type == E::Float32) {
        w.data = t.data<float>().data();
        return w;
    }
    w.owned.resize(t.elements());
    float* out = w.owned.data();
    with_storage_type(d.type, [&](auto tag) {
        using S = decltype(tag);
        const S* in = t.data<S>().data();
        detail::split(w.owned.size(), [&](uint64_t b, uint64_t e) {
            for (uint64_t i = b; i < e; ++i) {
                if (d.type == E::Float16)
                    out[i] = half_to_float(static_cast<uint16_t>(in[i]));
                else if (d.type == E::BFloat16)
                    out[i] = bfloat16_to_float(static_cast<uint16_t>(in[i]));
                else if (ir::dtype_is_quantized(d.type))
                    out[i] = dequantize(d, static_cast<int32_t>(in[i]));
                else if (d.type == E::Bool)
                    out[i] = in[i] != 0 ? 1.f : 0.f;
                else
                    out[i] = static_cast<float>(in[i]);
            }
        });
    });
    w.data = out;
    return w;
}

Widened<int32_t> widen_int(const Tensor& t) {
    Widened<int32_t> w;
    w.shape = t.shape();
    const ir::DType d = t.dtype();
    if (is_float_dtype(d.type)) not_computed(d.type, "as integers");
    if (d.type == E::Int32 || d.type == E::QuantizedS32) {
        w.data = t.data<int32_t>().data();
        return w;
    }
    w.owned.resize(t.elements());
    int32_t* out = w.owned.data();
    with_storage_type(d.type, [&](auto tag) {
        using S = decltype(tag);
        const S* in = t.data<S>().data();
        detail::split(w.owned.size(), [&](uint64_t b, uint64_t e) {
            for (uint64_t i = b; i < e; ++i)
                out[i] = d.type == E::Bool ? (in[i] != 0 ? 1 : 0) : static_cast<int32_t>(in[i]);
        });
    });
    w.data = out;
    return w;
}

template <class C>
Result<C>::Result(Tensor& out) : out_(out) {
    const E t = out.dtype().type;
    const bool in_place =
        std::is_same_v<C, float> ? t == E::Float32 : (t == E::Int32 || t == E::QuantizedS32);
    if (in_place) {
        data_ = out.mutable_data<C>().data();
    } else {
        buffer_.resize(out.elements());
        data_ = buffer_.data();
    }
}

template <class C>
void Result<C>::finish() {
    if (buffer_.empty()) return;
    const ir::DType d = out_.dtype();
    const C* in = buffer_.data();
    with_storage_type(d.type, [&](auto tag) {
        using S = decltype(tag);
        S* out = out_.mutable_data<S>().data();
        detail::split(buffer_.size(), [&](uint64_t b, uint64_t e) {
            for (uint64_t i = b; i < e; ++i) {
                const float f = static_cast<float>(in[i]);
                if (d.type == E::Float16)
                    out[i] = static_cast<S>(float_to_half(f));
                else if (d.type == E::BFloat16)
                    out[i] = static_cast<S>(float_to_bfloat16(f));
                else if (d.type == E::Bool)
                    out[i] = static_cast<S>(in[i] != 0);
                else if constexpr (std::is_same_v<C, float>) {
                    if constexpr (std::is_integral_v<S>) {
                        if (ir::dtype_is_quantized(d.type))
                            out[i] = static_cast<S>(quantize(d, in[i]));
                        else
                            out[i] = truncate_float<S>(in[i]);
                    } else {
                        out[i] = in[i];
                    }
                } else {
                    out[i] = static_cast<S>(in[i]);
                }
            }
        });
    });
}

template class Result<float>;
template class Result<int32_t>;

}  // namespace mgedump::engine::eval::elemwise
