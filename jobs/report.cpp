#include "jobs/report.h"

#include <fmt/format.h>

#include "jobs/version.h"

namespace mgedump::jobs {

std::string_view status_name(ArtifactStatus s) {
    switch (s) {
        case ArtifactStatus::Written: return "written";
        case ArtifactStatus::Skipped: return "skipped";
        case ArtifactStatus::Failed: return "failed";
    }
    return "?";
}

std::string artifact_label(const ArtifactReport& a) {
    if (!a.path.empty()) return a.path;
    if (!a.input.empty()) return a.input;
    return fmt::format("job {}", a.job + 1);
}

std::string_view error_after(const ArtifactReport& a, std::string_view shown) {
    std::string_view e = a.error;
    if (!shown.empty() && e.starts_with(shown) && e.substr(shown.size()).starts_with(": "))
        e.remove_prefix(shown.size() + 2);
    return e;
}

nlohmann::ordered_json report_to_json(const BatchReport& r) {
    using J = nlohmann::ordered_json;
    J artifacts = J::array();
    for (const ArtifactReport& a : r.artifacts) {
        J e;
        e["path"] = a.path;
        e["job"] = a.job;
        e["input"] = a.input;
        e["format"] = engine::format_name(a.format);
        e["status"] = status_name(a.status);
        if (a.status == ArtifactStatus::Failed) {
            e["error"] = a.error;
        } else {
            const engine::DumpResult& d = a.result;
            e["bytes"] = d.tot_bytes;
            e["xxh3_128"] = d.xxh3_128;
            e["content_hash"] = d.content_hash;
            e["nr_opr"] = d.nr_opr;
            e["tensor_value_bytes"] = d.tensor_value_bytes;
            e["inputs"] = d.inputs;
            e["outputs"] = d.outputs;
            e["params"] = d.params;
            e["dedup_tensors_saved"] = d.dedup_tensors_saved;
            e["dedup_bytes_saved"] = d.dedup_bytes_saved;
            e["warnings"] = d.warnings;
        }
        if (a.numeric)
            e["numeric"] = J{{"max_abs", a.numeric->max_abs},
                             {"max_rel", a.numeric->max_rel},
                             {"worst_output", a.numeric->worst_output}};
        e["seconds"] = a.seconds;
        artifacts.push_back(std::move(e));
    }
    const BatchTotals& t = r.totals;
    J j;
    j["engine_version"] = engine_version();
    j["shard"] = J{{"index", r.shard.index}, {"count", r.shard.count},
                   {"by", r.shard.by == ShardBy::Index ? "index" : "name"}};
    j["totals"] = J{{"jobs", t.jobs},
                    {"artifacts", t.artifacts},
                    {"written", t.written},
                    {"skipped", t.skipped},
                    {"failed", t.failed},
                    {"models_read", t.models_read},
                    {"bytes", t.bytes},
                    {"input_bytes", t.input_bytes},
                    {"dedup_tensors_saved", t.dedup_tensors_saved},
                    {"dedup_bytes_saved", t.dedup_bytes_saved}};
    j["blob_cache"] = J{{"blobs", r.blobs.blobs},
                        {"bytes", r.blobs.bytes},
                        {"unique_blobs", r.blobs.unique_blobs},
                        {"unique_bytes", r.blobs.unique_bytes}};
    j["strip_info"] = J{{"opr_types", r.strip_info.opr_types},
                        {"dtypes", r.strip_info.dtypes},
                        {"elemwise_modes", r.strip_info.elemwise_modes},
                        {"hash", r.strip_info_hash}};
    j["artifacts"] = std::move(artifacts);
    j["run"] = J{{"threads", r.threads},
                 {"memory_budget", r.memory_budget},
                 {"seconds", r.seconds},
                 {"source_of_shard", r.shard.source},
                 {"bytes_hashed", r.blobs.bytes_hashed},
                 {"bytes_compared", r.blobs.bytes_compared},
                 {"write_buffers", J{{"scratches", r.buffers.scratches},
                                     {"reused", r.buffers.buffers.buffers_reused},
                                     {"allocated", r.buffers.buffers.buffers_allocated}}}};
    return j;
}

namespace {
std::string human(uint64_t n) {
    if (n < 10'000) return fmt::format("{} B", n);
    if (n < 10'000'000) return fmt::format("{:.1f} kB", n / 1e3);
    if (n < 10'000'000'000) return fmt::format("{:.1f} MB", n / 1e6);
    return fmt::format("{:.2f} GB", n / 1e9);
}
}  // namespace

std::string report_summary(const BatchReport& r, size_t max_lines) {
    const BatchTotals& t = r.totals;
    std::string s = fmt::format("mgedump batch: {} job(s), {} artifact(s): {} written, {} up to date, {} failed",
                                t.jobs, t.artifacts, t.written, t.skipped, t.failed);
    if (r.shard.count > 1) s += fmt::format(" (shard {}/{})", r.shard.index, r.shard.count);
    s += "\n";
    // Only what this run wrote: up-to-date artifacts were neither written nor read.
    uint64_t written = 0, dedup_tensors = 0, dedup_bytes = 0;
    for (const ArtifactReport& a : r.artifacts) {
        if (a.status != ArtifactStatus::Written) continue;
        written += a.result.tot_bytes;
        dedup_tensors += a.result.dedup_tensors_saved;
        dedup_bytes += a.result.dedup_bytes_saved;
    }
    if (t.written == 0 && t.failed == 0 && t.skipped > 0) {
        s += fmt::format("  all {} artifact(s) up to date ({} unchanged): nothing written, {} model(s) read",
                         t.skipped, human(t.bytes), t.models_read);
    } else {
        s += fmt::format("  {} written out of {} read; tensor values {}, of which {} unique across models",
                         human(written), human(t.input_bytes), human(r.blobs.bytes), human(r.blobs.unique_bytes));
        if (dedup_tensors) s += fmt::format("; dedup saved {} tensor(s), {}", dedup_tensors, human(dedup_bytes));
    }
    s += fmt::format("; {:.2f} s on {} thread(s)\n", r.seconds, r.threads);
    size_t shown = 0;
    for (const ArtifactReport& a : r.artifacts) {
        if (shown == max_lines) {
            s += fmt::format("  ... and {} more (see the report)\n", r.artifacts.size() - shown);
            break;
        }
        ++shown;
        if (a.status == ArtifactStatus::Failed && !a.path.empty() && !a.input.empty())
            s += fmt::format("  FAILED  {}  ({}): {}\n", a.path, a.input, error_after(a, a.input));
        else if (a.status == ArtifactStatus::Failed)
            s += fmt::format("  FAILED  {}: {}\n", artifact_label(a), error_after(a, artifact_label(a)));
        else
            s += fmt::format("  {:<7} {}  {} bytes  {}  xxh3 {}  content_hash {}\n", status_name(a.status), a.path,
                             a.result.tot_bytes, engine::format_name(a.format), a.result.xxh3_128,
                             a.result.content_hash);
    }
    return s;
}

}  // namespace mgedump::jobs
