// Inference rules: conv family (see ir/infer/rules.h). The facts are MegDNN's
// dnn/src/common/{convolution,conv_bias,batch_conv_bias,convolution3d,
// deformable_conv}.cpp and local_share/opr_impl.cpp (deduce_layout, deduce_dtype,
// check_exec) and MegBrain's src/opr/impl/dnn/convolution.cpp (init_output_dtype,
// static shape inference).
#include <string>

#include "ir/infer/conv_2d.h"
#include "ir/infer/conv_3d.h"
#include "ir/infer/conv_util.h"
#include "ir/infer/rules.h"
#include "ir/infer/shape_util.h"

namespace mgedump::ir {
namespace {

using namespace conv;  // NOLINT: the family's shared helpers (conv_2d.h, conv_3d.h, conv_util.h)

void rule_convolution(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const Conv2d p = read_conv2d(ctx);
    need_conv2d_format(ctx, p);
    if (!conv::all_dtypes_known(ctx)) return conv::unknown_outputs(ctx, ctx.config_dtype());
    const DType d = conv_fwd_dtype(ctx, ctx.dtype(0), ctx.dtype(1), ctx.config_dtype(), p.compute_f32);
    if (!ctx.shape(0).known() || !ctx.shape(1).known()) return ctx.set_output(0, d, Shape{});
    ctx.set_output(0, d, conv2d_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(1)));
}

void rule_conv_bwd_data(InferContext& ctx) {
    ctx.expect_inputs(2, 3);
    const Conv2d p = read_conv2d(ctx);
    if (!conv::all_dtypes_known(ctx)) return conv::unknown_outputs(ctx, ctx.config_dtype());
    const DType d = conv_bwd_data_dtype(ctx, ctx.dtype(0), ctx.dtype(1), ctx.config_dtype(), p.compute_f32);
    const Shape& f = ctx.shape(0);
    const Shape& diff = ctx.shape(1);
    if (ctx.nr_inputs() == 3) {
        // src/opr/impl/dnn/convolution.cpp: with a third input the shape is that input's.
        const Shape& like = ctx.shape(2);
        if (like.known() && f.known() && diff.known()) {
            need_conv2d_format(ctx, p);
            check_forward_gives(ctx, conv2d_fwd_shape(ctx, p, like, f, 0), diff, 1);
        }
        return ctx.set_output(0, d, like);
    }
    if (!f.known() || !diff.known()) return ctx.set_output(0, d, Shape{});
    ctx.set_output(0, d, conv2d_bwd_data_shape(ctx, p, f, diff));
}

// MegDNNOprWrapperBwd: output dtype and shape are input 2's (the filter).
void rule_conv_bwd_filter(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    const Conv2d p = read_conv2d(ctx);
    for (size_t i = 0; i < 3; ++i)
        if (ctx.dtype(i).valid && !dtype_is_float(ctx.dtype(i).type))
            ctx.fail("only float dtypes are supported for conv backward filter, input {} is {}", i,
                     dtype_string(ctx.dtype(i)));
    if (conv::known(ctx, 0) && conv::known(ctx, 1) && conv::known(ctx, 2))
        check_forward_gives(ctx, conv2d_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(2), 2), ctx.shape(1), 1);
    ctx.set_output(0, ctx.dtype(2), ctx.shape(2));
}

// conv_bias.cpp do_check_exec_common: the bias is the output's shape or one value
// per output channel; z has the output's dtype and shape.
void check_bias_z(const InferContext& ctx, std::string_view format, const Shape& dst, DType dst_dtype) {
    if (ctx.nr_inputs() >= 3 && ctx.shape(2).known() && dst.known()) {
        const Shape& b = ctx.shape(2);
        if (!(b == dst)) {
            Shape want = dst;
            for (uint32_t i = 0; i < want.ndim; ++i) want[i] = 1;
            const size_t c_pos = format == "NHWC" ? 3 : 1;
            want[c_pos] = dst[c_pos];
            if (format == "NCHW4") want[4] = 4;
            if (!(b == want))
                ctx.fail("the bias (input 2) must be {} or {}, it is {}", shape_string(dst),
                         shape_string(want), shape_string(b));
        }
    }
    if (ctx.nr_inputs() == 4) {
        if (ctx.dtype(3).valid && dst_dtype.valid && ctx.dtype(3).type != dst_dtype.type)
            ctx.fail("z (input 3) must have the output's dtype {}, it is {}", dtype_string(dst_dtype),
                     dtype_string(ctx.dtype(3)));
        if (ctx.shape(3).known() && dst.known() && !(ctx.shape(3) == dst))
            ctx.fail("z (input 3) must have the output's shape {}, it is {}", shape_string(dst),
                     shape_string(ctx.shape(3)));
    }
}

// The bias of a quantized convolution: QuantizedS32 with scale src*filter, or Float32.
void check_quantized_bias(const InferContext& ctx, DType src, DType f) {
    if (ctx.nr_inputs() < 3 || !ctx.dtype(2).valid || !dtype_is_quantized(src.type)) return;
    const DType b = ctx.dtype(2);
    if (b.type == DTypeEnum::QuantizedS32) {
        const float want = src.scale * f.scale;
        if (std::abs(want - b.scale) >= 1e-6f)
            ctx.fail("the bias scale must be input 0's scale times the filter's ({} * {} = {}), it is {}",
                     src.scale, f.scale, want, b.scale);
    } else if (b.type != DTypeEnum::Float32) {
        ctx.fail("the bias of a quantized convolution must be QuantizedS32 or Float32, it is {}",
                 dtype_string(b));
    }
}

void rule_conv_bias(InferContext& ctx) {
    ctx.expect_inputs(2, 4);
    const Conv2d p = read_conv2d(ctx);
    need_conv2d_format(ctx, p);
    if (!ctx.dtype(0).valid || !ctx.dtype(1).valid) return conv::unknown_outputs(ctx, ctx.config_dtype());
    const DType src = ctx.dtype(0), f = ctx.dtype(1);
    const DType d = conv_fwd_dtype(ctx, src, f, ctx.config_dtype(), p.compute_f32);
    check_quantized_bias(ctx, src, f);
    // dnn/src/common/conv_bias.cpp handle_bias_and_nonlinear: no quantized SIGMOID.
    if (ctx.enum_field("nonlineMode") == "SIGMOID" && dtype_is_quantized(d.type))
        ctx.fail("nonlineMode SIGMOID is not supported with the quantized output {}", dtype_string(d));
    Shape out;
    if (ctx.shape(0).known() && ctx.shape(1).known())
        out = conv2d_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(1));
    check_bias_z(ctx, p.format, out, d);
    ctx.set_output(0, d, out);
}

// dnn/src/common/batch_conv_bias.cpp: the filter's first dim is the batch; the
// rest is an ordinary filter. Only QuantizedS8 inputs execute.
void rule_batch_conv_bias(InferContext& ctx) {
    ctx.expect_inputs(2, 4);
    const Conv2d p = read_conv2d(ctx);
    need_conv2d_format(ctx, p);
    if (!ctx.dtype(0).valid || !ctx.dtype(1).valid) return conv::unknown_outputs(ctx, ctx.config_dtype());
    const DType src = ctx.dtype(0), f = ctx.dtype(1);
    if (src.type != DTypeEnum::QuantizedS8 || f.type != DTypeEnum::QuantizedS8)
        ctx.fail("batch conv only supports QuantizedS8 input and filter, they are {} and {}",
                 dtype_string(src), dtype_string(f));
    const DType d = conv_fwd_dtype(ctx, src, f, ctx.config_dtype(), p.compute_f32);
    check_quantized_bias(ctx, src, f);
    Shape out;
    if (ctx.shape(0).known() && ctx.shape(1).known()) {
        const Shape& fb = ctx.shape(1);
        if (fb.ndim < 2)
            ctx.fail("the batched filter needs a batch dim and a filter, input 1 is {}", shape_string(fb));
        const Shape per_sample = Shape::of(fb.dims().subspan(1));
        out = conv2d_fwd_shape(ctx, p, ctx.shape(0), per_sample);
    }
    if (ctx.nr_inputs() == 4) {
        if (ctx.dtype(3).valid && ctx.dtype(3).type != d.type)
            ctx.fail("z (input 3) must have the output's dtype {}, it is {}", dtype_string(d),
                     dtype_string(ctx.dtype(3)));
        if (ctx.shape(3).known() && out.known() && !(ctx.shape(3) == out))
            ctx.fail("z (input 3) must have the output's shape {}, it is {}", shape_string(out),
                     shape_string(ctx.shape(3)));
    }
    ctx.set_output(0, d, out);
}

// ---------------------------------------------------------------- 3-D conv

// dnn/src/common/convolution3d.cpp deduce_layout_fwd.
Shape conv3d_fwd_shape(const InferContext& ctx, const Conv3d& p, const Shape& src, const Shape& f,
                       size_t fi = 1) {
    if (src.ndim != 5) ctx.fail("a 3-D convolution needs a 5-dim input, input 0 is {}", shape_string(src));
    const uint32_t want = p.group ? 6 : 5;
    if (f.ndim != want)
        ctx.fail("a {} 3-D convolution needs a {}-dim filter, input {} is {}", p.group ? "GROUP" : "DENSE",
                 want, fi, shape_string(f));
    const uint32_t s = p.group ? 1 : 0;
    const uint32_t group = p.group ? f[0] : 1;
    const uint32_t ocpg = f[s];
    const uint32_t icpg = p.ndhwc ? f[s + 4] : f[s + 1];
    const uint32_t sp = p.ndhwc ? s + 1 : s + 2;
    const size_t c_pos = p.ndhwc ? 4 : 1;
    const size_t d_pos = p.ndhwc ? 1 : 2;
    if (uint64_t{icpg} * group != src[c_pos])
        ctx.fail("weight {} needs {} input channels (group {}), input 0 has {}", shape_string(f),
                 uint64_t{icpg} * group, group, src[c_pos]);
    Shape out = src;
    out[c_pos] = src[c_pos] == 0 ? 0 : ocpg * group;
    const char* names[3] = {"depth", "height", "width"};
    for (int i = 0; i < 3; ++i)
        out[d_pos + i] = window_out(ctx, names[i], src[d_pos + i], (uint64_t{f[sp + i]} - 1) * p.dil[i] + 1,
                                    p.stride[i], p.pad[i]);
    return out;
}

// The dtype rules of Convolution3DForward::init_output_dtype and deduce_layout_fwd.
void check_conv3d_dtypes(const InferContext& ctx, const Conv3d& p, DType src, DType f) {
    if (!(src == f))
        ctx.fail("input 0 is {} and the filter {}: their dtypes must be the same", dtype_string(src),
                 dtype_string(f));
    if (p.io16 && src.type != DTypeEnum::Float16)
        ctx.fail("data_type FLOAT_IO16xC32 needs Float16 inputs, input 0 is {}", dtype_string(src));
    if (!p.io16 && src.type != DTypeEnum::Float32 && src.type != DTypeEnum::Float16)
        ctx.fail("a 3-D convolution needs Float32 or Float16 inputs, input 0 is {}", dtype_string(src));
}

void rule_conv3d(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const Conv3d p = read_conv3d(ctx);
    if (!conv::all_dtypes_known(ctx)) return conv::unknown_outputs(ctx, DType::none());
    check_conv3d_dtypes(ctx, p, ctx.dtype(0), ctx.dtype(1));
    Shape out;
    if (ctx.shape(0).known() && ctx.shape(1).known())
        out = conv3d_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(1));
    ctx.set_output(0, ctx.dtype(0), out);
}

// OperatorNodeBase::init_output_dtype: every input has the same dtype, the output too.
DType same_input_dtype(const InferContext& ctx) {
    for (size_t i = 1; i < ctx.nr_inputs(); ++i)
        if (!(ctx.dtype(i) == ctx.dtype(0)))
            ctx.fail("all inputs must have the same dtype: input 0 is {}, input {} is {}",
                     dtype_string(ctx.dtype(0)), i, dtype_string(ctx.dtype(i)));
    return ctx.dtype(0);
}

void rule_conv3d_bwd_data(InferContext& ctx) {
    ctx.expect_inputs(2, 3);
    const Conv3d p = read_conv3d(ctx);
    if (!conv::all_dtypes_known(ctx)) return conv::unknown_outputs(ctx, DType::none());
    const DType d = same_input_dtype(ctx);
    // convolution3d.cpp deduce_layout_impl / check_exec: FLOAT only.
    if (p.io16) ctx.fail("data_type FLOAT_IO16xC32 is not supported for 3-D conv backward");
    if (p.ndhwc)
        ctx.fail("format NDHWC is not supported by mgedump's inference of 3-D backward data (NCDHW is)");
    check_conv3d_dtypes(ctx, p, d, d);
    const Shape& f = ctx.shape(0);
    const Shape& diff = ctx.shape(1);
    if (ctx.nr_inputs() == 3) {
        if (ctx.shape(2).known() && f.known() && diff.known())
            check_forward_gives(ctx, conv3d_fwd_shape(ctx, p, ctx.shape(2), f, 0), diff, 1);
        return ctx.set_output(0, d, ctx.shape(2));
    }
    if (!f.known() || !diff.known()) return ctx.set_output(0, d, Shape{});
    const uint32_t want = p.group ? 6 : 5;
    if (f.ndim != want)
        ctx.fail("a {} 3-D convolution needs a {}-dim filter, input 0 is {}", p.group ? "GROUP" : "DENSE",
                 want, shape_string(f));
    if (diff.ndim != 5) ctx.fail("the output gradient must be 5-dim, input 1 is {}", shape_string(diff));
    const uint32_t s = p.group ? 1 : 0;
    const uint32_t group = p.group ? f[0] : 1;
    if (uint64_t{f[s]} * group != diff[1])
        ctx.fail("weight {} gives {} output channels (group {}), input 1 has {}", shape_string(f),
                 uint64_t{f[s]} * group, group, diff[1]);
    Shape out = diff;
    out[1] = f[s + 1] * group;
    const char* names[3] = {"depth", "height", "width"};
    for (int i = 0; i < 3; ++i)
        out[2 + i] = window_in(ctx, names[i], diff[2 + i], (uint64_t{f[s + 2 + i]} - 1) * p.dil[i] + 1,
                               p.stride[i], p.pad[i]);
    ctx.set_output(0, d, out);
}

void rule_conv3d_bwd_filter(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    const Conv3d p = read_conv3d(ctx);
    if (p.io16) ctx.fail("data_type FLOAT_IO16xC32 is not supported for 3-D conv backward");
    if (conv::known(ctx, 0) && conv::known(ctx, 1) && conv::known(ctx, 2)) {
        check_conv3d_dtypes(ctx, p, ctx.dtype(0), ctx.dtype(2));
        check_forward_gives(ctx, conv3d_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(2), 2), ctx.shape(1), 1);
    }
    ctx.set_output(0, ctx.dtype(2), ctx.shape(2));
}

// ---------------------------------------------------------------- LocalShare

// src/opr/impl/dnn/convolution.cpp: LocalShare outputs are Float32 whatever the config asks.
void need_float32_config(const InferContext& ctx) {
    const DType c = ctx.config_dtype();
    if (c.valid && !(c == DType::of(DTypeEnum::Float32)))
        ctx.fail("the output dtype can only be Float32, the config asks for {}", dtype_string(c));
}

void need_float32(const InferContext& ctx, size_t i, const char* why) {
    if (ctx.dtype(i).valid && ctx.dtype(i).type != DTypeEnum::Float32)
        ctx.fail("{} only supports Float32, input {} is {}", why, i, dtype_string(ctx.dtype(i)));
}

struct LocalShareParam {
    Conv2d c;
    uint32_t sgh, sgw;
};

LocalShareParam read_local_share(const InferContext& ctx) {
    LocalShareParam p{read_conv2d(ctx, "computeMode"), 0, 0};
    p.sgh = static_cast<uint32_t>(ctx.int_field("spatial_groups_h"));
    p.sgw = static_cast<uint32_t>(ctx.int_field("spatial_groups_w"));
    if (p.c.format != "NCHW") ctx.fail("local share only supports format NCHW, not {}", p.c.format);
    if (p.c.dh != 1 || p.c.dw != 1)
        ctx.fail("dilated local share is not supported (dilation {}x{})", p.c.dh, p.c.dw);
    if (p.c.compute_f32) ctx.fail("local share only supports computeMode DEFAULT");
    if (p.sgh == 0 || p.sgw == 0) ctx.fail("spatial groups {}x{} must be positive", p.sgh, p.sgw);
    return p;
}

// local_share/opr_impl.cpp: filter [sgh, sgw, ci, fh, fw, co] (dense), [g, ...] (group).
struct LocalShareFilter {
    uint32_t group, ci, co, fh, fw;
};

LocalShareFilter local_share_filter(const InferContext& ctx, const LocalShareParam& p, const Shape& f,
                                    size_t fi) {
    const uint32_t want = p.c.group ? 7 : 6;
    if (f.ndim != want)
        ctx.fail("a {} local share needs a {}-dim filter, input {} is {}", p.c.group ? "GROUP" : "DENSE",
                 want, fi, shape_string(f));
    const uint32_t s = p.c.group ? 1 : 0;
    LocalShareFilter m{p.c.group ? f[0] : 1, 0, 0, f[s + 3], f[s + 4]};
    if (f[s] != p.sgh || f[s + 1] != p.sgw)
        ctx.fail("the filter {} has spatial groups {}x{}, the params say {}x{}", shape_string(f), f[s],
                 f[s + 1], p.sgh, p.sgw);
    m.ci = f[s + 2] * m.group;
    m.co = f[s + 5] * m.group;
    return m;
}

Shape local_share_fwd_shape(const InferContext& ctx, const LocalShareParam& p, const Shape& src,
                            const Shape& f, size_t fi) {
    if (src.ndim != 4) ctx.fail("local share needs a 4-dim input, input 0 is {}", shape_string(src));
    const LocalShareFilter m = local_share_filter(ctx, p, f, fi);
    if (m.ci != src[1])
        ctx.fail("weight {} needs {} input channels, input 0 has {}", shape_string(f), m.ci, src[1]);
    const uint32_t ho = window_out(ctx, "height", src[2], m.fh, p.c.sh, p.c.ph);
    const uint32_t wo = window_out(ctx, "width", src[3], m.fw, p.c.sw, p.c.pw);
    if (ho % p.sgh || wo % p.sgw)
        ctx.fail("the output {}x{} cannot be divided into {}x{} spatial groups", ho, wo, p.sgh, p.sgw);
    return Shape::of({src[0], m.co, ho, wo});
}

void rule_local_share(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const LocalShareParam p = read_local_share(ctx);
    need_float32_config(ctx);
    need_float32(ctx, 0, "local share");
    need_float32(ctx, 1, "local share");
    const DType f32 = DType::of(DTypeEnum::Float32);
    if (!ctx.shape(0).known() || !ctx.shape(1).known()) return ctx.set_output(0, f32, Shape{});
    ctx.set_output(0, f32, local_share_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(1), 1));
}

void rule_local_share_bwd_data(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    const LocalShareParam p = read_local_share(ctx);
    need_float32_config(ctx);
    for (size_t i = 0; i < 2; ++i) need_float32(ctx, i, "local share backward data");
    if (conv::known(ctx, 0) && conv::known(ctx, 1) && ctx.shape(2).known()) {
        const Shape& diff = ctx.shape(1);
        if (diff.ndim != 4) ctx.fail("the output gradient must be 4-dim, input 1 is {}", shape_string(diff));
        if (diff[2] % p.sgh || diff[3] % p.sgw)
            ctx.fail("the output {}x{} cannot be divided into {}x{} spatial groups", diff[2], diff[3], p.sgh,
                     p.sgw);
        check_forward_gives(ctx, local_share_fwd_shape(ctx, p, ctx.shape(2), ctx.shape(0), 0), diff, 1);
    }
    ctx.set_output(0, DType::of(DTypeEnum::Float32), ctx.shape(2));
}

void rule_local_share_bwd_filter(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    const LocalShareParam p = read_local_share(ctx);
    for (size_t i = 0; i < 3; ++i) need_float32(ctx, i, "local share backward filter");
    if (conv::known(ctx, 0) && conv::known(ctx, 1) && conv::known(ctx, 2))
        check_forward_gives(ctx, local_share_fwd_shape(ctx, p, ctx.shape(0), ctx.shape(2), 2), ctx.shape(1),
                            1);
    ctx.set_output(0, ctx.dtype(2), ctx.shape(2));
}

// ---------------------------------------------------------------- DeformableConv

// dnn/src/common/deformable_conv.cpp deduce_layout_fwd. Inputs im, filter, offset,
// mask at positions `ii`, `fi`, `oi`, `mi`.
Shape deformable_fwd_shape(const InferContext& ctx, const Conv2d& p, size_t ii, size_t fi, size_t oi,
                           size_t mi) {
    const Shape &im = ctx.shape(ii), &f = ctx.shape(fi), &off = ctx.shape(oi), &mask = ctx.shape(mi);
    if (ctx.enum_field("mode") != "CROSS_CORRELATION")
        ctx.fail("deformable conv only supports mode CROSS_CORRELATION");
    if (p.format != "NCHW") ctx.fail("deformable conv only supports format NCHW, not {}", p.format);
    if (im.ndim != 4) ctx.fail("the input must be 4-dim, input {} is {}", ii, shape_string(im));
    if (f.ndim != 4 && f.ndim != 5)
        ctx.fail("the filter must be 4- or 5-dim, input {} is {}", fi, shape_string(f));
    if (p.group && f.ndim != 5)
        ctx.fail("a GROUP deformable conv needs a 5-dim filter, input {} is {}", fi, shape_string(f));
    if (off.ndim != 4) ctx.fail("the offset must be 4-dim, input {} is {}", oi, shape_string(off));
    if (mask.ndim != 4) ctx.fail("the mask must be 4-dim, input {} is {}", mi, shape_string(mask));
    const uint32_t s = p.group ? 1 : 0;
    const uint64_t group = p.group ? f[0] : 1;
    const uint64_t ocpg = f[s], icpg = f[s + 1], fh = f[s + 2], fw = f[s + 3];
    if (fh * fw == 0) ctx.fail("the filter {} has an empty window", shape_string(f));
    const uint64_t kh = (fh - 1) * p.dh + 1, kw = (fw - 1) * p.dw + 1;
    const uint64_t dg = off[1] / (2 * fh * fw);
    const uint64_t oc = group * ocpg;
    if (group == 0 || dg == 0)
        ctx.fail("group ({}) and deformable group ({} = offset channels {} / (2*{}*{})) must be positive",
                 group, dg, off[1], fh, fw);
    if (im[1] != icpg * group)
        ctx.fail("weight {} needs {} input channels (group {}), input {} has {}", shape_string(f),
                 icpg * group, group, ii, im[1]);
    if (im[1] % dg || oc % dg)
        ctx.fail("input channels {} and output channels {} must be multiples of the deformable group {}",
                 im[1], oc, dg);
    if (off[1] % (2 * fh * fw) || mask[1] % (fh * fw) || off[1] / (2 * fh * fw) != mask[1] / (fh * fw))
        ctx.fail("offset {} and mask {} must have 2*{}*{} and {}*{} channels per deformable group",
                 shape_string(off), shape_string(mask), fh, fw, fh, fw);
    if (off[2] != mask[2] || off[3] != mask[3])
        ctx.fail("offset {} and mask {} must have the same spatial dims", shape_string(off),
                 shape_string(mask));
    const uint32_t oh = window_out(ctx, "height", im[2], kh, p.sh, p.ph);
    const uint32_t ow = window_out(ctx, "width", im[3], kw, p.sw, p.pw);
    if (oh != off[2] || ow != off[3])
        ctx.fail("the output is {}x{} but the offset {} is {}x{}", oh, ow, shape_string(off), off[2], off[3]);
    return Shape::of({im[0], static_cast<uint32_t>(oc), oh, ow});
}

void need_all_float32(const InferContext& ctx) {
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) need_float32(ctx, i, "deformable conv");
}

bool all_shapes_known(const InferContext& ctx) {
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (!ctx.shape(i).known()) return false;
    return true;
}

void rule_deformable_conv(InferContext& ctx) {
    ctx.expect_inputs(4, 4);
    const Conv2d p = read_conv2d(ctx);
    need_all_float32(ctx);
    need_float32_config(ctx);
    const DType f32 = DType::of(DTypeEnum::Float32);
    if (!all_shapes_known(ctx)) return ctx.set_output(0, f32, Shape{});
    ctx.set_output(0, f32, deformable_fwd_shape(ctx, p, 0, 1, 2, 3));
}

// Inputs (src, filter, offset, mask, diff); outputs the gradients of src, offset, mask.
void rule_deformable_conv_bwd_data(InferContext& ctx) {
    ctx.expect_inputs(5, 5);
    const Conv2d p = read_conv2d(ctx);
    need_all_float32(ctx);
    need_float32_config(ctx);
    const DType f32 = DType::of(DTypeEnum::Float32);
    const size_t like[3] = {0, 2, 3};
    for (size_t k = 0; k < 3; ++k)
        if (ctx.shape(like[k]).known() && ctx.shape(like[k]).ndim != 4)
            ctx.fail("input {} must be 4-dim, it is {}", like[k], shape_string(ctx.shape(like[k])));
    if (all_shapes_known(ctx))
        check_forward_gives(ctx, deformable_fwd_shape(ctx, p, 0, 1, 2, 3), ctx.shape(4), 4);
    for (size_t k = 0; k < ctx.nr_outputs() && k < 3; ++k) ctx.set_output(k, f32, ctx.shape(like[k]));
}

// MegDNNOprWrapperBwd with the filter (input 1) as the shape source.
void rule_deformable_conv_bwd_filter(InferContext& ctx) {
    ctx.expect_inputs(5, 5);
    const Conv2d p = read_conv2d(ctx);
    need_all_float32(ctx);
    if (all_shapes_known(ctx))
        check_forward_gives(ctx, deformable_fwd_shape(ctx, p, 0, 1, 2, 3), ctx.shape(4), 4);
    ctx.set_output(0, ctx.dtype(1), ctx.shape(1));
}

}  // namespace

std::span<const InferRuleEntry> conv_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Convolution", rule_convolution},
        {"ConvolutionBackwardData", rule_conv_bwd_data},
        {"ConvolutionBackwardFilter", rule_conv_bwd_filter},
        {"ConvBias", rule_conv_bias},
        {"BatchConvBias", rule_batch_conv_bias},
        {"Convolution3D", rule_conv3d},
        {"Convolution3DBackwardData", rule_conv3d_bwd_data},
        {"Convolution3DBackwardFilter", rule_conv3d_bwd_filter},
        {"LocalShare", rule_local_share},
        {"LocalShareBackwardData", rule_local_share_bwd_data},
        {"LocalShareBackwardFilter", rule_local_share_bwd_filter},
        {"DeformableConv", rule_deformable_conv},
        {"DeformableConvBackwardData", rule_deformable_conv_bwd_data},
        {"DeformableConvBackwardFilter", rule_deformable_conv_bwd_filter},
    };
    return kRules;
}

}  // namespace mgedump::ir
