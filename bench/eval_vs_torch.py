#!/usr/bin/python3
"""The reference evaluator's forward against PyTorch's CPU forward of the same model,
measured in the same run: rounds alternate the two engines and the thread counts, so
a machine shared with other work slows both alike. Prints medians and ratios.

    /usr/bin/python3 bench/eval_vs_torch.py [--build build] [--model resnet50]
        [--threads 1,2] [--rounds 7] [--iterations 3]

The model is build/onnx-corpus/<model>.onnx (tools/make_onnx_corpus.py; the same
architecture, weights and input PyTorch runs here: the generator's seed). mgedump's
side is build/mgedump_eval_bench in --serve mode: the model loaded once, as
`mgedump run` reads it, and engine::eval::evaluate timed alone with
EvalOptions{threads=N}. PyTorch's side is the eval-mode forward under
torch.inference_mode() with torch.set_num_threads(N), twice: "pytorch", the module
as it is (PyTorch 1.13 runs a 1x1 convolution on one thread with its slow im2col
path, not oneDNN), and "pytorch-onednn", the module and input converted with
torch.utils.mkldnn (every convolution through oneDNN; the stronger baseline).

Per thread count it reports each engine's median wall time (for one thread also the
calling thread's CPU time, which does not count waiting for a core on a busy
machine), mgedump's ratio to each baseline (of the medians, the median of the
per-round ratios, and for one thread of the CPU times; below 1 is faster), and each
engine's scaling from the first thread count to the others. On a machine shared with
builds, hold their lock for the run (flock /tmp/build-main.lock ...) or the
two-thread numbers measure the neighbours.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torch_model(name):
    """The generator's model and nothing else: same factory, same seed."""
    import torch

    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import make_onnx_corpus

    table = make_onnx_corpus.models()
    if name not in table:
        sys.exit(f"unknown model {name!r}; known: {', '.join(table)}")
    torch.manual_seed(0)
    model, _, _ = table[name]()
    return model.eval()


class Evaluator:
    """mgedump_eval_bench --serve: one request, one line of samples."""

    def __init__(self, binary, model, input_file):
        self.proc = subprocess.Popen([binary, model, "--input", f"input={input_file}", "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            sys.exit(f"{binary}: did not start (said {line!r})")

    def run(self, threads, n):
        self.proc.stdin.write(f"{threads} {n}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline().split()
        if len(line) != 5 or line[1] != "wall" or line[3] != "cpu":
            sys.exit(f"mgedump_eval_bench: unexpected answer {' '.join(line)!r}")
        return [float(x) for x in line[2].split(",")], [float(x) for x in line[4].split(",")]

    def blas(self):
        self.proc.stdin.write("blas\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().split(maxsplit=1)[1].strip()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def torch_run(model, x, threads, n, onednn=False):
    import torch

    torch.set_num_threads(threads)
    wall, cpu = [], []
    with torch.inference_mode():
        for _ in range(n):
            w0, c0 = time.perf_counter(), time.thread_time()
            # The conversions to and from oneDNN's layout count: mgedump's time
            # includes its own input and output too.
            model(x.to_mkldnn()).to_dense() if onednn else model(x)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.thread_time() - c0)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus", help="default: BUILD/onnx-corpus")
    ap.add_argument("--model", default="resnet50")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=3, help="timed forwards per engine, round and thread count")
    ap.add_argument("--warmup", type=int, default=1, help="untimed forwards per engine and thread count, first")
    args = ap.parse_args()

    import torch

    corpus = args.corpus or os.path.join(args.build, "onnx-corpus")
    onnx_file = os.path.join(corpus, f"{args.model}.onnx")
    input_file = os.path.join(corpus, f"{args.model}.input.npy")
    for f in (onnx_file, input_file):
        if not os.path.exists(f):
            sys.exit(f"{f} missing: /usr/bin/python3 tools/make_onnx_corpus.py {corpus} --only {args.model}")
    binary = os.path.join(args.build, "mgedump_eval_bench")
    if not os.access(binary, os.X_OK):
        sys.exit(f"{binary} missing: cmake --build {args.build} --target mgedump_eval_bench")
    threads = [int(t) for t in args.threads.split(",")]

    x = torch.from_numpy(np.load(input_file))
    model = torch_model(args.model)
    ev = Evaluator(binary, onnx_file, input_file)
    engines = {"mgedump": lambda t, n: ev.run(t, n), "pytorch": lambda t, n: torch_run(model, x, t, n)}
    if torch.backends.mkldnn.is_available():
        # PyTorch's default forward sends a 1x1 convolution at one thread to its slow
        # im2col path (ConvParams::use_mkldnn); the model and input converted to oneDNN
        # tensors run every convolution through oneDNN: the stronger baseline.
        from torch.utils import mkldnn

        onednn_model = mkldnn.to_mkldnn(torch_model(args.model))
        engines["pytorch-onednn"] = lambda t, n: torch_run(onednn_model, x, t, n, onednn=True)
    baselines = [e for e in engines if e != "mgedump"]

    print(f"{args.model}: mgedump_eval_bench vs PyTorch {torch.__version__}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    print(f"  {args.rounds} rounds x {args.iterations} forwards per engine and thread count, "
          f"after {args.warmup} warm-up forward(s) each")
    for t in threads:
        for e in engines:
            engines[e](t, args.warmup)
    print(f"  mgedump's GEMM: OpenBLAS core {ev.blas()}")

    wall = {(e, t): [] for e in engines for t in threads}
    cpu = {(e, t): [] for e in engines for t in threads}
    round_ratio = {(b, t): [] for b in baselines for t in threads}
    for r in range(args.rounds):
        order = threads if r % 2 == 0 else threads[::-1]
        for t in order:
            # Rotate the engines' order too, so none always runs first.
            k = (r + threads.index(t)) % len(engines)
            names = list(engines)[k:] + list(engines)[:k]
            block = {}
            for e in names:
                w, c = engines[e](t, args.iterations)
                wall[(e, t)] += w
                cpu[(e, t)] += c
                block[e] = statistics.median(w)
            for b in baselines:
                round_ratio[(b, t)].append(block["mgedump"] / block[b])
    ev.close()

    med = {k: statistics.median(v) for k, v in wall.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    print(f"\n  median wall ms (one thread: also the calling thread's CPU ms)")
    print("  " + f"{'threads':>7}" + "".join(f"  {e:>16}" for e in engines))
    for t in threads:
        cells = "".join(f"  {med[(e, t)] * 1e3:>16.1f}" for e in engines)
        print(f"  {t:>7}{cells}")
        if t == 1:
            print(f"  {'cpu':>7}" + "".join(f"  {med_cpu[(e, t)] * 1e3:>16.1f}" for e in engines))
    print("\n  mgedump / baseline (below 1: mgedump is faster)")
    for b in baselines:
        for t in threads:
            line = (f"  {b:>16} {t} thread(s): {med[('mgedump', t)] / med[(b, t)]:.2f}x of the medians, "
                    f"{statistics.median(round_ratio[(b, t)]):.2f}x median per round")
            if t == 1:
                line += f", {med_cpu[('mgedump', t)] / med_cpu[(b, t)]:.2f}x of thread CPU"
            print(line)
    print()
    for e in engines:
        for t in threads[1:]:
            print(f"  {e} scaling {threads[0]} -> {t} threads: {med[(e, threads[0])] / med[(e, t)]:.2f}x")
    print(f"  ({args.rounds * args.iterations} forwards per cell; load average {os.getloadavg()[0]:.2f} at the end)")

if __name__ == "__main__":
    main()
