// `mgedump verify FILE...`: each file is loaded (every appended graph), validated,
// dumped again with the options its contents imply, loaded again and compared by
// meaning. One line per file; exit status 0 only if every file passes.
#include <fmt/format.h>

#include <iostream>

#include "engine/dump.h"
#include "engine/load.h"
#include "engine/model_compare.h"
#include "engine/redump.h"
#include "ir/error.h"
#include "ir/validate.h"
#include "tools/cli/commands.h"

namespace mgedump::cli {
namespace {

struct VerifyCommand {
    std::vector<std::string> inputs;
};

// "" when the graph survives the round trip, else what went wrong.
std::string verify_graph(const formats::LoadedModel& m, size_t& nr_opr) {
    ir::validate(m.graph, ir::ValidateOptions{.unique_output_names = m.settings.keep_var_name >= 1});
    engine::Dumped d = engine::dump_graph(m.graph, engine::redump_options(m));
    std::vector<std::byte> bytes = d.bytes.to_bytes();
    auto holder = std::make_shared<std::vector<std::byte>>(std::move(bytes));
    formats::LoadedModel again = formats::read_model(*holder, holder);
    nr_opr += m.graph.oprs.size();
    auto diffs = engine::compare_graphs(m.graph, again.graph, engine::redump_compare_options(m), 3);
    if (m.metadata && again.metadata != m.metadata) diffs.push_back("metadata differs");
    std::string out;
    for (const auto& s : diffs) out += (out.empty() ? "" : "; ") + s;
    return out;
}

int verify_file(const std::string& path) {
    try {
        engine::MappedFile file = engine::map_file(path);
        std::vector<formats::LoadedModel> models;
        try {
            models = formats::read_models(file.bytes, file.owner);
        } catch (const FormatError& e) {
            throw FormatError(fmt::format("{}: {}", path, e.what()));
        }
        size_t nr_opr = 0;
        for (size_t i = 0; i < models.size(); ++i) {
            std::string problem = verify_graph(models[i], nr_opr);
            if (!problem.empty()) {
                std::cout << fmt::format("FAIL {}: graph #{}: re-dump changes meaning: {}\n", path, i, problem);
                return 1;
            }
        }
        std::cout << fmt::format("OK   {}: {}, {} graph(s), {} operators\n", path,
                                 formats::model_format_name(models[0].format), models.size(), nr_opr);
        return 0;
    } catch (const mgedump::Error& e) {
        std::cout << fmt::format("FAIL {}: {}\n", path, e.what());
        return 1;
    }
}

void run_verify(const VerifyCommand& c) {
    int status = 0;
    for (const auto& path : c.inputs) status |= verify_file(path);
    set_exit_code(status);
}

}  // namespace

void register_verify(CLI::App& app) {
    auto state = std::make_shared<VerifyCommand>();
    CLI::App* cmd = app.add_subcommand("verify", "Check .mge files: load, validate, re-dump, reload, compare");
    cmd->add_option("inputs", state->inputs, "the .mge files")->required();
    cmd->callback([state] { run_verify(*state); });
}

}  // namespace mgedump::cli
