// Output names from a manifest are untrusted: a job may only ever write inside
// OUT_DIR. Names are relative paths of plain components ("nets/resnet.mge");
// absolute paths, "..", ".", empty components, control characters and paths
// through symlinks are rejected.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace mgedump::jobs {

// Where the batch keeps its incremental stamps, inside OUT_DIR; no output may use it.
inline constexpr std::string_view kStampDirName = ".mgedump-stamps";

// Whether `file_name` (one component) is a temporary file of an atomic write:
// ".NAME.tmp-PID-N" (engine/artifact_file.h) or "NAME.tmp.PID.N" (strip-info
// files). Such files are never inputs, outputs or artifacts of a batch.
bool is_temp_file_name(std::string_view file_name);

// Checks the name's syntax and returns it with "/" separators. Throws OptionError
// naming the output and the rule broken.
std::string check_output_name(std::string_view name);

// Whether `name` can be written at OUT_DIR / name without creating anything:
// no symlink or non-directory on the way, and the file itself is not a symlink
// or a directory. Throws OptionError naming the output. For validation.
void check_output_location(const std::filesystem::path& out_dir, std::string_view name);

// OUT_DIR / name, after checking that no existing directory on the way (and not the
// file itself) is a symlink, so the resolved path is inside OUT_DIR even if someone
// planted links there. Creates missing directories. Throws Error naming the output.
std::filesystem::path resolve_output(const std::filesystem::path& out_dir, std::string_view name);

// The place `p` names, whatever its spelling: absolute, with every existing
// symlink and "." or ".." resolved (lexically normal when the file system cannot
// tell). Two paths to one place compare equal; a hard link is another place.
std::filesystem::path resolved_place(const std::filesystem::path& p);

}  // namespace mgedump::jobs
