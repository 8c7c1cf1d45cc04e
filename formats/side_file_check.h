// A caller's veto on the side files a model is read from: a graph JSON's .npy
// weights and an ONNX model's external data, which only the reader finds. Called
// with each file's path before the file is read; it throws Error to refuse it (a
// batch refuses a file that another job's artifact replaces). The reader adds
// where in the model the file was named.
#pragma once

#include <filesystem>
#include <functional>

namespace mgedump::formats {

using SideFileCheck = std::function<void(const std::filesystem::path&)>;

}  // namespace mgedump::formats
