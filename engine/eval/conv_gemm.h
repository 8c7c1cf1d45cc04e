// Convolution by im2col + GEMM (engine/eval/gemm.h) for the conv family's kernels:
// forward, backward data (the adjoint: GEMM then col2im) and backward filter, per
// batch sample and group, in MegDNN's canonical NCHW / NCDHW terms. 2-D
// convolutions are 3-D ones of depth 1. Cross-correlation only: a CONVOLUTION-mode
// operator flips its filter first (flip_filter).
#pragma once

#include <array>
#include <cstddef>

namespace mgedump::engine::eval {

struct ConvGeometry {
    size_t batch = 1, group = 1;
    size_t icpg = 0, ocpg = 0;  // channels per group
    // Spatial dims, depth / height / width.
    std::array<size_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
    std::array<size_t, 3> pad{0, 0, 0}, stride{1, 1, 1}, dilate{1, 1, 1};

    size_t in_size() const { return in[0] * in[1] * in[2]; }
    size_t out_size() const { return out[0] * out[1] * out[2]; }
    size_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
    // Rows of one group's column matrix, and the length of one filter row.
    size_t col_rows() const { return icpg * kernel_size(); }
    // One group's filter: [ocpg][icpg][kernel].
    size_t group_filter_size() const { return ocpg * col_rows(); }
    // A 1×1 window at stride 1 without padding: the column matrix is the input itself.
    bool pointwise() const;
};

// Reverses every filter window in place ([rows][kernel] elements): MegDNN's
// CONVOLUTION mode is cross-correlation with the flipped filter.
template <class T>
void flip_filter(const ConvGeometry& g, T* filter, size_t rows);

// dst[n][g·ocpg + o][out] = Σ_{c,k} filter[g][o][c][k] · src[n][g·icpg + c][window(out, k)],
// zero outside the input. `filter_batch_stride` advances the filter per sample
// (BatchConvBias; 0 otherwise).
template <class T>
void conv_forward(const ConvGeometry& g, const T* src, const T* filter, size_t filter_batch_stride, T* dst);
// grad = the adjoint of conv_forward applied to diff (grad is written, not accumulated).
template <class T>
void conv_backward_data(const ConvGeometry& g, const T* filter, const T* diff, T* grad);
// grad[g][o][c][k] = Σ_{n,out} diff[n][g·ocpg + o][out] · src[n][g·icpg + c][window(out, k)].
template <class T>
void conv_backward_filter(const ConvGeometry& g, const T* src, const T* diff, T* grad);

}  // namespace mgedump::engine::eval
