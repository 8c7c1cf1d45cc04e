// A batch's work list. A manifest is JSON ({"defaults": {...}, "jobs": [...]} or a
// list of jobs) or JSON Lines (one job per line; a line {"defaults": {...}} sets
// the defaults of the lines after it). A job is
//   {"input": "nets/a.json", "output": "a.mge", <option>: ...}
// or, for several artifacts from one load,
//   {"input": "a.mge", "variants": [{"suffix": ".v2.mge"},
//                                   {"suffix": ".fbs.mge", "dump_format": "FBS"}]}
// Options use the dump_graph docstring names (jobs/options_json.h); a variant's
// override its job's, which override the manifest's defaults, which override the
// command line's. Inputs are relative to the manifest's directory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dump_options.h"

namespace mgedump::jobs {

struct Variant {
    std::string output;  // checked name, relative to OUT_DIR
    engine::DumpOptions options;
};

struct Job {
    size_t index = 0;  // position in the manifest: reports and shards refer to it
    std::filesystem::path input;
    std::vector<Variant> variants;
    // Set when the manifest entry itself is wrong: the job fails with this error
    // and the others still run.
    std::string error;
};

struct Manifest {
    std::vector<Job> jobs;
};

// Throws FormatError (syntax, not a manifest at all) naming `label` and the line
// or entry; a single bad job entry only marks that job with `error`.
Manifest parse_manifest(std::string_view text, const std::filesystem::path& base_dir,
                        const engine::DumpOptions& defaults, std::string_view label = "manifest");
Manifest read_manifest_file(const std::filesystem::path& path, const engine::DumpOptions& defaults);

// Directory mode: every *.json graph, *.mge and *.onnx model directly in `dir`, in name
// order, each dumped with `options` to <stem>.mge.
Manifest scan_directory(const std::filesystem::path& dir, const engine::DumpOptions& options);

// A later job writing an output an earlier one already writes fails (whichever
// ran first would otherwise win by scheduling).
void mark_duplicate_outputs(Manifest& m);

}  // namespace mgedump::jobs
