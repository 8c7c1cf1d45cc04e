// Checking a whole batch before anything runs, as CI wants it: every problem of
// the manifest and of the places it writes, each with its line (JSON Lines) or
// JSON path, so one run shows everything to fix and a bad manifest never writes
// half its artifacts. The command line refuses the batch (exit 2) when this
// returns anything; run_batch itself still fails such jobs one by one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "jobs/manifest.h"

namespace mgedump::jobs {

struct BatchTargets {
    std::filesystem::path out_dir;
    std::filesystem::path report;                          // where the report will be written
    std::optional<std::filesystem::path> strip_info_file;  // the merged strip info, if asked for
    std::string input_label;                               // the manifest or directory, as given
    bool allow_empty = false;                              // --allow-empty
};

// Every problem, in manifest order: the manifest's structural errors
// (Manifest::errors) and the entries' own, an empty manifest,
// inputs that do not exist, outputs that cannot be written where they go or that
// would overwrite an input of the batch, a report or strip-info file that would
// overwrite an input, an artifact, the manifest or each other, and a report,
// strip-info file or OUT_DIR that cannot be written (found by creating and
// removing a probe file, which also works as root). Writes nothing else.
std::vector<std::string> validate_batch(const Manifest& m, const BatchTargets& t);

}  // namespace mgedump::jobs
