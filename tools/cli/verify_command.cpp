// `mgedump verify FILE...`: each .mge file is loaded (every appended graph),
// validated, dumped again with the options its contents imply, loaded again and
// compared by meaning. A graph JSON or ONNX model is first dumped as `mgedump
// dump` would (default options), and that file is checked the same way. One line
// per file; exit status 0 only if every file passes.
#include <fmt/format.h>

#include <iostream>

#include "engine/dump.h"
#include "engine/load.h"
#include "engine/model_compare.h"
#include "engine/redump.h"
#include "ir/error.h"
#include "ir/validate.h"
#include "jobs/model_input.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/input_kind.h"

namespace mgedump::cli {
namespace {

struct VerifyCommand {
    std::vector<std::string> inputs;
    bool quiet = false;
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

// A graph JSON or ONNX input as the .mge file `mgedump dump` writes from it.
std::vector<formats::LoadedModel> dumped_as_by_dump(const std::string& path) {
    engine::Dumped d = engine::dump_graph(jobs::read_model_input(path).graph, to_options(DumpFlags{}));
    auto holder = std::make_shared<std::vector<std::byte>>(d.bytes.to_bytes());
    std::vector<formats::LoadedModel> models;
    models.push_back(formats::read_model(*holder, holder));
    return models;
}

int verify_file(const std::string& path, bool quiet) {
    try {
        const InputKind kind = input_kind(path);
        std::vector<formats::LoadedModel> models;
        if (kind != InputKind::Mge) {
            models = dumped_as_by_dump(path);
        } else {
            engine::MappedFile file = engine::map_file(path);
            try {
                models = formats::read_models(file.bytes, file.owner);
            } catch (const FormatError& e) {
                throw FormatError(fmt::format("{}: {}", path, e.what()));
            }
        }
        size_t nr_opr = 0;
        for (size_t i = 0; i < models.size(); ++i) {
            std::string problem = verify_graph(models[i], nr_opr);
            if (!problem.empty()) {
                std::cout << fmt::format("FAIL {}: graph #{}: re-dump changes meaning: {}\n", path, i, problem);
                return 1;
            }
        }
        const std::string format = kind == InputKind::Mge
                                       ? std::string(formats::model_format_name(models[0].format))
                                       : fmt::format("{}, dumped as {}", input_kind_name(kind),
                                                     formats::model_format_name(models[0].format));
        if (!quiet)
            std::cout << fmt::format("OK   {}: {}, {} graph(s), {} operators\n", path, format, models.size(), nr_opr);
        return 0;
    } catch (const mgedump::Error& e) {
        std::cout << fmt::format("FAIL {}: {}\n", path, e.what());
        return 1;
    }
}

void run_verify(const VerifyCommand& c) {
    int status = 0;
    for (const auto& path : c.inputs) status |= verify_file(path, c.quiet);
    set_exit_code(status);
}

}  // namespace

void register_verify(CLI::App& app) {
    auto state = std::make_shared<VerifyCommand>();
    CLI::App* cmd = app.add_subcommand(
        "verify", "Check models: load, validate, re-dump, reload, compare (graph JSON and ONNX: dumped first)");
    cmd->add_option("inputs", state->inputs, "the .mge files, graph JSON files or ONNX models")->required();
    cmd->add_flag("-q,--quiet", state->quiet, "print only the files that fail");
    cmd->callback([state] { run_verify(*state); });
}

}  // namespace mgedump::cli
