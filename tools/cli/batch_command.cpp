// `mgedump batch MANIFEST|IN_DIR -o OUT_DIR [options]`: many models at once, on
// every core, within a memory budget; a JSON report for CI and a summary for people.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "engine/artifact_file.h"
#include "formats/onnx/import.h"
#include "formats/strip_info_json.h"
#include "ir/error.h"
#include "jobs/batch.h"
#include "jobs/byte_size.h"
#include "jobs/error_text.h"
#include "jobs/manifest.h"
#include "jobs/progress.h"
#include "jobs/shard.h"
#include "jobs/thread_count.h"
#include "jobs/validate.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/onnx_flags.h"
#include "tools/cli/testcase_flags.h"

namespace mgedump::cli {
namespace {

namespace fs = std::filesystem;

struct BatchCommand {
    std::string input;
    std::string out_dir;
    std::string report;
    std::string threads;  // "" (absent or empty): the CPUs of this task (jobs/thread_count.h)
    std::string memory_budget;
    bool incremental = false;
    bool verify_numeric = false;
    uint64_t numeric_seed = 0;
    std::string shard;
    std::optional<uint32_t> shard_count;
    std::string shard_by = "index";
    bool quiet = false;
    bool verbose = false;
    bool allow_empty = false;
    DumpFlags flags;
    TestcaseFlags testcases;  // every job's, unless its manifest entry says otherwise
    // Every ONNX job's import options, unless the manifest's defaults or the job say otherwise.
    OnnxFlags onnx;
};

// Below this a batch cannot keep one small model, its write buffer and the
// tables of the pipeline in memory at once: a value like "1K" is a typo (for
// 1G?), and running with it would only be slow in ways nobody asked for.
constexpr uint64_t kMinMemoryBudget = uint64_t{16} << 20;

uint64_t memory_budget(const std::string& text) {
    if (text.empty()) return 0;  // half of physical memory
    const uint64_t b = jobs::parse_byte_size(text);
    if (b < kMinMemoryBudget)
        throw OptionError(fmt::format("--memory-budget {} ({} bytes) is below the minimum a batch needs, 16M "
                                      "(one model, its write buffer and the pipeline's tables); give 16M or more",
                                      text, b));
    return b;
}

// The problems, one a line, and that nothing was written: then exit 2.
int refuse(const std::vector<std::string>& errors) {
    for (const std::string& e : errors) std::cerr << fmt::format("mgedump batch: error: {}\n", e);
    std::cerr << fmt::format("mgedump batch: {} problem(s) found before anything ran; nothing was written\n",
                             errors.size());
    return 2;
}

jobs::Shard pick_shard(const BatchCommand& c) {
    jobs::Shard s = jobs::resolve_shard(c.shard, c.shard_count);
    s.by = c.shard_by == "name" ? jobs::ShardBy::Name : jobs::ShardBy::Index;
    return s;
}

int run_batch_command(const BatchCommand& c) {
    engine::DumpOptions defaults = to_options(c.flags);
    // The batch writes one merged strip-info file itself (jobs run concurrently).
    std::optional<std::string> strip_info_file = defaults.strip_info_file;
    defaults.strip_info_file.reset();
    defaults.append_json = false;
    defaults.testcases = to_testcase_options(c.testcases, "--testcases");
    engine::check_options(defaults);
    const formats::OnnxImportOptions onnx = to_import_options(c.onnx);

    jobs::BatchOptions o;
    o.out_dir = c.out_dir;
    o.threads = jobs::thread_count(c.threads);
    o.memory_budget = memory_budget(c.memory_budget);
    o.incremental = c.incremental;
    o.verify_numeric = c.verify_numeric;
    o.numeric_seed = c.numeric_seed;
    o.shard = pick_shard(c);

    const std::string report_path = c.report.empty() ? (fs::path(c.out_dir) / "report.json").string() : c.report;
    jobs::BatchTargets targets{c.out_dir, report_path, strip_info_file, c.input, c.allow_empty};
    o.written_after.emplace_back(report_path, "the report (--report)");
    if (strip_info_file) o.written_after.emplace_back(*strip_info_file, "the strip-info file (--strip-info-file)");
    const fs::path in(c.input);
    jobs::Manifest manifest;
    if (fs::is_directory(in)) {
        jobs::OwnFiles own{c.out_dir, {report_path}};
        if (strip_info_file) own.files.emplace_back(*strip_info_file);
        manifest = jobs::scan_directory(in, defaults, own, onnx);
        if (c.verbose)
            for (const std::string& s : manifest.skipped) std::cerr << fmt::format("mgedump batch: skipped {}\n", s);
    } else {
        manifest = jobs::read_manifest_file_collecting(in, defaults, onnx);
    }
    if (std::vector<std::string> errors = jobs::validate_batch(manifest, targets); !errors.empty())
        return refuse(errors);
    jobs::ProgressPrinter progress(stderr, ::isatty(::fileno(stderr)) == 1);
    if (!c.quiet) o.on_progress = [&](const jobs::JobProgress& p) { progress.update(p); };

    jobs::BatchReport report = jobs::run_batch(manifest, o);
    progress.finish();

    const std::string text =
        jobs::report_to_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    engine::write_file_atomically(report_path, std::string_view(text));
    if (strip_info_file)
        formats::write_strip_info_file(*strip_info_file, report.strip_info, report.strip_info_hash, c.flags.append_json);

    // -q: nothing but errors, so the summary only when a job failed (on stderr).
    const std::string summary = jobs::report_summary(report) + fmt::format("  report: {}\n", report_path);
    if (c.flags.json) std::cout << text;
    else if (!c.quiet) std::cout << summary;
    else if (!report.ok()) std::cerr << summary;
    return report.ok() ? 0 : 1;
}

}  // namespace

void register_batch(CLI::App& app) {
    auto c = std::make_shared<BatchCommand>();
    CLI::App* cmd = app.add_subcommand(
        "batch", "Serialize many graphs: a manifest (JSON / JSON Lines) of jobs, or every *.json, *.mge and *.onnx in a "
        "directory. The whole manifest is checked first: any problem is listed and nothing is written (exit 2)");
    cmd->add_option("input", c->input, "manifest file, or a directory of graph JSON / .mge / .onnx files")->required();
    cmd->add_option("-o,--output", c->out_dir, "directory the artifacts are written into (created if missing)")
        ->required();
    cmd->add_option("--report", c->report, "where the JSON report goes (default OUT_DIR/report.json)");
    cmd->add_option("--threads", c->threads,
                    "worker threads, 1-4096 (default, also for an empty value: SLURM_CPUS_PER_TASK or "
                    "SLURM_CPUS_ON_NODE in a Slurm job, else every CPU this process may run on)");
    cmd->add_option("--memory-budget", c->memory_budget,
                    "models in flight are admitted while their estimated size fits, e.g. 512M, 4G "
                    "(default: half of physical memory)");
    cmd->add_flag("--incremental", c->incremental,
                  "skip artifacts whose input, options and engine version are unchanged since they were written");
    cmd->add_flag("--verify-numeric", c->verify_numeric,
                  "before writing each artifact, load it again and execute it with the reference evaluator "
                  "against the model as read (deterministic inputs); one that changes a number fails and is "
                  "not written; the report records each artifact's largest difference");
    cmd->add_option("--numeric-seed", c->numeric_seed, "seed of the --verify-numeric inputs (default 0)");
    cmd->add_option("--shard", c->shard,
                    "run shard K of N (K/N, 0-based); default: a Slurm array task's place in its array "
                    "((SLURM_ARRAY_TASK_ID - _MIN) / _STEP of _COUNT), or with --shard-count its task ID, "
                    "or JOB_COMPLETION_INDEX");
    cmd->add_option("--shard-count", c->shard_count,
                    "fix the number of shards N: the index is then SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX "
                    "(so a re-submitted array task runs its own shard); required for Kubernetes Indexed Jobs")
        ->check(CLI::Range(1u, 1u << 30));
    cmd->add_option("--shard-by", c->shard_by, "index (job index mod N) or name (hash of the output name)")
        ->check(CLI::IsMember({"index", "name"}));
    cmd->add_flag("-q,--quiet", c->quiet, "print nothing but errors (the summary only when a job failed, on stderr)");
    cmd->add_flag("-v,--verbose", c->verbose, "also say which directory entries were not taken as inputs, and why");
    cmd->add_flag("--allow-empty", c->allow_empty,
                  "an empty manifest or a directory without models is a success, not an error");
    // As `mgedump dump` has them; manifest keys params_as_shared, fold_batch_norm and
    // input_shapes override them per job (jobs/onnx_options_json.h).
    add_onnx_flags(*cmd, c->onnx,
                   {.params_as_shared = " (every ONNX job's default; manifest key \"params_as_shared\")",
                    .input_shapes = "; an ONNX job without input NAME fails (every ONNX job's default; manifest key "
                                    "\"input_shapes\": {\"NAME\": [1, 3, 224, 224]})",
                    .fold_batch_norm = " (every ONNX job's default; manifest key \"fold_batch_norm\": false)"});
    add_dump_flags(*cmd, c->flags);
    add_testcase_flags(*cmd, c->testcases, "--testcases");
    cmd->callback([c] {
        try {
            set_exit_code(run_batch_command(*c));
        } catch (const mgedump::Error& e) {
            // Set-up and configuration: the batch did not run (or wrote only its artifacts).
            std::cerr << fmt::format("mgedump batch: {}\n", jobs::without_temp_names(jobs::without_json_prefixes(e.what())));
            set_exit_code(2);
        }
    });
}

}  // namespace mgedump::cli
