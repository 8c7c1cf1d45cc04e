// `mgedump dump GRAPH.json -o OUT.mge [options]`: one graph, one artifact.
#include <fmt/format.h>

#include <iostream>

#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "formats/graph_json.h"
#include "ir/error.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/result_print.h"

namespace mgedump::cli {
namespace {

struct DumpCommand {
    std::string input;
    std::string output;
    DumpFlags flags;
};

void run_dump(const DumpCommand& c) {
    try {
        engine::DumpOptions options = to_options(c.flags);
        engine::check_options(options);  // reject bad combinations before reading anything
        ir::Graph g = formats::read_graph_json_file(c.input);
        engine::Dumped d = engine::dump_graph(g, options);
        engine::write_file_atomically(c.output, d.bytes);
        if (c.flags.json) {
            nlohmann::json j = result_to_json(d.result);
            j["path"] = c.output;
            j["format"] = engine::format_name(options.dump_format);
            std::cout << j.dump(2) << "\n";
        } else {
            std::cout << result_to_text(c.output, options.dump_format, d.result);
        }
        set_exit_code(0);
    } catch (const mgedump::Error& e) {
        std::cerr << fmt::format("mgedump dump: {}: {}\n", c.input, e.what());
        set_exit_code(1);
    }
}

}  // namespace

void register_dump(CLI::App& app) {
    auto cmd_state = std::make_shared<DumpCommand>();
    CLI::App* cmd = app.add_subcommand("dump", "Serialize a graph (graph JSON) into a .mge file");
    cmd->add_option("input", cmd_state->input, "graph JSON file (formats/GRAPH_JSON.md)")->required();
    cmd->add_option("-o,--output", cmd_state->output, "the .mge file to write")->required();
    add_dump_flags(*cmd, cmd_state->flags);
    cmd->callback([cmd_state] { run_dump(*cmd_state); });
}

}  // namespace mgedump::cli
