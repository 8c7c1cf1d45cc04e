// A caller's veto on the side files a model is read from: a graph JSON's .npy
// weights and an ONNX model's external data, which only the reader finds. Called
// with each file's path before the file is read; it throws to refuse it (an
// output that would replace the file, a batch job's artifact written there).
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace mgedump::formats {

using SideFileCheck = std::function<void(const std::filesystem::path&)>;

// Runs `check` (when set) on `path`. What it throws comes back with `where`, the
// reader's name for the file (`p.json: constants[0] ("w"): npy "w.npy"`), before
// its message: an OptionError as an OptionError (the command line asked for the
// clash: exit 2), any other Error as a FormatError.
void run_side_file_check(const SideFileCheck& check, const std::filesystem::path& path, std::string_view where);

}  // namespace mgedump::formats
