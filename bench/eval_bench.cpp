// mgedump_eval_bench: the reference evaluator's forward time on one model, the
// model loaded once (as `mgedump run MODEL` reads it) and engine::eval::evaluate
// timed alone, per thread count (EvalOptions::threads).
//
//   mgedump_eval_bench MODEL [--input NAME=FILE.npy]... [--seed S] [--threads 1,2]
//                      [--rounds 5] [--iterations 3] [--warmup 1]
//       interleaved rounds (thread counts alternate), prints medians;
//   mgedump_eval_bench MODEL ... --serve
//       for bench/eval_vs_torch.py: prints "ready", then for each stdin line
//       "THREADS N" runs N forwards and prints one line
//       "THREADS wall w1,w2,... cpu c1,c2,..." (seconds; cpu is the calling
//       thread's CPU time, the steadier clock for a one-thread run on a shared
//       machine, meaningless for more threads); "blas" prints the OpenBLAS core
//       the evaluator's GEMM runs on ("blas SkylakeX").
//
// MODEL is any file `mgedump run` reads (.onnx, .mge of either format, graph JSON).
// Inputs not given a file get engine::eval::random_feeds(SEED).
#include <CLI/CLI.hpp>
#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/support/measure.h"
#include "engine/eval/evaluator.h"
#include "engine/eval/npy_tensor.h"
#include "engine/load.h"
#include "jobs/model_input.h"

namespace mgedump::bench {
namespace {

namespace eval = engine::eval;

ir::Graph read_graph(const std::string& path) {
    if (std::filesystem::path(path).extension() == ".mge") return engine::load_file(path).graph;
    return jobs::read_model_input(path).graph;
}

eval::Feeds make_feeds(const ir::Graph& g, const std::vector<std::string>& specs, uint64_t seed) {
    eval::Feeds feeds = eval::random_feeds(g, seed);
    const std::vector<eval::GraphInput> inputs = eval::graph_inputs(g);
    for (const std::string& spec : specs) {
        const size_t eq = spec.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("--input " + spec + ": expected NAME=FILE.npy");
        const std::string name = spec.substr(0, eq);
        auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& in) { return in.name == name; });
        if (it == inputs.end()) throw std::invalid_argument("--input " + spec + ": the model has no input " + name);
        feeds.insert_or_assign(name, eval::read_npy_tensor(spec.substr(eq + 1), it->dtype));
    }
    return feeds;
}

struct Sample {
    double wall = 0, cpu = 0;
};

Sample time_forward(const ir::Graph& g, const eval::Feeds& feeds, int threads) {
    const double wall0 = now_seconds(), cpu0 = thread_cpu_seconds();
    std::vector<eval::EvalOutput> out = eval::evaluate(g, feeds, eval::EvalOptions{.threads = threads});
    Sample s{now_seconds() - wall0, thread_cpu_seconds() - cpu0};
    if (out.empty()) throw std::runtime_error("the model has no outputs");
    return s;
}

std::string joined(const std::vector<double>& v) {
    std::string s;
    for (double x : v) s += (s.empty() ? "" : ",") + fmt::format("{:.6f}", x);
    return s;
}

// Which of its kernels OpenBLAS chose (engine/eval/gemm.cpp corrects a fallback
// to the SSE3 ones on CPUs it does not know, at the first product).
std::string blas_core() {
    const char* core = openblas_get_corename();
    return core ? core : "unknown";
}

// The protocol of bench/eval_vs_torch.py: one request, one line.
void serve(const ir::Graph& g, const eval::Feeds& feeds) {
    std::cout << "ready" << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line == "blas") {
            std::cout << "blas " << blas_core() << std::endl;
            continue;
        }
        std::istringstream in(line);
        int threads = 0, n = 0;
        if (!(in >> threads >> n) || threads < 0 || n <= 0) {
            std::cout << "error expected THREADS N" << std::endl;
            continue;
        }
        std::vector<double> wall, cpu;
        for (int i = 0; i < n; ++i) {
            const Sample s = time_forward(g, feeds, threads);
            wall.push_back(s.wall);
            cpu.push_back(s.cpu);
        }
        std::cout << threads << " wall " << joined(wall) << " cpu " << joined(cpu) << std::endl;
    }
}

int run(int argc, char** argv) {
    CLI::App app{"The reference evaluator's forward time on one model"};
    std::string model;
    std::vector<std::string> inputs;
    uint64_t seed = 1;
    std::vector<int> threads{1, 2};
    int rounds = 5, iterations = 3, warmup = 1;
    bool serving = false;
    app.add_option("model", model, "any model `mgedump run` reads")->required();
    app.add_option("--input", inputs, "NAME=FILE.npy (others get random values)");
    app.add_option("--seed", seed, "seed of the random inputs");
    app.add_option("--threads", threads, "thread counts, alternated within each round")->delimiter(',');
    app.add_option("--rounds", rounds)->check(CLI::PositiveNumber);
    app.add_option("--iterations", iterations, "timed forwards per round and thread count")
        ->check(CLI::PositiveNumber);
    app.add_option("--warmup", warmup, "untimed forwards per thread count before the first round");
    app.add_flag("--serve", serving, "answer \"THREADS N\" requests on stdin (bench/eval_vs_torch.py)");
    CLI11_PARSE(app, argc, argv);

    const double load0 = now_seconds();
    const ir::Graph g = read_graph(model);
    const eval::Feeds feeds = make_feeds(g, inputs, seed);
    const double load_seconds = now_seconds() - load0;
    if (serving) {
        serve(g, feeds);
        return 0;
    }

    std::cout << fmt::format("{}: loaded in {:.3f}s; {} round(s) x {} forward(s) per thread count\n", model,
                             load_seconds, rounds, iterations);
    for (int t : threads)
        for (int i = 0; i < warmup; ++i) time_forward(g, feeds, t);
    std::vector<std::vector<Sample>> samples(threads.size());
    for (int r = 0; r < rounds; ++r)
        for (size_t j = 0; j < threads.size(); ++j) {
            // Alternate the order so neither count always runs first in a round.
            const size_t k = r % 2 ? threads.size() - 1 - j : j;
            for (int i = 0; i < iterations; ++i) samples[k].push_back(time_forward(g, feeds, threads[k]));
        }
    std::vector<double> medians;
    for (size_t k = 0; k < threads.size(); ++k) {
        std::vector<double> wall, cpu;
        for (const Sample& s : samples[k]) {
            wall.push_back(s.wall);
            cpu.push_back(s.cpu);
        }
        medians.push_back(median(wall));
        std::cout << fmt::format("  threads {:2}: median wall {:8.1f} ms", threads[k], medians.back() * 1e3);
        if (threads[k] == 1) std::cout << fmt::format("  (thread CPU {:.1f} ms)", median(cpu) * 1e3);
        std::cout << fmt::format("  over {} forwards\n", wall.size());
    }
    std::cout << "  OpenBLAS core: " << blas_core() << "\n";
    for (size_t k = 1; k < threads.size(); ++k)
        std::cout << fmt::format("  scaling {} -> {} threads: {:.2f}x\n", threads[0], threads[k],
                                 medians[0] / medians[k]);
    return 0;
}

}  // namespace
}  // namespace mgedump::bench

int main(int argc, char** argv) {
    try {
        return mgedump::bench::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "mgedump_eval_bench: " << e.what() << "\n";
        return 1;
    }
}
