#include "jobs/progress.h"

#include <fmt/format.h>

#include <string>

namespace mgedump::jobs {

ProgressPrinter::ProgressPrinter(std::FILE* out, bool tty)
    : out_(out), tty_(tty), start_(std::chrono::steady_clock::now()) {}

void ProgressPrinter::update(const JobProgress& p) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double mbps = elapsed > 0 ? p.input_bytes_done / 1e6 / elapsed : 0;
    if (!tty_) {
        for (size_t i = 0; i < p.count; ++i) {
            const ArtifactReport& a = p.first[i];
            std::string what = a.status == ArtifactStatus::Failed
                                   ? fmt::format("FAILED {}", a.error)
                                   : fmt::format("{} {} bytes", status_name(a.status), a.result.tot_bytes);
            fmt::print(out_, "[{}/{}] {}: {}\n", p.done, p.total, a.path.empty() ? a.input : a.path, what);
        }
        std::fflush(out_);
        return;
    }
    constexpr int kWidth = 30;
    const double frac = p.total ? static_cast<double>(p.done) / p.total : 1.0;
    const int filled = static_cast<int>(frac * kWidth);
    std::string eta = "--:--";
    if (p.work_done > 0 && p.work_total >= p.work_done) {
        const auto left = static_cast<long>(elapsed * (p.work_total - p.work_done) / p.work_done);
        eta = fmt::format("{}:{:02}", left / 60, left % 60);
    }
    fmt::print(out_, "\r[{}{}] {}/{} models  {:.1f} MB/s  ETA {}   ", std::string(filled, '#'),
               std::string(kWidth - filled, ' '), p.done, p.total, mbps, eta);
    std::fflush(out_);
    drawn_ = true;
}

void ProgressPrinter::finish() {
    if (drawn_) fmt::print(out_, "\n");
    drawn_ = false;
}

}  // namespace mgedump::jobs
