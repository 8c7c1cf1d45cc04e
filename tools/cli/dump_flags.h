// The dump_graph options as command-line flags, shared by every subcommand that
// dumps (dump, convert, batch). Flag names follow the docstring's parameter names.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "engine/dump_options.h"
#include "formats/side_file_check.h"

namespace mgedump::cli {

struct DumpFlags {
    std::string dump_format = "FBS_V2";
    uint32_t model_version = 2;
    int keep_var_name = 1;
    bool keep_opr_name = false;
    bool keep_param_name = false;
    bool keep_opr_priority = false;
    bool no_change_graph = false;
    std::string compat_older_version;
    std::string strip_info_file;
    bool append_json = false;
    // Metadata: any of these given means "write this metadata".
    std::optional<bool> metadata_is_valid;
    std::optional<bool> metadata_graph_modified;
    std::optional<std::string> metadata_user_info;
    std::optional<uint64_t> metadata_optimize_options;
    uint32_t mgb_version = engine::kDefaultMgbVersion;
    bool json = false;  // print the dump result as JSON
    // The CLI merges identical constants/params by default (the library does not).
    bool no_dedup = false;
};

void add_dump_flags(CLI::App& cmd, DumpFlags& flags);
// Options from flags; `base_metadata` (a loaded model's) is kept unless flags override it.
engine::DumpOptions to_options(const DumpFlags& flags, const std::optional<ir::Metadata>& base_metadata = {});
// Throws OptionError for flags given together that cannot all take effect in one
// artifact (dump and convert; a batch's flags are defaults that a job's format
// may make meaningful): --model-version with --dump-format FBS, which has no
// model version (MegEngine's dump_graph ignores it there).
// `cmd` is the subcommand the flags were parsed by: it tells a flag given from its default.
void check_flags_take_effect(const CLI::App& cmd, const DumpFlags& flags);
// Throws OptionError when -o names a file the artifact is made from (a graph
// JSON or ONNX input, a test-case .npy): the artifact would replace it. (convert rewriting a
// .mge file in place is allowed: the file is replaced whole, and only once the
// new one is written.)
void check_output_not_source(std::span<const std::string> sources, const std::string& output);
// Throws OptionError when -o or the --strip-info-file is `side`, a file the
// artifact is made from besides the models given: a .npy weight or test-case
// file, ONNX external data.
void check_outputs_not_side_file(const std::filesystem::path& side, const std::string& output,
                                 const std::string& strip_info_file);
// The same as a reader's check, so that each weight file is checked before it is
// read (formats/side_file_check.h).
formats::SideFileCheck outputs_not_side_file(const std::string& output, const std::string& strip_info_file);
// Throws OptionError when --strip-info-file names the artifact (-o) or a model
// read: one write would replace the other, and the run would still report success.
void check_strip_info_target(const DumpFlags& flags, std::span<const std::string> inputs,
                             const std::string& output);

}  // namespace mgedump::cli
