// mgedump_scaling: batch throughput at 1 and 2 threads.
//
//   mgedump_scaling prepare DIR [--small 1000] [--large 50]
//       writes DIR/small/*.mge (50-operator, ~100 KB models) and DIR/large/*.mge
//       (corpus-size: 24 MiB of distinct weights each);
//   mgedump_scaling measure DIR [--rounds 3] [--threads 1,2] [--memory-budget 2G] [--out OUT]
//       runs `mgedump_scaling run` once per set, thread count and round, in
//       child processes (so each peak RSS is that run's alone), interleaved, and
//       prints medians: models/s, GB/s of artifacts, scaling ratio, the machine
//       ceiling (the scaling of plain CPU work measured in the same rounds: what a
//       shared machine allows at the time), peak RSS;
//   mgedump_scaling run SET_DIR OUT_DIR THREADS BUDGET
//       one batch (every model in SET_DIR dumped as FBS_V2); prints "models bytes seconds".
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "bench/scaling/scaling.h"

int main(int argc, char** argv) {
    using namespace mgedump::bench;
    CLI::App app{"Batch scaling benchmark"};
    app.require_subcommand(1);

    std::string dir;
    uint32_t small = 1000, large = 50;
    auto* prepare = app.add_subcommand("prepare", "write the input models");
    prepare->add_option("dir", dir)->required();
    prepare->add_option("--small", small);
    prepare->add_option("--large", large);

    ScalingOptions opts;
    auto* measure = app.add_subcommand("measure", "run the batches and print medians");
    measure->add_option("dir", dir)->required();
    measure->add_option("--rounds", opts.rounds)->check(CLI::PositiveNumber);
    measure->add_option("--threads", opts.threads)->delimiter(',');
    measure->add_option("--memory-budget", opts.memory_budget_text);
    measure->add_option("--out", opts.out_dir, "artifact directory (default: DIR/out; tmpfs keeps disks out of it)");

    std::string set_dir, out_dir, budget;
    unsigned threads = 1;
    auto* run = app.add_subcommand("run", "one batch (used by measure)");
    run->add_option("set_dir", set_dir)->required();
    run->add_option("out_dir", out_dir)->required();
    run->add_option("threads", threads)->required();
    run->add_option("budget", budget)->required();
    CLI11_PARSE(app, argc, argv);

    try {
        if (*prepare) prepare_inputs(dir, small, large);
        if (*measure) {
            opts.self = std::filesystem::canonical("/proc/self/exe");
            std::cout << measure_scaling(dir, opts);
        }
        if (*run) std::cout << run_one(set_dir, out_dir, threads, budget) << "\n";
    } catch (const std::exception& e) {
        std::cerr << "mgedump_scaling: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
