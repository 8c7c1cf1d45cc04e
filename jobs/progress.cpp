#include "jobs/progress.h"

#include <fmt/format.h>

#include <string>

namespace mgedump::jobs {

ProgressPrinter::ProgressPrinter(std::FILE* out, bool tty, Clock clock)
    : out_(out), tty_(tty), clock_(std::move(clock)), start_(clock_()) {}

void ProgressPrinter::update(const JobProgress& p) {
    if (tty_)
        draw_bar(p, std::chrono::duration<double>(clock_() - start_).count());
    else
        print_lines(p);
    std::fflush(out_);
}

void ProgressPrinter::print_lines(const JobProgress& p) {
    for (size_t i = 0; i < p.count; ++i) {
        const ArtifactReport& a = p.first[i];
        const std::string label = artifact_label(a);
        std::string what = a.status == ArtifactStatus::Failed
                               ? fmt::format("FAILED {}", error_after(a, label))
                               : fmt::format("{} {} bytes", status_name(a.status), a.result.tot_bytes);
        fmt::print(out_, "[{}/{}] {}: {}\n", p.done, p.total, label, what);
    }
}

// The ETA extrapolates the time so far over the estimated work (model footprints)
// left, which tracks big and small models better than counting them.
void ProgressPrinter::draw_bar(const JobProgress& p, double elapsed) {
    constexpr int kWidth = 30;
    const double frac = p.total ? static_cast<double>(p.done) / p.total : 1.0;
    const int filled = static_cast<int>(frac * kWidth);
    const double mbps = elapsed > 0 ? p.input_bytes_done / 1e6 / elapsed : 0;
    std::string eta = "--:--";
    if (p.work_done > 0 && p.work_total >= p.work_done) {
        const auto left = static_cast<long>(elapsed * (p.work_total - p.work_done) / p.work_done);
        eta = fmt::format("{}:{:02}", left / 60, left % 60);
    }
    fmt::print(out_, "\r[{}{}] {}/{} models  {:.1f} MB/s  ETA {}   ", std::string(filled, '#'),
               std::string(kWidth - filled, ' '), p.done, p.total, mbps, eta);
    drawn_ = true;
}

void ProgressPrinter::finish() {
    if (drawn_) fmt::print(out_, "\n");
    drawn_ = false;
}

}  // namespace mgedump::jobs
