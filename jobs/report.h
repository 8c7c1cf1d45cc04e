// What a batch did, for CI (one JSON document) and for people (a one-screen
// summary). Everything outside the "run" object and the "seconds" fields depends
// only on the manifest and the inputs, never on thread count or scheduling.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/dump_options.h"
#include "engine/dump_result.h"
#include "formats/strip_info_json.h"
#include "jobs/blob_cache.h"
#include "jobs/scratch_pool.h"
#include "jobs/shard.h"

namespace mgedump::jobs {

enum class ArtifactStatus : uint8_t { Written, Skipped, Failed };
std::string_view status_name(ArtifactStatus s);

struct ArtifactReport {
    size_t job = 0;       // manifest index
    std::string input;    // as given
    std::string path;     // output name, relative to OUT_DIR
    engine::DumpFormat format = engine::DumpFormat::FBS_V2;
    ArtifactStatus status = ArtifactStatus::Failed;
    std::string error;    // names the model, and the operator and field when known
    engine::DumpResult result;
    double seconds = 0;   // dump + write
    // With verify_numeric: the artifact as it loads again, executed by the
    // reference evaluator on the job's deterministic inputs, against the graph it
    // was dumped from (engine/eval/numeric_verify.h); the largest difference over
    // its outputs.
    struct Numeric {
        double max_abs = 0;
        double max_rel = 0;
        std::string worst_output;  // the output with the largest max_rel
    };
    std::optional<Numeric> numeric;
};

struct BatchTotals {
    uint64_t jobs = 0, artifacts = 0, written = 0, skipped = 0, failed = 0;
    uint64_t models_read = 0;        // inputs read and parsed (--incremental skips the rest)
    uint64_t bytes = 0;              // artifact bytes (written and skipped)
    uint64_t input_bytes = 0;        // model input files read
    uint64_t dedup_tensors_saved = 0, dedup_bytes_saved = 0;
};

struct BatchReport {
    std::vector<ArtifactReport> artifacts;  // job order, then variant order
    BatchTotals totals;
    Shard shard;
    BlobCacheStats blobs;
    // Merged over the batch's models in job order, as append_json would (spec §8);
    // "hash" is the content_hash of the last artifact in that order.
    formats::StripInfo strip_info;
    uint64_t strip_info_hash = 0;
    // Run facts that legitimately differ between runs.
    unsigned threads = 0;
    uint64_t memory_budget = 0;
    ScratchPoolStats buffers;  // per-worker write buffers: how often memory was reused
    double seconds = 0;

    bool ok() const { return totals.failed == 0; }
};

// How messages name an artifact: its output name, else its input, else "job N"
// (1-based, as the progress counts).
std::string artifact_label(const ArtifactReport& a);
// The artifact's error without a leading "<name>: " the line already shows.
std::string_view error_after(const ArtifactReport& a, std::string_view shown);

nlohmann::ordered_json report_to_json(const BatchReport& r);
// The summary printed at the end of a run: totals, failures with their errors,
// and the artifacts (size, digest) — at most `max_lines` of them.
std::string report_summary(const BatchReport& r, size_t max_lines = 20);

}  // namespace mgedump::jobs
