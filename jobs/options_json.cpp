#include "jobs/options_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "engine/testcase/input_data.h"
#include "ir/error.h"

namespace mgedump::jobs {
namespace {

constexpr std::array<std::string_view, 20> kOptionKeys = {
    "keep_var_name", "keep_opr_name",   "keep_param_name",      "keep_opr_priority", "no_change_graph",
    "strip_info_file", "append_json",   "metadata",             "dump_format",       "model_version",
    "compat_older_version", "mgb_version", "dedup_params",      "optimize_for_inference",
    // trace.dump's test-case parameters (engine/testcase/testcase_options.h), and mgedump's seed.
    "input_data", "repeat", "maxerr", "no_assert", "silent", "testcase_seed"};

[[noreturn]] void bad(std::string_view ctx, std::string_view key, std::string_view what) {
    throw OptionError(fmt::format("{}: \"{}\": {}", ctx, key, what));
}

bool get_bool(const Json& v, std::string_view ctx, std::string_view key) {
    if (!v.is_boolean()) bad(ctx, key, fmt::format("expected true or false, got {}", v.dump()));
    return v.get<bool>();
}

uint64_t get_uint(const Json& v, std::string_view ctx, std::string_view key, uint64_t max) {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
        bad(ctx, key, fmt::format("expected an integer in [0, {}], got {}", max, v.dump()));
    return v.get<uint64_t>();
}

ir::Metadata get_metadata(const Json& v, std::string_view ctx) {
    if (!v.is_object()) bad(ctx, "metadata", fmt::format("expected an object, got {}", v.dump()));
    ir::Metadata m;
    m.is_valid = true;  // giving metadata means "write this metadata"
    for (const auto& [k, x] : v.items()) {
        const std::string key = "metadata." + k;
        if (k == "is_valid") m.is_valid = get_bool(x, ctx, key);
        else if (k == "graph_modified") m.graph_modified = get_bool(x, ctx, key);
        else if (k == "optimize_options") m.optimize_options = get_uint(x, ctx, key, UINT64_MAX);
        else if (k == "user_info") {
            if (!x.is_string()) bad(ctx, key, fmt::format("expected a string, got {}", x.dump()));
            m.user_info = x.get<std::string>();
        } else {
            bad(ctx, key, "unknown metadata field (is_valid, graph_modified, user_info, optimize_options)");
        }
    }
    return m;
}

}  // namespace

bool is_option_key(std::string_view key) {
    for (std::string_view k : kOptionKeys)
        if (k == key) return true;
    return false;
}

namespace {

engine::testcase::TestcaseOptions& testcases(engine::DumpOptions& o) {
    if (!o.testcases) o.testcases.emplace();
    return *o.testcases;
}

void apply_option(const std::string& k, const Json& v, engine::DumpOptions& o, std::string_view ctx) {
    {
        if (k == "keep_var_name") {
            o.keep_var_name = static_cast<int>(get_uint(v, ctx, k, 2));
        } else if (k == "keep_opr_name") {
            o.keep_opr_name = get_bool(v, ctx, k);
        } else if (k == "keep_param_name") {
            o.keep_param_name = get_bool(v, ctx, k);
        } else if (k == "keep_opr_priority") {
            o.keep_opr_priority = get_bool(v, ctx, k);
        } else if (k == "no_change_graph") {
            o.no_change_graph = get_bool(v, ctx, k);
        } else if (k == "dedup_params") {
            o.dedup_params = get_bool(v, ctx, k);
        } else if (k == "model_version") {
            o.model_version = static_cast<uint32_t>(get_uint(v, ctx, k, UINT32_MAX));
        } else if (k == "mgb_version") {
            o.mgb_version = static_cast<uint32_t>(get_uint(v, ctx, k, UINT32_MAX));
        } else if (k == "dump_format") {
            auto f = v.is_string() ? engine::format_from_name(v.get<std::string>()) : std::nullopt;
            if (!f) bad(ctx, k, fmt::format("expected \"FBS\" or \"FBS_V2\", got {}", v.dump()));
            o.dump_format = *f;
        } else if (k == "compat_older_version") {
            if (v.is_null()) o.compat_older_version.reset();
            else if (v.is_string()) o.compat_older_version = v.get<std::string>();
            else bad(ctx, k, fmt::format("expected \"8.14\" or null, got {}", v.dump()));
        } else if (k == "metadata") {
            if (v.is_null()) o.metadata.reset();
            else o.metadata = get_metadata(v, ctx);
        } else if (k == "strip_info_file" || k == "append_json") {
            // Jobs run concurrently: per-job strip-info files would race on one path
            // and could point outside OUT_DIR. The report carries the merged strip info.
            bad(ctx, k, "not available in a batch; the batch report has the merged strip info (\"strip_info\")");
        } else if (k == "input_data") {
            // null or [] turns test cases off (a variant of a job whose defaults have them).
            std::vector<std::string> specs;
            if (v.is_string()) specs.push_back(v.get<std::string>());
            else if (v.is_array() && std::ranges::all_of(v, [](const Json& x) { return x.is_string(); }))
                for (const Json& x : v) specs.push_back(x.get<std::string>());
            else if (!v.is_null())
                bad(ctx, k, fmt::format("expected a SPEC string, a list of them or null, got {}", v.dump()));
            try {
                for (const std::string& spec : specs)  // their syntax now; files are read when the job runs
                    if (!spec.starts_with('@')) (void)engine::testcase::parse_case_spec(spec);
            } catch (const OptionError& e) {
                bad(ctx, k, e.what());
            }
            if (specs.empty()) o.testcases.reset();
            else testcases(o).input_data = std::move(specs);
        } else if (k == "repeat") {
            const uint64_t r = get_uint(v, ctx, k, UINT32_MAX);
            if (r == 0) bad(ctx, k, "expected an integer >= 1, got 0");
            testcases(o).repeat = static_cast<uint32_t>(r);
        } else if (k == "maxerr") {
            if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
                bad(ctx, k, fmt::format("expected a number >= 0, got {}", v.dump()));
            testcases(o).maxerr = v.get<double>();
        } else if (k == "no_assert") {
            testcases(o).no_assert = get_bool(v, ctx, k);
        } else if (k == "silent") {
            testcases(o).silent = get_bool(v, ctx, k);
        } else if (k == "testcase_seed") {
            testcases(o).seed = get_uint(v, ctx, k, UINT64_MAX);
        } else if (k == "optimize_for_inference") {
            bad(ctx, k, "mgedump does not run inference optimizations; dump an optimized graph instead");
        }
    }
}

// One options object that names both model_version and dump_format FBS asks for
// something an FBS file cannot carry (it has no model version), as --model-version
// with --dump-format FBS does on the command line. A model_version in defaults or a
// job's options is left for the variants that write FBS_V2, as MegEngine's
// dump_graph ignores it for FBS.
void check_model_version_takes_effect(const Json& obj, const engine::DumpOptions& o, std::string_view ctx) {
    if (obj.contains("model_version") && obj.contains("dump_format") && o.dump_format == engine::DumpFormat::FBS)
        bad(ctx, "model_version",
            fmt::format("{} applies to FBS_V2 only, and this object's dump_format is \"FBS\": an FBS file has no model "
                        "version; drop it, or write FBS_V2",
                        obj.at("model_version").dump()));
}

}  // namespace

engine::DumpOptions apply_options(const Json& obj, engine::DumpOptions o, std::string_view ctx) {
    for (const auto& [k, v] : obj.items()) apply_option(k, v, o, ctx);
    check_model_version_takes_effect(obj, o, ctx);
    return o;
}

engine::DumpOptions apply_options(const Json& obj, engine::DumpOptions o, std::string_view ctx,
                                  std::vector<std::string>& errors) {
    for (const auto& [k, v] : obj.items()) {
        try {
            apply_option(k, v, o, ctx);
        } catch (const OptionError& e) {
            errors.emplace_back(e.what());
        }
    }
    try {
        check_model_version_takes_effect(obj, o, ctx);
    } catch (const OptionError& e) {
        errors.emplace_back(e.what());
    }
    return o;
}

Json options_to_json(const engine::DumpOptions& o) {
    Json j;
    j["dump_format"] = engine::format_name(o.dump_format);
    j["model_version"] = o.model_version;
    j["keep_var_name"] = o.keep_var_name;
    j["keep_opr_name"] = o.keep_opr_name;
    j["keep_param_name"] = o.keep_param_name;
    j["keep_opr_priority"] = o.keep_opr_priority;
    j["no_change_graph"] = o.no_change_graph;
    j["compat_older_version"] = o.compat_older_version ? Json(*o.compat_older_version) : Json(nullptr);
    j["mgb_version"] = o.mgb_version;
    j["dedup_params"] = o.dedup_params;
    if (o.metadata) {
        j["metadata"] = Json{{"is_valid", o.metadata->is_valid},
                             {"graph_modified", o.metadata->graph_modified},
                             {"user_info", o.metadata->user_info},
                             {"optimize_options", o.metadata->optimize_options}};
    } else {
        j["metadata"] = nullptr;
    }
    // Only when given, so the options of artifacts without test cases read as before.
    if (o.testcases)
        j["testcases"] = Json{{"input_data", o.testcases->input_data}, {"repeat", o.testcases->repeat},
                              {"maxerr", o.testcases->maxerr},         {"no_assert", o.testcases->no_assert},
                              {"silent", o.testcases->silent},         {"seed", o.testcases->seed}};
    return j;
}

}  // namespace mgedump::jobs
