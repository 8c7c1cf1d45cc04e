// `mgedump convert IN -o OUT [dump options]`: load a model and dump it again,
// possibly in the other format or with other options. Options not given default to
// the dump defaults (FBS_V2, as MegEngine's), except that a .mge input's
// model_version (FBS_V2 to FBS_V2) and metadata are kept, and so is its
// mgb_version while the format stays the same (a file in the other format is
// written in 1.13.4's format, so it says so). A graph JSON or ONNX input is dumped
// as `dump` would.
#include <fmt/format.h>

#include <iostream>

#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/load.h"
#include "engine/redump.h"
#include "ir/error.h"
#include "tools/cli/commands.h"
#include "jobs/model_input.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/input_kind.h"
#include "tools/cli/result_print.h"

namespace mgedump::cli {
namespace {

struct ConvertCommand {
    std::string input;
    std::string output;
    bool quiet = false;
    DumpFlags flags;
    CLI::App* cmd = nullptr;
};

bool given(const ConvertCommand& c, const char* flag) { return c.cmd->count(flag) > 0; }

// What was written, for the summary: "FBS_V2 model_version 2", "FBS (MGBS, 8.14)".
std::string written_format(const engine::DumpOptions& o) {
    if (o.dump_format == engine::DumpFormat::FBS_V2) return fmt::format("FBS_V2 model_version {}", o.model_version);
    return o.compat_older_version ? "FBS (MGBS, readable by MegBrain 8.14)" : "FBS (MGBC)";
}

void run_convert(const ConvertCommand& c) {
    // Set once the model is read: the dump's own errors (an operator it refuses)
    // then name the model too, as the reader's already do.
    std::string current;
    try {
        check_flags_take_effect(*c.cmd, c.flags);
        check_strip_info_target(c.flags, std::span(&c.input, 1), c.output);  // before anything is read
        ir::Graph graph;
        engine::DumpOptions options;
        std::string input_format;
        if (const InputKind kind = input_kind(c.input); kind != InputKind::Mge) {
            check_output_not_source(std::span(&c.input, 1), c.output);  // before the graph is read
            // And each file it is built from besides (.npy weights, ONNX external
            // data), before that is read.
            jobs::ModelInput in =
                jobs::read_model_input(c.input, nullptr, {}, outputs_not_side_file(c.output, c.flags.strip_info_file));
            graph = std::move(in.graph);
            options = to_options(c.flags);
            input_format = input_kind_name(kind);
        } else {
            formats::LoadedModel m = engine::load_file(c.input);
            if (m.bytes_consumed < engine::map_file(c.input).bytes.size() && !c.quiet)
                std::cerr << fmt::format("mgedump convert: {}: converting the first of several appended graphs\n",
                                         c.input);
            options = to_options(c.flags, m.metadata);
            const engine::DumpOptions same = engine::redump_options(m);
            if (!given(c, "--model-version") && m.format == formats::ModelFormat::FbsV2)
                options.model_version = same.model_version;
            if (!given(c, "--mgb-version") && options.dump_format == same.dump_format)
                options.mgb_version = m.mgb_version;
            graph = std::move(m.graph);
            input_format = formats::model_format_name(m.format);
        }
        current = c.input;
        engine::check_options(options);
        engine::Dumped d = engine::dump_graph(graph, options);
        current.clear();  // a write error names the output itself
        engine::remove_stale_temp_files(engine::temp_dir_for(c.output));  // left by killed runs
        engine::write_file_atomically(c.output, d.bytes);  // "-": standard output (engine/artifact_file.h)
        std::ostream& report = c.output == "-" ? std::cerr : std::cout;  // stdout holds the artifact
        set_exit_code(0);
        if (c.quiet) return;  // errors only
        print_warnings("convert", c.output, d.result);
        if (c.flags.json) {
            nlohmann::json j = result_to_json(d.result);
            j["path"] = c.output;
            j["format"] = engine::format_name(options.dump_format);
            j["input"] = c.input;
            if (options.dump_format == engine::DumpFormat::FBS_V2) j["model_version"] = options.model_version;
            j["input_format"] = input_format;
            report << j.dump(2) << "\n";
        } else {
            report << result_to_text(c.output, options.dump_format, d.result)
                   << fmt::format("  written as {} (input {}: {})\n", written_format(options), c.input, input_format);
        }
    } catch (const mgedump::Error& e) {
        std::cerr << (current.empty() ? fmt::format("mgedump convert: {}\n", e.what())
                                      : fmt::format("mgedump convert: {}: {}\n", current, e.what()));
        // Options that cannot work (together, or for this model) are usage errors.
        set_exit_code(dynamic_cast<const OptionError*>(&e) ? 2 : 1);
    }
}

}  // namespace

void register_convert(CLI::App& app) {
    auto state = std::make_shared<ConvertCommand>();
    CLI::App* cmd = app.add_subcommand(
        "convert", "Load a model and dump it again: FBS_V2 unless --dump-format says otherwise, other options as given");
    cmd->add_option("input", state->input, "the model to read: a .mge file (FBS or FBS_V2; its first graph), graph "
                                           "JSON or ONNX")
        ->required();
    cmd->add_option("-o,--output", state->output, "the .mge file to write (\"-\": standard output)")->required();
    cmd->add_flag("-q,--quiet", state->quiet, "print nothing but errors (no result, no warnings)");
    add_dump_flags(*cmd, state->flags);
    state->cmd = cmd;
    cmd->callback([state] { run_convert(*state); });
}

}  // namespace mgedump::cli
