// `mgedump convert IN -o OUT [dump options]`: load a .mge file and dump it again,
// possibly in the other format or with other options. Options not given default to
// the dump defaults, except that format, header (MGBS → 8.14), model_version and
// metadata default to the input's, and so does mgb_version while the format stays
// the same (a file in the other format is written in 1.13.4's format, so it says so).
#include <fmt/format.h>

#include <iostream>

#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/load.h"
#include "engine/redump.h"
#include "ir/error.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/result_print.h"

namespace mgedump::cli {
namespace {

struct ConvertCommand {
    std::string input;
    std::string output;
    DumpFlags flags;
    CLI::App* cmd = nullptr;
};

bool given(const ConvertCommand& c, const char* flag) { return c.cmd->count(flag) > 0; }

void run_convert(const ConvertCommand& c) {
    try {
        formats::LoadedModel m = engine::load_file(c.input);
        if (m.bytes_consumed < engine::map_file(c.input).bytes.size())
            std::cerr << fmt::format("mgedump convert: {}: converting the first of several appended graphs\n", c.input);
        engine::DumpOptions options = to_options(c.flags, m.metadata);
        const engine::DumpOptions same = engine::redump_options(m);
        if (!given(c, "--dump-format")) {
            options.dump_format = same.dump_format;
            if (!given(c, "--compat-older-version") && !given(c, "--no-change-graph"))
                options.compat_older_version = same.compat_older_version;
        }
        if (!given(c, "--model-version") && m.format == formats::ModelFormat::FbsV2)
            options.model_version = same.model_version;
        if (!given(c, "--mgb-version") && options.dump_format == same.dump_format) options.mgb_version = m.mgb_version;
        engine::check_options(options);
        engine::Dumped d = engine::dump_graph(m.graph, options);
        engine::write_file_atomically(c.output, d.bytes);
        if (c.flags.json) {
            nlohmann::json j = result_to_json(d.result);
            j["path"] = c.output;
            j["format"] = engine::format_name(options.dump_format);
            j["input"] = c.input;
            j["input_format"] = formats::model_format_name(m.format);
            std::cout << j.dump(2) << "\n";
        } else {
            std::cout << result_to_text(c.output, options.dump_format, d.result);
        }
        set_exit_code(0);
    } catch (const mgedump::Error& e) {
        std::cerr << fmt::format("mgedump convert: {}\n", e.what());
        set_exit_code(1);
    }
}

}  // namespace

void register_convert(CLI::App& app) {
    auto state = std::make_shared<ConvertCommand>();
    CLI::App* cmd = app.add_subcommand("convert", "Load a .mge file and dump it again (other format or options)");
    cmd->add_option("input", state->input, "the .mge file to read (FBS or FBS_V2)")->required();
    cmd->add_option("-o,--output", state->output, "the .mge file to write")->required();
    add_dump_flags(*cmd, state->flags);
    state->cmd = cmd;
    cmd->callback([state] { run_convert(*state); });
}

}  // namespace mgedump::cli
