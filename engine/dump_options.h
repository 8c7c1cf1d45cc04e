// Every option of MegEngine's dump_graph (../shared/seed/dump_graph-docstring.txt),
// with MegEngine's defaults and semantics (spec §6.8, §6.9, §8, §9).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/testcase/testcase_options.h"
#include "ir/metadata.h"

namespace mgedump::engine {

enum class DumpFormat : uint8_t {
    FBS,     // v1: MGBC/MGBS header, tensor values out of band, content hash
    FBS_V2,  // one size-prefixed FlatBuffer, values inline, per-operator versions
};

// MegEngine 1.13.4, the release whose format mgedump implements (§6.11).
inline constexpr uint32_t kDefaultMgbVersion = 101304;

struct DumpOptions {
    // 0: no var names; 1: names of output vars (v1: all outputs of operators that
    // produce a requested output); 2: every var. FBS_V2 treats 1 like 2.
    int keep_var_name = 1;
    bool keep_opr_name = false;
    // Names of VALUE_SHARED tensors (params), so they can be found after loading.
    bool keep_param_name = false;
    bool keep_opr_priority = false;
    // false: apply the compatibility rewrites of §9.1 for the chosen format.
    bool no_change_graph = false;
    // Write the strip-info JSON (§8) here; with append_json merge into what is there.
    std::optional<std::string> strip_info_file;
    bool append_json = false;
    // nullopt: MegEngine's default metadata (all false/0, empty user_info).
    std::optional<ir::Metadata> metadata;
    DumpFormat dump_format = DumpFormat::FBS_V2;
    // FBS_V2 only: selects each operator's registry entry (1 or 2).
    uint32_t model_version = 2;
    // Only "8.14" (FBS, with rewrites): MGBS header, unversioned ids (§9.3).
    std::optional<std::string> compat_older_version;
    // Written as Graph.mgb_version / Model.mge_version.
    uint32_t mgb_version = kDefaultMgbVersion;
    // Merge constants/params with identical bytes into one operator before writing
    // (engine/passes/param_dedup.h). Off by default, as MegEngine; files stay
    // loadable by MegEngine either way, only smaller.
    bool dedup_params = false;
    // trace.dump's input_data and its companions: the artifact becomes MegEngine's
    // test-case file (spec §11.4), written by engine/testcase/testcase_dump.h;
    // dump_graph, which writes one graph, refuses options that carry them.
    std::optional<testcase::TestcaseOptions> testcases;
};

std::string_view format_name(DumpFormat f);
std::optional<DumpFormat> format_from_name(std::string_view name);

// Throws OptionError with the reason for combinations MegEngine rejects (test-case
// options included).
void check_options(const DumpOptions& options);

}  // namespace mgedump::engine
