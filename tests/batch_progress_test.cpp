// The progress printer and the end-of-run summary, with the terminal flag, the
// stream and the clock injected. Expected figures are worked out by hand.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "jobs/progress.h"
#include "jobs/report.h"

namespace mgedump::jobs {
namespace {

using namespace std::chrono_literals;

// Everything written to a FILE*, as a string.
class Captured {
  public:
    Captured() : f_(open_memstream(&buf_, &len_)) {}
    ~Captured() {
        std::fclose(f_);
        std::free(buf_);
    }
    std::FILE* file() { return f_; }
    std::string text() {
        std::fflush(f_);
        return std::string(buf_, len_);
    }

  private:
    char* buf_ = nullptr;
    size_t len_ = 0;
    std::FILE* f_;
};

struct FakeClock {
    std::chrono::steady_clock::time_point now{};
    ProgressPrinter::Clock fn() {
        return [this] { return now; };
    }
};

ArtifactReport artifact(std::string path, ArtifactStatus status, uint64_t bytes, std::string error = {}) {
    ArtifactReport a;
    a.path = std::move(path);
    a.input = "in.json";
    a.status = status;
    a.result.tot_bytes = bytes;
    a.error = std::move(error);
    return a;
}

// A printer on a captured stream with a fake clock, and one finished artifact.
struct Printer {
    FakeClock clock;
    Captured out;
    ProgressPrinter p;
    ArtifactReport a = artifact("a.mge", ArtifactStatus::Written, 100);
    explicit Printer(bool tty) : p(out.file(), tty, clock.fn()) {}
};

JobProgress progress(size_t done, size_t total, uint64_t bytes, uint64_t work_done, uint64_t work_total,
                     const ArtifactReport* first, size_t count = 1) {
    return JobProgress{done, total, bytes, work_done, work_total, first, count};
}

TEST(BatchProgress, OnATerminalOneLineIsRedrawnWithModelsThroughputAndEta) {
    Printer t(true);
    auto& [clock, out, p, a] = t;

    clock.now += 2s;
    p.update(progress(1, 4, 10'000'000, 100, 400, &a));
    // 1 of 4 models: 7 of 30 cells; 10 MB in 2 s; 300 units of work left at 50 a second.
    const std::string first = "\r[#######                       ] 1/4 models  5.0 MB/s  ETA 0:06   ";
    EXPECT_EQ(out.text(), first);

    clock.now += 2s;
    p.update(progress(2, 4, 30'000'000, 200, 400, &a));
    // 2 of 4: 15 cells; 30 MB in 4 s; 200 left at 50 a second.
    const std::string second = "\r[###############               ] 2/4 models  7.5 MB/s  ETA 0:04   ";
    EXPECT_EQ(out.text(), first + second);

    p.finish();
    EXPECT_EQ(out.text(), first + second + "\n");
}

TEST(BatchProgress, TheEtaCountsMinutesAndIsUnknownBeforeAnyWorkIsDone) {
    Printer t(true);
    auto& [clock, out, p, a] = t;
    p.update(progress(0, 3, 0, 0, 300, &a));
    EXPECT_NE(out.text().find("0/3 models  0.0 MB/s  ETA --:--"), std::string::npos) << out.text();
    clock.now += 90s;
    p.update(progress(1, 3, 45'000'000, 100, 300, &a));
    // A third of the work in 90 s: 180 s to go.
    EXPECT_NE(out.text().find("1/3 models  0.5 MB/s  ETA 3:00"), std::string::npos) << out.text();
}

TEST(BatchProgress, AFinishedBatchFillsTheBar) {
    Printer t(true);
    auto& [clock, out, p, a] = t;
    clock.now += 1s;
    p.update(progress(5, 5, 1'000'000, 50, 50, &a));
    EXPECT_EQ(out.text(), "\r[" + std::string(30, '#') + "] 5/5 models  1.0 MB/s  ETA 0:00   ");
}

TEST(BatchProgress, WithoutATerminalEachArtifactGetsAPlainLine) {
    Printer t(false);
    auto& [clock, out, p, a] = t;
    ArtifactReport variants[] = {artifact("a.v2.mge", ArtifactStatus::Written, 1234),
                                 artifact("a.fbs.mge", ArtifactStatus::Skipped, 987)};
    ArtifactReport failed = artifact("b.mge", ArtifactStatus::Failed, 0, "b.json: operators[1]: no such op");
    ArtifactReport unnamed = artifact("", ArtifactStatus::Failed, 0, "missing.json: cannot open");
    unnamed.input = "missing.json";
    p.update(progress(1, 3, 10, 1, 3, variants, 2));
    p.update(progress(2, 3, 20, 2, 3, &failed));
    p.update(progress(3, 3, 30, 3, 3, &unnamed));
    p.finish();
    EXPECT_EQ(out.text(),
              "[1/3] a.v2.mge: written 1234 bytes\n"
              "[1/3] a.fbs.mge: skipped 987 bytes\n"
              "[2/3] b.mge: FAILED b.json: operators[1]: no such op\n"
              "[3/3] missing.json: FAILED cannot open\n");  // the name once, not twice
}

BatchReport sample_report(size_t artifacts) {
    BatchReport r;
    r.artifacts.push_back(artifact("a.mge", ArtifactStatus::Written, 12'345));
    r.artifacts[0].result.xxh3_128 = "0123456789abcdef0123456789abcdef";
    r.artifacts.push_back(artifact("c.mge", ArtifactStatus::Failed, 0, "c.json: boom"));
    r.artifacts[1].input = "c.json";
    while (r.artifacts.size() < artifacts)
        r.artifacts.push_back(artifact("s.mge", ArtifactStatus::Skipped, 10));
    r.totals.jobs = r.totals.artifacts = artifacts;
    r.totals.written = 1;
    r.totals.failed = 1;
    r.totals.skipped = artifacts - 2;
    r.totals.bytes = 12'345;
    r.totals.input_bytes = 25'000'000;
    r.blobs.bytes = 20'000'000'000;
    r.blobs.unique_bytes = 5'000;
    r.seconds = 1.5;
    r.threads = 4;
    return r;
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    for (size_t at = 0; at < s.size();) {
        size_t nl = s.find('\n', at);
        out.push_back(s.substr(at, nl - at));
        at = nl == std::string::npos ? s.size() : nl + 1;
    }
    return out;
}

TEST(BatchSummary, SaysWhatWasDoneInReadableSizesAndNamesEachFailure) {
    std::vector<std::string> l = lines_of(report_summary(sample_report(3)));
    ASSERT_EQ(l.size(), 5u);
    EXPECT_EQ(l[0], "mgedump batch: 3 job(s), 3 artifact(s): 1 written, 1 up to date, 1 failed");
    EXPECT_EQ(l[1],
              "  12.3 kB written out of 25.0 MB read; tensor values 20.00 GB, of which 5000 B unique across "
              "models; "
              "1.50 s on 4 thread(s)");
    EXPECT_NE(l[2].find("a.mge"), std::string::npos);
    EXPECT_NE(l[2].find("12345 bytes"), std::string::npos);
    EXPECT_NE(l[2].find("0123456789abcdef0123456789abcdef"), std::string::npos);
    EXPECT_EQ(l[3], "  FAILED  c.mge  (c.json): boom");  // the input named once
    EXPECT_NE(l[4].find("skipped"), std::string::npos);
}

TEST(BatchSummary, AThousandArtifactsStillFitOnOneScreen) {
    BatchReport r = sample_report(1000);
    r.shard = Shard{2, 8};
    std::vector<std::string> l = lines_of(report_summary(r));
    ASSERT_EQ(l.size(), 2u + 20u + 1u);
    EXPECT_NE(l[0].find("(shard 2/8)"), std::string::npos) << l[0];
    EXPECT_EQ(l.back(), "  ... and 980 more (see the report)");
}

}  // namespace
}  // namespace mgedump::jobs
