// The image family's kernels that live in their own files; kernels_image.cpp
// lists them with the rest of the family.
#pragma once

#include "engine/eval/kernel.h"

namespace mgedump::engine::eval::image {

void warp_perspective(KernelContext& ctx);  // image_warp.cpp
void warp_affine(KernelContext& ctx);       // image_warp.cpp
void remap(KernelContext& ctx);             // image_warp.cpp
void relayout_format(KernelContext& ctx);   // image_relayout.cpp
void roi_align(KernelContext& ctx);         // image_roi_align.cpp

}  // namespace mgedump::engine::eval::image
