#!/usr/bin/env bash
# Builds TARGETs in build-fuzz/: clang, AddressSanitizer and UndefinedBehaviorSanitizer
# (and libFuzzer for the fuzz targets), installing what is missing first
# (tools/setup.sh --fuzz). tools/fuzz.sh and tools/sanitize_sweep.sh build with it.
#
#   tools/sanitized_build.sh TARGET...      JOBS build jobs (default 1: the machine is shared)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-fuzz
[ $# -gt 0 ] || { echo "usage: tools/sanitized_build.sh TARGET..." >&2; exit 2; }
bash "$ROOT/tools/setup.sh" --fuzz  # the build's packages, clang and libFuzzer
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DMGEDUMP_FUZZ=ON -DMGEDUMP_SANITIZE=ON -DMGEDUMP_WERROR=ON -DMGEDUMP_BUILD_TESTS=OFF -DMGEDUMP_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j"${JOBS:-1}" --target "$@"
