// Inference rules of the normalisation operators (see ir/infer/nn_norm.h).
// MegEngine: src/opr/impl/dnn/batch_norm.cpp, layer_norm.cpp, group_norm.cpp,
// instance_norm.cpp, general_norm.cpp; MegDNN: dnn/src/common/batch_normalization.cpp,
// layer_norm.cpp, group_norm.cpp, general_norm.cpp; loaders: dnn.sereg.h.
#include "ir/infer/nn_common.h"
#include "ir/infer/nn_norm.h"

namespace mgedump::ir::nn {
namespace {

const DType kF32 = DType::of(DTypeEnum::Float32);

// The forward norms take the data alone (affine=false) or data, weight and bias
// (dnn.sereg.h OprMaker<LayerNorm/GroupNorm/GeneralNorm/InstanceNorm>). Their
// scn_do_execute reads inputs 1 and 2 whenever `affine` is set, so an affine
// norm without them cannot run.
bool norm_inputs(const InferContext& ctx) {
    const size_t n = ctx.nr_inputs();
    if (n != 1 && n != 3) ctx.fail("takes 1 input (data, affine=false) or 3 (data, weight, bias), has {}", n);
    const bool affine = ctx.int_field("affine") != 0;
    if (affine && n == 1) ctx.fail("affine=true needs the weight and bias inputs (3 inputs), has 1");
    if (n == 3 && affine && ctx.shape(1).known() && ctx.shape(2).known() && !(ctx.shape(1) == ctx.shape(2)))
        ctx.fail("weight {} and bias {} must have the same shape", shape_string(ctx.shape(1)),
                 shape_string(ctx.shape(2)));
    return affine && n == 3;
}

void need_float_data(const InferContext& ctx) {
    const DType d = ctx.dtype(0);
    if (d.valid && !dtype_is_float(d.type)) ctx.fail("needs a float input, input 0 is {}", dtype_string(d));
}

void need_nchw(const InferContext& ctx) {
    const std::string_view f = ctx.enum_field("format");
    if (f != "NCHW") ctx.fail("supports only format NCHW, got {}", f);
}

// y (data's dtype and shape), then mean and rstd (Float32, `stat` or unknown).
void norm_outputs(InferContext& ctx, const Shape& stat) {
    ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
    ctx.set_output(1, kF32, stat);
    ctx.set_output(2, kF32, stat);
}

}  // namespace

void batch_norm(InferContext& ctx) {
    // dnn.sereg.h:462 OprMaker<BatchNorm>: 3 inputs or 5, nothing else.
    const size_t n = ctx.nr_inputs();
    if (n != 3 && n != 5)
        ctx.fail("takes 3 inputs (x, scale, bias) or 5 (x, scale, bias, mean, variance), has {}", n);
    // batch_norm.h need_stats(): running statistics only in TRAINING with 5 inputs;
    // otherwise outputs 0 and 1 are empty volatile vars, which a file leaves unnumbered.
    const bool need_stats = n == 5 && ctx.enum_field("fwd_mode") == "TRAINING";
    const size_t nout = ctx.nr_outputs();
    if (nout != 6 && !(nout == 4 && !need_stats))
        ctx.fail("has {} outputs; BatchNorm has 6 (mean, variance, saved_mean, saved_variance, reserve, y){}", nout,
                 need_stats ? "" : ", or 4 without the empty mean and variance");
    const size_t first = nout == 6 ? 0 : 2;

    // batch_norm.cpp init_output_dtype: inputs 1.. share one dtype; check_exec: float data and params.
    const DType x = ctx.dtype(0), p = ctx.dtype(1);
    need_float_data(ctx);
    if (p.valid && !dtype_is_float(p.type)) ctx.fail("needs float scale, input 1 is {}", dtype_string(p));
    for (size_t i = 2; i < n; ++i)
        if (p.valid && ctx.dtype(i).valid && !(ctx.dtype(i) == p))
            ctx.fail("input {} must have the dtype of scale ({}), has {}", i, dtype_string(p),
                     dtype_string(ctx.dtype(i)));

    Shape stat, saved, reserve, y;
    if (all_shapes_known(ctx)) {
        const Shape& xs = ctx.shape(0);
        const Shape& ss = ctx.shape(1);
        // batch_norm.cpp get_output_var_shape: 4-dim input, scale and bias with one channel count.
        if (xs.ndim != 4 || ss.ndim != 4 || ctx.shape(2).ndim != 4)
            ctx.fail("needs 4-dim input, scale and bias, got {}, {}, {}", shape_string(xs), shape_string(ss),
                     shape_string(ctx.shape(2)));
        const uint32_t c = ctx.enum_field("param_dim") == "DIM_111C" ? 3 : 1;
        if (xs[c] != ss[c] || xs[c] != ctx.shape(2)[c])
            ctx.fail("inconsistent channel size (dim {}): input {}, scale {}, bias {}", c, xs[c], ss[c],
                     ctx.shape(2)[c]);
        // check_exec: scale and bias share one layout.
        if (!(ss == ctx.shape(2)))
            ctx.fail("scale {} and bias {} must have the same shape", shape_string(ss), shape_string(ctx.shape(2)));
        // Training updates the running statistics in place: their layout is scale's.
        if (need_stats)
            for (size_t i = 3; i < 5; ++i)
                if (!(ctx.shape(i) == ss))
                    ctx.fail("running statistic input {} {} must have the shape of scale {}", i,
                             shape_string(ctx.shape(i)), shape_string(ss));
        saved = ss;
        stat = need_stats ? ss : Shape::of({0});
        // The reserve holds get_reserve_in_bytes bytes: 0 for MegDNN's CPU
        // (naive) kernels, which are what a dump is inferred on.
        reserve = Shape::of({0});
        y = xs;
    }
    if (first == 0) {
        ctx.set_output(0, p, stat);
        ctx.set_output(1, p, stat);
    }
    ctx.set_output(2 - first, p, saved);
    ctx.set_output(3 - first, p, saved);
    ctx.set_output(4 - first, DType::of(DTypeEnum::Byte), reserve);
    ctx.set_output(5 - first, x, y);
}

void layer_norm(InferContext& ctx) {
    const bool affine = norm_inputs(ctx);
    need_float_data(ctx);
    const int64_t nd = ctx.int_field("normalized_dim");
    Shape stat;
    if (all_shapes_known(ctx)) {
        const Shape& xs = ctx.shape(0);
        // layer_norm.cpp check_layout_fwd: normalized_dim < data.ndim.
        if (nd < 0 || nd >= static_cast<int64_t>(xs.ndim))
            ctx.fail("normalized_dim {} must be smaller than the input's {} dims", nd, xs.ndim);
        const uint32_t keep = xs.ndim - static_cast<uint32_t>(nd);
        if (affine) {
            // The weight covers the normalized (trailing) dims.
            const Shape& w = ctx.shape(1);
            bool ok = w.ndim >= nd;
            for (uint32_t i = 0; ok && i < nd; ++i) ok = w[i] == xs[keep + i];
            if (!ok)
                ctx.fail("weight {} must match the input's last {} dims of {}", shape_string(w), nd,
                         shape_string(xs));
        }
        stat = Shape::of(xs.dims().first(keep));
    }
    norm_outputs(ctx, stat);
}

void group_norm(InferContext& ctx) {
    norm_inputs(ctx);
    need_float_data(ctx);
    need_nchw(ctx);
    const int64_t group = ctx.int_field("group");
    Shape stat;
    if (all_shapes_known(ctx)) {
        const Shape& xs = ctx.shape(0);
        // group_norm.cpp check_layout_fwd: 4-dim, group > 0 and dividing the channels.
        if (xs.ndim != 4) ctx.fail("supports only 4-dim input, got {}", shape_string(xs));
        if (group <= 0) ctx.fail("group must be greater than 0, got {}", group);
        if (xs[1] % group != 0)
            ctx.fail("input channels {} must be divisible by group {}", xs[1], group);
        stat = Shape::of({xs[0], static_cast<uint32_t>(group)});
    }
    norm_outputs(ctx, stat);
}

void instance_norm(InferContext& ctx) {
    // instance_norm.cpp: GroupNorm with one group per channel; statistics [N, C].
    norm_inputs(ctx);
    need_float_data(ctx);
    need_nchw(ctx);
    Shape stat;
    if (all_shapes_known(ctx)) {
        const Shape& xs = ctx.shape(0);
        if (xs.ndim != 4) ctx.fail("supports only 4-dim input, got {}", shape_string(xs));
        if (xs[1] == 0) ctx.fail("input has 0 channels");
        stat = Shape::of({xs[0], xs[1]});
    }
    norm_outputs(ctx, stat);
}

void group_norm_backward(InferContext& ctx) {
    // dnn.sereg.h OprMaker<GroupNormBackward/InstanceNormBackward>: (dy, x, weight,
    // mean, rstd) or, without affine, (dy, x, mean, rstd).
    const size_t n = ctx.nr_inputs();
    if (n != 4 && n != 5)
        ctx.fail("takes 5 inputs (dy, x, weight, mean, rstd) or 4 (dy, x, mean, rstd, affine=false), has {}", n);
    const bool affine = ctx.int_field("affine") != 0;
    if (affine && n == 4) ctx.fail("affine=true needs the weight input (5 inputs), has 4");
    need_nchw(ctx);
    const Shape& dy = ctx.shape(0);
    const Shape& x = ctx.shape(1);
    if (x.known() && x.ndim != 4) ctx.fail("supports only 4-dim input, got {}", shape_string(x));
    if (x.known() && dy.known() && !(x == dy))
        ctx.fail("dy {} must have the shape of x {}", shape_string(dy), shape_string(x));
    // group_norm.cpp init_output_static_infer_desc: dx is x's shape, dw and db
    // weight's when affine, else no shape at all.
    ctx.set_output(0, ctx.dtype(1), x);
    ctx.set_output(1, ctx.dtype(2), affine ? ctx.shape(2) : Shape{});
    ctx.set_output(2, ctx.dtype(2), affine ? ctx.shape(2) : Shape{});
}

void general_norm(InferContext& ctx) {
    const bool affine = norm_inputs(ctx);
    need_float_data(ctx);
    const int64_t start = ctx.int_field("axis_start"), end = ctx.int_field("axis_end");
    Shape stat;
    if (all_shapes_known(ctx)) {
        const Shape& xs = ctx.shape(0);
        if (start < 0 || start > end || end > static_cast<int64_t>(xs.ndim))
            ctx.fail("needs 0 <= axis_start ({}) <= axis_end ({}) <= the input's {} dims", start, end, xs.ndim);
        if (affine) {
            const Shape& w = ctx.shape(1);
            bool ok = w.ndim >= end - start;
            for (int64_t i = start; ok && i < end; ++i) ok = w[i - start] == xs[i];
            if (!ok)
                ctx.fail("weight {} must match dims {} to {} of the input {}", shape_string(w), start, end - 1,
                         shape_string(xs));
        }
        // general_norm.cpp get_output_var_shape: the dims outside [axis_start,
        // axis_end), or [1] when none is left.
        Shape s;
        for (uint32_t i = 0; i < xs.ndim; ++i)
            if (i < start || i >= end) s.dim[s.ndim++] = xs[i];
        stat = s.ndim ? s : Shape::of({1});
    }
    norm_outputs(ctx, stat);
}

}  // namespace mgedump::ir::nn
