// Evaluator values as .npy arrays (formats/npy): a feed read from a file, an
// output written to one. Quantized values are their storage integers, as
// MegEngine's Python API hands them out; the scale comes from the model.
#pragma once

#include <filesystem>
#include <vector>

#include "engine/eval/tensor.h"

namespace mgedump::engine::eval {

// Reads `path` as a value of `dtype` (the model input's): the file's descr must
// be the one numpy stores that dtype as, or for Int32 also int64 ('<i8') whose
// every element fits (formats::read_npy_narrowing_int64). Throws FormatError
// naming the path.
Tensor read_npy_tensor(const std::filesystem::path& path, ir::DType dtype);
// Reads `path` with the dtype its descr stands for (an expected output).
Tensor read_npy_tensor(const std::filesystem::path& path);
// The .npy file image of `t`.
std::vector<std::byte> npy_image(const Tensor& t);

}  // namespace mgedump::engine::eval
