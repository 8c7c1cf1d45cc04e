#include "engine/eval/shape_views.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

#include "ir/infer/indexing_slices.h"

namespace mgedump::engine::eval {
namespace {

// A view with axes of 1 dropped and neighbours that are contiguous with each
// other merged, so a copy runs over as few and as long rows as the layout
// allows (a Split part or a Concat input is one row per outer index).
struct Rows {
    std::vector<uint64_t> dims;
    std::vector<int64_t> strides;
    int64_t offset = 0;
    uint64_t row_len() const { return dims.back(); }
    int64_t row_stride() const { return strides.back(); }
    uint64_t rows() const {
        uint64_t n = 1;
        for (size_t a = 0; a + 1 < dims.size(); ++a) n *= dims[a];
        return n;
    }
};

Rows collapse(const StridedView& v) {
    Rows r;
    r.offset = v.offset;
    for (uint32_t a = 0; a < v.shape.ndim; ++a) {
        const uint64_t d = v.shape.dim[a];
        if (d == 1) continue;
        if (!r.dims.empty() && r.strides.back() == v.strides[a] * static_cast<int64_t>(d)) {
            r.dims.back() *= d;
            r.strides.back() = v.strides[a];
        } else {
            r.dims.push_back(d);
            r.strides.push_back(v.strides[a]);
        }
    }
    if (r.dims.empty()) {
        r.dims.push_back(1);
        r.strides.push_back(1);
    }
    return r;
}

// Copies are memory-bound; splitting pays only for large tensors.
constexpr uint64_t kParallelElements = uint64_t{1} << 18;

// Calls row(view_offset, first_element, count) for every row of the view in
// order; rows are independent, so large views run in parallel.
template <class F>
void for_each_row(const Rows& r, F&& row) {
    const uint64_t rows = r.rows(), len = r.row_len();
    const size_t outer = r.dims.size() - 1;
    auto run = [&](uint64_t lo, uint64_t hi) {
        // Multi-index of row `lo` over the outer axes, then an odometer.
        std::vector<uint64_t> idx(outer, 0);
        int64_t off = r.offset;
        uint64_t rest = lo;
        for (size_t a = outer; a-- > 0;) {
            idx[a] = rest % r.dims[a];
            rest /= r.dims[a];
            off += static_cast<int64_t>(idx[a]) * r.strides[a];
        }
        for (uint64_t k = lo; k < hi; ++k) {
            row(off, k * len, len);
            for (size_t a = outer; a-- > 0;) {
                if (++idx[a] < r.dims[a]) {
                    off += r.strides[a];
                    break;
                }
                off -= r.strides[a] * static_cast<int64_t>(idx[a] - 1);
                idx[a] = 0;
            }
        }
    };
    if (rows * len < kParallelElements || rows < 2) {
        run(0, rows);
        return;
    }
    tbb::parallel_for(
        tbb::blocked_range<uint64_t>(0, rows, std::max<uint64_t>(1, kParallelElements / 4 / len)),
        [&](const tbb::blocked_range<uint64_t>& b) { run(b.begin(), b.end()); });
}

// One element of N bytes, so strided loops copy with a fixed-size move.
template <size_t N>
struct Elem {
    std::byte b[N];
};

template <class F>
void with_elem(uint32_t bytes, F&& f) {
    switch (bytes) {
        case 1:
            return f(Elem<1>{});
        case 2:
            return f(Elem<2>{});
        case 4:
            return f(Elem<4>{});
        case 8:
            return f(Elem<8>{});
        default:
            break;
    }
    throw Error("evaluator: no copy for elements of " + std::to_string(bytes) + " bytes");
}

}  // namespace

const ir::Shape& output_shape(KernelContext& ctx, size_t k) {
    if (ctx.out(k).empty()) ctx.fail("the shape of output {} is not known before execution", k);
    return ctx.out(k).shape();
}

StridedView contiguous_view(const ir::Shape& shape) {
    return StridedView{shape, ir::indexing::contiguous_strides(shape), 0};
}

uint32_t element_bytes(const KernelContext& ctx, ir::DType dtype) {
    const uint32_t bits = ir::dtype_bits(dtype.type);
    if (bits % 8 != 0)
        ctx.fail("{} tensors are packed below a byte; the evaluator does not move them",
                 ir::dtype_name(dtype.type));
    return bits / 8;
}

void gather_view(const Tensor& src, const StridedView& view, Tensor& dst, uint32_t elem_bytes) {
    if (view.shape.elements() == 0) return;
    const Rows r = collapse(view);
    with_elem(elem_bytes, [&](auto tag) {
        using E = decltype(tag);
        const E* s = reinterpret_cast<const E*>(src.bytes().data());
        E* d = reinterpret_cast<E*>(dst.mutable_bytes().data());
        const int64_t step = r.row_stride();
        for_each_row(r, [&](int64_t off, uint64_t first, uint64_t n) {
            if (step == 1) {
                std::memcpy(d + first, s + off, n * sizeof(E));
                return;
            }
            for (uint64_t k = 0; k < n; ++k) d[first + k] = s[off + static_cast<int64_t>(k) * step];
        });
    });
}

void scatter_view(const Tensor& src, Tensor& dst, const StridedView& view, uint32_t elem_bytes) {
    if (view.shape.elements() == 0) return;
    const Rows r = collapse(view);
    // A repeating view writes one element many times: keep the order (last wins).
    const bool repeats =
        std::any_of(view.strides.begin(), view.strides.end(), [](int64_t s) { return s == 0; });
    with_elem(elem_bytes, [&](auto tag) {
        using E = decltype(tag);
        const E* s = reinterpret_cast<const E*>(src.bytes().data());
        E* d = reinterpret_cast<E*>(dst.mutable_bytes().data());
        const int64_t step = r.row_stride();
        auto row = [&](int64_t off, uint64_t first, uint64_t n) {
            if (step == 1) {
                std::memcpy(d + off, s + first, n * sizeof(E));
                return;
            }
            for (uint64_t k = 0; k < n; ++k) d[off + static_cast<int64_t>(k) * step] = s[first + k];
        };
        if (repeats) {
            // Rows may overlap: write serially, in order.
            const std::vector<int64_t> offs =
                ir::indexing::view_offsets(view.shape, view.strides, view.offset);
            for (size_t j = 0; j < offs.size(); ++j) d[offs[j]] = s[j];
            return;
        }
        for_each_row(r, row);
    });
}

void gather_at(const Tensor& data, std::span<const int64_t> offsets, Tensor& dst, uint32_t elem_bytes) {
    with_elem(elem_bytes, [&](auto tag) {
        using E = decltype(tag);
        const E* s = reinterpret_cast<const E*>(data.bytes().data());
        E* d = reinterpret_cast<E*>(dst.mutable_bytes().data());
        for (size_t j = 0; j < offsets.size(); ++j) d[j] = s[offsets[j]];
    });
}

void assign_at(Tensor& data, std::span<const int64_t> offsets, const Tensor& values, uint32_t elem_bytes) {
    with_elem(elem_bytes, [&](auto tag) {
        using E = decltype(tag);
        const E* s = reinterpret_cast<const E*>(values.bytes().data());
        E* d = reinterpret_cast<E*>(data.mutable_bytes().data());
        // In order: with repeated offsets the last value stays, as in MegDNN's loops.
        for (size_t j = 0; j < offsets.size(); ++j) d[offsets[j]] = s[j];
    });
}

}  // namespace mgedump::engine::eval
