// Directory mode's work list (jobs/manifest.h: scan_directory). When OUT_DIR is
// the input directory (`mgedump batch DIR -o DIR`), what the batch itself wrote
// there is never taken as input: its report, strip-info file, the artifacts its
// stamps or an earlier report name, and temporary files.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "jobs/manifest.h"
#include "jobs/options_json.h"
#include "jobs/output_path.h"

namespace mgedump::jobs {
namespace {

namespace fs = std::filesystem;

// The artifacts an earlier run's report lists (a damaged report names none).
void add_reported_artifacts(const fs::path& report, const fs::path& out_dir, std::set<fs::path>& into) {
    std::ifstream f(report, std::ios::binary);
    if (!f) return;
    std::stringstream ss;
    ss << f.rdbuf();
    Json j = Json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("artifacts") || !j["artifacts"].is_array()) return;
    for (const Json& a : j["artifacts"])
        if (a.is_object() && a.contains("path") && a["path"].is_string())
            into.insert(resolved_place(out_dir / a["path"].get<std::string>()));
}

class OwnFileSet {
  public:
    OwnFileSet(const OwnFiles& own, const fs::path& dir) {
        for (const fs::path& f : own.files) {
            files_.insert(resolved_place(f));
            if (!own.out_dir.empty()) add_reported_artifacts(f, own.out_dir, artifacts_);
        }
        if (own.out_dir.empty()) return;
        out_dir_ = resolved_place(own.out_dir);
        const fs::path dir_from_out = resolved_place(dir).lexically_relative(out_dir_);
        dir_in_out_ = !dir_from_out.empty() && *dir_from_out.begin() != "..";
    }

    // Why `p` is the batch's own file, or nullptr.
    const char* why(const fs::path& p) const {
        const fs::path c = resolved_place(p);
        if (files_.contains(c)) return "the batch's own report or strip-info file";
        if (!dir_in_out_) return nullptr;
        if (artifacts_.contains(c)) return "an artifact of an earlier batch into OUT_DIR (listed in its report)";
        const fs::path rel = c.lexically_relative(out_dir_);
        std::error_code ec;
        if (fs::exists(out_dir_ / kStampDirName / (rel.string() + ".stamp"), ec))
            return "an artifact of an earlier batch into OUT_DIR (it has a stamp)";
        return nullptr;
    }

  private:
    std::set<fs::path> files_, artifacts_;
    fs::path out_dir_;
    bool dir_in_out_ = false;
};

bool is_model_extension(const fs::path& ext) { return ext == ".json" || ext == ".mge" || ext == ".onnx"; }

}  // namespace

Manifest scan_directory(const fs::path& dir, const engine::DumpOptions& options, const OwnFiles& own,
                        const formats::OnnxImportOptions& onnx) {
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) throw Error(fmt::format("{}: cannot list directory: {}", dir.string(), ec.message()));
    const OwnFileSet mine(own, dir);
    Manifest m;
    m.base_dir = dir;
    std::vector<fs::path> inputs;
    for (const fs::directory_entry& e : it) {
        const fs::path& p = e.path();
        const std::string name = p.filename().string();
        auto skip = [&](std::string_view why) { m.skipped.push_back(fmt::format("{}: {}", name, why)); };
        if (name == kStampDirName) skip("the batch's incremental stamps");
        else if (e.is_directory(ec)) skip("a directory (directory mode does not descend into subdirectories)");
        else if (is_temp_file_name(name)) skip("a temporary file of an interrupted write");
        else if (!is_model_extension(p.extension())) skip("not a .json, .mge or .onnx file");
        else if (!e.is_regular_file(ec)) skip("not a regular file");
        else if (const char* why = mine.why(p)) skip(why);
        else inputs.push_back(p);
    }
    // Directory order is the file system's; name order is everyone's.
    std::ranges::sort(inputs);
    std::ranges::sort(m.skipped);
    for (const fs::path& p : inputs) {
        Job job;
        job.index = m.jobs.size();
        job.where = p.string();
        job.input = p;
        job.onnx = onnx;  // used only if p is an ONNX model
        try {
            job.variants.push_back({check_output_name(p.stem().string() + ".mge"), options});
        } catch (const Error& err) {
            job.errors.push_back(fmt::format("{}: {}", job.where, err.what()));
        }
        m.jobs.push_back(std::move(job));
    }
    mark_duplicate_outputs(m);
    return m;
}

}  // namespace mgedump::jobs
