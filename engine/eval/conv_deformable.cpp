#include "engine/eval/conv_deformable.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

struct DeformGeometry {
    size_t n, ic, ih, iw, oc, oh, ow, fh, fw;
    size_t group, dgroup, icpg, ocpg, icpdg;
    int ph, pw, sh, sw, dh, dw;
};

// Inputs: src [N, IC, IH, IW], filter [OC, ICPG, FH, FW] (GROUP: [G, OCPG, ICPG,
// FH, FW]), offset [N, DG·2·FH·FW, OH, OW], mask [N, DG·FH·FW, OH, OW].
DeformGeometry geometry(const KernelContext& ctx) {
    const ir::InferContext& p = ctx.params();
    if (p.enum_field("format") != "NCHW")
        ctx.fail("format {} is not implemented; NCHW only", p.enum_field("format"));
    if (p.enum_field("mode") != "CROSS_CORRELATION")
        ctx.fail("mode {} is not supported", p.enum_field("mode"));
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (ctx.in(i).dtype().type != ir::DTypeEnum::Float32)
            ctx.fail("input {} is {}: deformable conv is Float32 only", i,
                     ir::dtype_string(ctx.in(i).dtype()));
    const ir::Shape &src = ctx.in(0).shape(), &f = ctx.in(1).shape(), &off = ctx.in(2).shape();
    const bool grouped = p.enum_field("sparse") == "GROUP";
    const uint32_t s = grouped ? 1 : 0;
    if (src.ndim != 4 || off.ndim != 4 || f.ndim != 4 + s)
        ctx.fail("unexpected shapes {} / {} / {}", ir::shape_string(src), ir::shape_string(f),
                 ir::shape_string(off));
    DeformGeometry g{};
    g.n = src[0];
    g.ic = src[1];
    g.ih = src[2];
    g.iw = src[3];
    g.group = grouped ? f[0] : 1;
    g.ocpg = f[s];
    g.icpg = f[s + 1];
    g.fh = f[s + 2];
    g.fw = f[s + 3];
    g.oc = g.group * g.ocpg;
    g.oh = off[2];
    g.ow = off[3];
    g.dgroup = g.fh > 0 && g.fw > 0 ? off[1] / (2 * g.fh * g.fw) : 0;
    if (g.dgroup == 0 || g.ic % g.dgroup || g.icpg * g.group != g.ic) ctx.fail("bad deformable groups");
    g.icpdg = g.ic / g.dgroup;
    g.ph = static_cast<int>(p.int_field("pad_h"));
    g.pw = static_cast<int>(p.int_field("pad_w"));
    g.sh = static_cast<int>(p.int_field("stride_h"));
    g.sw = static_cast<int>(p.int_field("stride_w"));
    g.dh = static_cast<int>(p.int_field("dilate_h"));
    g.dw = static_cast<int>(p.int_field("dilate_w"));
    return g;
}

// naive dmcn_bilinear: the input at (h, w), zero outside.
float bilinear(const float* im, int H, int W, float h, float w) {
    const int h_low = static_cast<int>(std::floor(h)), w_low = static_cast<int>(std::floor(w));
    const int h_high = h_low + 1, w_high = w_low + 1;
    const float lh = h - h_low, lw = w - w_low;
    const float hh = 1 - lh, hw = 1 - lw;
    float v1 = 0, v2 = 0, v3 = 0, v4 = 0;
    if (h_low >= 0 && w_low >= 0) v1 = im[h_low * W + w_low];
    if (h_low >= 0 && w_high <= W - 1) v2 = im[h_low * W + w_high];
    if (h_high <= H - 1 && w_low >= 0) v3 = im[h_high * W + w_low];
    if (h_high <= H - 1 && w_high <= W - 1) v4 = im[h_high * W + w_high];
    const float w1 = hh * hw, w2 = hh * lw, w3 = lh * hw, w4 = lh * lw;
    return w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
}

// naive dmcn_get_gradient_weight: d bilinear(h, w) / d im[y][x].
float gradient_weight(int H, int W, int y, int x, float h, float w) {
    if (h <= -1.0f || h >= H || w <= -1.0f || w >= W) return 0.f;
    const int h_low = static_cast<int>(std::floor(h)), w_low = static_cast<int>(std::floor(w));
    const int h_high = h_low + 1, w_high = w_low + 1;
    float weight = 0.f;
    if (y == h_low && x == w_low) weight = (y + 1 - h) * (x + 1 - w);
    if (y == h_low && x == w_high) weight = (y + 1 - h) * (w + 1 - x);
    if (y == h_high && x == w_low) weight = (h + 1 - y) * (x + 1 - w);
    if (y == h_high && x == w_high) weight = (h + 1 - y) * (w + 1 - x);
    return weight;
}

// naive dmcn_get_coordinate_weight: d bilinear(h, w) / dh (dir 0) or / dw (dir 1).
float coordinate_weight(const float* im, int H, int W, float h, float w, int dir) {
    if (h <= -1.f || h >= H || w <= -1.f || w >= W) return 0;
    const int h_low = static_cast<int>(std::floor(h)), w_low = static_cast<int>(std::floor(w));
    const int h_high = h_low + 1, w_high = w_low + 1;
    float weight = 0.f;
    if (dir == 0) {
        if (h_low >= 0 && w_low >= 0) weight += -1 * (w_low + 1 - w) * im[h_low * W + w_low];
        if (h_low >= 0 && w_high <= W - 1) weight += -1 * (w - w_low) * im[h_low * W + w_high];
        if (h_high <= H - 1 && w_low >= 0) weight += (w_low + 1 - w) * im[h_high * W + w_low];
        if (h_high <= H - 1 && w_high <= W - 1) weight += (w - w_low) * im[h_high * W + w_high];
    } else {
        if (h_low >= 0 && w_low >= 0) weight += -1 * (h_low + 1 - h) * im[h_low * W + w_low];
        if (h_low >= 0 && w_high <= W - 1) weight += (h_low + 1 - h) * im[h_low * W + w_high];
        if (h_high <= H - 1 && w_low >= 0) weight += -1 * (h - h_low) * im[h_high * W + w_low];
        if (h_high <= H - 1 && w_high <= W - 1) weight += (h - h_low) * im[h_high * W + w_high];
    }
    return weight;
}

// One tap of one output: where it samples, and the indices of its offset and mask.
struct Tap {
    float h, w;
    size_t off_h, off_w, mask;
};

Tap tap(const DeformGeometry& g, const float* offset, size_t oh, size_t ow, size_t fh, size_t fw) {
    const int ih = static_cast<int>(oh) * g.sh - g.ph, iw = static_cast<int>(ow) * g.sw - g.pw;
    const size_t k = fh * g.fw + fw;
    Tap t;
    t.off_h = ((2 * k) * g.oh + oh) * g.ow + ow;
    t.off_w = ((2 * k + 1) * g.oh + oh) * g.ow + ow;
    t.mask = (k * g.oh + oh) * g.ow + ow;
    t.h = static_cast<float>(ih) + static_cast<float>(fh * g.dh) + offset[t.off_h];
    t.w = static_cast<float>(iw) + static_cast<float>(fw * g.dw) + offset[t.off_w];
    return t;
}

bool inside(const DeformGeometry& g, float h, float w) {
    return h > -1.f && w > -1.f && h < static_cast<float>(g.ih) && w < static_cast<float>(g.iw);
}

// Calls f(n, oc, oh, ow, channel, filter offset) for every input channel of
// every output, in MegDNN's loop order (n, oc, oh, ow, ic).
struct Channel {
    const float *im, *filter, *offset, *mask;
    size_t im_base, off_base, mask_base;
};

template <class F>
void for_each_channel(const DeformGeometry& g, const float* im, const float* filter, const float* offset,
                      const float* mask, F&& f) {
    const size_t taps = g.fh * g.fw, plane = g.oh * g.ow;
    for (size_t n = 0; n < g.n; ++n)
        for (size_t oc = 0; oc < g.oc; ++oc) {
            const size_t grp = oc / g.ocpg, o = oc % g.ocpg;
            for (size_t oh = 0; oh < g.oh; ++oh)
                for (size_t ow = 0; ow < g.ow; ++ow)
                    for (size_t ic = grp * g.icpg; ic < (grp + 1) * g.icpg; ++ic) {
                        const size_t dg = ic / g.icpdg, c = ic % g.icpg;
                        Channel ch;
                        ch.im_base = (n * g.ic + ic) * g.ih * g.iw;
                        ch.off_base = (n * g.dgroup + dg) * 2 * taps * plane;
                        ch.mask_base = (n * g.dgroup + dg) * taps * plane;
                        ch.im = im + ch.im_base;
                        ch.filter = filter + ((grp * g.ocpg + o) * g.icpg + c) * taps;
                        ch.offset = offset + ch.off_base;
                        ch.mask = mask + ch.mask_base;
                        f(n, oc, oh, ow, ch, ((grp * g.ocpg + o) * g.icpg + c) * taps);
                    }
        }
}

Tensor& out_at(KernelContext& ctx, size_t k) {
    Tensor& t = ctx.out(k);
    if (t.empty()) ctx.fail("output {} has no known shape", k);
    return t;
}

}  // namespace

void deformable_conv_forward(KernelContext& ctx) {
    const DeformGeometry g = geometry(ctx);
    auto dst = out_at(ctx, 0).mutable_data<float>();
    const float *im = ctx.in(0).data<float>().data(), *flt = ctx.in(1).data<float>().data();
    const float *offset = ctx.in(2).data<float>().data(), *mask = ctx.in(3).data<float>().data();
    std::fill(dst.begin(), dst.end(), 0.f);
    for_each_channel(
        g, im, flt, offset, mask, [&](size_t n, size_t oc, size_t oh, size_t ow, const Channel& ch, size_t) {
            float& sum = dst[((n * g.oc + oc) * g.oh + oh) * g.ow + ow];
            for (size_t fh = 0; fh < g.fh; ++fh)
                for (size_t fw = 0; fw < g.fw; ++fw) {
                    const Tap t = tap(g, ch.offset, oh, ow, fh, fw);
                    const float val =
                        inside(g, t.h, t.w) ? bilinear(ch.im, int(g.ih), int(g.iw), t.h, t.w) : 0.f;
                    sum += val * ch.mask[t.mask] * ch.filter[fh * g.fw + fw];
                }
        });
}

void deformable_conv_backward_filter(KernelContext& ctx) {
    const DeformGeometry g = geometry(ctx);
    auto grad = out_at(ctx, 0).mutable_data<float>();
    const float *im = ctx.in(0).data<float>().data(), *flt = ctx.in(1).data<float>().data();
    const float *offset = ctx.in(2).data<float>().data(), *mask = ctx.in(3).data<float>().data();
    const float* diff = ctx.in(4).data<float>().data();
    std::fill(grad.begin(), grad.end(), 0.f);
    for_each_channel(g, im, flt, offset, mask,
                     [&](size_t n, size_t oc, size_t oh, size_t ow, const Channel& ch, size_t fbase) {
                         const float o_grad = diff[((n * g.oc + oc) * g.oh + oh) * g.ow + ow];
                         for (size_t fh = 0; fh < g.fh; ++fh)
                             for (size_t fw = 0; fw < g.fw; ++fw) {
                                 const Tap t = tap(g, ch.offset, oh, ow, fh, fw);
                                 const float val = inside(g, t.h, t.w)
                                                       ? bilinear(ch.im, int(g.ih), int(g.iw), t.h, t.w)
                                                       : 0.f;
                                 grad[fbase + fh * g.fw + fw] += val * ch.mask[t.mask] * o_grad;
                             }
                     });
}

// MegDNN's loop runs n, group, oc, ...: the same order as for_each_channel.
void deformable_conv_backward_data(KernelContext& ctx) {
    const DeformGeometry g = geometry(ctx);
    auto im_grad = out_at(ctx, 0).mutable_data<float>();
    auto off_grad = out_at(ctx, 1).mutable_data<float>();
    auto mask_grad = out_at(ctx, 2).mutable_data<float>();
    const float *im = ctx.in(0).data<float>().data(), *flt = ctx.in(1).data<float>().data();
    const float *offset = ctx.in(2).data<float>().data(), *mask = ctx.in(3).data<float>().data();
    const float* diff = ctx.in(4).data<float>().data();
    std::fill(im_grad.begin(), im_grad.end(), 0.f);
    std::fill(off_grad.begin(), off_grad.end(), 0.f);
    std::fill(mask_grad.begin(), mask_grad.end(), 0.f);
    const int H = static_cast<int>(g.ih), W = static_cast<int>(g.iw);
    for_each_channel(
        g, im, flt, offset, mask, [&](size_t n, size_t oc, size_t oh, size_t ow, const Channel& ch, size_t) {
            const float out_grad = diff[((n * g.oc + oc) * g.oh + oh) * g.ow + ow];
            float* ig = im_grad.data() + ch.im_base;
            float* og = off_grad.data() + ch.off_base;
            float* mg = mask_grad.data() + ch.mask_base;
            for (size_t fh = 0; fh < g.fh; ++fh)
                for (size_t fw = 0; fw < g.fw; ++fw) {
                    Tap t = tap(g, ch.offset, oh, ow, fh, fw);
                    const float m = ch.mask[t.mask];
                    const float col_grad = out_grad * ch.filter[fh * g.fw + fw];
                    if (t.h <= -1.f || t.w <= -1.f || t.h >= H || t.w >= W) {
                        t.h = t.w = -2.f;
                    } else {
                        mg[t.mask] += col_grad * bilinear(ch.im, H, W, t.h, t.w);
                    }
                    const float weight_h = coordinate_weight(ch.im, H, W, t.h, t.w, 0);
                    const float weight_w = coordinate_weight(ch.im, H, W, t.h, t.w, 1);
                    og[t.off_h] += col_grad * m * weight_h;
                    og[t.off_w] += col_grad * m * weight_w;
                    const int ih_hat = static_cast<int>(t.h), iw_hat = static_cast<int>(t.w);
                    for (int dy = ih_hat - 2; dy <= ih_hat + 2; dy++)
                        for (int dx = iw_hat - 2; dx <= iw_hat + 2; dx++)
                            if (dy >= 0 && dy < H && dx >= 0 && dx < W && std::fabs(t.h - dy) < 1.f &&
                                std::fabs(t.w - dx) < 1.f)
                                ig[dy * W + dx] += gradient_weight(H, W, dy, dx, t.h, t.w) * m * col_grad;
                }
        });
}

}  // namespace mgedump::engine::eval
