// Progress of a batch for people: on a terminal one redrawn bar (models done/total,
// MB/s, ETA); otherwise (CI logs, pipes) one plain line per finished job.
#pragma once

#include <chrono>
#include <cstdio>

#include "jobs/batch.h"

namespace mgedump::jobs {

class ProgressPrinter {
public:
    // `tty`: draw a bar (pass isatty(fileno(out))).
    ProgressPrinter(std::FILE* out, bool tty);
    void update(const JobProgress& p);
    // Ends the bar's line so the summary starts on a fresh one.
    void finish();

private:
    std::FILE* out_;
    bool tty_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace mgedump::jobs
