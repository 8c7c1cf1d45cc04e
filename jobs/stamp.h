// Incremental batches: next to each artifact's name, under OUT_DIR/.mgedump-stamps/,
// a small JSON stamp records what produced it — every file the model was read from
// (the input, then the .npy files a graph JSON names: path, size, xxh3-128), the
// job's options (an ONNX input's import options too) and the engine version — and
// what a report needs of it (dump result, strip info). Whether a job is up to date is decided from the stamp and
// the recorded files' bytes alone: the input is never parsed for it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/artifact_file.h"
#include "engine/dump_options.h"
#include "engine/dump_result.h"
#include "formats/onnx/import.h"
#include "formats/strip_info_json.h"

namespace mgedump::jobs {

struct StampedFile {
    // In a stamp: the key of stamp_file_key (relative to the manifest's or input
    // directory's location); from FileDigests: the path the batch opened.
    std::string path;
    uint64_t size = 0;
    std::string xxh3_128;
    bool operator==(const StampedFile&) const = default;
};

struct StampKey {
    std::vector<StampedFile> files;  // the input first
    // Canonical JSON of the job's options (jobs/options_json.h), with an ONNX
    // input's import options under "onnx_import" (jobs/onnx_options_json.h).
    std::string options;
    std::string engine_version;
};

// What an up-to-date stamp gives back instead of a dump.
struct Stamped {
    engine::DumpResult result;
    formats::StripInfo strip_info;  // of the model as read (spec §8)
    uint64_t input_bytes = 0;       // size of the input file
};

// Files hashed at most once per batch, by path (a .npy behind many models, a
// model with several artifacts). Thread-safe. Assumes inputs do not change while
// the batch runs.
class FileDigests {
  public:
    // nullopt when the file cannot be read.
    std::optional<StampedFile> of(const std::filesystem::path& path);
    // A digest the caller computed while it had the file's bytes anyway (the
    // batch's model reader), so `of` does not read the file again.
    void remember(const std::filesystem::path& path, uint64_t size, std::string xxh3_128);

  private:
    std::mutex mutex_;
    std::map<std::string, std::optional<StampedFile>> known_;
};

// What a stamp records for `file`: its path relative to `base_dir` (the
// manifest's directory, or the input directory in directory mode) when it lies
// there, normalized, so the same workspace run from another directory, spelled
// absolute, or moved as a whole keeps its stamps valid; otherwise the path as
// given. Purely lexical: nothing is resolved on disk.
std::string stamp_file_key(const std::filesystem::path& base_dir, const std::filesystem::path& file);
// Where the file of a recorded key is now.
std::filesystem::path stamp_file_location(const std::filesystem::path& base_dir, const std::string& key);

// The options as given by the job (before a loaded model's metadata fills in
// defaults: that comes from the input, which the files already cover). `onnx`:
// how an ONNX input was imported; nullptr for other inputs.
StampKey make_stamp_key(std::vector<StampedFile> files, const engine::DumpOptions& options,
                        const formats::OnnxImportOptions* onnx = nullptr);

std::filesystem::path stamp_path(const std::filesystem::path& out_dir, const std::string& output_name);

// What the stamp at `stamp` vouches for when `artifact` exists with the recorded
// size, the stamp was made from the input keyed `input_key` with `options` (and
// `onnx`, as make_stamp_key takes it) by this engine version, and every recorded
// file (found from `base_dir`) still has its recorded size and digest; nullopt otherwise (also for missing, unreadable
// or older stamps).
std::optional<Stamped> up_to_date(const std::filesystem::path& artifact, const std::filesystem::path& stamp,
                                  const std::string& input_key, const engine::DumpOptions& options,
                                  FileDigests& digests, const std::filesystem::path& base_dir,
                                  const formats::OnnxImportOptions* onnx = nullptr);

// Written atomically after the artifact, so a stamp never vouches for a missing file.
void write_stamp(const std::filesystem::path& stamp, const StampKey& key, const Stamped& stamped,
                 engine::FileOps& ops);

}  // namespace mgedump::jobs
