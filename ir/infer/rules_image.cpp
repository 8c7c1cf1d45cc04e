// Inference rules: image family (see ir/infer/rules.h). The facts are MegDNN's
// dnn/src/common/{pooling,adaptive_pooling,lrn,resize,warp_perspective,
// warp_affine,remap,relayout_format,padding,roi_align}.cpp and MegBrain's
// src/opr/impl/{imgproc,tensor_manip}.cpp and src/opr/impl/dnn/{adaptive_pooling,roi_align}.cpp.
#include <string>

#include "ir/infer/conv_util.h"
#include "ir/infer/padding_fields.h"
#include "ir/infer/rules.h"
#include "ir/infer/shape_util.h"

namespace mgedump::ir {
namespace {

using conv::window_out;

// dnn/src/common/pooling.cpp check_layout_fwd: float, Int8 or quantized inputs.
// check_exec calls it when the graph runs; building one (deduce_layout) checks
// no dtype, so MegEngine's loader reads such a graph. The output keeps the
// input's dtype either way.
void need_pooling_dtype(const InferContext& ctx, DType d) {
    if (d.valid && !(dtype_is_float(d.type) || d.type == DTypeEnum::Int8 || dtype_is_quantized(d.type)))
        ctx.fail_when_run("pooling supports float, Int8 and quantized inputs, input 0 is {}",
                          dtype_string(d));
}

// Where the channel-packed formats keep their spatial dims: [n, c/k, h, w, k].
bool packed5(std::string_view f) {
    return f == "NCHW4" || f == "NCHW44" || f == "NCHW88" || f == "NCHW32" || f == "NCHW64";
}

// dnn/src/common/pooling.cpp deduce_layout_impl (NCHW, NHWC and the NCHWx packings).
void rule_pooling(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const std::string_view format = ctx.enum_field("format");
    const uint32_t ph = static_cast<uint32_t>(ctx.int_field("pad_h"));
    const uint32_t pw = static_cast<uint32_t>(ctx.int_field("pad_w"));
    const uint32_t sh = static_cast<uint32_t>(ctx.int_field("stride_h"));
    const uint32_t sw = static_cast<uint32_t>(ctx.int_field("stride_w"));
    const uint32_t wh = static_cast<uint32_t>(ctx.int_field("window_h"));
    const uint32_t ww = static_cast<uint32_t>(ctx.int_field("window_w"));
    // MegEngine divides by the stride unchecked and dies of SIGFPE.
    if (sh == 0 || sw == 0) ctx.fail("stride_h {}, stride_w {}: a stride of 0 is refused", sh, sw);
    if (format != "NCHW" && format != "NHWC" && !packed5(format))
        ctx.fail("format {} is not supported by mgedump's inference (NCHW, NHWC, NCHWx are)", format);
    const DType d = ctx.dtype(0);
    need_pooling_dtype(ctx, d);
    const Shape& src = ctx.shape(0);
    if (!src.known()) return ctx.set_output(0, d, Shape{});
    // deduce_layout_impl takes an empty input only as a 4-dim NCHW or NHWC one.
    if (src.elements() == 0 && packed5(format))
        ctx.fail("an empty input {} is supported only in formats NCHW and NHWC, not {}", shape_string(src),
                 format);
    const uint32_t want = packed5(format) ? 5 : 4;
    if (src.ndim != want)
        ctx.fail("format {} needs a {}-dim input, input 0 is {}", format, want, shape_string(src));
    const size_t h_pos = format == "NHWC" ? 1 : 2;
    Shape out = src;
    out[h_pos] = window_out(ctx, "height", src[h_pos], wh, sh, ph);
    out[h_pos + 1] = window_out(ctx, "width", src[h_pos + 1], ww, sw, pw);
    // The packed formats write their block size, not the input's last dim.
    if (packed5(format))
        out[4] = format == "NCHW88" ? 8 : format == "NCHW32" ? 32 : format == "NCHW64" ? 64 : 4;
    ctx.set_output(0, d, out);
}

// src/opr/impl/dnn/adaptive_pooling.cpp outshape_by_symvar_do_get_output_shape;
// the window and stride come from dnn/src/common/adaptive_pooling.cpp.
void rule_adaptive_pooling(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const std::string_view format = ctx.enum_field("format");
    if (format != "NCHW" && format != "NHWC" && format != "NCHW44" && format != "NCHW88")
        ctx.fail("AdaptivePooling supports formats NCHW, NHWC, NCHW44, NCHW88, not {}", format);
    const DType d = ctx.dtype(0);
    need_pooling_dtype(ctx, d);
    const auto oshp = conv::shape_value(ctx, 1);
    const Shape& src = ctx.shape(0);
    if (!oshp || !src.known()) return ctx.set_output(0, d, Shape{});
    if ((src.ndim != 4 && src.ndim != 5) || (oshp->size() != 1 && oshp->size() != 2))
        ctx.fail("needs a 4- or 5-dim input and a 1- or 2-element output size, got {} and {} elements",
                 shape_string(src), oshp->size());
    const uint32_t oh = (*oshp)[0], ow = oshp->size() == 1 ? (*oshp)[0] : (*oshp)[1];
    Shape out = src;
    const size_t h_pos = format == "NHWC" ? 1 : 2;
    if (format == "NCHW" || format == "NHWC") out.ndim = 4;
    out[h_pos] = oh;
    out[h_pos + 1] = ow;
    // The derived pooling has stride in/out: an empty or larger output makes it divide
    // by zero.
    const uint32_t ih = src[h_pos], iw = src[h_pos + 1];
    if (oh == 0 || ow == 0 || oh > ih || ow > iw)
        ctx.fail("the output size {}x{} must be positive and at most the input's {}x{}", oh, ow, ih, iw);
    ctx.set_output(0, d, out);
}

// dnn/src/common/roi_align.cpp deduce_layout_fwd: src (N, C, H, W) and rois (M, 5)
// rows of (batch index, x0, y0, x1, y1) give dst (M, C, pooled_height, pooled_width)
// and its Int32 argmax index. MegBrain's ROIAlignForward asserts a Float32 src, and
// MegDNN needs rois of src's dtype and the NCHW format.
void rule_roi_align(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const std::string_view format = ctx.enum_field("format");
    if (format != "NCHW") ctx.fail("ROIAlign supports format NCHW only, not {}", format);
    const DType d = ctx.dtype(0), rd = ctx.dtype(1);
    if (d.valid && d.type != DTypeEnum::Float32)
        ctx.fail("ROIAlign needs a Float32 input (MegBrain asserts it), input 0 is {}", dtype_string(d));
    if (d.valid && rd.valid && !(rd == d))
        ctx.fail("ROIAlign needs rois of the input's dtype {}, input 1 is {}", dtype_string(d), dtype_string(rd));
    const DType index = DType::of(DTypeEnum::Int32);
    const Shape &src = ctx.shape(0), &rois = ctx.shape(1);
    if (src.known() && src.ndim != 4) ctx.fail("ROIAlign needs a 4-dim input (N, C, H, W), input 0 is {}", shape_string(src));
    if (rois.known() && (rois.ndim != 2 || rois[1] != 5))
        ctx.fail("ROIAlign needs rois of shape (M, 5): batch index, x0, y0, x1, y1; input 1 is {}",
                 shape_string(rois));
    if (!src.known() || !rois.known()) {
        ctx.set_output(0, d, Shape{});
        ctx.set_output(1, index, Shape{});
        return;
    }
    const Shape out = Shape::of({rois[0], src[1], static_cast<uint32_t>(ctx.int_field("pooled_height")),
                                 static_cast<uint32_t>(ctx.int_field("pooled_width"))});
    ctx.set_output(0, d, out);
    ctx.set_output(1, index, out);
}

// dnn/src/common/lrn.cpp: the output is the input; n odd, float dtypes.
void rule_lrn(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const int64_t n = ctx.int_field("n");
    if (n % 2 == 0) ctx.fail("LRN needs an odd window n, got {}", n);
    const DType d = ctx.dtype(0);
    if (d.valid && !dtype_is_float(d.type))
        ctx.fail("LRN needs a float input, input 0 is {}", dtype_string(d));
    ctx.set_output(0, d, ctx.shape(0));
}

// The spatial dims an image operator writes its 2-element output size into.
void place_hw(Shape& out, std::string_view format, bool nchw_like, uint32_t oh, uint32_t ow) {
    if (format == "NHWCD4") {
        out[1] = oh;
        out[3] = ow;
        return;
    }
    const size_t h = nchw_like ? 2 : 1;
    out[h] = oh;
    out[h + 1] = ow;
}

// imgproc.cpp ResizeForward::outshape_by_symvar_do_get_output_shape, resize.cpp check_layout_fwd.
void rule_resize(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const std::string_view format = ctx.enum_field("format");
    const std::string_view imode = ctx.enum_field("imode");
    const bool nchw_like = format == "NCHW" || format == "NCHW4" || format == "NCHW44" || format == "NCHW88";
    if (!nchw_like && format != "NHWC" && format != "NHWCD4")
        ctx.fail("Resize supports formats NCHW, NHWC, NCHW4, NCHW44, NCHW88, NHWCD4, not {}", format);
    if (format == "NCHW" && imode != "LINEAR" && imode != "NEAREST" && imode != "CUBIC")
        ctx.fail("Resize in NCHW supports imode LINEAR, NEAREST, CUBIC, not {}", imode);
    if ((format == "NCHW44" || format == "NCHW88" || format == "NHWCD4") && imode != "LINEAR" &&
        imode != "NEAREST")
        ctx.fail("Resize in {} supports imode LINEAR and NEAREST, not {}", format, imode);
    const DType d = ctx.dtype(0);
    if (format == "NCHW4" && d.valid && d.type != DTypeEnum::QuantizedS8)
        ctx.fail("Resize in NCHW4 needs a QuantizedS8 input, input 0 is {}", dtype_string(d));
    const auto oshp = conv::shape_value(ctx, 1);
    const Shape& src = ctx.shape(0);
    if (!oshp || !src.known()) return ctx.set_output(0, d, Shape{});
    if ((src.ndim != 4 && src.ndim != 5) || oshp->size() != 2)
        ctx.fail("needs a 4- or 5-dim input and a 2-element output size, got {} and {} elements",
                 shape_string(src), oshp->size());
    const uint32_t pack = format == "NCHW88" ? 8 : 4;
    if (format != "NCHW" && format != "NHWC" && (src.ndim != 5 || src[4] != pack))
        ctx.fail("format {} needs a 5-dim input ending in {}, input 0 is {}", format, pack,
                 shape_string(src));
    Shape out = src;
    place_hw(out, format, nchw_like, (*oshp)[0], (*oshp)[1]);
    ctx.set_output(0, d, out);
}

bool border_excluded(std::string_view bmode) { return bmode == "TRANSPARENT" || bmode == "ISOLATED"; }

// The NCHW checks WarpPerspective and WarpAffine share (warp_perspective.cpp,
// warp_affine.cpp check_layout_fwd): listed dtypes, a Float32 (or same float) matrix,
// LINEAR interpolation, no TRANSPARENT/ISOLATED border.
void check_warp_nchw(const InferContext& ctx, DType src, DType mat, std::string_view imode,
                     std::string_view bmode, bool allow_4bit) {
    const DTypeEnum t = src.type;
    const bool ok = t == DTypeEnum::Float32 || t == DTypeEnum::Float16 || t == DTypeEnum::BFloat16 ||
                    t == DTypeEnum::Int8 || t == DTypeEnum::Uint8 || t == DTypeEnum::QuantizedS8 ||
                    t == DTypeEnum::Quantized8Asymm ||
                    (allow_4bit && (t == DTypeEnum::QuantizedS4 || t == DTypeEnum::Quantized4Asymm));
    if (!ok) ctx.fail("an NCHW warp does not support input dtype {}", dtype_string(src));
    if (mat.valid) {
        const bool mat_ok = mat.type == DTypeEnum::Float32 || (dtype_is_float(t) && mat == src);
        if (!mat_ok)
            ctx.fail("the matrix must be Float32 (or the float input's dtype {}), it is {}",
                     dtype_string(src), dtype_string(mat));
    }
    if (imode != "LINEAR") ctx.fail("an NCHW warp only supports imode LINEAR, not {}", imode);
    if (border_excluded(bmode)) ctx.fail("an NCHW warp does not support border mode {}", bmode);
}

// imgproc.cpp WarpPerspectiveForward; inputs (src, mat[, mat_idx], out_shape).
void rule_warp_perspective(InferContext& ctx) {
    ctx.expect_inputs(3, 4);
    const std::string_view format = ctx.enum_field("format");
    if (format != "NCHW" && format != "NHWC")
        ctx.fail("format {} is not supported by mgedump's inference of WarpPerspective (NCHW, NHWC are)",
                 format);
    const bool with_idx = ctx.nr_inputs() == 4;
    const DType src_d = ctx.dtype(0);
    const DType d = ctx.config_dtype().valid ? ctx.config_dtype() : src_d;
    if (src_d.valid && d.valid) {
        if (!(d == src_d)) {
            // warp_perspective.cpp: a dtype change is only Uint8/Quantized8Asymm → Float32 in NCHW.
            if (format != "NCHW" ||
                !((src_d.type == DTypeEnum::Quantized8Asymm || src_d.type == DTypeEnum::Uint8) &&
                  d.type == DTypeEnum::Float32))
                ctx.fail(
                    "WarpPerspective only changes the dtype from Uint8/Quantized8Asymm to Float32 in NCHW, "
                    "not {} to {}",
                    dtype_string(src_d), dtype_string(d));
        } else if (format == "NCHW") {
            check_warp_nchw(ctx, src_d, ctx.dtype(1), ctx.enum_field("imode"), ctx.enum_field("bmode"), true);
        }
    }
    if (with_idx && ctx.dtype(2).valid && ctx.dtype(2).type != DTypeEnum::Int32)
        ctx.fail("mat_idx (input 2) must be Int32, it is {}", dtype_string(ctx.dtype(2)));
    const auto oshp = conv::shape_value(ctx, ctx.nr_inputs() - 1);
    const Shape& img = ctx.shape(0);
    const Shape& mat = ctx.shape(1);
    if (!oshp || !img.known() || !mat.known() || (with_idx && !ctx.shape(2).known()))
        return ctx.set_output(0, d, Shape{});
    if (img.ndim != 4 || mat.ndim != 3 || mat[1] != 3 || mat[2] != 3 || oshp->size() != 2)
        ctx.fail(
            "needs a 4-dim image, a [N,3,3] matrix and a 2-element output size, got {}, {} and {} elements",
            shape_string(img), shape_string(mat), oshp->size());
    if (with_idx) {
        const Shape& idx = ctx.shape(2);
        if (idx.ndim != 1 || idx[0] != mat[0])
            ctx.fail("mat_idx (input 2) must be [{}], one index per matrix, it is {}", mat[0],
                     shape_string(idx));
    } else if (img[0] != mat[0]) {
        ctx.fail("the image batch {} and the matrix batch {} must match", img[0], mat[0]);
    }
    Shape out = img;
    out[0] = mat[0];
    place_hw(out, format, format == "NCHW", (*oshp)[0], (*oshp)[1]);
    ctx.set_output(0, d, out);
}

// imgproc.cpp WarpAffineForward; inputs (src, mat[N,2,3], out_shape).
void rule_warp_affine(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    const std::string_view format = ctx.enum_field("format");
    const std::string_view imode = ctx.enum_field("imode");
    if (format != "NCHW" && format != "NHWC")
        ctx.fail("format {} is not supported by mgedump's inference of WarpAffine (NCHW, NHWC are)", format);
    const DType d = ctx.dtype(0);
    if (d.valid && format == "NCHW")
        check_warp_nchw(ctx, d, ctx.dtype(1), imode, ctx.enum_field("border_mode"), false);
    if (format == "NHWC" && imode == "AREA") ctx.fail("WarpAffine in NHWC does not support imode AREA");
    const auto oshp = conv::shape_value(ctx, 2);
    const Shape& img = ctx.shape(0);
    const Shape& mat = ctx.shape(1);
    if (!oshp || !img.known() || !mat.known()) return ctx.set_output(0, d, Shape{});
    if (img.ndim != 4 || mat.ndim != 3 || mat[0] != img[0] || mat[1] != 2 || mat[2] != 3 || oshp->size() != 2)
        ctx.fail(
            "needs a 4-dim image, a [{},2,3] matrix and a 2-element output size, got {}, {} and {} elements",
            img[0], shape_string(img), shape_string(mat), oshp->size());
    Shape out = img;
    place_hw(out, format, format == "NCHW", (*oshp)[0], (*oshp)[1]);
    ctx.set_output(0, d, out);
}

// dnn/src/common/remap.cpp: the output takes map_xy's [N, oh, ow, 2] spatial dims.
void rule_remap(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const std::string_view format = ctx.enum_field("format");
    if (format != "NCHW" && format != "NHWC")
        ctx.fail("format {} is not supported by mgedump's inference of Remap (NCHW, NHWC are)", format);
    const DType d = ctx.dtype(0);
    if (ctx.dtype(1).valid && ctx.dtype(1).type != DTypeEnum::Float32)
        ctx.fail("map_xy (input 1) must be Float32, it is {}", dtype_string(ctx.dtype(1)));
    const Shape& src = ctx.shape(0);
    const Shape& map = ctx.shape(1);
    if (!src.known() || !map.known()) return ctx.set_output(0, d, Shape{});
    if (src.ndim != 4 || map.ndim != 4 || map[3] != 2 || map[0] != src[0])
        ctx.fail("needs a 4-dim input and a [{},oh,ow,2] map_xy, got {} and {}", src[0], shape_string(src),
                 shape_string(map));
    const Shape out = format == "NCHW" ? Shape::of({src[0], src[1], map[1], map[2]})
                                       : Shape::of({src[0], map[1], map[2], src[3]});
    ctx.set_output(0, d, out);
}

uint32_t div_ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// dnn/src/common/relayout_format.cpp deduce_layout_fwd, for the plain layout
// conversions (no weight or image-2D modes).
void rule_relayout_format(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const std::string_view mode = ctx.enum_field("mode");
    const uint32_t oc = static_cast<uint32_t>(ctx.int_field("oc"));
    const uint32_t group = static_cast<uint32_t>(ctx.int_field("group"));
    static constexpr std::string_view kModes[] = {
        "NCHW_NCHW4",  "NCHW4_NCHW",  "NCHW_NHWC",   "NHWC_NCHW",   "NCHW_NCHW88",        "NCHW88_NCHW",
        "NCHW_NCHW64", "NCHW64_NCHW", "NCHW4_CHWN4", "CHWN4_NCHW4", "NCHW_NCHW4_IC_SMALL"};
    bool modelled = false;
    for (std::string_view m : kModes) modelled = modelled || m == mode;
    if (!modelled) ctx.fail("mode {} is not supported by mgedump's inference of RelayoutFormat", mode);
    // src/opr/impl/tensor_manip.cpp: the config dtype, else the input's.
    const DType d = ctx.config_dtype().valid ? ctx.config_dtype() : ctx.dtype(0);
    const Shape& s = ctx.shape(0);
    if (!s.known()) return ctx.set_output(0, d, Shape{});
    const bool from5 = mode == "NCHW4_NCHW" || mode == "NCHW88_NCHW" || mode == "NCHW64_NCHW" ||
                       mode == "NCHW4_CHWN4" || mode == "CHWN4_NCHW4";
    if (s.ndim != (from5 ? 5u : 4u))
        ctx.fail("mode {} needs a {}-dim input, input 0 is {}", mode, from5 ? 5 : 4, shape_string(s));
    Shape out;
    if (mode == "NCHW_NCHW4") {
        if (group == 0 || s[1] % group) ctx.fail("the {} channels must divide into group {}", s[1], group);
        out = Shape::of({s[0], group * div_ceil(s[1] / group, 4), s[2], s[3], 4});
    } else if (mode == "NCHW_NCHW4_IC_SMALL") {
        if (s[1] > 4) ctx.fail("mode NCHW_NCHW4_IC_SMALL needs at most 4 channels, input 0 has {}", s[1]);
        out = Shape::of({s[0], div_ceil(s[1], 4), s[2], s[3], 4});
    } else if (mode == "NCHW4_NCHW") {
        const uint32_t c = oc == 0 ? s[1] * 4 : oc;
        if (group == 0 || c % group) ctx.fail("the {} output channels must divide into group {}", c, group);
        out = Shape::of({s[0], c, s[2], s[3]});
    } else if (mode == "NCHW_NHWC") {
        out = Shape::of({s[0], s[2], s[3], s[1]});
    } else if (mode == "NHWC_NCHW") {
        out = Shape::of({s[0], s[3], s[1], s[2]});
    } else if (mode == "NCHW_NCHW88") {
        out = Shape::of({s[0], div_ceil(s[1], 8), s[2], s[3], 8});
    } else if (mode == "NCHW88_NCHW") {
        out = Shape::of({s[0], s[1] * 8, s[2], s[3]});
    } else if (mode == "NCHW_NCHW64") {
        out = Shape::of({s[0], div_ceil(s[1], 64), s[2], s[3], 64});
    } else if (mode == "NCHW64_NCHW") {
        out = Shape::of({s[0], oc == 0 ? s[1] * 64 : oc, s[2], s[3]});
    } else {
        if (s[4] != 4) ctx.fail("mode {} needs a last dim of 4, input 0 is {}", mode, shape_string(s));
        out = mode == "NCHW4_CHWN4" ? Shape::of({s[1], s[2], s[3], s[0], s[4]})
                                    : Shape::of({s[3], s[0], s[1], s[2], s[4]});
    }
    ctx.set_output(0, d, out);
}

// dnn/src/common/padding.cpp: every dim grows by its front and back offsets.
void rule_padding(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const DType d = ctx.dtype(0);
    if (d.valid && (d.type == DTypeEnum::Bool || d.type == DTypeEnum::IntB1 || d.type == DTypeEnum::IntB2 ||
                    d.type == DTypeEnum::IntB4))
        ctx.fail("padding does not support dtype {}", dtype_string(d));
    const Shape& s = ctx.shape(0);
    if (!s.known()) return ctx.set_output(0, d, Shape{});
    Shape out = s;
    for (uint32_t i = 0; i < kMaxNdim; ++i) {
        const uint64_t front = static_cast<uint64_t>(ctx.int_field(padding::kFrontOffset[i]));
        const uint64_t back = static_cast<uint64_t>(ctx.int_field(padding::kBackOffset[i]));
        if (i >= s.ndim) continue;
        const uint64_t n = s[i] + front + back;
        if (n > UINT32_MAX) ctx.fail("dim {} padded to {} does not fit", i, n);
        out[i] = static_cast<uint32_t>(n);
    }
    ctx.set_output(0, d, out);
}

}  // namespace

std::span<const InferRuleEntry> image_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Pooling", rule_pooling},
        {"AdaptivePooling", rule_adaptive_pooling},
        {"LRN", rule_lrn},
        {"Resize", rule_resize},
        {"WarpPerspective", rule_warp_perspective},
        {"WarpAffine", rule_warp_affine},
        {"Remap", rule_remap},
        {"RelayoutFormat", rule_relayout_format},
        {"Padding", rule_padding},
        {"ROIAlign", rule_roi_align},
    };
    return kRules;
}

}  // namespace mgedump::ir
