// RelayoutFormat: MegDNN's dnn/src/naive/relayout_format for the plain layout
// conversions (the modes ir/infer/rules_image.cpp models): a permutation of the
// elements, channels padded up to the block size when packing and the padded
// channels dropped (per group) when unpacking. Modes that convert the dtype
// (a requantizing config dtype) are refused.
#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

#include "engine/eval/image_kernels.h"
#include "engine/eval/image_util.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval::image {
namespace {

using E = ir::DTypeEnum;

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

// RelayoutFormatImpl::exec's first check.
bool relayout_dtype(E t) {
    return t == E::Float32 || t == E::Float16 || t == E::BFloat16 || t == E::Int32 || t == E::Uint8 ||
           t == E::QuantizedS8 || t == E::Quantized8Asymm || t == E::QuantizedS32 || t == E::QuantizedS16;
}

// The packing modes fill the padded channels from a workspace padded by
// padding_to_workspace: zero, the zero point for Quantized8Asymm, and only for
// the dtypes it handles (`with_zero_point`: the group-1 NCHW4, NCHW88 and
// IC_SMALL modes; the others copy Float32/Int32/QuantizedS32/QuantizedS8 only).
std::vector<std::byte> pad_element(const KernelContext& ctx, ir::DType d, bool with_zero_point) {
    const E t = d.type;
    const bool ok = t == E::Float32 || t == E::Int32 || t == E::QuantizedS32 || t == E::QuantizedS8 ||
                    (with_zero_point && (t == E::Quantized8Asymm || t == E::Uint8));
    if (!ok)
        ctx.fail("padding {} channels up to the block size is not supported by MegDNN's RelayoutFormat",
                 ir::dtype_string(d));
    std::vector<std::byte> bytes(ir::dtype_bits(t) / 8);
    if (t == E::Quantized8Asymm) bytes[0] = static_cast<std::byte>(d.zero_point);
    return bytes;
}

}  // namespace

void relayout_format(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    Tensor& out = output(ctx);
    const std::string_view mode = ctx.params().enum_field("mode");
    const ir::DType d = in.dtype();
    if (!relayout_dtype(d.type))
        ctx.fail("RelayoutFormat of {} is not supported by MegDNN", ir::dtype_string(d));
    if (!(out.dtype() == d))
        ctx.fail("RelayoutFormat from {} to {} (a requantization) is not implemented", ir::dtype_string(d),
                 ir::dtype_string(out.dtype()));
    const ir::Shape& s = in.shape();
    const ir::Shape& o = out.shape();
    const size_t elem = ir::dtype_bits(d.type) / 8;

    // source(i): the input element output element i copies, or -1 for padding.
    std::function<int64_t(size_t)> source;
    std::vector<std::byte> pad;
    auto dims = [](const ir::Shape& sh, size_t i, size_t* idx) {
        for (uint32_t k = sh.ndim; k-- > 0;) {
            idx[k] = i % sh[k];
            i /= sh[k];
        }
    };
    auto flat = [](const ir::Shape& sh, std::initializer_list<size_t> idx) {
        size_t f = 0, k = 0;
        for (size_t v : idx) f = f * sh[k++] + v;
        return static_cast<int64_t>(f);
    };

    if (mode == "NCHW_NHWC") {
        source = [&](size_t i) {
            size_t x[4];
            dims(o, i, x);  // n h w c
            return flat(s, {x[0], x[3], x[1], x[2]});
        };
    } else if (mode == "NHWC_NCHW") {
        source = [&](size_t i) {
            size_t x[4];
            dims(o, i, x);  // n c h w
            return flat(s, {x[0], x[2], x[3], x[1]});
        };
    } else if (mode == "NCHW4_CHWN4") {
        source = [&](size_t i) {
            size_t x[5];
            dims(o, i, x);  // c/4 h w n 4
            return flat(s, {x[3], x[0], x[1], x[2], x[4]});
        };
    } else if (mode == "CHWN4_NCHW4") {
        source = [&](size_t i) {
            size_t x[5];
            dims(o, i, x);  // n c/4 h w 4
            return flat(s, {x[1], x[2], x[3], x[0], x[4]});
        };
    } else if (mode == "NCHW_NCHW4" || mode == "NCHW_NCHW4_IC_SMALL" || mode == "NCHW_NCHW88" ||
               mode == "NCHW_NCHW64") {
        // Output channel cb·P + k is channel k' of group g in the per-group
        // padded workspace (deduce_exec_layout).
        const size_t pack = o[4];
        const size_t group = mode == "NCHW_NCHW4" ? static_cast<size_t>(ctx.params().int_field("group")) : 1;
        if (group == 0 || s[1] % group) ctx.fail("the {} channels must divide into group {}", s[1], group);
        const size_t icpg = s[1] / group, padded = round_up(icpg, pack);
        if (icpg != padded) pad = pad_element(ctx, d, group == 1 && mode != "NCHW_NCHW64");
        source = [&, pack, icpg, padded](size_t i) -> int64_t {
            size_t x[5];
            dims(o, i, x);  // n c/P h w P
            const size_t cc = x[1] * pack + x[4];
            const size_t g = cc / padded, k = cc % padded;
            if (k >= icpg) return -1;
            return flat(s, {x[0], g * icpg + k, x[2], x[3]});
        };
    } else if (mode == "NCHW4_NCHW" || mode == "NCHW88_NCHW" || mode == "NCHW64_NCHW") {
        // The unpacked channels, of which extract_from_workspace keeps the
        // first ocpg of each group's icpg.
        const size_t pack = s[4];
        const size_t group = mode == "NCHW88_NCHW" ? 1 : static_cast<size_t>(ctx.params().int_field("group"));
        if (group == 0 || (s[1] * pack) % group || o[1] % group || o[1] / group > s[1] * pack / group)
            ctx.fail("{} channels cannot be unpacked into {} in group {}", s[1] * pack, o[1], group);
        const size_t icpg = s[1] * pack / group, ocpg = o[1] / group;
        source = [&, pack, icpg, ocpg](size_t i) {
            size_t x[4];
            dims(o, i, x);  // n c h w
            const size_t cc = x[1] / ocpg * icpg + x[1] % ocpg;
            return flat(s, {x[0], cc / pack, x[2], x[3], cc % pack});
        };
    } else {
        ctx.fail("mode {} is not implemented", mode);
    }

    const std::byte* src = in.bytes().data();
    std::byte* dst = out.mutable_bytes().data();
    tbb::parallel_for(size_t{0}, out.elements(), [&](size_t i) {
        const int64_t from = source(i);
        std::memcpy(dst + i * elem, from < 0 ? pad.data() : src + static_cast<size_t>(from) * elem, elem);
    });
}

}  // namespace mgedump::engine::eval::image
