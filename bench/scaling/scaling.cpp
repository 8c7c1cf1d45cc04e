#include "bench/scaling/scaling.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bench/support/measure.h"
#include "bench/support/synthetic_models.h"
#include "engine/artifact_file.h"
#include "engine/dump.h"
#include "jobs/batch.h"
#include "jobs/byte_size.h"
#include "jobs/manifest.h"

namespace mgedump::bench {
namespace {

void write_model(const std::filesystem::path& path, const ir::Graph& g) {
    engine::DumpOptions options;  // FBS_V2
    engine::write_file_atomically(path.string(), engine::dump_graph(g, options).bytes);
}

struct RunResult {
    uint64_t models = 0, bytes = 0;
    double seconds = 0;
    uint64_t peak_rss = 0;
};

// Runs `self run ...` as a child; its peak RSS comes from wait4.
RunResult run_child(const ScalingOptions& o, const std::filesystem::path& set_dir, const std::filesystem::path& out,
                    unsigned threads) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const std::string self = o.self.string(), set = set_dir.string(), out_s = out.string(),
                      t = std::to_string(threads);
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl(self.c_str(), self.c_str(), "run", set.c_str(), out_s.c_str(), t.c_str(), o.memory_budget_text.c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    std::string text;
    char buf[256];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(fmt::format("batch run on {} with {} threads failed", set, threads));
    RunResult r;
    std::istringstream in(text);
    in >> r.models >> r.bytes >> r.seconds;
    r.peak_rss = static_cast<uint64_t>(usage.ru_maxrss) * 1024;
    return r;
}

// What the machine gives right now: the same fixed CPU work (XXH3 over a buffer
// in cache) on 1 and on N threads; the ratio of throughputs is the best scaling a
// batch could show at this moment (other load on a shared machine lowers it).
double machine_ceiling(unsigned threads) {
    auto work = [] {
        std::vector<std::byte> buf(size_t{32} << 10, std::byte{1});
        uint64_t h = 0;
        for (int i = 0; i < 200000; ++i) h += XXH3_64bits_withSeed(buf.data(), buf.size(), h);
        return h;
    };
    auto timed = [&](unsigned n) {
        std::atomic<uint64_t> sink{0};
        const double start = now_seconds();
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < n; ++t) pool.emplace_back([&] { sink += work(); });
        for (std::thread& t : pool) t.join();
        return now_seconds() - start;
    };
    const double one = timed(1), many = timed(threads);
    return threads * one / many;
}

}  // namespace

void prepare_inputs(const std::filesystem::path& dir, uint32_t small, uint32_t large) {
    std::filesystem::create_directories(dir / "small");
    std::filesystem::create_directories(dir / "large");
    for (uint32_t i = 0; i < small; ++i) write_model(dir / "small" / fmt::format("{:04}.mge", i), small_model(i));
    // Corpus-size: 6 × 4 MiB of weights no other model shares (no layer is shared).
    for (uint32_t i = 0; i < large; ++i)
        write_model(dir / "large" / fmt::format("{:02}.mge", i), fine_tuned_variant(i, 6, 0, 1024));
}

std::string run_one(const std::filesystem::path& set_dir, const std::filesystem::path& out_dir, unsigned threads,
                    const std::string& budget) {
    std::filesystem::remove_all(out_dir);
    engine::DumpOptions options;  // FBS_V2
    jobs::Manifest manifest = jobs::scan_directory(set_dir, options);
    jobs::BatchOptions batch{.out_dir = out_dir, .threads = threads, .memory_budget = jobs::parse_byte_size(budget)};
    const double start = now_seconds();
    jobs::BatchReport report = jobs::run_batch(manifest, batch);
    const double seconds = now_seconds() - start;
    if (report.totals.failed) throw std::runtime_error(fmt::format("{} jobs failed", report.totals.failed));
    return fmt::format("{} {} {:.6f}", report.totals.jobs, report.totals.bytes, seconds);
}

std::string measure_scaling(const std::filesystem::path& dir, const ScalingOptions& o) {
    const std::filesystem::path out = o.out_dir.empty() ? dir / "out" : o.out_dir;
    struct Samples {
        std::vector<double> seconds, rss;
        uint64_t models = 0, bytes = 0;
    };
    std::map<std::pair<std::string, unsigned>, Samples> samples;
    std::map<unsigned, std::vector<double>> ceiling;
    for (int r = 0; r < o.rounds; ++r) {
        for (unsigned threads : o.threads) ceiling[threads].push_back(machine_ceiling(threads));
        for (const char* set : {"small", "large"})
            for (size_t k = 0; k < o.threads.size(); ++k) {
                const unsigned threads = o.threads[(k + r) % o.threads.size()];  // rotate who goes first
                RunResult run = run_child(o, dir / set, out, threads);
                Samples& s = samples[{set, threads}];
                s.seconds.push_back(run.seconds);
                s.rss.push_back(static_cast<double>(run.peak_rss));
                s.models = run.models;
                s.bytes = run.bytes;
            }
    }
    std::filesystem::remove_all(out);

    const uint64_t budget = jobs::parse_byte_size(o.memory_budget_text);
    std::string table = fmt::format(
        "memory budget {} ({} rounds, medians)\n\n"
        "| set | threads | models | artifact MB | seconds | models/s | GB/s | scaling | machine ceiling | "
        "peak RSS MB | "
        "RSS/budget |\n"
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        o.memory_budget_text, o.rounds);
    for (const char* set : {"small", "large"}) {
        const double base = median(samples[{set, o.threads.front()}].seconds);
        for (unsigned threads : o.threads) {
            const Samples& s = samples[{set, threads}];
            const double sec = median(s.seconds), rss = median(s.rss);
            table += fmt::format(
                "| {} | {} | {} | {:.1f} | {:.3f} | {:.1f} | {:.3f} | {:.2f} | {:.2f} | {:.0f} | {:.2f} |\n",
                set, threads, s.models, s.bytes / 1e6, sec, s.models / sec, s.bytes / sec / 1e9, base / sec,
                median(ceiling[threads]) / median(ceiling[o.threads.front()]), rss / 1e6,
                rss / static_cast<double>(budget));
        }
    }
    return table;
}

}  // namespace mgedump::bench
