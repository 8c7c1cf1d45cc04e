#include "jobs/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "ir/error.h"
#include "jobs/options_json.h"
#include "jobs/output_path.h"

namespace mgedump::jobs {
namespace {

namespace fs = std::filesystem;

std::string default_stem(const fs::path& input) { return input.stem().string(); }

void check_keys(const Json& obj, std::initializer_list<std::string_view> extra, std::string_view ctx) {
    for (const auto& [k, v] : obj.items()) {
        if (is_option_key(k) || std::ranges::find(extra, std::string_view(k)) != extra.end()) continue;
        throw OptionError(fmt::format("{}: unknown key \"{}\" (expected input, output, variants or a dump option)",
                                      ctx, k));
    }
}

std::string string_at(const Json& obj, const char* key, std::string_view ctx) {
    auto it = obj.find(key);
    if (it == obj.end()) throw OptionError(fmt::format("{}: missing \"{}\"", ctx, key));
    if (!it->is_string()) throw OptionError(fmt::format("{}: \"{}\": expected a string, got {}", ctx, key, it->dump()));
    return it->get<std::string>();
}

Job parse_job(const Json& e, size_t index, const fs::path& base_dir, const engine::DumpOptions& defaults,
              std::string_view ctx) {
    Job job;
    job.index = index;
    try {
        if (!e.is_object()) throw OptionError(fmt::format("{}: expected a job object, got {}", ctx, e.dump()));
        check_keys(e, {"input", "output", "variants"}, ctx);
        const std::string input = string_at(e, "input", ctx);
        job.input = fs::path(input).is_absolute() ? fs::path(input) : base_dir / input;
        engine::DumpOptions job_options = apply_options(e, defaults, ctx);
        std::string base = e.contains("output") ? string_at(e, "output", ctx) : default_stem(input);

        auto variants = e.find("variants");
        if (variants == e.end()) {
            if (!e.contains("output")) base += ".mge";
            job.variants.push_back({check_output_name(base), job_options});
            engine::check_options(job_options);
            return job;
        }
        if (!variants->is_array() || variants->empty())
            throw OptionError(fmt::format("{}: \"variants\": expected a non-empty list", ctx));
        for (size_t i = 0; i < variants->size(); ++i) {
            const Json& v = (*variants)[i];
            const std::string vctx = fmt::format("{}.variants[{}]", ctx, i);
            if (!v.is_object()) throw OptionError(fmt::format("{}: expected an object, got {}", vctx, v.dump()));
            check_keys(v, {"suffix", "output"}, vctx);
            if (v.contains("suffix") == v.contains("output"))
                throw OptionError(fmt::format("{}: give exactly one of \"suffix\" and \"output\"", vctx));
            std::string out = v.contains("output") ? string_at(v, "output", vctx) : base + string_at(v, "suffix", vctx);
            Variant var{check_output_name(out), apply_options(v, job_options, vctx)};
            try {
                engine::check_options(var.options);
            } catch (const OptionError& err) {
                throw OptionError(fmt::format("{}: {}", vctx, err.what()));
            }
            job.variants.push_back(std::move(var));
        }
    } catch (const Error& err) {
        job.error = err.what();
    }
    return job;
}

Json parse_json(std::string_view text, std::string_view label, size_t line) {
    try {
        return Json::parse(text);
    } catch (const Json::parse_error& e) {
        throw FormatError(line ? fmt::format("{}:{}: invalid JSON: {}", label, line, e.what())
                               : fmt::format("{}: invalid JSON: {}", label, e.what()));
    }
}

}  // namespace

Manifest parse_manifest(std::string_view text, const fs::path& base_dir, const engine::DumpOptions& defaults,
                        std::string_view label) {
    Manifest m;
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) throw FormatError(fmt::format("{}: empty manifest", label));

    // A whole-document parse decides the form: JSON Lines is not one JSON value.
    Json doc;
    bool single = true;
    try {
        doc = Json::parse(text);
    } catch (const Json::parse_error&) {
        single = false;
    }

    if (single && (doc.is_array() || (doc.is_object() && doc.contains("jobs")))) {
        engine::DumpOptions d = defaults;
        const Json* list = &doc;
        if (doc.is_object()) {
            for (const auto& [k, v] : doc.items())
                if (k != "jobs" && k != "defaults")
                    throw FormatError(fmt::format("{}: unknown top-level key \"{}\" (expected defaults, jobs)", label, k));
            if (auto it = doc.find("defaults"); it != doc.end()) {
                if (!it->is_object()) throw FormatError(fmt::format("{}: \"defaults\": expected an object", label));
                d = apply_options(*it, d, fmt::format("{}: defaults", label));
            }
            list = &doc["jobs"];
            if (!list->is_array()) throw FormatError(fmt::format("{}: \"jobs\": expected a list", label));
        }
        for (size_t i = 0; i < list->size(); ++i)
            m.jobs.push_back(parse_job((*list)[i], i, base_dir, d, fmt::format("{}: jobs[{}]", label, i)));
        mark_duplicate_outputs(m);
        return m;
    }

    if (single && doc.is_object() && !(doc.size() == 1 && doc.contains("defaults"))) {
        m.jobs.push_back(parse_job(doc, 0, base_dir, defaults, fmt::format("{}: job", label)));
        return m;
    }

    // JSON Lines.
    engine::DumpOptions d = defaults;
    std::istringstream in{std::string(text)};
    std::string line;
    for (size_t lineno = 1; std::getline(in, line); ++lineno) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        Json e = parse_json(line, label, lineno);
        if (e.is_object() && e.size() == 1 && e.contains("defaults")) {
            if (!e["defaults"].is_object())
                throw FormatError(fmt::format("{}:{}: \"defaults\": expected an object", label, lineno));
            d = apply_options(e["defaults"], d, fmt::format("{}:{}: defaults", label, lineno));
            continue;
        }
        m.jobs.push_back(parse_job(e, m.jobs.size(), base_dir, d, fmt::format("{}:{}", label, lineno)));
    }
    mark_duplicate_outputs(m);
    return m;
}

Manifest read_manifest_file(const fs::path& path, const engine::DumpOptions& defaults) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(fmt::format("{}: cannot open manifest", path.string()));
    std::stringstream ss;
    ss << f.rdbuf();
    return parse_manifest(ss.str(), path.parent_path(), defaults, path.string());
}

Manifest scan_directory(const fs::path& dir, const engine::DumpOptions& options) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) throw Error(fmt::format("{}: cannot list directory: {}", dir.string(), ec.message()));
    std::vector<fs::path> inputs;
    for (const fs::directory_entry& e : it) {
        const auto ext = e.path().extension();
        if ((ext == ".json" || ext == ".mge" || ext == ".onnx") && e.is_regular_file()) inputs.push_back(e.path());
    }
    // Directory order is the file system's; name order is everyone's.
    std::ranges::sort(inputs);
    Manifest m;
    for (const fs::path& p : inputs) {
        Job job;
        job.index = m.jobs.size();
        job.input = p;
        try {
            job.variants.push_back({check_output_name(p.stem().string() + ".mge"), options});
        } catch (const Error& err) {
            job.error = err.what();
        }
        m.jobs.push_back(std::move(job));
    }
    mark_duplicate_outputs(m);
    return m;
}

void mark_duplicate_outputs(Manifest& m) {
    std::map<std::string, size_t> owner;
    for (Job& job : m.jobs) {
        for (const Variant& v : job.variants) {
            auto [it, fresh] = owner.emplace(v.output, job.index);
            if (!fresh && job.error.empty()) {
                job.error = it->second == job.index
                                ? fmt::format("output \"{}\" is written by two variants of this job", v.output)
                                : fmt::format("output \"{}\" is already written by job {}", v.output, it->second);
            }
        }
    }
}

}  // namespace mgedump::jobs
