// The 2-D convolution rules the conv family's operators share (ir/infer/rules_conv.cpp):
// MegDNN's filter canonisation, forward and backward-data shapes and the dtype
// deduction of dnn/src/common/convolution.cpp.
#pragma once

#include <string_view>
#include <vector>

#include "ir/infer/conv_util.h"

namespace mgedump::ir::conv {

inline DType q32(float scale) { return DType::quantized(DTypeEnum::QuantizedS32, scale); }

// ---------------------------------------------------------------- 2-D conv

struct Conv2d {
    uint32_t ph, pw, sh, sw, dh, dw;
    bool group;
    std::string_view format;
    bool compute_f32;
};

inline Conv2d read_conv2d(const InferContext& ctx, FieldName compute_field = "compute_mode") {
    Conv2d p{};
    p.ph = static_cast<uint32_t>(ctx.int_field("pad_h"));
    p.pw = static_cast<uint32_t>(ctx.int_field("pad_w"));
    p.sh = static_cast<uint32_t>(ctx.int_field("stride_h"));
    p.sw = static_cast<uint32_t>(ctx.int_field("stride_w"));
    p.dh = static_cast<uint32_t>(ctx.int_field("dilate_h"));
    p.dw = static_cast<uint32_t>(ctx.int_field("dilate_w"));
    p.group = ctx.enum_field("sparse") == "GROUP";
    p.format = ctx.enum_field("format");
    p.compute_f32 = ctx.enum_field(compute_field) == "FLOAT32";
    // MegEngine divides by the stride unchecked and dies of SIGFPE.
    if (p.sh == 0 || p.sw == 0) ctx.fail("stride_h {}, stride_w {}: a stride of 0 is refused", p.sh, p.sw);
    // dnn/src/common/convolution.cpp make_canonized_filter_meta_*: dilation > 0.
    if (p.dh == 0 || p.dw == 0) ctx.fail("dilate_h {}, dilate_w {}: dilation must be positive", p.dh, p.dw);
    return p;
}

inline bool conv2d_format_modelled(std::string_view f) { return f == "NCHW" || f == "NHWC" || f == "NCHW4"; }

inline void need_conv2d_format(const InferContext& ctx, const Conv2d& p) {
    if (!conv2d_format_modelled(p.format))
        ctx.fail("format {} is not supported by mgedump's inference (NCHW, NHWC, NCHW4 are)", p.format);
}

struct FilterMeta {
    uint32_t group, icpg, ocpg, fh, fw, kh, kw;  // kh, kw: dilated extents
};

// dnn/src/common/convolution.cpp make_canonized_filter_meta_nchw_nhwc / _nchwx<4>.
inline FilterMeta canonize_filter(const InferContext& ctx, const Conv2d& p, uint32_t src_ndim, const Shape& f,
                                  size_t fi) {
    FilterMeta m{};
    const uint32_t start = p.group ? 1 : 0;
    if (p.format == "NCHW4") {
        // filter [oc, ic/4, fh, fw, 4] dense, [g, ocpg, icpg/4, fh, fw, 4] group.
        const uint32_t want = p.group ? 6 : 5;
        if (f.ndim != want || f[f.ndim - 1] != 4)
            ctx.fail("NCHW4 needs a {}-dim filter ending in 4 for {} convolution, input {} is {}", want,
                     p.group ? "group" : "dense", fi, shape_string(f));
        if (p.dh != 1 || p.dw != 1) ctx.fail("NCHW4 needs dilation 1, got {}x{}", p.dh, p.dw);
        m.ocpg = f[start];
        m.icpg = f[start + 1] * 4;
        m.fh = f[start + 2];
        m.fw = f[start + 3];
    } else {
        if (src_ndim != 4)
            ctx.fail("only 2-D convolution is supported: the input must be 4-dim, it has {}", src_ndim);
        const bool ok = p.group ? (f.ndim == 5 || f.ndim == 7) : (f.ndim == 4 || f.ndim == 6);
        if (!ok)
            ctx.fail("a {} convolution needs a {}-dim filter ([{}oc, ic, fh, fw]), input {} is {}",
                     p.group ? "GROUP" : "DENSE", p.group ? 5 : 4, p.group ? "g, " : "", fi, shape_string(f));
        m.ocpg = f[start];
        if (p.format == "NCHW") {
            m.icpg = f[start + 1];
            m.fh = f[start + 2];
            m.fw = f[start + 3];
        } else {  // NHWC: [oc, fh, fw, ic]
            m.fh = f[start + 1];
            m.fw = f[start + 2];
            m.icpg = f[start + 3];
        }
    }
    m.group = p.group ? f[0] : 1;
    m.kh = (m.fh - 1) * p.dh + 1;
    m.kw = (m.fw - 1) * p.dw + 1;
    return m;
}

// dnn/src/common/convolution.cpp deduce_layout_fwd (NCHW, NHWC, NCHW4 branches).
inline Shape conv2d_fwd_shape(const InferContext& ctx, const Conv2d& p, const Shape& src, const Shape& f,
                              size_t fi = 1) {
    need_conv2d_format(ctx, p);
    if (p.format == "NCHW4" && (src.ndim != 5 || src[4] != 4))
        ctx.fail("NCHW4 needs a 5-dim input ending in 4, input 0 is {}", shape_string(src));
    if (src.ndim < 3) ctx.fail("the input must have at least 3 dims, input 0 is {}", shape_string(src));
    const FilterMeta m = canonize_filter(ctx, p, src.ndim, f, fi);
    const size_t c_pos = p.format == "NHWC" ? 3 : 1;
    const size_t h_pos = p.format == "NHWC" ? 1 : 2;
    const uint64_t ic = p.format == "NCHW4" ? uint64_t{src[1]} * 4 : src[c_pos];
    if (uint64_t{m.icpg} * m.group != ic)
        ctx.fail("weight {} needs {} input channels (group {}), input 0 has {}", shape_string(f),
                 uint64_t{m.icpg} * m.group, m.group, ic);
    const uint32_t oc = m.ocpg * m.group;
    Shape out = src;
    out[h_pos] = window_out(ctx, "height", src[h_pos], m.kh, p.sh, p.ph);
    out[h_pos + 1] = window_out(ctx, "width", src[h_pos + 1], m.kw, p.sw, p.pw);
    if (p.format == "NCHW4") {
        if (oc % 4) ctx.fail("NCHW4 needs a multiple of 4 output channels, the filter gives {}", oc);
        out[1] = oc / 4;
    } else {
        out[c_pos] = ic == 0 ? 0 : oc;
    }
    return out;
}

// dnn/src/common/convolution.cpp ConvolutionBackwardData::deduce_layout.
inline Shape conv2d_bwd_data_shape(const InferContext& ctx, const Conv2d& p, const Shape& f,
                                   const Shape& diff) {
    if (p.format != "NCHW" && p.format != "NHWC")
        ctx.fail("format {} is not supported by mgedump's inference of backward data (NCHW, NHWC are)",
                 p.format);
    if (f.ndim < 4 || f.ndim > 7)
        ctx.fail("the filter must have 4 to 7 dims, input 0 is {}", shape_string(f));
    if (diff.ndim != 4) ctx.fail("the output gradient must be 4-dim, input 1 is {}", shape_string(diff));
    const FilterMeta m = canonize_filter(ctx, p, diff.ndim, f, 0);
    const size_t c_pos = p.format == "NHWC" ? 3 : 1;
    const size_t h_pos = p.format == "NHWC" ? 1 : 2;
    if (uint64_t{m.ocpg} * m.group != diff[c_pos])
        ctx.fail("weight {} gives {} output channels (group {}), input 1 has {}", shape_string(f),
                 uint64_t{m.ocpg} * m.group, m.group, diff[c_pos]);
    Shape out = diff;
    out[c_pos] = m.icpg * m.group;
    out[h_pos] = window_in(ctx, "height", diff[h_pos], m.kh, p.sh, p.ph);
    out[h_pos + 1] = window_in(ctx, "width", diff[h_pos + 1], m.kw, p.sw, p.pw);
    return out;
}

inline bool is_low_quantized(DTypeEnum t) {
    return t == DTypeEnum::QuantizedS8 || t == DTypeEnum::Quantized8Asymm || t == DTypeEnum::QuantizedS4 ||
           t == DTypeEnum::Quantized4Asymm || t == DTypeEnum::QuantizedS1;
}
inline bool is_q4(DTypeEnum t) { return t == DTypeEnum::QuantizedS4 || t == DTypeEnum::Quantized4Asymm; }

inline DType pick_dtype(const InferContext& ctx, const std::vector<DType>& supported, DType dst, DType src,
                        DType f) {
    if (!dst.valid) return supported.at(0);
    for (const DType& d : supported)
        if (conv::dtype_almost_equal(d, dst)) return dst;
    ctx.fail("a convolution of {} by {} cannot give {} (default {})", dtype_string(src), dtype_string(f),
             dtype_string(dst), dtype_string(supported.at(0)));
}

// dnn/src/common/convolution.cpp check_or_deduce_dtype_fwd (+ deduce_layout_fwd's
// src/filter dtype check).
inline DType conv_fwd_dtype(const InferContext& ctx, DType src, DType f, DType dst, bool compute_f32) {
    if (!(src.type == f.type || (src.type == DTypeEnum::Quantized4Asymm && f.type == DTypeEnum::QuantizedS4)))
        ctx.fail("input 0 is {} and the filter {}: their dtypes must match", dtype_string(src),
                 dtype_string(f));
    std::vector<DType> ok;
    if (dtype_is_float(src.type)) {
        ok.push_back(src);
    } else if (src.type == DTypeEnum::Int8) {
        ok = {DType::of(DTypeEnum::Int32), DType::of(DTypeEnum::Int16)};
    } else if (is_low_quantized(src.type)) {
        ok.push_back(q32(src.scale * f.scale));
        if (dst.valid && (dst.type == src.type || (is_q4(dst.type) && src.type == DTypeEnum::QuantizedS8) ||
                          (is_q4(src.type) && dst.type == DTypeEnum::QuantizedS8)))
            ok.push_back(dst);
        if (src.type == DTypeEnum::QuantizedS8) ok.push_back(DType::of(DTypeEnum::Float32));
    } else {
        ctx.fail(
            "a convolution of {} by {} is not supported (float, Int8 and 8/4/1-bit quantized inputs are)",
            dtype_string(src), dtype_string(f));
    }
    if (compute_f32 && src.type != DTypeEnum::Float16 && src.type != DTypeEnum::BFloat16)
        ctx.fail("compute_mode FLOAT32 is only available for Float16/BFloat16 inputs, input 0 is {}",
                 dtype_string(src));
    return pick_dtype(ctx, ok, dst, src, f);
}

// dnn/src/common/convolution.cpp ConvolutionBackwardData::deduce_dtype.
inline DType conv_bwd_data_dtype(const InferContext& ctx, DType f, DType diff, DType grad, bool compute_f32) {
    std::vector<DType> ok;
    if (dtype_is_float(f.type) && dtype_is_float(diff.type)) {
        ok.push_back(f);
    } else if (f.type == DTypeEnum::Int8 && diff == f) {
        ok.push_back(DType::of(DTypeEnum::Int32));
    } else if ((f.type == DTypeEnum::QuantizedS8 && diff.type == DTypeEnum::QuantizedS8) ||
               (f.type == DTypeEnum::Quantized8Asymm && diff.type == DTypeEnum::Quantized8Asymm)) {
        ok.push_back(q32(f.scale * diff.scale));
        if (grad.valid && grad.type == diff.type) ok.push_back(grad);
    } else {
        ctx.fail("a backward convolution of filter {} and gradient {} is not supported", dtype_string(f),
                 dtype_string(diff));
    }
    if (grad.valid) {
        bool found = false;
        for (const DType& d : ok) found = found || d == grad;
        if (!found)
            ctx.fail("a backward convolution of {} and {} cannot give {} (default {})", dtype_string(f),
                     dtype_string(diff), dtype_string(grad), dtype_string(ok[0]));
    }
    if (compute_f32 && f.type != DTypeEnum::Float16 && f.type != DTypeEnum::BFloat16)
        ctx.fail("compute_mode FLOAT32 is only available for Float16/BFloat16 inputs, the filter is {}",
                 dtype_string(f));
    return grad.valid ? grad : ok[0];
}

// What a backward operator's execution checks (check_exec → check_layout_fwd):
// the forward convolution of `src` by `filter` gives `diff`.
inline void check_forward_gives(const InferContext& ctx, const Shape& fwd, const Shape& diff,
                                size_t diff_index) {
    if (!(fwd == diff))
        ctx.fail("the forward convolution gives {}, but the output gradient (input {}) is {}",
                 shape_string(fwd), diff_index, shape_string(diff));
}

}  // namespace mgedump::ir::conv
