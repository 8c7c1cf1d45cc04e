#!/usr/bin/env python3
"""End to end against `cp`: `mgedump dump MODEL` by one or more builds and `cp MODEL`,
interleaved round by round so that a shared machine's drift reaches every command
alike, the model read into the page cache before each command. Prints each command's
median and its ratio to `cp`'s median (#17's target: mgedump within 1.25x of cp).

  python3 bench/e2e_vs_cp.py build/onnx-corpus/resnet50.onnx --format FBS_V2 \\
      --rounds 20 build/mgedump /path/to/other/mgedump
"""
import argparse
import statistics
import subprocess
import sys
import time


def read_into_cache(path):
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("builds", nargs="+", help="mgedump executables to compare")
    ap.add_argument("--format", default="FBS_V2", choices=["FBS", "FBS_V2"])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out-dir", default="/dev/shm", help="where the outputs go (tmpfs: no disk in the way)")
    args = ap.parse_args()

    commands = [[b, "dump", args.model, "-o", f"{args.out_dir}/e2e_vs_cp.mge", "--dump-format", args.format]
                for b in args.builds]
    commands.append(["cp", args.model, f"{args.out_dir}/e2e_vs_cp.copy"])
    times = [[] for _ in commands]
    for r in range(args.warmup + args.rounds):
        for i, c in enumerate(commands):
            read_into_cache(args.model)
            t = time.perf_counter()
            subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
            t = time.perf_counter() - t
            if r >= args.warmup:
                times[i].append(t)
    cp = statistics.median(times[-1])
    for c, t in zip(commands, times):
        q = statistics.quantiles(t, n=4)
        label = " ".join(c[:2]) if c[0] != "cp" else "cp"
        print(f"{label:50s} median {1000 * statistics.median(t):7.1f} ms  ratio {statistics.median(t) / cp:.3f}"
              f"  (quartiles {1000 * q[0]:.1f}-{1000 * q[2]:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
