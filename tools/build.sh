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
# The project's own builds treat warnings as errors (CI runs this script); packagers' and pip's do not.
cmake -S . -B "$build_dir" -G Ninja -DMGEDUMP_WERROR=ON "${extra[@]}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)"

# Make `import mgedump` work in Debian's /usr/bin/python3 (the package is built for it
# into build/python/mgedump) by pointing a .pth file in its site-packages at build/python.
if [[ "${MGEDUMP_SANITIZE:-0}" != 1 && -d "$build_dir/python" && -x /usr/bin/python3 ]]; then
  site_dir=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
  if mkdir -p "$site_dir" 2>/dev/null && echo "$PWD/$build_dir/python" > "$site_dir/mgedump.pth" 2>/dev/null; then
    :
  else
    echo "build: cannot write $site_dir/mgedump.pth; use PYTHONPATH=$PWD/$build_dir/python" >&2
  fi
fi
