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

}  // namespace mgedump::formats::onnx_import
