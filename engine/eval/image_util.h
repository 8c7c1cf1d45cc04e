// What the image kernels (Resize, WarpAffine, WarpPerspective, Remap, Padding,
// and Pooling's integer paths) share with MegDNN's naive and OpenCV-derived
// kernels: how a stored element is read as float and written back
// (rounding::RoundingConverter), how x86 converts a float to an integer where
// the kernels rely on it, and how a coordinate outside the image is mapped by a
// border mode (WarpPerspectiveBase::get_real_coord, megcv::border_interpolate).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "engine/eval/kernel.h"
#include "engine/eval/tensor.h"

namespace mgedump::engine::eval::image {

// ---------------------------------------------------------------- x86 conversions

// cvttss2si / cvttsd2si: truncation toward zero; NaN and values outside int32
// give INT32_MIN (the "integer indefinite"). MegDNN's kernels convert floor()ed
// coordinates with a plain C++ cast, which compiles to this on x86.
template <class F>
int32_t x86_trunc(F x) {
    if (!(x >= F(-2147483648.0) && x < F(2147483648.0))) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(x);
}

// cvtsd2si under the default rounding mode (OpenCV's cvRound): nearest, ties to
// even; NaN and values outside int32 give INT32_MIN.
inline int32_t x86_round(double x) {
    const double r = std::nearbyint(x);
    if (!(r >= -2147483648.0 && r < 2147483648.0)) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(r);
}

// A C++ cast of a float to a narrower integer on x86: the int32 conversion above,
// then its low bits.
template <class T>
T x86_cast(float x) {
    return static_cast<T>(x86_trunc(x));
}

// ---------------------------------------------------------------- elements

// The storage types MegDNN's interpolating kernels compute on: Float32,
// Float16, BFloat16 and the 8-bit integers (quantized ones as their stored
// integers, which the kernels interpolate directly).
bool interpolable(ir::DTypeEnum t);

// A tensor's stored elements as float: Float32 itself, Float16/BFloat16 widened,
// integers (quantized: the stored integer) converted exactly.
struct Floats {
    std::vector<float> copy;
    const float* ptr = nullptr;
};
Floats storage_floats(const Tensor& t);

// The value rounding::RoundingConverter<ctype> stores for x, as float: Float32
// as is, Float16/BFloat16 rounded, int8 storage round()ed half away from zero
// and cast (x86: wraps), uint8 storage clamped to [0, 255] and round()ed.
float rounding_convert(ir::DTypeEnum t, float x);
// Writes `v`, values the dtype holds exactly (rounding_convert's results or
// copied elements), into `out`.
void store_values(Tensor& out, std::span<const float> v);

// The output a kernel fills, which inference shaped.
Tensor& output(KernelContext& ctx);

// ---------------------------------------------------------------- borders

// param::WarpPerspective::BorderMode.
enum class Border { Replicate, Reflect, Reflect101, Wrap, Constant, Transparent, Isolated };
Border parse_border(const KernelContext& ctx, ir::FieldName field);
std::string_view border_name(Border b);

// Where coordinate p of an axis of length len reads from: itself when inside;
// else REPLICATE clamps, REFLECT mirrors repeating the edge sample (fedcba|abcdef),
// REFLECT_101 mirrors about it (fedcb|abcdef), WRAP takes p mod len, CONSTANT
// gives -1 (the caller uses the border value). Fails where MegDNN's own loop
// overflows int32 (mirroring or wrapping coordinates near INT32_MIN, which the
// x86 conversion gives NaN and huge coordinates) and for TRANSPARENT/ISOLATED,
// which its kernels do not define.
int border_coord(const KernelContext& ctx, Border b, int32_t p, int32_t len);

}  // namespace mgedump::engine::eval::image
