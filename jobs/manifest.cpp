#include "jobs/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "formats/json_depth.h"
#include "jobs/error_text.h"
#include "jobs/model_input.h"
#include "jobs/onnx_options_json.h"
#include "jobs/options_json.h"
#include "jobs/output_path.h"

namespace mgedump::jobs {
namespace {

namespace fs = std::filesystem;

std::string join_lines(const std::vector<std::string>& lines) {
    std::string s;
    for (const std::string& l : lines) s += (s.empty() ? "" : "\n") + l;
    return s;
}

std::string default_stem(const fs::path& input) { return input.stem().string(); }

void check_keys(const Json& obj, std::initializer_list<std::string_view> extra, std::string_view ctx,
                std::vector<std::string>& errors) {
    for (const auto& [k, v] : obj.items()) {
        // ONNX import options are checked where they are parsed (jobs refuse them on other inputs).
        if (is_option_key(k) || is_onnx_option_key(k)) continue;
        if (std::ranges::find(extra, std::string_view(k)) != extra.end()) continue;
        std::string expected;
        for (std::string_view e : extra) expected += fmt::format("{}{}", expected.empty() ? "" : ", ", e);
        errors.push_back(fmt::format("{}: unknown key \"{}\" (expected {}{}a dump option or an ONNX import option)",
                                     ctx, k, expected, expected.empty() ? "" : ", "));
    }
}

// The string at `key`, or nullopt with the problem recorded.
std::optional<std::string> string_at(const Json& obj, const char* key, std::string_view ctx,
                                     std::vector<std::string>& errors) {
    auto it = obj.find(key);
    if (it == obj.end()) {
        errors.push_back(fmt::format("{}: missing \"{}\"", ctx, key));
        return std::nullopt;
    }
    if (!it->is_string()) {
        errors.push_back(fmt::format("{}: \"{}\": expected a string, got {}", ctx, key, it->dump()));
        return std::nullopt;
    }
    return it->get<std::string>();
}

// Records `name`'s problem, if any, and returns it checked.
std::optional<std::string> output_name(const std::string& name, std::string_view ctx,
                                       std::vector<std::string>& errors) {
    try {
        return check_output_name(name);
    } catch (const Error& e) {
        errors.push_back(fmt::format("{}: {}", ctx, e.what()));
        return std::nullopt;
    }
}

void check_combination(const engine::DumpOptions& o, std::string_view ctx, std::vector<std::string>& errors) {
    try {
        engine::check_options(o);
    } catch (const Error& e) {
        errors.push_back(fmt::format("{}: {}", ctx, e.what()));
    }
}

// Every problem of the entry goes into job.errors, so a user fixes them in one go.
void parse_variants(const Json& variants, const std::string& base, const engine::DumpOptions& job_options,
                    Job& job) {
    const std::string& ctx = job.where;
    if (!variants.is_array() || variants.empty()) {
        job.errors.push_back(fmt::format("{}: \"variants\": expected a non-empty list", ctx));
        return;
    }
    for (size_t i = 0; i < variants.size(); ++i) {
        const Json& v = variants[i];
        const std::string vctx = fmt::format("{}: variants[{}]", ctx, i);
        if (!v.is_object()) {
            job.errors.push_back(fmt::format("{}: expected an object, got {}", vctx, v.dump()));
            continue;
        }
        const size_t before = job.errors.size();
        check_keys(v, {"suffix", "output"}, vctx, job.errors);
        for (const auto& [k, x] : v.items())
            if (is_onnx_option_key(k))
                job.errors.push_back(fmt::format("{}: \"{}\": an ONNX import option acts on the job's one import "
                                                 "of its model; give it on the job or in \"defaults\", not on a "
                                                 "variant",
                                                 vctx, k));
        std::optional<std::string> out;
        if (v.contains("suffix") == v.contains("output")) {
            job.errors.push_back(fmt::format("{}: give exactly one of \"suffix\" and \"output\"", vctx));
        } else if (v.contains("output")) {
            out = string_at(v, "output", vctx, job.errors);
        } else if (auto suffix = string_at(v, "suffix", vctx, job.errors)) {
            out = base + *suffix;
        }
        if (out) out = output_name(*out, vctx, job.errors);
        engine::DumpOptions options = apply_options(v, job_options, vctx, job.errors);
        if (job.errors.size() == before) check_combination(options, vctx, job.errors);
        if (out) job.variants.push_back({*out, std::move(options)});  // a report row even when wrong
    }
}

// The job's ONNX import options; given for an input that is not ONNX they would
// do nothing, which is refused rather than ignored.
void parse_onnx_options(const Json& e, const std::optional<std::string>& input,
                        const formats::OnnxImportOptions& defaults, Job& job) {
    job.onnx = apply_onnx_options(e, defaults, job.where, job.errors);
    if (!input || is_onnx_input(*input)) return;
    for (const auto& [k, v] : e.items())
        if (is_onnx_option_key(k))
            job.errors.push_back(fmt::format("{}: \"{}\": an ONNX import option, but the input \"{}\" is not an "
                                             "ONNX model (*.onnx), so it would do nothing; remove it",
                                             job.where, k, *input));
}

Job parse_job(const Json& e, size_t index, const fs::path& base_dir, const engine::DumpOptions& defaults,
              const formats::OnnxImportOptions& onnx_defaults, std::string where) {
    Job job;
    job.index = index;
    job.where = std::move(where);
    const std::string& ctx = job.where;
    if (!e.is_object()) {
        job.errors.push_back(fmt::format("{}: expected a job object, got {}", ctx, e.dump()));
        return job;
    }
    check_keys(e, {"input", "output", "variants"}, ctx, job.errors);
    const std::optional<std::string> input = string_at(e, "input", ctx, job.errors);
    if (input) job.input = fs::path(*input).is_absolute() ? fs::path(*input) : base_dir / *input;
    parse_onnx_options(e, input, onnx_defaults, job);
    const size_t before = job.errors.size();
    engine::DumpOptions job_options = apply_options(e, defaults, ctx, job.errors);
    std::optional<std::string> base;
    if (e.contains("output")) base = string_at(e, "output", ctx, job.errors);
    else if (input) base = default_stem(*input);

    if (auto variants = e.find("variants"); variants != e.end()) {
        if (base) parse_variants(*variants, *base, job_options, job);
        return job;
    }
    if (!base) return job;
    std::optional<std::string> out = output_name(e.contains("output") ? *base : *base + ".mge", ctx, job.errors);
    if (job.errors.size() == before) check_combination(job_options, ctx, job.errors);
    if (out) job.variants.push_back({*out, job_options});
    return job;
}

// "label:line:column: invalid JSON: what", without the library's internals.
std::string syntax_error(std::string_view label, size_t line, const Json::parse_error& e) {
    JsonSyntaxError s = describe_parse_error(e);
    // For one line of JSON Lines the library counts lines within that line.
    const size_t at_line = line ? line + (s.line ? s.line - 1 : 0) : s.line;
    std::string where(label);
    if (at_line) where += fmt::format(":{}", at_line);
    if (at_line && s.column) where += fmt::format(":{}", s.column);
    return fmt::format("{}: invalid JSON: {}", where, s.what);
}

// Records a structural problem at the current place in the file.
struct Parsed {
    Manifest m;
    void fatal(std::string e) { m.errors.emplace_back(m.jobs.size(), std::move(e)); }
};

// What a "defaults" object sets for the jobs after it.
struct Defaults {
    engine::DumpOptions dump;
    formats::OnnxImportOptions onnx;
};

Defaults apply_with_errors(const Json& obj, const Defaults& d, const std::string& ctx, Parsed& p) {
    std::vector<std::string> errors;
    // A misspelt default would otherwise silently not apply to any job.
    check_keys(obj, {}, ctx, errors);
    Defaults o{apply_options(obj, d.dump, ctx, errors), apply_onnx_options(obj, d.onnx, ctx, errors)};
    for (std::string& e : errors) p.fatal(std::move(e));
    return o;
}

void parse_document(const Json& doc, const fs::path& base_dir, const Defaults& defaults, std::string_view label,
                    Parsed& p) {
    Defaults d = defaults;
    const Json* list = &doc;
    if (doc.is_object()) {
        for (const auto& [k, v] : doc.items())
            if (k != "jobs" && k != "defaults")
                p.fatal(fmt::format("{}: unknown top-level key \"{}\" (expected defaults, jobs)", label, k));
        if (auto it = doc.find("defaults"); it != doc.end()) {
            if (!it->is_object()) p.fatal(fmt::format("{}: \"defaults\": expected an object", label));
            else d = apply_with_errors(*it, d, fmt::format("{}: defaults", label), p);
        }
        list = &doc["jobs"];
        if (!list->is_array()) {
            p.fatal(fmt::format("{}: \"jobs\": expected a list", label));
            return;
        }
    }
    for (size_t i = 0; i < list->size(); ++i)
        p.m.jobs.push_back(
            parse_job((*list)[i], i, base_dir, d.dump, d.onnx, fmt::format("{}: jobs[{}]", label, i)));
}

void parse_lines(std::string_view text, const fs::path& base_dir, const Defaults& defaults, std::string_view label,
                 Parsed& p) {
    Defaults d = defaults;
    std::istringstream in{std::string(text)};
    std::string line;
    for (size_t lineno = 1; std::getline(in, line); ++lineno) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        Json e;
        try {
            e = Json::parse(line);
        } catch (const Json::parse_error& err) {
            p.fatal(syntax_error(label, lineno, err));
            continue;
        } catch (const Json::out_of_range& err) {  // a number past a double (1e309)
            p.fatal(fmt::format("{}:{}: invalid JSON: {}", label, lineno, without_json_prefixes(err.what())));
            continue;
        }
        const std::string where = fmt::format("{}:{}", label, lineno);
        if (e.is_object() && e.size() == 1 && e.contains("defaults")) {
            if (!e["defaults"].is_object()) p.fatal(fmt::format("{}: \"defaults\": expected an object", where));
            else d = apply_with_errors(e["defaults"], d, where + ": defaults", p);
            continue;
        }
        p.m.jobs.push_back(parse_job(e, p.m.jobs.size(), base_dir, d.dump, d.onnx, where));
    }
}

// Whether the first non-blank line is a JSON value by itself: then the text is
// JSON Lines; otherwise it is one (possibly broken) JSON document.
bool first_line_is_json(std::string_view text) {
    const size_t start = text.find_first_not_of(" \t\r\n");
    const size_t end = text.find('\n', start);
    return Json::accept(text.substr(start, end == std::string_view::npos ? end : end - start));
}

Manifest parse_collecting(std::string_view text, const fs::path& base_dir, const Defaults& defaults,
                          std::string_view label) {
    Parsed p;
    p.m.base_dir = base_dir;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return p.m;
    // Messages quote bad values with nlohmann's dump(), which recurses a level a frame.
    if (auto at = formats::json_too_deep_at(text)) {
        p.fatal(fmt::format("{}: JSON nests deeper than {} levels (byte {})", label, formats::kMaxJsonDepth, *at));
        return p.m;
    }

    // A whole-document parse decides the form: JSON Lines is not one JSON value.
    Json doc;
    bool single = true;
    try {
        doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
        single = false;
        if (!first_line_is_json(text)) {
            p.fatal(syntax_error(label, 0, e));
            return p.m;
        }
    } catch (const Json::out_of_range& e) {  // a number past a double (1e309): not JSON Lines either
        p.fatal(fmt::format("{}: invalid JSON: {}", label, without_json_prefixes(e.what())));
        return p.m;
    }

    if (single && (doc.is_array() || (doc.is_object() && doc.contains("jobs"))))
        parse_document(doc, base_dir, defaults, label, p);
    else if (single && doc.is_object() && !(doc.size() == 1 && doc.contains("defaults")))
        p.m.jobs.push_back(
            parse_job(doc, 0, base_dir, defaults.dump, defaults.onnx, fmt::format("{}: job", label)));
    else
        parse_lines(text, base_dir, defaults, label, p);
    mark_duplicate_outputs(p.m);
    return std::move(p.m);
}

std::string read_text_file(const fs::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(fmt::format("{}: cannot open manifest", path.string()));
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

ManifestError::ManifestError(std::vector<std::string> errors)
    : FormatError(join_lines(errors)), errors_(std::move(errors)) {}

Manifest parse_manifest(std::string_view text, const fs::path& base_dir, const engine::DumpOptions& defaults,
                        std::string_view label, const formats::OnnxImportOptions& onnx_defaults) {
    Manifest m = parse_collecting(text, base_dir, {defaults, onnx_defaults}, label);
    if (m.errors.empty()) return m;
    // Everything, in the file's order.
    std::vector<std::string> all;
    size_t at = 0;
    for (size_t i = 0; i <= m.jobs.size(); ++i) {
        for (; at < m.errors.size() && m.errors[at].first == i; ++at) all.push_back(m.errors[at].second);
        if (i < m.jobs.size()) all.insert(all.end(), m.jobs[i].errors.begin(), m.jobs[i].errors.end());
    }
    throw ManifestError(std::move(all));
}

Manifest read_manifest_file(const fs::path& path, const engine::DumpOptions& defaults,
                            const formats::OnnxImportOptions& onnx_defaults) {
    return parse_manifest(read_text_file(path), path.parent_path(), defaults, path.string(), onnx_defaults);
}

Manifest read_manifest_file_collecting(const fs::path& path, const engine::DumpOptions& defaults,
                                       const formats::OnnxImportOptions& onnx_defaults) {
    return parse_collecting(read_text_file(path), path.parent_path(), {defaults, onnx_defaults}, path.string());
}

void mark_duplicate_outputs(Manifest& m) {
    std::map<std::string, const Job*> owner;
    for (Job& job : m.jobs) {
        for (const Variant& v : job.variants) {
            auto [it, fresh] = owner.emplace(v.output, &job);
            if (fresh) continue;
            const Job& first = *it->second;
            job.errors.push_back(
                &first == &job
                    ? fmt::format("{}: output \"{}\" is written by two variants of this job", job.where, v.output)
                    : fmt::format("{}: output \"{}\" is already written by job {} ({})", job.where, v.output,
                                  first.index + 1, first.where));
        }
    }
}

}  // namespace mgedump::jobs
