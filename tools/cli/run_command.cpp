// `mgedump run MODEL -o OUTDIR [--input NAME=FILE.npy ...] [--random-inputs SEED]`:
// executes the model with the reference evaluator (engine/eval) and writes each
// output as OUTDIR/<name>.npy. Every value is computed before the first file is
// written, and each file is written atomically, so a model that cannot run
// leaves nothing behind.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <utility>

#include "engine/artifact_file.h"
#include "engine/eval/evaluator.h"
#include "engine/eval/npy_tensor.h"
#include "ir/error.h"
#include "ir/infer/shape_util.h"
#include "ir/xxh3_dispatch.h"
#include "tools/cli/any_model.h"
#include "tools/cli/commands.h"

namespace mgedump::cli {
namespace {

namespace fs = std::filesystem;

struct RunCommand {
    std::string model;
    std::string output_dir;
    std::vector<std::string> inputs;  // NAME=FILE.npy
    std::optional<uint64_t> random_seed;
    int threads = 0;
    uint64_t max_work = engine::eval::kDefaultMaxEvalWork;
    bool quiet = false;
};

// An output's file name: its name with characters other than A-Z a-z 0-9 . _ -
// replaced by '_' (MegEngine's own test outputs are named so).
std::string file_name_for(const std::string& name) {
    std::string s = name;
    for (char& c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
    if (s.empty() || s == "." || s == "..") s = "_" + s;
    return s + ".npy";
}

// An --input NAME=FILE.npy split in two; throws OptionError when it is not of that form.
std::pair<std::string, std::string> split_input_spec(const std::string& spec) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        throw OptionError(fmt::format("--input '{}': expected NAME=FILE.npy", spec));
    return {spec.substr(0, eq), spec.substr(eq + 1)};
}

engine::eval::Feeds feeds_for(const RunCommand& c, const ir::Graph& g) {
    const std::vector<engine::eval::GraphInput> inputs = engine::eval::graph_inputs(g);
    engine::eval::Feeds feeds;
    if (c.random_seed) feeds = engine::eval::random_feeds(g, *c.random_seed);
    for (const std::string& spec : c.inputs) {
        // Not a structured binding: clang 14 (the fuzz build) cannot capture one in the lambda below.
        const std::pair<std::string, std::string> name_and_file = split_input_spec(spec);
        const std::string& name = name_and_file.first;
        const std::string& file = name_and_file.second;
        auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& in) { return in.name == name; });
        if (it == inputs.end()) {
            std::string names;
            for (const auto& in : inputs) names += (names.empty() ? "" : ", ") + in.name;
            throw OptionError(fmt::format("--input {}: the model has no input '{}' (its inputs: {})", spec, name,
                                          names.empty() ? "none" : names));
        }
        engine::eval::Tensor t = engine::eval::read_npy_tensor(file, it->dtype);
        if (it->shape.known() && !(t.shape() == it->shape))
            throw OptionError(fmt::format("--input {}: input '{}' is {} {}, the file holds {}", spec, name,
                                          ir::dtype_string(it->dtype), ir::shape_string(it->shape),
                                          ir::shape_string(t.shape())));
        feeds.insert_or_assign(name, std::move(t));
    }
    for (const auto& in : inputs)
        if (!feeds.count(in.name) && !in.has_default)
            throw OptionError(fmt::format("input '{}' ({} {}) has no value: give --input {}=FILE.npy or "
                                          "--random-inputs SEED",
                                          in.name, ir::dtype_string(in.dtype), ir::shape_string(in.shape), in.name));
    return feeds;
}

// An output written over the model or an --input file would replace what the run
// read (an input .npy in the output directory, named as an output is): refused
// before any file is written, as dump refuses an -o on its source graph.
void check_outputs_replace_nothing_read(const RunCommand& c, const std::map<std::string, size_t>& files,
                                        const std::vector<engine::eval::EvalOutput>& outputs) {
    for (const auto& [file, i] : files) {
        const fs::path target = fs::path(c.output_dir) / file;
        if (engine::same_file(target, c.model))
            throw OptionError(fmt::format("output '{}' would be written to {}, the model itself; give another "
                                          "--output-dir",
                                          outputs[i].name, target.string()));
        for (const std::string& spec : c.inputs)
            if (engine::same_file(target, split_input_spec(spec).second))
                throw OptionError(fmt::format("output '{}' would be written to {}, the file of --input {}; give "
                                              "another --output-dir",
                                              outputs[i].name, target.string(), spec));
    }
}

void run_run(const RunCommand& c) {
    try {
        const ir::Graph g = read_any_model(c.model);
        const engine::eval::Feeds feeds = feeds_for(c, g);
        const std::vector<engine::eval::EvalOutput> outputs =
            engine::eval::evaluate(g, feeds, engine::eval::EvalOptions{.threads = c.threads, .max_work = c.max_work});

        // Files are decided before any is written: two outputs that would share a
        // file are an error, unless they are the same var.
        std::map<std::string, size_t> files;
        for (size_t i = 0; i < outputs.size(); ++i) {
            auto [it, added] = files.emplace(file_name_for(outputs[i].name), i);
            if (!added && g.outputs[it->second] != g.outputs[i])
                throw Error(fmt::format("outputs {} and {} would both be written to {}", it->second, i, it->first));
        }
        check_outputs_replace_nothing_read(c, files, outputs);
        std::error_code ec;
        fs::create_directories(c.output_dir, ec);
        if (ec) throw Error(fmt::format("{}: cannot create the output directory: {}", c.output_dir, ec.message()));
        engine::remove_stale_temp_files(c.output_dir);
        for (const auto& [file, i] : files) {
            const std::vector<std::byte> image = engine::eval::npy_image(outputs[i].value);
            const std::span<const std::byte> seg(image);
            engine::write_file_atomically((fs::path(c.output_dir) / file).string(),
                                          std::string_view(reinterpret_cast<const char*>(seg.data()), seg.size()));
        }
        set_exit_code(0);
        if (c.quiet) return;
        for (size_t i = 0; i < outputs.size(); ++i) {
            const auto& t = outputs[i].value;
            const XXH64_hash_t sum = XXH3_64bits(t.bytes().data(), t.bytes().size());
            std::cout << fmt::format("{} {} {} xxh3:{:016x} -> {}\n", outputs[i].name, ir::dtype_string(t.dtype()),
                                     ir::shape_string(t.shape()), sum,
                                     (fs::path(c.output_dir) / file_name_for(outputs[i].name)).string());
        }
    } catch (const mgedump::Error& e) {
        std::cerr << fmt::format("mgedump run: {}: {}\n", c.model, e.what());
        set_exit_code(dynamic_cast<const OptionError*>(&e) ? 2 : 1);
    }
}

}  // namespace

void register_run(CLI::App& app) {
    auto state = std::make_shared<RunCommand>();
    CLI::App* cmd = app.add_subcommand(
        "run", "Execute a model with the reference evaluator (MegEngine's semantics) and write its outputs as .npy");
    cmd->add_option("model", state->model, "the model: a .mge file (first graph), graph JSON or ONNX")->required();
    cmd->add_option("-o,--output-dir", state->output_dir, "where <output name>.npy files go")->required();
    cmd->add_option("--input", state->inputs, "NAME=FILE.npy: the value of input NAME (repeatable)");
    cmd->add_option("--random-inputs", state->random_seed,
                    "SEED: deterministic random values for every input not given by --input");
    cmd->add_option("--threads", state->threads, "threads for the parallel kernels (default: every core)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--max-eval-work", state->max_work,
                    "N: refuse a model whose evaluation would take more than N estimated multiply-adds "
                    "(default 2^42, a hostile model's guard)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("-q,--quiet", state->quiet, "print nothing but errors");
    cmd->callback([state] { run_run(*state); });
}

}  // namespace mgedump::cli
