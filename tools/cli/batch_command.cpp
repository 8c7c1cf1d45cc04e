// `mgedump batch MANIFEST|IN_DIR -o OUT_DIR [options]`: many models at once, on
// every core, within a memory budget; a JSON report for CI and a summary for people.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "engine/artifact_file.h"
#include "formats/strip_info_json.h"
#include "ir/error.h"
#include "jobs/batch.h"
#include "jobs/byte_size.h"
#include "jobs/manifest.h"
#include "jobs/progress.h"
#include "jobs/shard.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"

namespace mgedump::cli {
namespace {

namespace fs = std::filesystem;

struct BatchCommand {
    std::string input;
    std::string out_dir;
    std::string report;
    unsigned threads = 0;
    std::string memory_budget;
    bool incremental = false;
    std::string shard;
    std::optional<uint32_t> shard_count;
    std::string shard_by = "index";
    bool quiet = false;
    DumpFlags flags;
};

jobs::Shard pick_shard(const BatchCommand& c) {
    jobs::Shard s;
    if (!c.shard.empty()) s = jobs::parse_shard(c.shard);
    else if (auto env = jobs::shard_from_environment(c.shard_count)) s = *env;
    s.by = c.shard_by == "name" ? jobs::ShardBy::Name : jobs::ShardBy::Index;
    return s;
}

int run_batch_command(const BatchCommand& c) {
    engine::DumpOptions defaults = to_options(c.flags);
    // The batch writes one merged strip-info file itself (jobs run concurrently).
    std::optional<std::string> strip_info_file = defaults.strip_info_file;
    defaults.strip_info_file.reset();
    defaults.append_json = false;
    engine::check_options(defaults);

    const fs::path in(c.input);
    jobs::Manifest manifest =
        fs::is_directory(in) ? jobs::scan_directory(in, defaults) : jobs::read_manifest_file(in, defaults);

    jobs::BatchOptions o;
    o.out_dir = c.out_dir;
    o.threads = c.threads;
    o.memory_budget = c.memory_budget.empty() ? 0 : jobs::parse_byte_size(c.memory_budget);
    o.incremental = c.incremental;
    o.shard = pick_shard(c);
    jobs::ProgressPrinter progress(stderr, ::isatty(::fileno(stderr)) == 1);
    if (!c.quiet) o.on_progress = [&](const jobs::JobProgress& p) { progress.update(p); };

    jobs::BatchReport report = jobs::run_batch(manifest, o);
    progress.finish();

    const std::string report_path = c.report.empty() ? (fs::path(c.out_dir) / "report.json").string() : c.report;
    const std::string text =
        jobs::report_to_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    engine::write_file_atomically(report_path, std::string_view(text));
    if (strip_info_file)
        formats::write_strip_info_file(*strip_info_file, report.strip_info, report.strip_info_hash, c.flags.append_json);

    if (c.flags.json) std::cout << text;
    else std::cout << jobs::report_summary(report) << fmt::format("  report: {}\n", report_path);
    return report.ok() ? 0 : 1;
}

}  // namespace

void register_batch(CLI::App& app) {
    auto c = std::make_shared<BatchCommand>();
    CLI::App* cmd = app.add_subcommand(
        "batch", "Serialize many graphs: a manifest (JSON / JSON Lines) of jobs, or every *.json and *.mge in a directory");
    cmd->add_option("input", c->input, "manifest file, or a directory of graph JSON / .mge files")->required();
    cmd->add_option("-o,--output", c->out_dir, "directory the artifacts are written into (created if missing)")
        ->required();
    cmd->add_option("--report", c->report, "where the JSON report goes (default OUT_DIR/report.json)");
    cmd->add_option("--threads", c->threads, "worker threads (default: every core)")->check(CLI::Range(1u, 4096u));
    cmd->add_option("--memory-budget", c->memory_budget,
                    "models in flight are admitted while their estimated size fits, e.g. 512M, 4G "
                    "(default: half of physical memory)");
    cmd->add_flag("--incremental", c->incremental,
                  "skip artifacts whose input, options and engine version are unchanged since they were written");
    cmd->add_option("--shard", c->shard,
                    "run shard K of N (K/N, 0-based); default from SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX");
    cmd->add_option("--shard-count", c->shard_count, "N for JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)")
        ->check(CLI::Range(1u, 1u << 30));
    cmd->add_option("--shard-by", c->shard_by, "index (job index mod N) or name (hash of the output name)")
        ->check(CLI::IsMember({"index", "name"}));
    cmd->add_flag("-q,--quiet", c->quiet, "no progress output");
    add_dump_flags(*cmd, c->flags);
    cmd->callback([c] {
        try {
            set_exit_code(run_batch_command(*c));
        } catch (const mgedump::Error& e) {
            std::cerr << fmt::format("mgedump batch: {}\n", e.what());
            set_exit_code(2);
        }
    });
}

}  // namespace mgedump::cli
