#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "batch_fixtures.h"
#include "engine/dump.h"
#include "formats/graph_json.h"
#include "test_paths.h"

namespace mgedump::test {
namespace {

// A model with one 2 MiB constant: big enough that a batch of them takes a while.
std::string heavy_graph_json(int seed) {
    return fmt::format(R"({{"format": "mgedump-graph", "version": 1,
 "inputs": [{{"name": "x", "dtype": "Float32", "shape": [1, 524288]}}],
 "constants": [{{"name": "c", "dtype": "Float32", "shape": [524288], "fill": {}}}],
 "operators": [{{"op": "Elemwise", "name": "y", "inputs": ["x", "c"], "params": {{"mode": "ADD"}}}}],
 "outputs": ["y"]}})",
                       seed);
}

TEST(BatchKill, AKilledBatchLeavesOnlyCompleteArtifactsAtOutputPaths) {
    ScratchDir in, out;
    constexpr int kModels = 60;
    for (int i = 0; i < kModels; ++i) write_text(in / fmt::format("m{:02}.json", i), heavy_graph_json(i));

    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // At the lowest priority, so on a loaded machine the watcher below still
        // wakes before the whole batch is done (it once finished unkilled there).
        if (::nice(19) == -1) ::_exit(126);
        int devnull = ::open("/dev/null", O_WRONLY);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
        ::execl(cli_path().c_str(), cli_path().c_str(), "batch", in.path.c_str(), "-o", out.path.c_str(),
                "--threads", "1", "--dump-format", "FBS", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // Kill as soon as the first artifact is in place: the batch is then mid-run.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fs::exists(out / "m00.mge") && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the batch ended before it could be killed";

    size_t complete = 0;
    for (int i = 0; i < kModels; ++i) {
        const fs::path artifact = out / fmt::format("m{:02}.mge", i);
        if (!fs::exists(artifact)) continue;
        engine::DumpOptions o;
        o.dump_format = engine::DumpFormat::FBS;
        o.dedup_params = true;
        auto expected = engine::dump_graph(formats::read_graph_json_file(in / fmt::format("m{:02}.json", i)), o);
        auto want = expected.bytes.to_bytes();
        EXPECT_EQ(read_text(artifact), std::string(reinterpret_cast<const char*>(want.data()), want.size()))
            << artifact << " is not the complete artifact";
        ++complete;
    }
    EXPECT_GE(complete, 1u);
    EXPECT_LT(complete, static_cast<size_t>(kModels));
}

}  // namespace
}  // namespace mgedump::test
