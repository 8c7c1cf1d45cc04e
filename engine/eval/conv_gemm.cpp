#include "engine/eval/conv_gemm.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstddef>
#include <memory>

#include "engine/eval/gemm.h"

namespace mgedump::engine::eval {
namespace {

// The outputs o in [lo, hi) of one spatial axis whose input index
// o·stride + offset − pad lies inside [0, in).
struct Valid {
    size_t lo, hi;
    bool has(size_t o) const { return o >= lo && o < hi; }
};

Valid valid_outputs(size_t in, size_t out, size_t stride, size_t pad, size_t offset) {
    const ptrdiff_t off = static_cast<ptrdiff_t>(offset) - static_cast<ptrdiff_t>(pad);
    const ptrdiff_t s = static_cast<ptrdiff_t>(stride);
    const ptrdiff_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
    const ptrdiff_t rest = static_cast<ptrdiff_t>(in) - off;
    const ptrdiff_t hi = rest <= 0 ? 0 : (rest + s - 1) / s;
    const size_t h = std::min(out, static_cast<size_t>(hi));
    return {std::min(h, static_cast<size_t>(lo)), h};
}

// Calls f(kd, kh, kw, vd, vh, vw) for every tap of the window, with the
// outputs of each axis whose input the tap reads is inside the input.
template <class F>
void for_each_tap(const ConvGeometry& g, F&& f) {
    const auto [ID, IH, IW] = g.in;
    const auto [OD, OH, OW] = g.out;
    const auto [KD, KH, KW] = g.kernel;
    for (size_t kd = 0; kd < KD; ++kd) {
        const Valid vd = valid_outputs(ID, OD, g.stride[0], g.pad[0], kd * g.dilate[0]);
        for (size_t kh = 0; kh < KH; ++kh) {
            const Valid vh = valid_outputs(IH, OH, g.stride[1], g.pad[1], kh * g.dilate[1]);
            for (size_t kw = 0; kw < KW; ++kw) {
                const Valid vw = valid_outputs(IW, OW, g.stride[2], g.pad[2], kw * g.dilate[2]);
                f(kd, kh, kw, vd, vh, vw);
            }
        }
    }
}

template <class T>
std::unique_ptr<T[]> scratch(size_t n) {
    return std::unique_ptr<T[]>(new T[n ? n : 1]);
}

// Visits every (column row, output row) pair of one group: the column row of
// channel c and window offset (kd, kh, kw), and for each output (od, oh) inside
// the input the input row it reads. `body(col_row_ptr_offset, input_row_offset,
// iw0, valid_w)` handles one output row; rows outside the input go to `outside`.
template <class Row, class Outside>
void for_each_window_row(const ConvGeometry& g, size_t c, Row&& row, Outside&& outside) {
    // Plain variables, not structured bindings: the lambda below captures them, which
    // clang before 16 refuses for bindings (the fuzz build's clang 14).
    const size_t ID = g.in[0], IH = g.in[1], IW = g.in[2];
    const size_t OD = g.out[0], OH = g.out[1], OW = g.out[2];
    const size_t KD = g.kernel[0], KH = g.kernel[1], KW = g.kernel[2];
    const size_t OS = g.out_size();
    for_each_tap(g, [&](size_t kd, size_t kh, size_t kw, Valid vd, Valid vh, Valid vw) {
        const size_t col_row = ((c * KD + kd) * KH + kh) * KW + kw;
        const ptrdiff_t iw0 = static_cast<ptrdiff_t>(kw * g.dilate[2]) - static_cast<ptrdiff_t>(g.pad[2]);
        for (size_t od = 0; od < OD; ++od) {
            for (size_t oh = 0; oh < OH; ++oh) {
                const size_t col_off = col_row * OS + (od * OH + oh) * OW;
                if (!vd.has(od) || !vh.has(oh) || vw.lo >= vw.hi) {
                    outside(col_off);
                    continue;
                }
                const size_t id = od * g.stride[0] + kd * g.dilate[0] - g.pad[0];
                const size_t ih = oh * g.stride[1] + kh * g.dilate[1] - g.pad[1];
                row(col_off, ((c * ID + id) * IH + ih) * IW, iw0, vw);
            }
        }
    });
}

// col[(c, k)][out] = src[c][window(out, k)], 0 outside: one group's column matrix.
template <class T>
void im2col(const ConvGeometry& g, const T* src, T* col) {
    const size_t OW = g.out[2], sw = g.stride[2];
    tbb::parallel_for(size_t{0}, g.icpg, [&](size_t c) {
        for_each_window_row(
            g, c,
            [&](size_t col_off, size_t in_off, ptrdiff_t iw0, Valid vw) {
                T* r = col + col_off;
                const T* s = src + in_off;
                std::fill(r, r + vw.lo, T(0));
                if (sw == 1) {
                    std::copy(s + (static_cast<ptrdiff_t>(vw.lo) + iw0),
                              s + (static_cast<ptrdiff_t>(vw.hi) + iw0), r + vw.lo);
                } else {
                    for (size_t ow = vw.lo; ow < vw.hi; ++ow)
                        r[ow] = s[static_cast<ptrdiff_t>(ow * sw) + iw0];
                }
                std::fill(r + vw.hi, r + OW, T(0));
            },
            [&](size_t col_off) { std::fill(col + col_off, col + col_off + OW, T(0)); });
    });
}

// The adjoint of im2col: grad[c][window(out, k)] += col[(c, k)][out]. Channels
// are independent, so they run in parallel.
template <class T>
void col2im(const ConvGeometry& g, const T* col, T* grad) {
    const size_t sw = g.stride[2];
    tbb::parallel_for(size_t{0}, g.icpg, [&](size_t c) {
        for_each_window_row(
            g, c,
            [&](size_t col_off, size_t in_off, ptrdiff_t iw0, Valid vw) {
                const T* r = col + col_off;
                T* s = grad + in_off;
                for (size_t ow = vw.lo; ow < vw.hi; ++ow) s[static_cast<ptrdiff_t>(ow * sw) + iw0] += r[ow];
            },
            [](size_t) {});
    });
}

// One input channel to one output channel (a depthwise convolution's group): a
// GEMM of one row would spend its time in im2col, so the window is summed
// directly, row by row, tap by tap.
template <class T>
void depthwise_channel(const ConvGeometry& g, const T* in, const T* w, T* out) {
    // Not structured bindings: see for_each_window_row.
    const size_t IH = g.in[1], IW = g.in[2], OH = g.out[1], OW = g.out[2], KH = g.kernel[1], KW = g.kernel[2];
    std::fill(out, out + g.out_size(), T(0));
    for_each_tap(g, [&](size_t kd, size_t kh, size_t kw, Valid vd, Valid vh, Valid vw) {
        const T wv = w[(kd * KH + kh) * KW + kw];
        const ptrdiff_t iw0 = static_cast<ptrdiff_t>(kw * g.dilate[2]) - static_cast<ptrdiff_t>(g.pad[2]);
        const size_t sw = g.stride[2];
        for (size_t od = vd.lo; od < vd.hi; ++od) {
            const size_t id = od * g.stride[0] + kd * g.dilate[0] - g.pad[0];
            for (size_t oh = vh.lo; oh < vh.hi; ++oh) {
                const size_t ih = oh * g.stride[1] + kh * g.dilate[1] - g.pad[1];
                const T* __restrict s = in + (id * IH + ih) * IW + iw0;
                T* __restrict o = out + (od * OH + oh) * OW;
                if (sw == 1) {
                    for (size_t ow = vw.lo; ow < vw.hi; ++ow) o[ow] += wv * s[ow];
                } else {
                    for (size_t ow = vw.lo; ow < vw.hi; ++ow) o[ow] += wv * s[ow * sw];
                }
            }
        }
    });
}

}  // namespace

bool ConvGeometry::pointwise() const {
    for (int a = 0; a < 3; ++a)
        if (kernel[a] != 1 || stride[a] != 1 || pad[a] != 0) return false;
    return true;
}

template <class T>
void flip_filter(const ConvGeometry& g, T* filter, size_t rows) {
    // Reversing the flattened [kd][kh][kw] window reverses each axis.
    const size_t k = g.kernel_size();
    for (size_t r = 0; r < rows; ++r) std::reverse(filter + r * k, filter + (r + 1) * k);
}

template <class T>
void conv_forward(const ConvGeometry& g, const T* src, const T* filter, size_t filter_batch_stride, T* dst) {
    const size_t IS = g.in_size(), OS = g.out_size(), R = g.col_rows();
    tbb::parallel_for(size_t{0}, g.batch * g.group, [&](size_t ng) {
        const size_t n = ng / g.group, grp = ng % g.group;
        const T* s = src + ng * g.icpg * IS;
        const T* w = filter + n * filter_batch_stride + grp * g.group_filter_size();
        if (g.icpg == 1 && g.ocpg == 1 && !g.pointwise()) return depthwise_channel(g, s, w, dst + ng * OS);
        std::unique_ptr<T[]> col;
        const T* cols = s;
        if (!g.pointwise()) {
            col = scratch<T>(R * OS);
            im2col(g, s, col.get());
            cols = col.get();
        }
        gemm(false, false, g.ocpg, OS, R, T(1), w, R, cols, OS, T(0), dst + ng * g.ocpg * OS, OS);
    });
}

template <class T>
void conv_backward_data(const ConvGeometry& g, const T* filter, const T* diff, T* grad) {
    const size_t IS = g.in_size(), OS = g.out_size(), R = g.col_rows();
    tbb::parallel_for(size_t{0}, g.batch * g.group, [&](size_t ng) {
        const size_t grp = ng % g.group;
        const T* w = filter + grp * g.group_filter_size();
        const T* d = diff + ng * g.ocpg * OS;
        T* out = grad + ng * g.icpg * IS;
        if (g.pointwise()) {
            gemm(true, false, g.icpg, OS, g.ocpg, T(1), w, R, d, OS, T(0), out, IS);
            return;
        }
        std::unique_ptr<T[]> col = scratch<T>(R * OS);
        gemm(true, false, R, OS, g.ocpg, T(1), w, R, d, OS, T(0), col.get(), OS);
        std::fill(out, out + g.icpg * IS, T(0));
        col2im(g, col.get(), out);
    });
}

template <class T>
void conv_backward_filter(const ConvGeometry& g, const T* src, const T* diff, T* grad) {
    const size_t IS = g.in_size(), OS = g.out_size(), R = g.col_rows();
    std::fill(grad, grad + g.group * g.group_filter_size(), T(0));
    tbb::parallel_for(size_t{0}, g.group, [&](size_t grp) {
        T* gw = grad + grp * g.group_filter_size();
        std::unique_ptr<T[]> col;
        if (!g.pointwise()) col = scratch<T>(R * OS);
        for (size_t n = 0; n < g.batch; ++n) {
            const size_t ng = n * g.group + grp;
            const T* s = src + ng * g.icpg * IS;
            const T* cols = s;
            if (col) {
                im2col(g, s, col.get());
                cols = col.get();
            }
            gemm(false, true, g.ocpg, R, OS, T(1), diff + ng * g.ocpg * OS, OS, cols, OS, T(1), gw, R);
        }
    });
}

template void flip_filter(const ConvGeometry&, float*, size_t);
template void flip_filter(const ConvGeometry&, double*, size_t);
template void conv_forward(const ConvGeometry&, const float*, const float*, size_t, float*);
template void conv_forward(const ConvGeometry&, const double*, const double*, size_t, double*);
template void conv_backward_data(const ConvGeometry&, const float*, const float*, float*);
template void conv_backward_data(const ConvGeometry&, const double*, const double*, double*);
template void conv_backward_filter(const ConvGeometry&, const float*, const float*, float*);
template void conv_backward_filter(const ConvGeometry&, const double*, const double*, double*);

}  // namespace mgedump::engine::eval
