// RoiAlign (opsets 10 and 16) onto MegEngine's ROIAlign, whose sampling differs
// from ONNX's in three ways the conversion makes up for:
//  * rois: ONNX gives (x0, y0, x1, y1) rows and a separate batch_indices vector;
//    MegEngine wants (batch index, x0, y0, x1, y1) rows of X's dtype, so the
//    indices are converted to Float32 and concatenated in front.
//  * borders: ONNX (onnxruntime's pre_calc_for_bilinear_interpolate, whose
//    outputs are the test data) clamps a sample point in [−1, 0] to 0 and one in
//    [size − 1, size] to size − 1; MegEngine's bilinear_interp reads 0 for a
//    neighbour outside the input. X is padded by one replicated pixel on every
//    side and the rois shifted by that pixel (offset −1 on top of ONNX's), so every
//    point in [−1, size] reads what ONNX reads. Points further out are 0 in ONNX
//    and a blend toward the replicated edge here: the two agree only for rois
//    whose sample points stay within one pixel of X (every roi inside the image).
//  * roi size: output_half_pixel (opset 10's only mode) makes a roi at least 1
//    pixel wide and high; MegEngine only clamps at 0. The rois are scaled and x1,
//    y1 raised to x0 + 1, y0 + 1 where smaller, so ROIAlign runs with
//    spatial_scale 1. half_pixel keeps ONNX's size; a roi with x1 < x0 would run
//    backwards in ONNX and is empty in MegEngine.
// Constant rois and batch indices become one constant (R, 5) table, computed at
// import with the same Float32 operations the graph would run.
// Refused: mode max (ONNX takes the largest weighted corner term of each sample,
// MegEngine the largest interpolated sample), adaptive sampling (sampling_ratio
// 0) unless the rois are constants that all give the same sample counts, and
// non-Float32 data (MegBrain's ROIAlign asserts Float32).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// ONNX's roi_bin_grid for sampling_ratio 0: ⌈roi size / output size⌉, computed
// in float as onnxruntime does, the same for every roi or refused.
std::pair<int64_t, int64_t> adaptive_grid(Importer& c, int64_t oh, int64_t ow, float scale, bool half_pixel) {
    if (!c.is_const(1))
        c.fail("sampling_ratio 0 (adaptive: ⌈roi size / output size⌉ samples per roi) needs rois known at "
               "conversion; MegEngine's ROIAlign takes one sample count for every roi");
    const std::vector<double> r = c.const_floats(1, "rois");
    std::optional<std::pair<int64_t, int64_t>> grid;
    for (size_t k = 0; k + 3 < r.size(); k += 4) {
        const float off = half_pixel ? 0.5f : 0.f;
        float w = static_cast<float>(r[k + 2]) * scale - off - (static_cast<float>(r[k]) * scale - off);
        float h = static_cast<float>(r[k + 3]) * scale - off - (static_cast<float>(r[k + 1]) * scale - off);
        if (!half_pixel) w = std::max(w, 1.f), h = std::max(h, 1.f);
        const float gh = std::ceil(h / static_cast<float>(oh)), gw = std::ceil(w / static_cast<float>(ow));
        // Checked as floats: the conversion of NaN (a NaN or infinite roi) or of
        // a count past int64 is undefined behaviour.
        if (!(gh >= 1 && gw >= 1))
            c.fail(fmt::format("roi {} is empty, inverted or not a number; adaptive sampling gives it {}x{} samples",
                               k / 4, gh, gw));
        if (!(gh < 0x1p31f && gw < 0x1p31f))
            c.fail(fmt::format("roi {} is too large; adaptive sampling gives it {}x{} samples", k / 4, gh, gw));
        const auto g = std::pair{static_cast<int64_t>(gh), static_cast<int64_t>(gw)};
        if (grid && *grid != g)
            c.fail(fmt::format("sampling_ratio 0 gives roi 0 {}x{} samples and roi {} {}x{}; MegEngine's "
                               "ROIAlign takes one sample count for every roi",
                               grid->first, grid->second, k / 4, g.first, g.second));
        grid = g;
    }
    if (!grid) c.fail("sampling_ratio 0 with no rois: no sample count to take");
    return *grid;
}

// (R) as (R, 1): a Reshape for a count known at import, else a unit axis
// (AxisAddRemove) after the count only the run time knows (nr_rois -1).
ir::VarId as_column(Importer& c, ir::VarId v, int64_t nr_rois) {
    return nr_rois >= 0 ? c.reshape(v, {nr_rois, 1}) : with_unit_axis(c, v, 1);
}

// A column of the (R, 4) rois as (R, 1).
ir::VarId column(Importer& c, ir::VarId rois, int64_t k, int64_t nr_rois) {
    return as_column(c, pick_along(c, rois, 1, k), nr_rois);
}

// The (R, 5) rows MegEngine's ROIAlign takes, from rois known only at run time
// (their values, and R itself for the rois a proposal selection kept):
// (batch index, x0, y0, x1, y1); output_half_pixel's boxes scaled and widened to
// at least 1 pixel (ROIAlign then runs with spatial_scale 1).
ir::VarId runtime_rois(Importer& c, int64_t nr_rois, float scale, bool half_pixel) {
    ir::VarId index = as_column(c, type_cvt(c, c.var(2), ir::DTypeEnum::Float32), nr_rois);
    ir::VarId boxes = c.var(1);
    if (half_pixel) return c.emit("Concat", {index, boxes}, {int_param("axis", 1)});
    // Scaled as ONNX scales them, then x1 ≥ x0 + 1 and y1 ≥ y0 + 1.
    boxes = elemwise(c, "MUL", {boxes, c.const_f32(scale)});
    ir::VarId x0 = column(c, boxes, 0, nr_rois), y0 = column(c, boxes, 1, nr_rois);
    ir::VarId x1 = column(c, boxes, 2, nr_rois), y1 = column(c, boxes, 3, nr_rois);
    ir::VarId one = c.const_f32(1);
    x1 = elemwise(c, "MAX", {x1, elemwise(c, "ADD", {x0, one})});
    y1 = elemwise(c, "MAX", {y1, elemwise(c, "ADD", {y0, one})});
    return c.emit("Concat", {index, x0, y0, x1, y1}, {int_param("axis", 1)});
}

// The same rows computed at import, in the same Float32 operations, when the rois
// and batch indices are constants.
// `batch` is X's batch size, or negative when it is not known at conversion.
ir::VarId constant_rois(Importer& c, float scale, bool half_pixel, int64_t batch) {
    const std::vector<double> r = c.const_floats(1, "rois");
    const std::vector<int64_t> index = c.const_ints(2, "batch_indices");
    std::vector<float> rows;
    rows.reserve(index.size() * 5);
    for (size_t k = 0; k < index.size(); ++k) {
        // MegEngine's ROIAlign reads the image the index names unchecked (outside
        // the feature map for a bad one); onnxruntime refuses it.
        if (index[k] < 0 || (batch >= 0 && index[k] >= batch))
            c.fail(fmt::format("batch_indices[{}] = {} is not an image of X's batch of {}", k, index[k],
                               batch >= 0 ? std::to_string(batch) : std::string("unknown size")));
        float box[4];
        for (size_t j = 0; j < 4; ++j) box[j] = static_cast<float>(r[4 * k + j]);
        if (!half_pixel) {
            for (float& v : box) v *= scale;
            box[2] = std::max(box[2], box[0] + 1.f);
            box[3] = std::max(box[3], box[1] + 1.f);
        }
        rows.push_back(static_cast<float>(index[k]));
        rows.insert(rows.end(), box, box + 4);
    }
    std::vector<std::byte> bytes(rows.size() * 4);
    std::memcpy(bytes.data(), rows.data(), bytes.size());
    return c.const_var(ir::DTypeEnum::Float32, {static_cast<int64_t>(index.size()), 5}, std::move(bytes));
}

void roi_align(Importer& c) {
    c.check_attrs(
        {"coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"});
    // rois and batch_indices may hold a count only the run time knows (-1 here):
    // the rois a selection kept, as torchvision's MultiScaleRoIAlign takes them.
    const Value &x = c.input(0), &rois = c.runtime_input(1), &batch = c.runtime_input(2);
    if (x.elem_type != P::FLOAT || rois.elem_type != P::FLOAT)
        c.fail("X and rois must be FLOAT (MegEngine's ROIAlign computes in Float32 only)");
    if (x.shape.size() != 4) c.fail(fmt::format("X has rank {}; RoiAlign takes (N, C, H, W)", x.shape.size()));
    if (rois.shape.size() != 2 || rois.shape[1] != 4 || (!rois.runtime_shape && rois.shape[0] < 0))
        c.fail(fmt::format("rois [{}] must be (num_rois, 4)", fmt::join(rois.shape, ",")));
    const int64_t nr_rois = rois.shape[0];
    // Counts the run time decides are checked by MegEngine's Concat of the two when it runs.
    if (batch.shape.size() != 1 || (nr_rois >= 0 && batch.shape[0] >= 0 && batch.shape[0] != nr_rois))
        c.fail(fmt::format("batch_indices [{}] must be ({})", fmt::join(batch.shape, ","), nr_rois));
    const std::string mode = c.attr_string("mode", "avg");
    if (mode != "avg")
        c.fail(fmt::format("mode '{}' is not supported: ONNX's max takes the largest weighted corner term of "
                           "each sample point, MegEngine's ROIAlign MAX the largest interpolated point",
                           mode));
    const std::string transform =
        c.attr_string("coordinate_transformation_mode", c.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    if (transform != "half_pixel" && transform != "output_half_pixel")
        c.fail(fmt::format("coordinate_transformation_mode '{}' is not one of half_pixel, output_half_pixel",
                           transform));
    const bool half_pixel = transform == "half_pixel";
    const int64_t oh = c.attr_int("output_height", 1), ow = c.attr_int("output_width", 1);
    if (oh < 1 || ow < 1 || oh > UINT32_MAX || ow > UINT32_MAX)
        c.fail(fmt::format("output size {}x{} must be positive", oh, ow));
    const double scale = c.attr_float("spatial_scale", 1.0);
    if (!(std::isfinite(scale) && scale > 0)) c.fail(fmt::format("spatial_scale {} must be positive", scale));
    const int64_t ratio = c.attr_int("sampling_ratio", 0);
    if (ratio < 0 || ratio > UINT32_MAX) c.fail(fmt::format("sampling_ratio {} is negative", ratio));
    const auto [grid_h, grid_w] =
        ratio > 0 ? std::pair{ratio, ratio} : adaptive_grid(c, oh, ow, static_cast<float>(scale), half_pixel);

    // One replicated pixel around X: a point in [−1, size] reads what ONNX's clamp reads.
    ir::ParamArgs pad{{"padding_mode", "REPLICATE"}};
    for (int dim : {2, 3}) {
        pad.push_back(int_param(fmt::format("front_offset_dim{}", dim), 1));
        pad.push_back(int_param(fmt::format("back_offset_dim{}", dim), 1));
    }
    ir::VarId padded = c.emit("Padding", {c.var(0)}, pad);

    ir::VarId boxes =
        c.is_const(1) && c.is_const(2)
            ? constant_rois(c, static_cast<float>(scale), half_pixel, x.shape[0])
            : runtime_rois(c, batch.shape[0] >= 0 ? nr_rois : -1, static_cast<float>(scale), half_pixel);
    // MegEngine samples at x·scale − offset; ONNX at x·scale − 0.5 (half_pixel) or
    // x·scale, and the padding moves X one pixel right and down.
    const double offset = (half_pixel ? 0.5 : 0.0) - 1.0;
    const ir::ParamArgs params{{"mode", "AVERAGE"},
                               float_param("spatial_scale", half_pixel ? scale : 1.0),
                               float_param("offset", offset),
                               int_param("pooled_height", oh),
                               int_param("pooled_width", ow),
                               int_param("sample_height", grid_h),
                               int_param("sample_width", grid_w)};
    ir::VarId y = c.graph().output_var(c.emit_opr("ROIAlign", {padded, boxes}, params, 2), 0);
    if (nr_rois < 0 || batch.shape[0] < 0)
        return set_runtime_output(c, 0, y, P::FLOAT, {-1, x.shape[1], oh, ow});
    c.set_output_var(0, y, P::FLOAT, {nr_rois, x.shape[1], oh, ow});
}

constexpr OpHandler kHandlers[] = {
    {"RoiAlign", roi_align},
};

}  // namespace

std::span<const OpHandler> roi_align_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
