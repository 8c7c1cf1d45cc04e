#!/usr/bin/env bash
# Set up (tools/setup.sh) and build into ./build (Release with debug info).
# MGEDUMP_SANITIZE=1 builds with ASan/UBSan into ./build-asan instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
build_dir=build
extra=()
if [[ "${MGEDUMP_SANITIZE:-0}" == 1 ]]; then
  build_dir=build-asan
  extra=(-DMGEDUMP_SANITIZE=ON)
fi
cmake -S . -B "$build_dir" -G Ninja "${extra[@]}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"
