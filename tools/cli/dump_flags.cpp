#include "tools/cli/dump_flags.h"

#include <fmt/format.h>

#include "engine/artifact_file.h"
#include "ir/error.h"

namespace mgedump::cli {

void add_dump_flags(CLI::App& cmd, DumpFlags& f) {
    cmd.add_option("--dump-format", f.dump_format, "FBS or FBS_V2 (default FBS_V2, as MegEngine's Python)")
        ->check(CLI::IsMember({"FBS", "FBS_V2"}));
    cmd.add_option("--model-version", f.model_version, "FBS_V2 model version, 1 or 2 (default 2)")
        ->check(CLI::Range(1, 2));
    cmd.add_option("--keep-var-name", f.keep_var_name, "0: no var names, 1: output vars (default), 2: all vars")
        ->check(CLI::Range(0, 2));
    cmd.add_flag("--keep-opr-name", f.keep_opr_name, "write operator names");
    cmd.add_flag("--keep-param-name", f.keep_param_name, "write names of parameters (VALUE_SHARED tensors)");
    cmd.add_flag("--keep-opr-priority", f.keep_opr_priority, "write operator priorities");
    cmd.add_flag("--no-change-graph", f.no_change_graph, "skip the compatibility rewrites");
    cmd.add_option("--compat-older-version", f.compat_older_version,
                   "\"8.14\": FBS readable by MegBrain 8.14 (MGBS header, unversioned ids)");
    cmd.add_option("--strip-info-file", f.strip_info_file, "write the code-strip JSON (operators, dtypes, modes) here");
    cmd.add_flag("--append-json", f.append_json, "merge into an existing strip-info file instead of replacing it");
    cmd.add_option("--metadata-is-valid", f.metadata_is_valid, "Metadata.is_valid (true/false)");
    cmd.add_option("--metadata-graph-modified", f.metadata_graph_modified, "Metadata.graph_modified (true/false)");
    cmd.add_option("--metadata-user-info", f.metadata_user_info, "Metadata.user_info (bytes as text)");
    cmd.add_option("--metadata-optimize-options", f.metadata_optimize_options,
                   "Metadata.optimize_options (inference optimization bits)");
    cmd.add_option("--mgb-version", f.mgb_version, "version number written into the file (default 101304 = 1.13.4)");
    cmd.add_flag("--json", f.json, "print the dump result as JSON");
    cmd.add_flag("--no-dedup", f.no_dedup,
                 "write identical constants/params once per copy, as MegEngine does (default: merge them)");
}

engine::DumpOptions to_options(const DumpFlags& f, const std::optional<ir::Metadata>& base_metadata) {
    engine::DumpOptions o;
    o.dump_format = *engine::format_from_name(f.dump_format);
    o.model_version = f.model_version;
    o.keep_var_name = f.keep_var_name;
    o.keep_opr_name = f.keep_opr_name;
    o.keep_param_name = f.keep_param_name;
    o.keep_opr_priority = f.keep_opr_priority;
    o.no_change_graph = f.no_change_graph;
    if (!f.compat_older_version.empty()) o.compat_older_version = f.compat_older_version;
    if (!f.strip_info_file.empty()) o.strip_info_file = f.strip_info_file;
    o.append_json = f.append_json;
    o.mgb_version = f.mgb_version;
    o.dedup_params = !f.no_dedup;
    o.metadata = base_metadata;
    if (f.metadata_is_valid || f.metadata_graph_modified || f.metadata_user_info || f.metadata_optimize_options) {
        ir::Metadata m = base_metadata.value_or(ir::Metadata{});
        if (f.metadata_is_valid) m.is_valid = *f.metadata_is_valid;
        if (f.metadata_graph_modified) m.graph_modified = *f.metadata_graph_modified;
        if (f.metadata_user_info) m.user_info = *f.metadata_user_info;
        if (f.metadata_optimize_options) m.optimize_options = *f.metadata_optimize_options;
        o.metadata = m;
    }
    return o;
}

void check_flags_take_effect(const CLI::App& cmd, const DumpFlags& f) {
    if (cmd.count("--model-version") > 0 && f.dump_format == "FBS")
        throw OptionError(fmt::format("--model-version {} applies to FBS_V2 only: an FBS file has no model version "
                                      "(MegEngine's dump_graph ignores it there); drop it, or give --dump-format FBS_V2",
                                      f.model_version));
}

namespace {

void check_output_is_not(const std::string& output, const std::filesystem::path& source) {
    if (engine::same_file(output, source))
        throw OptionError(fmt::format("-o {} is the input {}: the artifact would replace a file it is made "
                                      "from; give another output file",
                                      output, source.string()));
}

}  // namespace

void check_output_not_source(std::span<const std::string> sources, const std::string& output) {
    for (const std::string& source : sources) check_output_is_not(output, source);
}

void check_outputs_not_side_file(const std::filesystem::path& side, const std::string& output,
                                 const std::string& strip_info_file) {
    check_output_is_not(output, side);
    if (!strip_info_file.empty() && engine::same_file(strip_info_file, side))
        throw OptionError(fmt::format("--strip-info-file {} is the input {}: the strip-info JSON would replace a "
                                      "file the artifact is made from; give another file",
                                      strip_info_file, side.string()));
}

formats::SideFileCheck outputs_not_side_file(const std::string& output, const std::string& strip_info_file) {
    return [output, strip_info_file](const std::filesystem::path& side) {
        check_outputs_not_side_file(side, output, strip_info_file);
    };
}

void check_strip_info_target(const DumpFlags& flags, std::span<const std::string> inputs,
                             const std::string& output) {
    const std::string& strip = flags.strip_info_file;
    if (strip.empty()) return;
    // Not standard output, as "-o -" is: that carries the summary, or the artifact.
    if (strip == "-")
        throw OptionError(
            "--strip-info-file \"-\": standard output carries the summary or the artifact; give a file "
            "(\"./-\" for one named \"-\")");
    if (engine::same_file(strip, output))
        throw OptionError(
            fmt::format("--strip-info-file {} is the output file (-o {}): the model and the strip-info "
                        "JSON would overwrite each other; give them different files",
                        strip, output));
    for (const std::string& input : inputs)
        if (engine::same_file(strip, input))
            throw OptionError(
                fmt::format("--strip-info-file {} is the input model {}: writing the strip-info JSON "
                            "would replace it; give another file",
                            strip, input));
}

}  // namespace mgedump::cli
