// Incremental batches: next to each artifact's name, under OUT_DIR/.mgedump-stamps/,
// a small JSON stamp records what produced it (input digest, options, engine
// version) and its dump result. A job whose artifact exists with the recorded size
// and whose stamp matches is skipped, and its report entry comes from the stamp.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "engine/artifact_file.h"
#include "engine/dump_options.h"
#include "engine/dump_result.h"

namespace mgedump::jobs {

struct StampKey {
    std::string input_digest;  // the input file and every tensor value it brings in
    std::string options;       // canonical JSON of the options (jobs/options_json.h)
    std::string engine_version;
    bool operator==(const StampKey&) const = default;
};

StampKey make_stamp_key(const std::string& input_digest, const engine::DumpOptions& options);

std::filesystem::path stamp_path(const std::filesystem::path& out_dir, const std::string& output_name);

// The recorded result when `artifact` exists, has the recorded size, and the stamp
// at `stamp` was made with `key`; nullopt otherwise (also for unreadable stamps).
std::optional<engine::DumpResult> up_to_date(const std::filesystem::path& artifact, const std::filesystem::path& stamp,
                                             const StampKey& key);

// Written atomically after the artifact, so a stamp never vouches for a missing file.
void write_stamp(const std::filesystem::path& stamp, const StampKey& key, const engine::DumpResult& result,
                 engine::FileOps& ops);

}  // namespace mgedump::jobs
