// A batch's work list. A manifest is JSON ({"defaults": {...}, "jobs": [...]} or a
// list of jobs) or JSON Lines (one job per line; a line {"defaults": {...}} sets
// the defaults of the lines after it). A job is
//   {"input": "nets/a.json", "output": "a.mge", <option>: ...}
// or, for several artifacts from one load,
//   {"input": "a.mge", "variants": [{"suffix": ".v2.mge"},
//                                   {"suffix": ".fbs.mge", "dump_format": "FBS"}]}
// Options use the dump_graph docstring names (jobs/options_json.h); a variant's
// override its job's, which override the manifest's defaults, which override the
// command line's. Inputs are relative to the manifest's directory. ONNX import
// options ("params_as_shared", "fold_batch_norm", "input_shapes": jobs/onnx_options_json.h)
// are per job (one import serves all variants): a job's override the manifest's
// defaults, which override the command line's; a job that gives one for an input
// that is not *.onnx, or a variant that gives one, is an entry error.
// Parsing never touches the file system beyond reading the manifest; checks
// against it (inputs exist, no artifact overwrites an input) are jobs/validate.h.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "engine/dump_options.h"
#include "formats/onnx/import.h"
#include "ir/error.h"

namespace mgedump::jobs {

struct Variant {
    std::string output;  // checked name, relative to OUT_DIR
    engine::DumpOptions options;
};

struct Job {
    size_t index = 0;   // position in the manifest: reports and shards refer to it
    std::string where;  // "m.jsonl:3", "m.json: jobs[2]" or, in directory mode, the input file
    std::filesystem::path input;  // as the batch opens it (the manifest's directory joined in)
    std::vector<Variant> variants;
    // How an ONNX input is imported (unused for other inputs).
    formats::OnnxImportOptions onnx;
    // What is wrong with the manifest entry itself, each message starting with
    // `where`. The command line refuses the whole batch when any job has one
    // (jobs/validate.h); run_batch fails such a job alone.
    std::vector<std::string> errors;
    bool ok() const { return errors.empty(); }
};

struct Manifest {
    // Where relative inputs are found, and what --incremental stamps record input
    // paths relative to (so a moved workspace is still up to date). Empty: the
    // current directory.
    std::filesystem::path base_dir;
    std::vector<Job> jobs;
    // Directory mode: the entries not taken, each "name: why" (for -v).
    std::vector<std::string> skipped;
    // Problems of the manifest's own structure (a line that is not JSON, a bad
    // "defaults"), each with the number of jobs before it, so all problems can be
    // listed in file order. Only filled when the caller asked to collect them.
    std::vector<std::pair<size_t, std::string>> errors;
};

// A manifest that is not one at all (JSON syntax, a bad "defaults", unknown
// top-level keys). Lists every problem, job entries' included, in file order.
class ManifestError : public FormatError {
  public:
    explicit ManifestError(std::vector<std::string> errors);
    const std::vector<std::string>& errors() const { return errors_; }

  private:
    std::vector<std::string> errors_;
};

// Parses the whole text before judging it: throws ManifestError listing every
// problem when the text is not a manifest; a bad job entry only fills that job's
// `errors`. Empty text (or an empty list) is an empty manifest: whether that is
// acceptable is the caller's decision (`--allow-empty`). `onnx_defaults` are the
// command line's ONNX import options, under the manifest's.
Manifest parse_manifest(std::string_view text, const std::filesystem::path& base_dir,
                        const engine::DumpOptions& defaults, std::string_view label = "manifest",
                        const formats::OnnxImportOptions& onnx_defaults = {});
Manifest read_manifest_file(const std::filesystem::path& path, const engine::DumpOptions& defaults,
                            const formats::OnnxImportOptions& onnx_defaults = {});
// Never throws for a bad manifest: its structural problems are left in
// Manifest::errors, for validate_batch to list with everything else.
Manifest read_manifest_file_collecting(const std::filesystem::path& path, const engine::DumpOptions& defaults,
                                       const formats::OnnxImportOptions& onnx_defaults = {});

// What directory mode must not take as inputs when OUT_DIR is (or holds) the
// input directory: the batch's own report and strip-info file, the artifacts an
// earlier run wrote there (named by its stamps and report) and temporary files.
struct OwnFiles {
    std::filesystem::path out_dir;
    std::vector<std::filesystem::path> files;  // report, strip-info file
};

// Directory mode: every *.json graph, *.mge and *.onnx model directly in `dir`, in name
// order, each dumped with `options` to <stem>.mge (the .onnx ones imported with
// `onnx`). Subdirectories, other names and `own` files are listed in `skipped`.
Manifest scan_directory(const std::filesystem::path& dir, const engine::DumpOptions& options,
                        const OwnFiles& own = {}, const formats::OnnxImportOptions& onnx = {});

// A later job writing an output an earlier one already writes fails (whichever
// ran first would otherwise win by scheduling). Jobs are named 1-based, as the
// progress counts them, with their place in the manifest.
void mark_duplicate_outputs(Manifest& m);

}  // namespace mgedump::jobs
