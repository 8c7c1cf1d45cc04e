// `mgedump dump GRAPH.json|MODEL.onnx... -o OUT.mge [options]`: graphs to one artifact. Several
// inputs (or --append to an existing file) give several graphs in one file, one
// after the other, as MegEngine's trace.dump(append=True) does (spec §11.3). With
// --input-data the artifact is MegEngine's test-case file instead: the model with
// its asserts and its test cases (spec §11.4, engine/testcase/testcase_dump.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <cstring>

#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "engine/testcase/input_data.h"
#include "engine/testcase/testcase_dump.h"
#include "formats/graph_json.h"
#include "formats/onnx/import.h"
#include "ir/error.h"
#include "tools/cli/commands.h"
#include "tools/cli/dump_flags.h"
#include "tools/cli/input_kind.h"
#include "tools/cli/onnx_flags.h"
#include "tools/cli/result_print.h"
#include "tools/cli/testcase_flags.h"

namespace mgedump::cli {
namespace {

struct DumpCommand {
    std::vector<std::string> inputs;
    std::string output;
    bool append = false;
    bool quiet = false;
    OnnxFlags onnx;
    DumpFlags flags;
    TestcaseFlags testcases;
    CLI::App* cmd = nullptr;
};

// What a test-case file adds to the model's dump result.
std::string testcases_text(const engine::testcase::TestcaseDumped& t, const engine::testcase::TestcaseOptions& o) {
    return fmt::format("  test-case file (mgbtest0): {} bytes, {} test case(s) of [{}], {}\n", t.file_bytes,
                       t.cases.size(), fmt::join(t.input_names, ", "),
                       o.no_assert ? std::string("no asserts") : fmt::format("AssertEqual maxerr {:g}", o.maxerr));
}

std::vector<std::byte> read_existing(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> bytes(chars.size());
    std::memcpy(bytes.data(), chars.data(), chars.size());
    return bytes;
}

void run_dump(const DumpCommand& c) {
    // What an error is about, unless its message already says: the readers name the
    // file they read, the dump's own errors (options, graph) do not.
    std::string current = c.inputs.empty() ? "" : c.inputs.front();
    try {
        check_flags_take_effect(*c.cmd, c.flags);
        engine::DumpOptions options = to_options(c.flags);
        options.testcases = to_testcase_options(c.testcases, "--input-data");
        engine::check_options(options);  // reject bad combinations before reading anything
        formats::OnnxImportOptions onnx = to_import_options(c.onnx);
        if (options.testcases && (c.inputs.size() != 1 || c.append))
            throw OptionError("--input-data writes a test-case file, which holds one model and its test cases "
                              "(load_and_run reads no more): give one input and no --append");
        current.clear();  // about the paths given, not one input
        check_strip_info_target(c.flags, c.inputs, c.output);
        check_output_not_source(c.inputs, c.output);
        if (options.testcases)
            for (const auto& p : engine::testcase::files_read(options.testcases->input_data, options.testcases->data_dir))
                check_outputs_not_side_file(p, c.output, c.flags.strip_info_file);
        // The weight files are known only as a graph is read: each is checked before it is.
        const formats::SideFileCheck not_output = outputs_not_side_file(c.output, c.flags.strip_info_file);
        onnx.check_side_file = not_output;
        for (const std::string& input : c.inputs) {
            current = input;
            if (input_kind(input) == InputKind::Mge)
                throw OptionError(fmt::format("a .mge file: dump reads graph JSON and ONNX; to dump a .mge file "
                                              "again: mgedump convert {} -o OUT.mge",
                                              input));
        }
        std::vector<engine::Dumped> dumps;
        std::optional<engine::testcase::TestcaseDumped> testcase_file;
        engine::FileOps ops;
        current.clear();  // the output's errors name it
        if (c.append && (c.output == "-" || (std::filesystem::exists(c.output) && !std::filesystem::is_regular_file(c.output))))
            throw Error(fmt::format("--append reads {}'s graphs back, so it needs a regular file", c.output));
        std::vector<std::byte> existing = c.append ? read_existing(c.output) : std::vector<std::byte>{};
        engine::remove_stale_temp_files(engine::temp_dir_for(c.output));  // left by killed runs
        // Each graph streams into a temporary file as it is dumped, so its weights
        // are read once; the file replaces c.output only when every graph dumped
        // ("-", a FIFO or a device are written through: engine/artifact_file.h). A
        // large one is written on a second thread while the weights are read.
        engine::AtomicFile file(c.output, ops, engine::WriteThread::ForLargeArtifacts);
        file.write(existing);
        for (const std::string& input : c.inputs) {
            current.clear();
            // ONNX has no magic number; its files are known by name.
            ir::Graph g = std::filesystem::path(input).extension() == ".onnx"
                              ? formats::import_onnx(input, onnx)
                              : formats::read_graph_json_file(input, nullptr, not_output);
            current = input;
            if (options.testcases) {
                testcase_file = engine::testcase::write_testcase_file(g, options, file);
                dumps.push_back(engine::Dumped{.result = testcase_file->model});
            } else {
                dumps.push_back(engine::dump_graph(g, options, nullptr, &file));
            }
        }
        file.commit();

        std::ostream& report = c.output == "-" ? std::cerr : std::cout;  // stdout holds the artifact
        nlohmann::json all = nlohmann::json::array();
        for (size_t i = 0; i < dumps.size() && !c.quiet; ++i) {
            print_warnings("dump", c.output, dumps[i].result);
            if (c.flags.json) {
                nlohmann::json j = result_to_json(dumps[i].result);
                j["path"] = c.output;
                j["input"] = c.inputs[i];
                j["format"] = engine::format_name(options.dump_format);
                if (testcase_file)
                    j["testcases"] = {{"count", testcase_file->cases.size()},
                                      {"inputs", testcase_file->input_names},
                                      {"file_bytes", testcase_file->file_bytes},
                                      {"no_assert", options.testcases->no_assert},
                                      {"maxerr", options.testcases->maxerr}};
                all.push_back(std::move(j));
            } else {
                report << result_to_text(dumps.size() > 1 ? fmt::format("{} [graph {}]", c.output, i) : c.output,
                                         options.dump_format, dumps[i].result);
                if (testcase_file) report << testcases_text(*testcase_file, *options.testcases);
            }
        }
        if (c.flags.json && !c.quiet) report << (all.size() == 1 ? all[0] : all).dump(2) << "\n";
        set_exit_code(0);
    } catch (const mgedump::Error& e) {
        std::cerr << (current.empty() ? fmt::format("mgedump dump: {}\n", e.what())
                                      : fmt::format("mgedump dump: {}: {}\n", current, e.what()));
        // Options that cannot work (together, or for this model) and .mge inputs are usage errors.
        set_exit_code(dynamic_cast<const OptionError*>(&e) ? 2 : 1);
    }
}

}  // namespace

void register_dump(CLI::App& app) {
    auto cmd_state = std::make_shared<DumpCommand>();
    CLI::App* cmd = app.add_subcommand("dump", "Serialize a graph (graph JSON or ONNX) into a .mge file");
    cmd->add_option("inputs", cmd_state->inputs,
                    "graph JSON file(s) (formats/GRAPH_JSON.md) or ONNX models (*.onnx, formats/onnx/ONNX_IMPORT.md); "
                    "several give several graphs in one file")
        ->required();
    cmd->add_option("-o,--output", cmd_state->output, "the .mge file to write (\"-\": standard output)")->required();
    cmd->add_flag("-q,--quiet", cmd_state->quiet, "print nothing but errors (no result, no warnings)");
    cmd->add_flag("--append", cmd_state->append, "append to the output file's existing graphs instead of replacing it");
    add_onnx_flags(*cmd, cmd_state->onnx);
    add_dump_flags(*cmd, cmd_state->flags);
    add_testcase_flags(*cmd, cmd_state->testcases, "--input-data");
    cmd_state->cmd = cmd;
    cmd->callback([cmd_state] { run_dump(*cmd_state); });
}

}  // namespace mgedump::cli
