#include "engine/eval/conv_local_share.h"

#include <algorithm>
#include <cstddef>

#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

// The filter is [sgh, sgw, icpg, fh, fw, ocpg] per group ([g, ...] for GROUP).
struct LocalShareGeometry {
    size_t n, ic, ih, iw, oc, oh, ow, fh, fw;
    size_t group, icpg, ocpg, sgh, sgw;
    size_t ph, pw, sh, sw;
};

LocalShareGeometry geometry(const KernelContext& ctx, const ir::Shape& src, const ir::Shape& filter,
                            const ir::Shape& dst) {
    const ir::InferContext& p = ctx.params();
    if (p.enum_field("format") != "NCHW")
        ctx.fail("format {} is not implemented; NCHW only", p.enum_field("format"));
    // MegDNN's local share kernels compute cross-correlation whatever the mode says.
    if (p.enum_field("mode") != "CROSS_CORRELATION")
        ctx.fail("mode {} is not implemented (MegDNN's local share ignores it); CROSS_CORRELATION only",
                 p.enum_field("mode"));
    const bool grouped = p.enum_field("sparse") == "GROUP";
    const uint32_t s = grouped ? 1 : 0;
    if (src.ndim != 4 || dst.ndim != 4 || filter.ndim != 6 + s)
        ctx.fail("unexpected shapes {} / {} / {}", ir::shape_string(src), ir::shape_string(filter),
                 ir::shape_string(dst));
    LocalShareGeometry g{};
    g.n = src[0];
    g.ic = src[1];
    g.ih = src[2];
    g.iw = src[3];
    g.oc = dst[1];
    g.oh = dst[2];
    g.ow = dst[3];
    g.group = grouped ? filter[0] : 1;
    g.fh = filter[s + 3];
    g.fw = filter[s + 4];
    g.icpg = g.ic / g.group;
    g.ocpg = g.oc / g.group;
    g.sgh = static_cast<size_t>(p.int_field("spatial_groups_h"));
    g.sgw = static_cast<size_t>(p.int_field("spatial_groups_w"));
    g.ph = static_cast<size_t>(p.int_field("pad_h"));
    g.pw = static_cast<size_t>(p.int_field("pad_w"));
    g.sh = static_cast<size_t>(p.int_field("stride_h"));
    g.sw = static_cast<size_t>(p.int_field("stride_w"));
    if (p.int_field("dilate_h") != 1 || p.int_field("dilate_w") != 1) ctx.fail("dilation is not supported");
    if (g.sgh == 0 || g.sgw == 0 || g.oh % g.sgh || g.ow % g.sgw) ctx.fail("bad spatial groups");
    return g;
}

// Calls f(src index, filter index, dst index) for every product of the
// operator, each output's terms in the order fh, fw, ic (MegDNN's naive_kern).
template <class F>
void for_each_term(const LocalShareGeometry& g, F&& f) {
    const size_t grp_oh = g.oh / g.sgh, grp_ow = g.ow / g.sgw;
    const size_t window = g.fh * g.fw * g.ocpg;       // one input channel's filter
    const size_t block = g.icpg * window;             // one spatial group's filter
    const size_t group_size = block * g.sgh * g.sgw;  // one group's filter
    for (size_t n = 0; n < g.n; ++n)
        for (size_t oc = 0; oc < g.oc; ++oc) {
            const size_t grp = oc / g.ocpg, off = oc % g.ocpg, ic0 = grp * g.icpg;
            for (size_t oh = 0; oh < g.oh; ++oh)
                for (size_t ow = 0; ow < g.ow; ++ow) {
                    const size_t d = ((n * g.oc + oc) * g.oh + oh) * g.ow + ow;
                    const size_t fbase = grp * group_size + (oh / grp_oh * g.sgw + ow / grp_ow) * block + off;
                    for (size_t fh = 0; fh < g.fh; ++fh)
                        for (size_t fw = 0; fw < g.fw; ++fw) {
                            const size_t ih = g.sh * oh + fh - g.ph, iw = g.sw * ow + fw - g.pw;
                            // Unsigned: above the top or left edge wraps to a huge index.
                            if (g.sh * oh + fh < g.ph || g.sw * ow + fw < g.pw || ih >= g.ih || iw >= g.iw)
                                continue;
                            for (size_t c = 0; c < g.icpg; ++c) {
                                const size_t si = ((n * g.ic + ic0 + c) * g.ih + ih) * g.iw + iw;
                                f(si, fbase + c * window + (fh * g.fw + fw) * g.ocpg, d);
                            }
                        }
                }
        }
}

Tensor& float_output(KernelContext& ctx) {
    Tensor& out = ctx.out(0);
    if (out.empty()) ctx.fail("the output shape is not known");
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (ctx.in(i).dtype().type != ir::DTypeEnum::Float32 && i < 2)
            ctx.fail("input {} is {}: local share is Float32 only", i, ir::dtype_string(ctx.in(i).dtype()));
    return out;
}

}  // namespace

void local_share_forward(KernelContext& ctx) {
    Tensor& out = float_output(ctx);
    const LocalShareGeometry g = geometry(ctx, ctx.in(0).shape(), ctx.in(1).shape(), out.shape());
    auto s = ctx.in(0).data<float>();
    auto f = ctx.in(1).data<float>();
    auto d = out.mutable_data<float>();
    std::fill(d.begin(), d.end(), 0.0f);
    for_each_term(g, [&](size_t si, size_t fi, size_t di) { d[di] += s[si] * f[fi]; });
}

void local_share_backward_data(KernelContext& ctx) {
    Tensor& out = float_output(ctx);
    const LocalShareGeometry g = geometry(ctx, out.shape(), ctx.in(0).shape(), ctx.in(1).shape());
    auto f = ctx.in(0).data<float>();
    auto d = ctx.in(1).data<float>();
    auto gs = out.mutable_data<float>();
    std::fill(gs.begin(), gs.end(), 0.0f);
    for_each_term(g, [&](size_t si, size_t fi, size_t di) { gs[si] += f[fi] * d[di]; });
}

void local_share_backward_filter(KernelContext& ctx) {
    Tensor& out = float_output(ctx);
    const LocalShareGeometry g = geometry(ctx, ctx.in(0).shape(), out.shape(), ctx.in(1).shape());
    auto s = ctx.in(0).data<float>();
    auto d = ctx.in(1).data<float>();
    auto gf = out.mutable_data<float>();
    std::fill(gf.begin(), gf.end(), 0.0f);
    for_each_term(g, [&](size_t si, size_t fi, size_t di) { gf[fi] += s[si] * d[di]; });
}

}  // namespace mgedump::engine::eval
