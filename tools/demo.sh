#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the bundled example
# graphs, writing each as FBS_V2 and as FBS (8.14-compatible) into ./out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
rm -rf out && mkdir -p out
# Every example model as FBS_V2 (servers) and as FBS / 8.14-compatible FBS (older
# runtimes) from one load each.
build/mgedump batch examples/manifests/demo.jsonl -o out
echo
ls -l out/*.mge
