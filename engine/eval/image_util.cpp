#include "engine/eval/image_util.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/eval/elements.h"

namespace mgedump::engine::eval::image {

using E = ir::DTypeEnum;

bool interpolable(E t) {
    return t == E::Float32 || t == E::Float16 || t == E::BFloat16 || t == E::Int8 || t == E::QuantizedS8 ||
           t == E::Uint8 || t == E::Quantized8Asymm;
}

Floats storage_floats(const Tensor& t) {
    Floats f;
    const E type = t.dtype().type;
    if (type == E::Float32) {
        f.ptr = t.data<float>().data();
        return f;
    }
    f.copy.resize(t.elements());
    switch (type) {
        case E::Float16: {
            auto in = t.data<uint16_t>();
            for (size_t i = 0; i < f.copy.size(); ++i) f.copy[i] = half_to_float(in[i]);
            break;
        }
        case E::BFloat16: {
            auto in = t.data<uint16_t>();
            for (size_t i = 0; i < f.copy.size(); ++i) f.copy[i] = bfloat16_to_float(in[i]);
            break;
        }
        case E::Int8:
        case E::QuantizedS8: {
            auto in = t.data<int8_t>();
            for (size_t i = 0; i < f.copy.size(); ++i) f.copy[i] = in[i];
            break;
        }
        case E::Uint8:
        case E::Quantized8Asymm: {
            auto in = t.data<uint8_t>();
            for (size_t i = 0; i < f.copy.size(); ++i) f.copy[i] = in[i];
            break;
        }
        default:
            throw Error(fmt::format("evaluator: image kernels do not read {}", ir::dtype_name(type)));
    }
    f.ptr = f.copy.data();
    return f;
}

float rounding_convert(E t, float x) {
    switch (t) {
        case E::Float32:
            return x;
        case E::Float16:
            return half_to_float(float_to_half(x));
        case E::BFloat16:
            return bfloat16_to_float(float_to_bfloat16(x));
        case E::Int8:
        case E::QuantizedS8:
            return x86_cast<int8_t>(std::round(x));
        case E::Uint8:
        case E::Quantized8Asymm:
            // std::min/std::max as written in RoundingConverter<uint8_t>: NaN gives 0.
            x = std::min(255.0f, std::max(0.0f, x));
            return static_cast<uint8_t>(std::round(x));
        default:
            break;
    }
    throw Error(fmt::format("evaluator: image kernels do not write {}", ir::dtype_name(t)));
}

void store_values(Tensor& out, std::span<const float> v) {
    switch (out.dtype().type) {
        case E::Float32:
            std::copy(v.begin(), v.end(), out.mutable_data<float>().begin());
            return;
        case E::Float16: {
            auto o = out.mutable_data<uint16_t>();
            for (size_t i = 0; i < v.size(); ++i) o[i] = float_to_half(v[i]);
            return;
        }
        case E::BFloat16: {
            auto o = out.mutable_data<uint16_t>();
            for (size_t i = 0; i < v.size(); ++i) o[i] = float_to_bfloat16(v[i]);
            return;
        }
        case E::Int8:
        case E::QuantizedS8: {
            auto o = out.mutable_data<int8_t>();
            for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<int8_t>(v[i]);
            return;
        }
        case E::Uint8:
        case E::Quantized8Asymm: {
            auto o = out.mutable_data<uint8_t>();
            for (size_t i = 0; i < v.size(); ++i) o[i] = static_cast<uint8_t>(v[i]);
            return;
        }
        default:
            break;
    }
    throw Error(fmt::format("evaluator: image kernels do not write {}", ir::dtype_name(out.dtype().type)));
}

Tensor& output(KernelContext& ctx) {
    Tensor& out = ctx.out(0);
    if (out.empty()) ctx.fail("the output shape is not known");
    return out;
}

Border parse_border(const KernelContext& ctx, ir::FieldName field) {
    const std::string_view b = ctx.params().enum_field(field);
    if (b == "REPLICATE") return Border::Replicate;
    if (b == "REFLECT") return Border::Reflect;
    if (b == "REFLECT_101") return Border::Reflect101;
    if (b == "WRAP") return Border::Wrap;
    if (b == "CONSTANT") return Border::Constant;
    if (b == "TRANSPARENT") return Border::Transparent;
    if (b == "ISOLATED") return Border::Isolated;
    ctx.fail("unknown border mode {}", b);
}

std::string_view border_name(Border b) {
    switch (b) {
        case Border::Replicate:
            return "REPLICATE";
        case Border::Reflect:
            return "REFLECT";
        case Border::Reflect101:
            return "REFLECT_101";
        case Border::Wrap:
            return "WRAP";
        case Border::Constant:
            return "CONSTANT";
        case Border::Transparent:
            return "TRANSPARENT";
        case Border::Isolated:
            return "ISOLATED";
    }
    return "?";
}

int border_coord(const KernelContext& ctx, Border b, int32_t p, int32_t len) {
    if (static_cast<uint32_t>(p) < static_cast<uint32_t>(len)) return p;
    constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
    switch (b) {
        case Border::Replicate:
            return p < 0 ? 0 : len - 1;
        case Border::Constant:
            return -1;
        case Border::Reflect:
        case Border::Reflect101: {
            const bool edge_once = b == Border::Reflect101;
            if (len == 1) return 0;
            if (p == kMin) {
                // MegDNN's first step, -p - 1 + delta, wraps: to INT32_MAX for
                // REFLECT; back to INT32_MIN, forever, for REFLECT_101.
                if (edge_once)
                    ctx.fail("border mode REFLECT_101 of source coordinate {} does not terminate in MegDNN",
                             p);
                p = std::numeric_limits<int32_t>::max();
            }
            // The mirror steps of MegDNN's loop fold p with this period.
            const int64_t period = edge_once ? 2 * (int64_t{len} - 1) : 2 * int64_t{len};
            int64_t q = p % period;
            if (q < 0) q += period;
            return static_cast<int>(q < len ? q : period - q - (edge_once ? 0 : 1));
        }
        case Border::Wrap: {
            if (p < 0 && int64_t{p} - len + 1 < kMin)
                ctx.fail("border mode WRAP of source coordinate {} overflows in MegDNN", p);
            int64_t q = p % len;
            if (q < 0) q += len;
            return static_cast<int>(q);
        }
        case Border::Transparent:
        case Border::Isolated:
            break;
    }
    ctx.fail("border mode {} is not implemented", border_name(b));
}

}  // namespace mgedump::engine::eval::image
