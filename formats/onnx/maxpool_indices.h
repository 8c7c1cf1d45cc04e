// MaxPool whose Indices output (#1) is read (formats/onnx/maxpool_indices.cpp).
#pragma once

#include "formats/onnx/importer.h"

namespace mgedump::formats::onnx_import {

void max_pool_with_indices(Importer& c);

}  // namespace mgedump::formats::onnx_import
