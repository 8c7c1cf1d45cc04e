#!/usr/bin/env bash
# Set up, build, and run the whole test suite (every GoogleTest case through ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh
build_dir=build
[[ "${MGEDUMP_SANITIZE:-0}" == 1 ]] && build_dir=build-asan
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
