#include "engine/eval/misc_nms.h"

#include <algorithm>
#include <vector>

#include "ir/infer.h"

namespace mgedump::engine::eval {
namespace {

struct Box {
    float x0, y0, x1, y1;
};

// nms_cpu.cpp's box_iou, in its Float32 arithmetic: whether the intersection is
// above `thresh` times the union, written as a product so that no division by a
// zero union happens. Widths and heights clamp at 0, so disjoint boxes never
// suppress each other when thresh >= 0.
bool overlaps(const Box& a, const Box& b, float thresh) {
    const float left = std::max(a.x0, b.x0), right = std::min(a.x1, b.x1);
    const float top = std::max(a.y0, b.y0), bottom = std::min(a.y1, b.y1);
    const float width = std::max(right - left, 0.f), height = std::max(bottom - top, 0.f);
    const float inter = width * height;
    const float area_a = (a.x1 - a.x0) * (a.y1 - a.y0);
    const float area_b = (b.x1 - b.x0) * (b.y1 - b.y0);
    return inter > (area_a + area_b - inter) * thresh;
}

}  // namespace

// Per batch: box i is kept unless it overlaps a box kept before it; the kept
// positions fill the row in order until max_output are kept, the rest of the
// row repeats the last kept position, and the count is the second output. (The
// kernel's kept mask indexes bits by bytes, j / 8 and j % 8, consistently, so it
// is a plain kept flag per box.)
void nms_keep(KernelContext& ctx) {
    const Tensor& boxes = ctx.in(0);
    if (boxes.dtype().type != ir::DTypeEnum::Float32) ctx.fail("boxes must be Float32");
    const ir::Shape& s = boxes.shape();
    if (s.ndim != 3 || s[2] != 4) ctx.fail("boxes {} must be [batch, boxes, 4]", ir::shape_string(s));
    const int64_t max_output = ctx.params().int_field("max_output");
    if (max_output < 1) ctx.fail("max_output must be at least 1, got {}", max_output);
    const float thresh = static_cast<float>(ctx.params().float_field("iou_thresh"));
    const size_t batch = s[0], n = s[1], columns = static_cast<size_t>(max_output);
    ctx.out(0) =
        Tensor(ir::DType::of(ir::DTypeEnum::Int32), ir::Shape::of({s[0], static_cast<uint32_t>(columns)}));
    ctx.out(1) = Tensor(ir::DType::of(ir::DTypeEnum::Int32), ir::Shape::of({s[0]}));
    const std::span<const float> all = boxes.data<float>();
    std::span<int32_t> indices = ctx.out(0).mutable_data<int32_t>(),
                       sizes = ctx.out(1).mutable_data<int32_t>();
    std::vector<uint8_t> kept(n);
    for (size_t b = 0; b < batch; ++b) {
        auto box = [&](size_t i) {
            const float* p = all.data() + (b * n + i) * 4;
            return Box{p[0], p[1], p[2], p[3]};
        };
        std::span<int32_t> out = indices.subspan(b * columns, columns);
        std::fill(kept.begin(), kept.end(), uint8_t{0});
        size_t count = 0;
        int32_t last = 0;
        for (size_t i = 0; i < n && count < columns; ++i) {
            bool suppressed = false;
            const Box candidate = box(i);
            for (size_t j = 0; j < i && !suppressed; ++j)
                suppressed = kept[j] && overlaps(candidate, box(j), thresh);
            if (suppressed) continue;
            kept[i] = 1;
            last = static_cast<int32_t>(i);
            out[count++] = last;
        }
        sizes[b] = static_cast<int32_t>(count);
        // With no box MegEngine leaves the row as it was; zeros here.
        if (n > 0) std::fill(out.begin() + static_cast<std::ptrdiff_t>(count), out.end(), last);
    }
}

}  // namespace mgedump::engine::eval
