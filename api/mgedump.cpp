#include "api/mgedump.h"

#include <fmt/format.h>

#include <memory>

#include "engine/artifact_file.h"
#include "engine/load.h"
#include "jobs/batch.h"
#include "jobs/dump_many.h"
#include "jobs/manifest.h"
#include "jobs/model_input.h"
#include "jobs/report.h"
#include "jobs/validate.h"
#include "jobs/version.h"

namespace mgedump {

std::string_view version() { return jobs::engine_version(); }

DumpedBytes dump(const Graph& g, const DumpOptions& options) {
    engine::check_options(options);
    DumpedBytes out;
    engine::BufferSink into([&out](uint64_t size) {
        out.bytes.resize(static_cast<size_t>(size));
        return std::span<std::byte>(out.bytes);
    });
    out.result = jobs::dump_one(jobs::DumpJob{.graph = g, .options = options}, &into).result;
    return out;
}

DumpResult dump_to_file(const Graph& g, const DumpOptions& options, const std::filesystem::path& path) {
    engine::check_options(options);
    engine::FileOps ops;
    engine::AtomicFile file(path.string(), ops, engine::WriteThread::ForLargeArtifacts);
    DumpResult r = jobs::dump_one(jobs::DumpJob{.graph = g, .options = options}, &file).result;
    file.commit();
    return r;
}

Graph read_model(const std::filesystem::path& path) { return jobs::read_model_input(path).graph; }

LoadedModel load(const std::filesystem::path& path) { return engine::load_file(path.string()); }

std::vector<LoadedModel> load_all(const std::filesystem::path& path) { return engine::load_files(path.string()); }

LoadedModel load(std::span<const std::byte> bytes) {
    auto copy = std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
    return formats::read_model(*copy, copy);
}

BatchSummary run_batch(const std::filesystem::path& input, const BatchSettings& settings) {
    DumpOptions defaults = settings.defaults;
    // The batch merges the strip info of all its jobs into one file (as the CLI).
    const std::optional<std::string> strip_info_file = defaults.strip_info_file;
    const bool append_json = defaults.append_json;
    defaults.strip_info_file.reset();
    defaults.append_json = false;
    engine::check_options(defaults);

    const std::filesystem::path report = settings.report.empty() ? settings.out_dir / "report.json" : settings.report;
    jobs::Manifest manifest;
    if (std::filesystem::is_directory(input)) {
        jobs::OwnFiles own{settings.out_dir, {report}};
        if (strip_info_file) own.files.emplace_back(*strip_info_file);
        manifest = jobs::scan_directory(input, defaults, own);
    } else {
        manifest = jobs::read_manifest_file_collecting(input, defaults);
    }
    const jobs::BatchTargets targets{settings.out_dir, report, strip_info_file, input.string(), false};
    if (std::vector<std::string> errors = jobs::validate_batch(manifest, targets); !errors.empty()) {
        std::string text = fmt::format("{}: {} problem(s), nothing was written:", input.string(), errors.size());
        for (const std::string& e : errors) text += "\n  " + e;
        throw OptionError(text);
    }

    jobs::BatchOptions o;
    o.out_dir = settings.out_dir;
    o.threads = settings.threads;
    o.memory_budget = settings.memory_budget;
    o.incremental = settings.incremental;
    const jobs::BatchReport r = jobs::run_batch(manifest, o);
    engine::write_file_atomically(
        report.string(),
        jobs::report_to_json(r).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
    if (strip_info_file)
        formats::write_strip_info_file(*strip_info_file, r.strip_info, r.strip_info_hash, append_json);

    BatchSummary s;
    s.jobs = r.totals.jobs;
    s.written = r.totals.written;
    s.skipped = r.totals.skipped;
    s.failed = r.totals.failed;
    s.report = report;
    for (const jobs::ArtifactReport& a : r.artifacts)
        s.artifacts.push_back({.job = a.job,
                               .input = a.input,
                               .path = a.path,
                               .format = a.format,
                               .status = a.status == jobs::ArtifactStatus::Written   ? BatchArtifact::Status::Written
                                         : a.status == jobs::ArtifactStatus::Skipped ? BatchArtifact::Status::Skipped
                                                                                     : BatchArtifact::Status::Failed,
                               .error = a.error,
                               .result = a.result});
    return s;
}

}  // namespace mgedump
