// The kernels by operator family. Each family file lists its operators by
// registry name; engine/eval/kernel_table.cpp indexes them by operator type once.
// An operator without an entry is refused by the evaluator, naming it.
#pragma once

#include <span>
#include <string_view>

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval {

struct KernelEntry {
    std::string_view op;  // registry name (ir/op_defs.cpp)
    Kernel kernel;
};

std::span<const KernelEntry> io_kernels();         // kernels_io.cpp: inputs, constants, params, Identity...
std::span<const KernelEntry> elemwise_kernels();   // kernels_elemwise.cpp: Elemwise, PowC, TypeCvt, ElemwiseMultiType, Where
std::span<const KernelEntry> conv_kernels();       // kernels_conv.cpp: Convolution, ConvBias, ConvolutionBackwardData...
std::span<const KernelEntry> pooling_kernels();    // kernels_pooling.cpp: Pooling, AdaptivePooling
std::span<const KernelEntry> matmul_kernels();     // kernels_matmul.cpp: MatrixMul, BatchedMatrixMul, Dot
std::span<const KernelEntry> reduce_kernels();     // kernels_reduce.cpp: Reduce, Argmax/Argmin, Cumsum, Argsort, TopK
std::span<const KernelEntry> norm_kernels();       // kernels_norm.cpp: Softmax, LayerNorm, GroupNorm, BatchNorm...
std::span<const KernelEntry> shape_kernels();      // kernels_shape.cpp: Reshape, Broadcast, Dimshuffle, Concat...
std::span<const KernelEntry> indexing_kernels();   // kernels_indexing.cpp: Subtensor, IndexingMultiAxisVec...
std::span<const KernelEntry> image_kernels();      // kernels_image.cpp: Padding, Resize, Warp*...
std::span<const KernelEntry> misc_kernels();       // kernels_misc.cpp: Dropout, MultiHeadAttn, Linspace, Fill...

// The kernel of an operator type, or nullptr.
Kernel find_kernel(ir::OpTypeId type);

}  // namespace mgedump::engine::eval
