#!/usr/bin/env bash
# Installs, from Debian's packages, whatever mgedump needs that this machine lacks.
# Idempotent: a machine that has everything runs no apt-get at all.
#   tools/setup.sh           what the build and the test suite need
#   tools/setup.sh --corpus  also PyTorch/torchvision (the ONNX corpus generator), gnuplot
#                            (the benchmark chart) and hyperfine (the end-to-end timing against
#                            `cp` in the README); large, so only for corpus tests and benchmarks
#   tools/setup.sh --slurm   also Slurm and MUNGE, for tools/slurm_test.sh (a one-node cluster on
#                            loopback)
#   tools/setup.sh --clang   also clang, for tools/clang_check.sh (the suite's clang_check test)
#   tools/setup.sh --fuzz    also clang and its libFuzzer and sanitizer runtimes, for tools/fuzz.sh;
#                            the options combine (--corpus --slurm --clang --fuzz)
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git
  libtbb-dev libflatbuffers-dev flatbuffers-compiler libxxhash-dev libmimalloc-dev libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  pybind11-dev python3-dev python3-pytest python3-numpy python3-onnx
  libopenblas-dev libonnx-testdata
  # packaging (tools/package_test.sh): pip and wheels offline, virtual environments, cpack's .deb
  python3-setuptools python3-wheel python3-build python3-venv python3-pip dpkg-dev file
)
for option in "$@"; do
  case "$option" in
    --corpus) packages+=(python3-torch python3-torchvision gnuplot-nox hyperfine) ;;
    --slurm) packages+=(slurmctld slurmd slurm-client munge) ;;
    --clang) packages+=(clang) ;;
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    *) echo "setup: unknown option '$option' (known: --corpus, --slurm, --clang, --fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
