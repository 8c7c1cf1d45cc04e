// `mgedump inspect FILE [--json] [--dot]`: what is in a .mge file — format and
// versions, operator histogram, inputs and outputs, every operator output's dtype
// and shape, parameter bytes, hash and digest, metadata — for every graph
// appended in the file.
#include <fmt/format.h>

#include <iostream>
#include <map>

#include "engine/load.h"
#include "formats/graph_json.h"
#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/order.h"
#include "tools/cli/commands.h"
#include "tools/cli/inspect_text.h"
#include "tools/cli/model_dot.h"

namespace mgedump::cli {
namespace {

struct InspectCommand {
    std::string input;
    bool json = false;
    bool dot = false;
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

void print_summary(size_t index, size_t count, const formats::LoadedModel& m) {
    const ir::Graph& g = m.graph;
    if (count > 1) fmt::print("graph #{} of {}\n", index, count);
    fmt::print("format:           {}\n", formats::model_format_name(m.format));
    fmt::print("mgb_version:      {}\n", m.mgb_version);
    if (m.format == formats::ModelFormat::FbsV2)
        fmt::print("model_version:    {}\n", m.model_version);
    else
        fmt::print("hash:             {} (0x{:016x})\n", m.hash, m.hash);
    fmt::print("bytes:            {}\n", m.bytes_consumed);
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
    fmt::print("parameters:       {} tensors, {} elements, {} bytes (nr_shared_tensor {})\n", param_count,
               param_elements, param_bytes, m.nr_shared_tensor);
    if (m.metadata)
        fmt::print("metadata:         is_valid={} graph_modified={} optimize_options={} user_info=\"{}\"\n",
                   m.metadata->is_valid, m.metadata->graph_modified, m.metadata->optimize_options,
                   m.metadata->user_info);
    else
        fmt::print("metadata:         none (written before MegEngine 1.5)\n");
}

void run_inspect(const InspectCommand& c) {
    try {
        engine::MappedFile file = engine::map_file(c.input);
        std::vector<formats::LoadedModel> models;
        try {
            models = formats::read_models(file.bytes, file.owner);
        } catch (const FormatError& e) {
            throw FormatError(fmt::format("{}: {}", c.input, e.what()));
        }
        if (c.dot) {
            for (const auto& m : models) std::cout << graph_to_dot(m.graph);
        } else if (c.json) {
            formats::GraphJsonWriteOptions options;
            options.output_types = true;  // show what inference found for every operator output
            for (const auto& m : models) std::cout << formats::graph_to_json(m.graph, options) << "\n";
        } else {
            fmt::print("file:             {} ({} bytes, xxh3-128 {})\n", c.input, file.bytes.size(),
                       engine::file_digest(file));
            for (size_t i = 0; i < models.size(); ++i) print_summary(i, models.size(), models[i]);
        }
        set_exit_code(0);
    } catch (const mgedump::Error& e) {
        std::cerr << fmt::format("mgedump inspect: {}\n", e.what());
        set_exit_code(1);
    }
}

}  // namespace

void register_inspect(CLI::App& app) {
    auto state = std::make_shared<InspectCommand>();
    CLI::App* cmd = app.add_subcommand("inspect", "Show what is in a .mge file (FBS or FBS_V2)");
    cmd->add_option("input", state->input, "the .mge file")->required();
    cmd->add_flag(
        "--json", state->json,
        "print the graph as graph JSON (formats/GRAPH_JSON.md), every operator output with its inferred "
        "dtype and shape");
    cmd->add_flag(
        "--dot", state->dot,
        "print the graph as Graphviz dot (operators with their modes, vars with dtypes and shapes)");
    cmd->callback([state] { run_inspect(*state); });
}

}  // namespace mgedump::cli
