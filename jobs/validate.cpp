#include "jobs/validate.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <utility>
#include <variant>

#include "engine/artifact_file.h"
#include "engine/testcase/input_data.h"
#include "jobs/output_path.h"

namespace mgedump::jobs {
namespace {

namespace fs = std::filesystem;

bool inside(const fs::path& p, const fs::path& dir) {
    const fs::path rel = p.lexically_normal().lexically_relative(dir.lexically_normal());
    return !rel.empty() && *rel.begin() != "..";
}

// Creates and removes a file in `dir`: the only check that tells what this
// process may really write (permissions, read-only mounts, root's exemptions).
std::optional<std::string> probe(const fs::path& dir) {
    const fs::path p = dir / fmt::format(".mgedump-probe-{}", ::getpid());
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return std::string(std::strerror(errno));
    ::close(fd);
    ::unlink(p.c_str());
    return std::nullopt;
}

// Whether a file can be created at `path`; the directories on the way may be
// missing only when the batch creates them (OUT_DIR and what lies below it).
std::optional<std::string> cannot_write(const fs::path& path, const fs::path& out_dir) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) return std::string("it is a directory");
    fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::exists(dir, ec)) {
        if (!inside(dir, out_dir) && dir.lexically_normal() != out_dir.lexically_normal())
            return fmt::format("directory {} does not exist", dir.string());
        while (!dir.empty() && !fs::exists(dir, ec)) dir = dir.parent_path();
        if (dir.empty()) dir = ".";
    }
    if (!fs::is_directory(dir, ec)) return fmt::format("{} is not a directory", dir.string());
    if (auto why = probe(dir)) return fmt::format("cannot create files in {}: {}", dir.string(), *why);
    return std::nullopt;
}

class Checker {
  public:
    Checker(const Manifest& m, const BatchTargets& t) : m_(m), t_(t) {}

    std::vector<std::string> run() {
        if (m_.jobs.empty() && !t_.allow_empty)
            add(fmt::format("{}: no jobs (an empty manifest, or a directory without *.json, *.mge or *.onnx "
                            "models); pass --allow-empty if that is expected",
                            t_.input_label));
        testcase_data_.reserve(m_.jobs.size());
        for (const Job& job : m_.jobs) register_files_read(job);
        // In the manifest's order, so the list reads along the file.
        size_t at = 0;
        for (size_t i = 0; i <= m_.jobs.size(); ++i) {
            for (; at < m_.errors.size() && m_.errors[at].first <= i; ++at) add(m_.errors[at].second);
            if (i == m_.jobs.size()) break;
            const Job& job = m_.jobs[i];
            errors_.insert(errors_.end(), job.errors.begin(), job.errors.end());
            check_input(job);
            check_testcase_data(job, testcase_data_[i]);
            for (const Variant& v : job.variants) check_output(job, v);
        }
        check_target("the report", t_.report);
        if (t_.strip_info_file) {
            if (engine::same_file(t_.report, *t_.strip_info_file))
                add(fmt::format(
                    "the report and the strip-info file are the same file, {}: give them different "
                    "files (--report, --strip-info-file)",
                    t_.report.string()));
            else
                check_target("the strip-info file", *t_.strip_info_file);
        }
        if (auto why = cannot_write(t_.out_dir / ".probe", t_.out_dir))
            add(fmt::format("output directory {}: {}", t_.out_dir.string(), *why));
        return std::move(errors_);
    }

  private:
    // A test-case data file of a job, or the error listing its files gave.
    using TestcaseItem = std::variant<fs::path, std::string>;
    using TestcaseData = std::vector<TestcaseItem>;

    void add(std::string e) { errors_.push_back(std::move(e)); }

    void check_input(const Job& job) {
        if (job.input.empty()) return;  // its entry's errors say why
        std::error_code ec;
        const fs::file_status st = fs::status(job.input, ec);
        if (!fs::exists(st)) add(fmt::format("{}: input {} does not exist", job.where, job.input.string()));
        else if (fs::is_directory(st)) add(fmt::format("{}: input {} is a directory", job.where, job.input.string()));
    }

    // The .npy files and SPEC lists of the job's test cases, as listed once by
    // register_files_read: each must be a file.
    void check_testcase_data(const Job& job, const TestcaseData& data) {
        for (const auto& item : data) {
            if (const std::string* error = std::get_if<std::string>(&item)) {
                add(fmt::format("{}: {}", job.where, *error));
                continue;
            }
            const fs::path& p = std::get<fs::path>(item);
            std::error_code ec;
            if (!fs::is_regular_file(p, ec))
                add(fmt::format("{}: test-case data {} does not exist or is not a file", job.where, p.string()));
        }
    }

    // What a job reads: its model and its test-case data (.npy files, @FILE
    // lists, engine/testcase/input_data.h). An artifact, report or strip-info
    // file on one of them would replace it. The test-case files are listed here
    // once (an @FILE list is read from disk) for check_testcase_data too.
    void register_files_read(const Job& job) {
        auto read = [&](const fs::path& p, std::string_view what) {
            if (auto id = engine::file_identity(p)) inputs_.emplace(*id, FileRead{&job, what});
        };
        if (!job.input.empty()) read(job.input, "the input");
        TestcaseData& data = testcase_data_.emplace_back();
        for (const Variant& v : job.variants) {
            if (!v.options.testcases) continue;
            try {
                for (const fs::path& p : engine::testcase::files_read(v.options.testcases->input_data, m_.base_dir)) {
                    if (std::ranges::find(data, TestcaseItem(p)) != data.end()) continue;
                    data.emplace_back(p);
                    read(p, "test-case data");
                }
            } catch (const Error& e) {
                data.emplace_back(std::string(e.what()));  // a SPEC that does not parse, an unreadable @FILE
            }
        }
    }

    // A file a job of the batch reads, and what it is to that job.
    struct FileRead {
        const Job* job;
        std::string_view what;  // "the input", "test-case data"
    };
    // The file of the batch `p` is, if any.
    std::optional<FileRead> input_at(const fs::path& p) const {
        auto id = engine::file_identity(p);
        if (!id) return std::nullopt;
        auto it = inputs_.find(*id);
        return it == inputs_.end() ? std::nullopt : std::optional<FileRead>(it->second);
    }

    void check_output(const Job& job, const Variant& v) {
        try {
            check_output_location(t_.out_dir, v.output);
        } catch (const Error& e) {
            add(fmt::format("{}: {}", job.where, e.what()));
            return;
        }
        artifacts_.push_back({&job, t_.out_dir / v.output});
        if (const auto read = input_at(t_.out_dir / v.output))
            add(fmt::format("{}: output \"{}\" would overwrite {}, {} of {}; write the artifacts to another "
                            "directory (-o)",
                            job.where, v.output, (t_.out_dir / v.output).string(), read->what,
                            read->job == &job ? std::string("this job")
                                              : fmt::format("job {} ({})", read->job->index + 1, read->job->where)));
    }

    // The job whose artifact `p` is, if any. A path not there yet can only be an
    // artifact not there yet with its file name (output names have no "." or ".."
    // components), so only those are compared: no system calls per job for a
    // report or strip-info file that a large manifest's first run writes.
    const Job* artifact_at(const fs::path& p) const {
        const bool exists = engine::file_identity(p).has_value();
        const fs::path name = p.lexically_normal().filename();
        for (const auto& [job, artifact] : artifacts_)
            if ((exists || artifact.filename() == name) && engine::same_file(p, artifact)) return job;
        return nullptr;
    }

    // The report and the strip-info file are written after the artifacts: one that
    // is also an artifact, an input or the manifest would replace it.
    void check_target(std::string_view what, const fs::path& p) {
        // Not standard output, as "-o -" of dump and convert is: that carries the summary.
        if (p == "-")
            add(fmt::format(
                "{} \"-\": standard output carries the summary; give a file (\"./-\" for one named "
                "\"-\")",
                what));
        else if (const auto read = input_at(p))
            add(fmt::format("{} {} would overwrite {} of job {} ({})", what, p.string(), read->what,
                            read->job->index + 1, read->job->where));
        else if (std::error_code ec;
                 fs::is_regular_file(t_.input_label, ec) && engine::same_file(p, t_.input_label))
            add(fmt::format("{} {} would overwrite the manifest", what, p.string()));
        else if (const Job* owner = artifact_at(p))
            add(fmt::format("{} {} would overwrite the artifact of job {} ({}); give another path", what,
                            p.string(), owner->index + 1, owner->where));
        else if (auto why = cannot_write(p, t_.out_dir))
            add(fmt::format("{} {} cannot be written: {}", what, p.string(), *why));
    }

    const Manifest& m_;
    const BatchTargets& t_;
    std::map<engine::FileIdentity, FileRead> inputs_;
    std::vector<TestcaseData> testcase_data_;  // by job, in the manifest's order
    std::vector<std::pair<const Job*, fs::path>> artifacts_;  // every variant's output, under OUT_DIR
    std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> validate_batch(const Manifest& m, const BatchTargets& t) { return Checker(m, t).run(); }

}  // namespace mgedump::jobs
