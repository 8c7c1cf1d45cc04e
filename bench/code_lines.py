#!/usr/bin/env python3
"""The code one static inference runs, in 64-byte cache lines: how much of the
instruction cache a graph's inference needs when it starts cold, which the
instruction count does not show (a rule's code lines cost as much as its
instructions once a dump has evicted them). Runs `mgedump_bench`'s
InferGraph/<model> under callgrind with per-instruction counts, collecting only
inside `infer_once` (three calls, after an uncollected warm-up inference), and
prints the distinct lines executed, by file and by function, and the 4 KiB
pages they lie on by file (each a TLB entry, and on a kernel with page-table
isolation and no PCID a page walk after every system call). Deterministic,
unlike a timing on a shared machine.

  MGEDUMP_ONNX_CORPUS=build/onnx-corpus python3 bench/code_lines.py \\
      build/mgedump_bench transformer_encoder
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

LINE = 64
PAGE = 4096


def run_callgrind(bench, model, out):
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no",
         f"--callgrind-out-file={out}", "--toggle-collect=*infer_once*", bench,
         f"--benchmark_filter=InferGraph/{model}$", "--benchmark_min_time=1e-9",
         "--benchmark_repetitions=3"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def name_of(spec, names):
    """'(12) name' defines id 12; '(12)' refers to it (callgrind's name compression)."""
    if not spec.startswith("("):
        return spec
    key, _, name = spec[1:].partition(")")
    name = name.strip()
    if name:
        names[key] = name
    return names.get(key, key)


def executed_addresses(profile):
    """Instruction addresses with a cost, by (object file, function)."""
    by_function = collections.defaultdict(set)
    names, objects, function, obj, address = {}, {}, ("?", "?"), "?", 0
    for line in open(profile):
        if line.startswith("ob="):
            obj = os.path.basename(name_of(line[3:].strip(), objects))
        elif line.startswith("cob="):
            name_of(line[4:].strip(), objects)  # may define a name used later
        elif line.startswith("fn="):
            function = name_of(line[3:].strip(), names)
            # A library without symbols (mimalloc) gives addresses: name its file.
            if function.startswith("0x"):
                function = f"{obj} {function}"
            function = (obj, function)
        elif line.startswith("cfn="):
            name_of(line[4:].strip(), names)
        elif line[:1].isdigit() or line[:1] in "+-*":
            position, *costs = line.split()
            # Positions: absolute (0x...), relative (+n, -n) or the same (*).
            if position.startswith("0x"):
                address = int(position, 16)
            elif position[0] in "+-":
                address += int(position)
            if any(c.isdigit() and int(c) for c in costs):
                by_function[function].add(address)
    return by_function


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="the mgedump_bench executable")
    ap.add_argument("model", help="an InferGraph benchmark's model (operator_heavy, transformer_encoder, ...)")
    ap.add_argument("--top", type=int, default=15, help="functions to list")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        profile = os.path.join(tmp, "callgrind.out")
        run_callgrind(args.bench, args.model, profile)
        by_function = executed_addresses(profile)
    if not by_function:
        sys.exit(f"code_lines: nothing collected: no benchmark InferGraph/{args.model} "
                 "(the ONNX corpus models need MGEDUMP_ONNX_CORPUS)")
    all_lines = set()
    by_object = collections.defaultdict(set)
    pages_by_object = collections.defaultdict(set)
    rows = []
    for (obj, function), addresses in by_function.items():
        lines = {a // LINE for a in addresses}
        all_lines |= lines
        by_object[obj] |= lines
        pages_by_object[obj] |= {a // PAGE for a in addresses}
        rows.append((len(lines), len(addresses), function))
    instructions = sum(len(a) for a in by_function.values())
    print(f"{args.model}: {len(all_lines)} code lines of {LINE} bytes, {instructions} distinct instructions")
    print("  by file: " + ", ".join(f"{obj} {len(lines)}" for obj, lines in
                                     sorted(by_object.items(), key=lambda kv: -len(kv[1]))))
    print(f"  {PAGE}-byte pages by file: " + ", ".join(f"{obj} {len(pages)}" for obj, pages in
                                                        sorted(pages_by_object.items(), key=lambda kv: -len(kv[1]))))
    for lines, addresses, function in sorted(rows, reverse=True)[: args.top]:
        print(f"{lines:5d} lines {addresses:6d} instructions  {function[:110]}")


if __name__ == "__main__":
    main()
