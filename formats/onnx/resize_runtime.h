// Resize with `sizes` known only at run time (formats/onnx/resize_runtime.cpp).
// ops_resize.cpp parses and checks the attributes and calls this when `sizes`
// (input #3) is not a constant.
#pragma once

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

// TfCropAndResize: with constant sizes only (ops_resize.cpp); the runtime
// mapping refuses it.
enum class ResizeCoord { HalfPixel, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNn, TfCropAndResize };
enum class ResizeRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
enum class ResizeMode { Nearest, Linear, Cubic };

void resize_to_runtime_sizes(Importer& c, ResizeMode mode, ResizeCoord coord, ResizeRounding rounding);

// Resize with `scales` (input #scales_at) known only at run time: each axis's
// length ⌊in · scale⌋ and source coordinates in Float32, as ONNX Runtime computes
// them (its upsample kernels work in float); `cubic_a` and `exclude_outside` are
// the cubic attributes.
void resize_to_runtime_scales(Importer& c, size_t scales_at, ResizeMode mode, ResizeCoord coord,
                              ResizeRounding rounding, double cubic_a, bool exclude_outside);

}  // namespace mgedump::formats::onnx_import
