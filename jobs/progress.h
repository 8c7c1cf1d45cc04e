// Progress of a batch for people: on a terminal one redrawn bar (models done/total,
// MB/s, ETA); otherwise (CI logs, pipes) one plain line per finished artifact.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>

#include "jobs/batch.h"

namespace mgedump::jobs {

class ProgressPrinter {
  public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    // `tty`: draw a bar (pass isatty(fileno(out))). `clock` times throughput and
    // ETA from construction on (tests pass a fake one).
    ProgressPrinter(std::FILE* out, bool tty, Clock clock = std::chrono::steady_clock::now);
    void update(const JobProgress& p);
    // Ends the bar's line so the summary starts on a fresh one.
    void finish();

  private:
    void print_lines(const JobProgress& p);
    void draw_bar(const JobProgress& p, double elapsed);

    std::FILE* out_;
    bool tty_;
    bool drawn_ = false;
    Clock clock_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace mgedump::jobs
