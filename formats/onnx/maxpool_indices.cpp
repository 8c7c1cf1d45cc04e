// MaxPool with its Indices output. MegEngine's Pooling gives no argmax, so both
// outputs come from one pass over the window's offsets: the input padded with −inf
// (Padding), and for each offset j (row-major over the kernel) the strided
// Subtensor V_j of the elements that offset reads in every window, with the
// constant I_j of their flat indices in the unpadded input (ONNX's: over N, C and
// the spatial axes; storage_order 1 numbers each plane column-major). Then
//   best = MAX(best, V_j), index = index + (best < V_j)·(I_j − index)
// keeping the first maximum on ties (ONNX leaves ties open; ONNX Runtime keeps the
// first). Y is `best`, the same maximum Pooling takes. FLOAT only; ceil_mode refused.
#include "formats/onnx/maxpool_indices.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/window.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

// One round (a Subtensor, four Elemwise and a constant of the output's positions)
// per window offset, so the offsets are bounded: a 28×37 window of a 220-byte
// model made 6,575 operators and 16 MB of constants (fuzz_onnx). Real argmax
// pooling windows are 2×2 to 3×3×3. (Kept as tests/fuzz/regressions/fuzz_onnx/
// maxpool-indices-of-a-large-window.)
constexpr int64_t kMaxWindowOffsets = 256;

}  // namespace

void max_pool_with_indices(Importer& c) {
    c.check_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides", "storage_order"});
    const Value& x = c.input(0);
    if (x.elem_type != P::FLOAT) c.fail("MaxPool with the Indices output (#1): FLOAT only");
    if (c.attr_int("ceil_mode", 0) != 0) c.fail("MaxPool with the Indices output (#1): ceil_mode is not supported");
    const bool column_major = c.attr_int("storage_order", 0) != 0;
    const Window w = read_window(c, x.shape, c.attr_ints("kernel_shape"));
    const size_t n = w.dims();
    if (column_major && n != 2) c.fail("storage_order=1 is defined for 2-D pooling only");
    int64_t offsets = 1;
    for (size_t k = 0; k < n; ++k) {
        offsets *= w.kernel[k];
        if (offsets > kMaxWindowOffsets)
            c.fail(fmt::format("MaxPool with the Indices output (#1): a window of [{}] is unrolled one round per "
                               "offset, up to {} offsets",
                               fmt::join(w.kernel, ","), kMaxWindowOffsets));
    }
    Shape out{x.shape[0], x.shape[1]};
    for (size_t k = 0; k < n; ++k) {
        const int64_t span = w.dilations[k] * (w.kernel[k] - 1) + 1;
        const int64_t padded = x.shape[2 + k] + w.pads_begin[k] + w.pads_end[k];
        if (padded < span) c.fail(fmt::format("the window does not fit spatial axis {}", k));
        out.push_back((padded - span) / w.strides[k] + 1);
    }
    Shape padded_shape = x.shape;
    const ir::VarId padded = pad_spatial(c, c.var(0), padded_shape, w.pads_begin, w.pads_end,
                                         -std::numeric_limits<double>::infinity());
    // The plane's flat index of spatial position `pos` (row-major, or column-major for storage_order 1).
    auto plane_index = [&](const std::vector<int64_t>& pos) {
        if (column_major) return pos[1] * x.shape[2] + pos[0];
        int64_t flat = 0;
        for (size_t k = 0; k < n; ++k) flat = flat * x.shape[2 + k] + pos[k];
        return flat;
    };
    Shape plane_shape(2, 1);
    plane_shape.insert(plane_shape.end(), out.begin() + 2, out.end());
    const int64_t positions = element_count(Shape(out.begin() + 2, out.end()));
    std::optional<ir::VarId> best, index;
    std::vector<int64_t> offset(n, 0);
    for (bool more = true; more;) {
        // V_j: a strided slice per spatial axis.
        std::vector<ir::VarId> inputs{padded};
        std::vector<ir::IndexDescMaskItem> items;
        for (size_t k = 0; k < n; ++k) {
            const int64_t begin = offset[k] * w.dilations[k];
            items.push_back(ir::IndexDescMaskItem{static_cast<int8_t>(2 + k), true, true, true, false});
            inputs.push_back(c.const_i32({begin}));
            inputs.push_back(c.const_i32({begin + (out[2 + k] - 1) * w.strides[k] + 1}));
            inputs.push_back(c.const_i32({w.strides[k]}));
        }
        const ir::VarId v = c.emit("Subtensor", inputs, {{"items", items}});
        // I_j: where each window's element at this offset lies in the input (a padding
        // position, which holds −inf, is given the nearest input position: it is kept
        // only when every element of its window is −inf, and then names one of them).
        std::vector<int64_t> idx(static_cast<size_t>(positions));
        std::vector<int64_t> o(n, 0);
        for (int64_t p = 0; p < positions; ++p) {
            std::vector<int64_t> pos(n);
            for (size_t k = 0; k < n; ++k)
                pos[k] = std::clamp<int64_t>(o[k] * w.strides[k] + offset[k] * w.dilations[k] - w.pads_begin[k], 0,
                                             x.shape[2 + k] - 1);
            idx[static_cast<size_t>(p)] = plane_index(pos);
            for (size_t k = n; k-- > 0;) {
                if (++o[k] < out[2 + k]) break;
                o[k] = 0;
            }
        }
        const ir::VarId at = int32_tensor(c, idx, plane_shape);
        if (!best) {
            best = v;
            index = at;
        } else {
            const ir::VarId lt = c.emit("Elemwise", {*best, v}, {{"mode", "LT"}});
            const ir::VarId take = type_cvt(c, lt, ir::DTypeEnum::Int32);
            const ir::VarId step = c.emit("Elemwise", {at, *index}, {{"mode", "SUB"}});
            index = c.emit("Elemwise", {take, step, *index}, {{"mode", "FUSE_MUL_ADD3"}});
            best = c.emit("Elemwise", {*best, v}, {{"mode", "MAX"}});
        }
        more = false;
        for (size_t k = n; k-- > 0;) {
            if (++offset[k] < w.kernel[k]) {
                more = true;
                break;
            }
            offset[k] = 0;
        }
    }
    // The planes before (n, c): (n·C + c)·(spatial size), laid along N and C.
    const int64_t plane = element_count(Shape(x.shape.begin() + 2, x.shape.end()));
    std::vector<int64_t> base;
    for (int64_t b = 0; b < x.shape[0] * x.shape[1]; ++b) base.push_back(b * plane);
    Shape base_shape(out.size(), 1);
    base_shape[0] = x.shape[0];
    base_shape[1] = x.shape[1];
    const ir::VarId indices = c.emit("Elemwise", {*index, int32_tensor(c, base, base_shape)}, {{"mode", "ADD"}});
    c.set_output_var(0, *best, x.elem_type, out);
    c.set_output_var(1, indices, P::INT64, out);
}

}  // namespace mgedump::formats::onnx_import
