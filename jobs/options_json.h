// Dump options as JSON objects, with the docstring's names ("keep_var_name",
// "dump_format", "compat_older_version", "metadata", ...): manifests set them, and
// stamps and reports record them in one canonical form.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "engine/dump_options.h"

namespace mgedump::jobs {

using Json = nlohmann::ordered_json;

// Whether `key` names a dump option (manifests allow options inline in jobs).
bool is_option_key(std::string_view key);

// `base` with every option key of `obj` applied; other keys are ignored (the caller
// checks them). Throws OptionError "<ctx>: <key>: <what is wrong>" for ill-typed
// values and for strip_info_file/append_json, which a batch replaces by its merged report.
engine::DumpOptions apply_options(const Json& obj, engine::DumpOptions base, std::string_view ctx);
// The same, but every ill-typed option is appended to `errors` (a manifest lists
// all its mistakes at once) and the others are still applied.
engine::DumpOptions apply_options(const Json& obj, engine::DumpOptions base, std::string_view ctx,
                                  std::vector<std::string>& errors);

// Every option, always in the same key order (for digests and reports).
Json options_to_json(const engine::DumpOptions& o);

}  // namespace mgedump::jobs
