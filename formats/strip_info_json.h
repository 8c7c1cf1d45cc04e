// MegEngine's strip_info_file (spec §8): which operator types, dtypes and Elemwise
// modes a model uses, so a runtime can be stripped down to them. Written byte for
// byte like Python's json.dump, including the append_json merge.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mgedump::formats {

struct StripInfo {
    std::vector<std::string> opr_types;       // sorted typeinfo names
    std::vector<std::string> dtypes;          // sorted dtype names
    std::vector<std::string> elemwise_modes;  // sorted mode names
};

// json.dumps with its defaults: ", " and ": " separators, no indentation, ASCII only.
std::string python_json_dumps(const nlohmann::ordered_json& j);

// A fresh file's content: {"opr_types": [...], "dtypes": [...], "elemwise_modes": [...], "hash": N}.
std::string strip_info_json(const StripInfo& info, uint64_t hash);

// append_json: for each key of the existing object that the new result also has,
// append the new values not yet present (existing order kept, no re-sort); keys only
// in the new result are ignored; "hash" is set to `hash`. Throws FormatError naming
// `label` when `existing` is not a JSON object or a merged key is not a list, and
// LimitError when it nests deeper than kMaxJsonDepth (formats/json_depth.h).
std::string merge_strip_info_json(std::string_view existing, const StripInfo& info, uint64_t hash,
                                  std::string_view label = "strip info");

// Writes (or with `append` and a non-empty existing file, merges into) `path`. The
// new content goes to a temporary file that is renamed over `path`, so a failure
// never leaves a half-written file. Throws Error on I/O failure.
void write_strip_info_file(const std::filesystem::path& path, const StripInfo& info, uint64_t hash, bool append);

}  // namespace mgedump::formats
