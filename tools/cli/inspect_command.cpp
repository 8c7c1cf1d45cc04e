// `mgedump inspect FILE [--json [--values DIR]] [--dot] [--graph N]`: what is in a
// model — for a .mge file format and versions, hash and metadata; for any model
// (graph JSON and ONNX too) the operator histogram, inputs and outputs, every
// operator output's dtype and shape and the parameter bytes — for every graph
// appended in the file, or the one --graph picks. Of a test-case file (mgbtest0,
// spec §11.4) graph 0 is the model and each further graph a test case.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>
#include <optional>

#include "engine/eval/evaluator.h"
#include "engine/load.h"
#include "formats/graph_json.h"
#include "formats/testcase_file.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/order.h"
#include "jobs/model_input.h"
#include "tools/cli/commands.h"
#include "tools/cli/input_kind.h"
#include "tools/cli/inspect_text.h"
#include "tools/cli/model_dot.h"

namespace mgedump::cli {
namespace {

struct InspectCommand {
    std::string input;
    bool json = false;
    bool dot = false;
    std::optional<size_t> graph;  // --graph N
    std::string values_dir;       // --values DIR
};

// Every operator output in dump order with the dtype and shape the reader's static
// inference gave it (ir/infer.h) or the file recorded; "unknown" where neither did.
void print_vars(const ir::Graph& g) {
    fmt::print("vars:\n");
    for (ir::OprId o : ir::dump_order(g)) {
        const ir::Range r = g.oprs.outputs[o.value], tensors = g.oprs.tensors[o.value];
        for (uint32_t k = 0; k < r.count; ++k) {
            const ir::VarId v(r.begin + k);
            // A holder's var is its tensor, whose shape is always known ([] included).
            const std::string shape = k < tensors.count
                                          ? tensor_shape_text(g.tensor_shape(ir::TensorId(tensors.begin + k)))
                                          : shape_text(g.var_shape(v));
            fmt::print("  {:<28} {} {}  <- #{} {}\n", var_name_text(g, v), dtype_text(g.vars.dtype[v.value]),
                       shape, o.value, op_kind_text(g, o));
        }
    }
}

// `m`: what a .mge file says besides the graph; null for graph JSON and ONNX.
void print_summary(const ir::Graph& g, const formats::LoadedModel* m) {
    if (m) {
        fmt::print("format:           {}\n", formats::model_format_name(m->format));
        fmt::print("mgb_version:      {}\n", m->mgb_version);
        if (m->format == formats::ModelFormat::FbsV2)
            fmt::print("model_version:    {}\n", m->model_version);
        else
            fmt::print("hash:             {} (0x{:016x})\n", m->hash, m->hash);
        fmt::print("bytes:            {}\n", m->bytes_consumed);
    }
    fmt::print("operators:        {}\n", g.oprs.size());
    std::map<std::string_view, size_t> histogram;
    for (ir::OpTypeId t : g.oprs.type) ++histogram[ir::op_def(t).name];
    std::vector<std::pair<std::string_view, size_t>> sorted(histogram.begin(), histogram.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second > b.second; });
    for (auto& [name, n] : sorted) fmt::print("  {:<28} {}\n", name, n);

    fmt::print("inputs:\n");
    uint64_t param_count = 0, param_bytes = 0, param_elements = 0;
    for (uint32_t t = 0; t < g.tensors.size(); ++t) {
        const auto method = g.tensors.method[t];
        if (method == ir::TensorMethod::MetaInput || method == ir::TensorMethod::ValueInput) {
            fmt::print("  {:<28} {} {}\n", g.str(g.tensors.name[t]), dtype_text(g.tensors.dtype[t]),
                       tensor_shape_text(g.tensor_shape(ir::TensorId(t))));
        } else if (g.tensors.blob[t].valid()) {
            ++param_count;
            param_bytes += g.blobs.bytes(g.tensors.blob[t]).size();
            param_elements += ir::element_count(g.tensor_shape(ir::TensorId(t)));
        }
    }
    fmt::print("outputs:\n");
    for (ir::VarId v : g.outputs) {
        fmt::print("  {:<28} {} {} (original id {})\n", g.str(g.vars.name[v.value]),
                   dtype_text(g.vars.dtype[v.value]), shape_text(g.var_shape(v)),
                   g.vars.original_id[v.value]);
    }
    print_vars(g);
    fmt::print("parameters:       {} tensors, {} elements, {} bytes", param_count, param_elements, param_bytes);
    if (!m) {
        fmt::print("\n");
        return;
    }
    fmt::print(" (nr_shared_tensor {})\n", m->nr_shared_tensor);
    if (m->metadata)
        fmt::print("metadata:         is_valid={} graph_modified={} optimize_options={} user_info=\"{}\"\n",
                   m->metadata->is_valid, m->metadata->graph_modified, m->metadata->optimize_options,
                   m->metadata->user_info);
    else
        fmt::print("metadata:         none (written before MegEngine 1.5)\n");
}

// The graphs of a .mge file (with what the file says about each), or the one
// graph of a graph JSON or ONNX input.
struct Inspected {
    std::vector<formats::LoadedModel> models;  // .mge only
    std::vector<ir::Graph> graphs;             // graph JSON / ONNX: one
    std::string header;                        // the "file:" line
    std::optional<uint32_t> testcases;         // a test-case file's count
    size_t size() const { return models.empty() ? graphs.size() : models.size(); }
    const ir::Graph& graph(size_t i) const { return models.empty() ? graphs[i] : models[i].graph; }
    const formats::LoadedModel* model(size_t i) const { return models.empty() ? nullptr : &models[i]; }
};

Inspected read_input(const std::string& path) {
    Inspected in;
    if (const InputKind kind = input_kind(path); kind != InputKind::Mge) {
        jobs::ModelInput m = jobs::read_model_input(path);
        in.header = fmt::format("{} ({}, {} bytes, xxh3-128 {})", path, input_kind_name(kind), m.file_bytes,
                                m.input_digest);
        in.graphs.push_back(std::move(m.graph));
        return in;
    }
    engine::MappedFile file = engine::map_file(path);
    try {
        in.models = formats::read_models(file.bytes, file.owner);
    } catch (const FormatError& e) {
        throw FormatError(fmt::format("{}: {}", path, e.what()));
    }
    in.header = fmt::format("{} ({} bytes, xxh3-128 {})", path, file.bytes.size(), engine::file_digest(file));
    in.testcases = formats::testcase_count(file.bytes);
    return in;
}

// What graph `i` of a test-case file is: the model, or the values of one test case,
// which feed the model's inputs in the order of their sorted names.
std::string testcase_role(const Inspected& in, size_t i) {
    if (i == 0) return "the model";
    std::vector<std::string> names;
    for (const auto& input : engine::eval::graph_inputs(in.graph(0))) names.push_back(input.name);
    std::ranges::sort(names);
    return fmt::format("test case {}: values of [{}]", i - 1, fmt::join(names, ", "));
}

void run_inspect(const InspectCommand& c) {
    try {
        if (!c.values_dir.empty() && !c.json) throw OptionError("--values writes the values of --json; give --json too");
        const Inspected in = read_input(c.input);
        if (c.graph && *c.graph >= in.size())
            throw OptionError(fmt::format("--graph {}: {} holds {} graph(s), numbered from 0", *c.graph, c.input,
                                          in.size()));
        // graph JSON is one graph a document: --json prints the one asked for, or the first.
        if (c.json && !c.graph && in.size() > 1)
            std::cerr << fmt::format("mgedump inspect: {} holds {} graphs; printing graph 0 (--graph N picks another)\n",
                                     c.input, in.size());
        const size_t first = c.graph.value_or(0);
        const size_t last = c.graph || c.json ? first + 1 : in.size();
        if (c.dot) {
            for (size_t i = first; i < last; ++i) std::cout << graph_to_dot(in.graph(i));
        } else if (c.json) {
            formats::GraphJsonWriteOptions options;
            options.output_types = true;  // show what inference found for every operator output
            if (!c.values_dir.empty()) {
                // Every value too big to be inline goes to DIR/NNNN_name.npy, named as
                // spelled: relative to the directory the JSON is read from.
                options.json_dir = ".";
                options.npy_subdir = c.values_dir;
                options.npy_threshold_bytes = 0;
            }
            std::cout << formats::graph_to_json(in.graph(first), options) << "\n";
        } else {
            fmt::print("file:             {}\n", in.header);
            if (in.testcases)
                fmt::print("test-case file:   mgbtest0, {} test case(s) after the model (MegEngine's load_and_run "
                           "feeds and checks them)\n",
                           *in.testcases);
            for (size_t i = first; i < last; ++i) {
                if (in.testcases) fmt::print("graph #{} of {} ({})\n", i, in.size(), testcase_role(in, i));
                else if (in.size() > 1) fmt::print("graph #{} of {}\n", i, in.size());
                print_summary(in.graph(i), in.model(i));
            }
        }
        set_exit_code(0);
    } catch (const mgedump::Error& e) {
        std::cerr << fmt::format("mgedump inspect: {}\n", e.what());
        set_exit_code(dynamic_cast<const OptionError*>(&e) ? 2 : 1);  // OptionError: --graph, --values
    }
}

}  // namespace

void register_inspect(CLI::App& app) {
    auto state = std::make_shared<InspectCommand>();
    CLI::App* cmd = app.add_subcommand("inspect", "Show what is in a model: a .mge file (FBS or FBS_V2), graph JSON or ONNX");
    cmd->add_option("input", state->input, "the .mge file, graph JSON (formats/GRAPH_JSON.md) or ONNX model (*.onnx)")
        ->required();
    cmd->add_flag(
        "--json", state->json,
        "print the graph as graph JSON (formats/GRAPH_JSON.md), every operator output with its inferred "
        "dtype and shape: one document, which `mgedump dump` reads (of a file with several graphs, the first "
        "or the one --graph picks)");
    cmd->add_option("--values", state->values_dir,
                    "with --json: write tensor values as DIR/NNNN_NAME.npy files, which the JSON names as DIR/..., "
                    "instead of inline base64 (save the JSON in the directory DIR is relative to, or give an "
                    "absolute DIR)")
        ->type_name("DIR");
    cmd->add_option("--graph", state->graph, "only graph N of a file with several appended graphs (0 is the first)")
        ->type_name("N");
    cmd->add_flag(
        "--dot", state->dot,
        "print the graph as Graphviz dot (operators with their modes, vars with dtypes and shapes)");
    cmd->callback([state] { run_inspect(*state); });
}

}  // namespace mgedump::cli
