#!/usr/bin/env bash
# README command 1: set up, build, and run the main job on the bundled example
# graphs, writing each as FBS_V2 and as FBS (8.14-compatible) into ./out.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
mkdir -p out
shopt -s nullglob
examples=(examples/*.json)
((${#examples[@]})) || { echo "demo: no example graphs in examples/" >&2; exit 1; }
if build/mgedump batch --help >/dev/null 2>&1; then
  build/mgedump batch examples -o out
else
  for g in "${examples[@]}"; do
    name=$(basename "$g" .json)
    build/mgedump dump "$g" -o "out/$name.mge"
    build/mgedump dump "$g" -o "out/$name.fbs.mge" --dump-format FBS --compat-older-version 8.14
  done
fi
echo
ls -l out/*.mge
