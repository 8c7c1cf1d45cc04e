// ROIAlign: MegDNN's dnn/src/naive/roi_align with the bilinear sampler and the
// poolers of dnn/src/common/roi_align_helper.h, term by term in float, so results
// match MegEngine's to the last bit.
//
// Each roi row is (batch index, x0, y0, x1, y1) in input pixels times spatial_scale,
// minus offset. Its (pooled_height × pooled_width) bins each take
// sample_height × sample_width points at the centres of a regular sub-grid; a point
// is interpolated from its four neighbours, and a neighbour outside the input reads
// 0 (no clamping at the border). AVERAGE divides the sum by the point count; MAX
// keeps the largest value and writes its point's index (row-major in the sub-grid)
// to the second output. An empty sub-grid gives 0 and index −1 (MAX).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/eval/image_kernels.h"
#include "engine/eval/image_util.h"

namespace mgedump::engine::eval::image {
namespace {

using E = ir::DTypeEnum;

// roi_align::bilinear_interp.
float bilinear(const float* plane, float h, float w, int height, int width) {
    const int h0 = x86_trunc(std::floor(h)), w0 = x86_trunc(std::floor(w));
    const int h1 = h0 + 1, w1 = w0 + 1;  // INT32_MIN + 1 stays outside, as MegDNN's does
    auto at = [&](int r, int c) { return r >= 0 && r < height && c >= 0 && c < width ? plane[r * width + c] : 0.f; };
    const float top_left = at(h0, w0), top_right = at(h0, w1);
    const float bottom_left = at(h1, w0), bottom_right = at(h1, w1);
    const float top = top_left + (top_right - top_left) * (w - static_cast<float>(w0));
    const float bottom = bottom_left + (bottom_right - bottom_left) * (w - static_cast<float>(w0));
    return top + (bottom - top) * (h - static_cast<float>(h0));
}

}  // namespace

void roi_align(KernelContext& ctx) {
    const Tensor &in = ctx.in(0), &rois = ctx.in(1);
    if (in.dtype().type != E::Float32 || rois.dtype().type != E::Float32)
        ctx.fail("ROIAlign of {} with rois of {} is not supported by MegBrain (Float32 only)",
                 ir::dtype_string(in.dtype()), ir::dtype_string(rois.dtype()));
    const ir::InferContext& p = ctx.params();
    const bool max_mode = p.enum_field("mode") == "MAX_";
    const float spatial_scale = static_cast<float>(p.float_field("spatial_scale"));
    const float offset = static_cast<float>(p.float_field("offset"));
    const int sample_height = static_cast<int>(p.int_field("sample_height"));
    const int sample_width = static_cast<int>(p.int_field("sample_width"));
    Tensor& dst = ctx.out(0);
    Tensor& index = ctx.out(1);
    const size_t batch = in.shape()[0], channels = in.shape()[1];
    const int height = static_cast<int>(in.shape()[2]), width = static_cast<int>(in.shape()[3]);
    const size_t nr_rois = dst.shape()[0], pooled_height = dst.shape()[2], pooled_width = dst.shape()[3];
    const float* src = in.data<float>().data();
    const float* roi = rois.data<float>().data();
    // MegDNN reads the batch index unchecked; one outside the input would read
    // memory that is not the feature map, so it is refused.
    for (size_t n = 0; n < nr_rois; ++n) {
        const int b = x86_trunc(roi[n * 5]);
        if (b < 0 || static_cast<size_t>(b) >= batch)
            ctx.fail("roi {} has batch index {} (read {}), outside the input's batch of {}", n, roi[n * 5], b, batch);
    }
    float* out = dst.mutable_data<float>().data();
    int32_t* argmax = index.mutable_data<int32_t>().data();
    const size_t bins = pooled_height * pooled_width;
    const size_t plane = static_cast<size_t>(height) * static_cast<size_t>(width);
    tbb::parallel_for(size_t{0}, nr_rois * channels, [&](size_t nc) {
        const size_t n = nc / channels, c = nc % channels;
        const float* r = roi + n * 5;
        const float* feature = src + (static_cast<size_t>(x86_trunc(r[0])) * channels + c) * plane;
        const float roi_start_w = r[1] * spatial_scale - offset;
        const float roi_start_h = r[2] * spatial_scale - offset;
        const float roi_end_w = r[3] * spatial_scale - offset;
        const float roi_end_h = r[4] * spatial_scale - offset;
        const float roi_width = std::max(roi_end_w - roi_start_w, 0.f);
        const float roi_height = std::max(roi_end_h - roi_start_h, 0.f);
        const float bin_size_h = roi_height / static_cast<float>(pooled_height);
        const float bin_size_w = roi_width / static_cast<float>(pooled_width);
        const float sample_h_rate = 1.0f / static_cast<float>(sample_height);
        const float sample_w_rate = 1.0f / static_cast<float>(sample_width);
        for (size_t bin = 0; bin < bins; ++bin) {
            const int ph = static_cast<int>(bin / pooled_width), pw = static_cast<int>(bin % pooled_width);
            // MaxPooler starts at the dtype's lowest value, AveragePooler at 0.
            float acc = max_mode ? std::numeric_limits<float>::lowest() : 0.f;
            int best = -1;
            size_t count = 0;
            for (int h_iter = 0; h_iter < sample_height; ++h_iter) {
                for (int w_iter = 0; w_iter < sample_width; ++w_iter) {
                    const float hcenter =
                        roi_start_h + bin_size_h * (static_cast<float>(ph) + sample_h_rate * (static_cast<float>(h_iter) + 0.5f));
                    const float wcenter =
                        roi_start_w + bin_size_w * (static_cast<float>(pw) + sample_w_rate * (static_cast<float>(w_iter) + 0.5f));
                    const float v = bilinear(feature, hcenter, wcenter, height, width);
                    ++count;
                    if (!max_mode) {
                        acc += v;
                    } else if (v > acc) {
                        acc = v;
                        best = h_iter * sample_width + w_iter;
                    }
                }
            }
            const size_t at = nc * bins + bin;
            if (max_mode) {
                out[at] = count > 0 ? acc : 0.f;
                argmax[at] = best;
            } else {
                out[at] = count > 0 ? acc / static_cast<float>(count) : 0.f;
                // AveragePooler writes no index; MegEngine leaves that output as it
                // was. Ours is 0, so runs are reproducible.
                argmax[at] = 0;
            }
        }
    });
}

}  // namespace mgedump::engine::eval::image
