#!/usr/bin/env bash
# Set up, build, and run the whole test suite (every GoogleTest case through ctest).
set -euo pipefail
cd "$(dirname "$0")/.."
# Slurm and MUNGE too: ctest then runs tools/slurm_test.sh (a one-node cluster on loopback);
# and clang, for the clang_check test (tools/clang_check.sh: every source compiles with clang too).
bash tools/setup.sh --slurm --clang
bash tools/build.sh
build_dir=build
[[ "${MGEDUMP_SANITIZE:-0}" == 1 ]] && build_dir=build-asan
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)"
