// Loading .mge files from disk: the file is mapped read-only and tensor values are
// viewed in the mapping, which the loaded graph keeps alive (zero-copy).
#pragma once

#include <string>
#include <vector>

#include "formats/model_reader.h"

namespace mgedump::engine {

// The first graph of the file. Throws Error (cannot open/map) or FormatError,
// both naming `path`.
formats::LoadedModel load_file(const std::string& path);
// Every graph appended in the file (§11.3).
std::vector<formats::LoadedModel> load_files(const std::string& path);

// The whole file mapped; `bytes` stays valid while the returned owner lives.
struct MappedFile {
    ir::Bytes bytes;
    std::shared_ptr<const void> owner;
};
MappedFile map_file(const std::string& path);

}  // namespace mgedump::engine
