#include "engine/eval/work_budget.h"

#include <algorithm>
#include <string_view>

namespace mgedump::engine::eval {
namespace {

uint64_t saturating_mul(uint64_t a, uint64_t b) {
    if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}
uint64_t saturating_add(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

uint64_t elements_of(const ir::Shape& s) { return s.known() ? s.elements() : 0; }

bool is_conv_family(std::string_view name) {
    return name.starts_with("Convolution") || name == "ConvBias" || name == "BatchConvBias" ||
           name.starts_with("LocalShare") || name.starts_with("DeformableConv");
}

// The filter's index among the operator's inputs, or -1 when the filter is its
// output (the BackwardFilter operators compute it).
int filter_input(std::string_view name) {
    if (name.ends_with("BackwardFilter")) return -1;
    if (name == "DeformableConvBackwardData") return 1;  // (src, filter, offset, mask, diff)
    if (name.ends_with("BackwardData")) return 0;        // (filter, diff)
    return 1;
}

// The elements of the forward output: a forward operator's own output, or the
// gradient a backward operator reads (DeformableConv's backward operators read
// it last, after the offset and mask).
uint64_t forward_output_elements(const ir::InferContext& c, const ir::InferState& state, std::string_view name) {
    const ir::Range outs = c.graph().oprs.outputs[c.opr().value];
    if (!name.ends_with("BackwardData") && !name.ends_with("BackwardFilter"))
        return outs.count ? elements_of(state.shapes[outs.begin]) : 0;
    size_t diff = 1;
    if (name == "DeformableConvBackwardData") diff = 4;
    if (name == "DeformableConvBackwardFilter") diff = 3;
    return diff < c.nr_inputs() ? elements_of(c.shape(diff)) : 0;
}

// The filter elements one output element takes: the filter divided by its
// output-channel dims ([oc, …] dense, [g, ocpg, …] group; BatchConvBias has one
// filter per batch entry, [n, oc, …]; LocalShare's [(g,) sgh, sgw, …, oc(pg)] has
// one filter per spatial group and its output channels last).
uint64_t filter_per_output_element(const ir::InferContext& c, std::string_view name, const ir::Shape& filter) {
    if (!filter.known() || filter.ndim < 2) return 0;
    const bool group = c.enum_field("sparse") == "GROUP";
    uint64_t per = elements_of(filter);
    auto divide = [&](uint32_t dim) { per = dim ? per / dim : 0; };
    if (name.starts_with("LocalShare")) {
        const uint32_t leading = group ? 3 : 2;
        if (filter.ndim <= leading) return 0;
        for (uint32_t d = 0; d < leading; ++d) divide(filter[d]);
        divide(filter[filter.ndim - 1]);
        return per;
    }
    divide(filter[0]);
    if (group || name == "BatchConvBias") divide(filter[1]);
    return per;
}

}  // namespace

uint64_t estimate_work(const ir::InferContext& c, const ir::InferState& state) {
    const ir::Graph& g = c.graph();
    const ir::Range outs = g.oprs.outputs[c.opr().value];
    uint64_t read_written = 0;
    uint64_t largest = 0;  // the elements that each take `inner` multiply-adds: the largest tensor, unless the operator says
    for (size_t i = 0; i < c.nr_inputs(); ++i) {
        const uint64_t n = elements_of(c.shape(i));
        read_written = saturating_add(read_written, n);
        largest = std::max(largest, n);
    }
    uint64_t out_elements = 0;
    for (uint32_t k = 0; k < outs.count; ++k) {
        const uint64_t n = elements_of(state.shapes[outs.begin + k]);
        out_elements = saturating_add(out_elements, n);
        largest = std::max(largest, n);
    }
    read_written = saturating_add(read_written, out_elements);

    const std::string_view name = c.def().name;
    uint64_t inner = 0;  // where there is such a factor
    if (is_conv_family(name)) {
        // Each element of the forward output is a dot product of the filter's
        // size per output channel; a backward operator does the same products.
        const int f = filter_input(name);
        const ir::Shape& filter = f < 0 ? state.shapes[outs.begin] : (static_cast<size_t>(f) < c.nr_inputs() ? c.shape(f) : ir::Shape{});
        inner = filter_per_output_element(c, name, filter);
        largest = forward_output_elements(c, state, name);
    } else if (name == "MatrixMul" || name == "BatchedMatrixMul") {
        // Output elements times the shared dimension: A's last dim, or its
        // second-to-last when transposed.
        const ir::Shape& a = c.shape(0);
        if (a.known() && a.ndim >= 2) inner = c.int_field("transposeA") ? a[a.ndim - 2] : a[a.ndim - 1];
        largest = out_elements;
    } else if (name == "Dot") {
        inner = 1;
    } else if (name == "Pooling") {
        inner = saturating_mul(static_cast<uint64_t>(std::max<int64_t>(c.int_field("window_h"), 1)),
                               static_cast<uint64_t>(std::max<int64_t>(c.int_field("window_w"), 1)));
        largest = out_elements;
    } else if (name == "LRN") {
        inner = static_cast<uint64_t>(std::max<int64_t>(c.int_field("n"), 1));
        largest = out_elements;
    } else if (name == "NMSKeep") {
        // Each box against the boxes kept before it (standalone/nms_cpu.cpp), of
        // which there are at most max_output.
        const ir::Shape& boxes = c.shape(0);
        if (boxes.known() && boxes.ndim == 3) {
            largest = saturating_mul(boxes[0], boxes[1]);
            inner = std::min<uint64_t>(
                boxes[1], static_cast<uint64_t>(std::max<int64_t>(c.int_field("max_output"), 0)));
        }
    } else if (name == "MultiHeadAttn") {
        // Every query position against every key position, per embedding element.
        const ir::Shape& k = c.nr_inputs() > 1 ? c.shape(1) : ir::Shape{};
        if (k.known() && k.ndim >= 2) inner = k[1];
    }
    return saturating_add(read_written, saturating_mul(largest, inner));
}

}  // namespace mgedump::engine::eval
