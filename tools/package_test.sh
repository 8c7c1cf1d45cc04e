#!/usr/bin/env bash
# The ways users install mgedump, checked from a fresh copy of the repository (its
# tracked and new files, nothing ignored: what `git clone` gives once committed):
#   1. a Release build with the defaults packagers and pip get (no -Werror), without
#      the test and benchmark targets; every later step reuses it
#   2. `cmake --install` into a temporary prefix: exactly the expected files, a
#      stripped binary with its debug info split off by build id, public headers that
#      compile with no other include path and reach no FlatBuffers, oneTBB or JSON
#      header; a C++ program built against the installed package with
#      find_package(mgedump) and with pkg-config, whose artifacts are the installed
#      command line's byte for byte
#   3. `cpack -G DEB`: each package's files, the runtime package's Depends covering the
#      package of every shared library its binary loads (and no -dev package), apt
#      accepting it (`apt-get install --simulate ./mgedump_*.deb`), its binary working
#   4. the wheel (`python3 -m build --no-isolation --wheel`) installed into a fresh
#      `python3 -m venv --system-site-packages` with pip, offline, and the whole Python
#      suite (tests/python) run against it; `pip install --no-build-isolation .` too
#
#   tools/package_test.sh [WORK_DIR]
# WORK_DIR (kept afterwards) defaults to a temporary directory that is removed. Exits
# 77 (ctest: skipped) when a tool it needs is not installed (tools/setup.sh adds them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=/usr/bin/python3  # Debian's: where python3-build, pytest and numpy are
jobs=$(nproc)

for tool in cmake ninja g++ git pkg-config cpack dpkg-deb dpkg-shlibdeps file apt-get readelf objcopy; do
  command -v "$tool" >/dev/null || { echo "package_test: $tool not found (bash tools/setup.sh)"; exit 77; }
done
"$python" -c 'import build, setuptools, wheel, venv, pytest' 2>/dev/null ||
  { echo "package_test: python3-build, -setuptools, -wheel, -venv or -pytest missing (bash tools/setup.sh)"; exit 77; }

if [[ $# -ge 1 ]]; then
  work=$(mkdir -p "$1" && cd "$1" && pwd)
  rm -rf "${work:?}"/{src,build,prefix,consumer,deb,dist,venv,venv-src,run}
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/mgedump-package-test.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/logs" "$work/run"
start=$SECONDS
failed=0

# Runs "$@" in a subshell with errexit in force, its output in logs/NAME.log (shown
# when it fails); sets `last` to its status. Never called as a condition: a function
# run as one (`step ... || exit`) would run without errexit, subshells included.
step() {
  local name=$1 t=$SECONDS
  shift
  set +e
  (set -e; "$@") >"$work/logs/$name.log" 2>&1
  last=$?
  set -e
  if ((last == 0)); then
    echo "ok   $name ($((SECONDS - t)) s)"
  else
    echo "FAIL $name ($((SECONDS - t)) s):"
    tail -n 40 "$work/logs/$name.log" | sed 's/^/  /'
    failed=$((failed + 1))
  fi
}
fail() { echo "$*"; return 1; }

# ---- 1. a fresh copy and its Release build ----------------------------------------------------

fresh_copy() {
  mkdir -p "$work/src"
  git -C "$root" ls-files -z --cached --others --exclude-standard |
    tar -C "$root" --null --ignore-failed-read -T - -cf - | tar -C "$work/src" -xf -
  [[ -f "$work/src/CMakeLists.txt" && ! -e "$work/src/build" ]]
}

release_build() {
  cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMGEDUMP_BUILD_TESTS=OFF -DMGEDUMP_BUILD_BENCH=OFF
  grep -q '^MGEDUMP_WERROR:BOOL=OFF' "$work/build/CMakeCache.txt" || fail "-Werror is on by default"
  cmake --build "$work/build" -j"$jobs"
}

step fresh-copy fresh_copy
((last == 0)) || exit 1
step release-build release_build
((last == 0)) || exit 1

# The spec's Appendix C graph, which tests/package/consumer.cpp builds in C++.
cat >"$work/run/appendix_c.json" <<'EOF'
{"format": "mgedump-graph", "version": 1,
 "inputs": [{"name": "data", "dtype": "Float32", "shape": [1, 3]}],
 "constants": [{"name": "const", "dtype": "Float32", "shape": [3], "values": [1, 2, 3]}],
 "operators": [{"op": "Elemwise", "inputs": ["data", "const"], "params": {"mode": "ADD"}, "outputs": ["out"]}],
 "outputs": ["out"]}
EOF

# "FORMAT tot_bytes xxh3_128" of the Appendix C graph dumped by the mgedump binary $1, as consumer prints it.
cli_digests() {
  local format
  for format in FBS FBS_V2; do
    "$1" dump "$work/run/appendix_c.json" -o "$work/run/cli.mge" --dump-format "$format" --json |
      "$python" -c 'import json, sys; r = json.load(sys.stdin); print(sys.argv[1], r["tot_bytes"], r["xxh3_128"])' "$format"
  done
}

# ---- 2. cmake --install, and programs built against what it installed ------------------------

prefix=$work/prefix
install_tree() {
  cmake --install "$work/build" --prefix "$prefix"
  local unexpected
  unexpected=$(cd "$prefix" && find . -type f | sort | grep -vE '^\./(bin/mgedump|lib/libmgedump(_ir|_formats|_onnx_proto|_engine|_jobs)?\.a|include/mgedump/.*\.h|lib/cmake/mgedump/mgedump-(config|config-version|targets|targets-release)\.cmake|lib/pkgconfig/mgedump\.pc|lib/debug/\.build-id/[0-9a-f]{2}/[0-9a-f]+\.debug)$' || true)
  [[ -z "$unexpected" ]] || fail "unexpected files installed: $unexpected"
  for f in bin/mgedump lib/libmgedump.a lib/libmgedump_jobs.a include/mgedump/mgedump.h include/mgedump/ir/builder.h \
           include/mgedump/engine/dump_options.h lib/cmake/mgedump/mgedump-config.cmake lib/pkgconfig/mgedump.pc; do
    [[ -f "$prefix/$f" ]] || fail "$f not installed"
  done
  # Stripped, its debug info findable by build id.
  local exe=$prefix/bin/mgedump id size
  readelf -S "$exe" >"$work/run/sections.txt"
  ! grep -qE '\.debug_|\.symtab' "$work/run/sections.txt" || fail "the installed binary keeps symbols or debug info"
  id=$(readelf -n "$exe" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
  [[ -n "$id" && -f "$prefix/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]] || fail "no debug file for build id '$id'"
  size=$(stat -c %s "$exe")
  echo "installed binary: $size bytes (build tree: $(stat -c %s "$work/build/mgedump"))"
  ((size < 40 * 1024 * 1024)) || fail "the installed binary is $size bytes"
  "$exe" --version
  # The evaluator loads OpenBLAS at run time (engine/eval/blas_library.h): a matrix
  # product [1,2]·[2,1] = 1·3 + 2·4 from the installed binary.
  cat >"$work/run/matmul.json" <<'EOF'
{"format": "mgedump-graph", "version": 1,
 "constants": [{"name": "a", "dtype": "Float32", "shape": [1, 2], "values": [1, 2]},
               {"name": "b", "dtype": "Float32", "shape": [2, 1], "values": [3, 4]}],
 "operators": [{"op": "MatrixMul", "inputs": ["a", "b"], "outputs": ["y"]}],
 "outputs": ["y"]}
EOF
  "$exe" run "$work/run/matmul.json" -o "$work/run/matmul" -q
  [[ "$("$python" -c 'import numpy, sys; print(numpy.load(sys.argv[1]).tolist())' "$work/run/matmul/y.npy")" == "[[11.0]]" ]] ||
    fail "the installed binary's matrix product is not [[11.0]]"
}

# Every public header compiles with the prefix as the only include path beyond the
# standard library's, and none of them reaches a third-party header.
public_headers() {
  local h
  for h in $(cd "$prefix/include" && find mgedump -name '*.h' | sort); do
    echo "#include <$h>" | g++ -std=c++20 -fsyntax-only -H -I"$prefix/include" -I"$prefix/include/mgedump" -x c++ - \
      2>"$work/run/headers.txt" || { cat "$work/run/headers.txt"; fail "$h does not compile alone"; }
    ! grep -E '/usr/(local/)?include/(flatbuffers|tbb|oneapi|nlohmann|absl|fmt|xxhash|xxh_|google|onnx|CLI)' \
      "$work/run/headers.txt" || fail "$h reaches a third-party header"
  done
}

consumer_cmake() {
  cmake -S "$work/src/tests/package" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$work/consumer"
  mkdir -p "$work/run/cmake"
  "$work/consumer/consumer" "$work/run/cmake" | tee "$work/run/consumer.txt"
  cli_digests "$prefix/bin/mgedump" >"$work/run/cli.txt"
  diff <(head -n 2 "$work/run/consumer.txt") "$work/run/cli.txt" ||
    fail "the library's artifacts differ from the installed command line's"
  grep -q "batch 1 written" "$work/run/consumer.txt"
}

consumer_pkg_config() {
  local flags
  flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mgedump)
  echo "pkg-config: $flags"
  # shellcheck disable=SC2086  # word splitting of the flags is wanted
  g++ -std=c++20 -O1 "$work/src/tests/package/consumer.cpp" -o "$work/run/consumer-pc" $flags
  mkdir -p "$work/run/pc"
  "$work/run/consumer-pc" "$work/run/pc" >"$work/run/consumer-pc.txt"
  diff "$work/run/consumer.txt" "$work/run/consumer-pc.txt"
}

step install install_tree
if ((last == 0)); then
  step public-headers public_headers
  step consumer-find-package consumer_cmake
  step consumer-pkg-config consumer_pkg_config
fi

# ---- 3. Debian packages ----------------------------------------------------------------------

deb_packages() {
  (cd "$work/build" && cpack -G DEB -B "$work/deb")
  local version runtime dev dbg
  version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$work/build/CMakeCache.txt")
  runtime=$work/deb/mgedump_${version}_amd64.deb
  dev=$work/deb/mgedump-dev_${version}_amd64.deb
  dbg=$work/deb/mgedump-dbg_${version}_amd64.deb
  ls -l "$runtime" "$dev" "$dbg"
  # The files of each package (listed first: `grep -q` on a pipe would stop dpkg-deb midway).
  dpkg-deb -c "$runtime" | awk '$1 !~ /^d/ {print $NF}' >"$work/run/runtime.files"
  dpkg-deb -c "$dev" | awk '$1 !~ /^d/ {print $NF}' >"$work/run/dev.files"
  dpkg-deb -c "$dbg" | awk '$1 !~ /^d/ {print $NF}' >"$work/run/dbg.files"
  [[ "$(cat "$work/run/runtime.files")" == "./usr/bin/mgedump" ]] ||
    fail "the runtime package holds more than usr/bin/mgedump: $(cat "$work/run/runtime.files")"
  for f in include/mgedump/mgedump.h lib/libmgedump.a lib/cmake/mgedump/mgedump-config.cmake lib/pkgconfig/mgedump.pc; do
    grep -qx "./usr/$f" "$work/run/dev.files" || fail "mgedump-dev lacks usr/$f"
  done
  [[ "$(grep -cvE '^\./usr/(include/mgedump/|lib/(libmgedump|cmake/mgedump/|pkgconfig/mgedump\.pc))' "$work/run/dev.files")" == 0 ]] ||
    fail "mgedump-dev holds other files: $(cat "$work/run/dev.files")"

  # Depends names the package of every shared library the packaged binary links
  # (NEEDED), or a package that depends on it (libopenblas0 → libopenblas0-pthread).
  local depends named=() d soname path pkg missing=()
  depends=$(dpkg-deb -f "$runtime" Depends)
  echo "Depends: $depends"
  ! grep -q -- '-dev' <<<"$depends" || fail "the runtime package depends on a -dev package"
  # OpenBLAS is loaded at run time, so no NEEDED entry names it: Depends must.
  tr ',' '\n' <<<"$depends" | sed 's/(.*)//; s/ //g' | grep -qx libopenblas0 ||
    fail "Depends lacks libopenblas0, which the evaluator loads at run time"
  for d in $(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*)//; s/ //g'); do
    named+=("$d")
    named+=($(dpkg-query -W -f '${Depends}' "$d" 2>/dev/null | tr ',|' '\n\n' | sed 's/(.*)//; s/ //g; s/:any$//'))
  done
  rm -rf "$work/deb/x" && dpkg-deb -x "$runtime" "$work/deb/x"
  ldd "$work/deb/x/usr/bin/mgedump" >"$work/run/ldd.txt"
  for soname in $(readelf -d "$work/deb/x/usr/bin/mgedump" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    # "libz.so.1 => /lib/.../libz.so.1 (0x...)", or for the dynamic loader (NEEDED
    # once a linked library uses __tls_get_addr, e.g. a thread_local in PIC code)
    # "/lib64/ld-linux-x86-64.so.2 (0x...)": its path stands first.
    path=$(awk -v s="$soname" '$1 == s {print $3; next} {n = split($1, p, "/"); if (n > 1 && p[n] == s) print $1}' \
      "$work/run/ldd.txt")
    pkg=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1) ||
      pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1) || pkg=""
    [[ -n "$pkg" ]] || { missing+=("$soname (in no package)"); continue; }
    grep -qx "$pkg" <<<"$(printf '%s\n' "${named[@]}")" || missing+=("$soname ($pkg)")
  done
  ((${#missing[@]} == 0)) || fail "Depends lacks the packages of: ${missing[*]}"
  # The packaged binary's debug file is the debug package's.
  local id
  id=$(readelf -n "$work/deb/x/usr/bin/mgedump" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
  [[ "$(cat "$work/run/dbg.files")" == "./usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ]] ||
    fail "mgedump-dbg holds $(cat "$work/run/dbg.files"), not the debug file of build id $id"
  # What the packaged binary writes is what the build tree's writes.
  diff <(cli_digests "$work/deb/x/usr/bin/mgedump") <(cli_digests "$work/build/mgedump")
  # apt resolves every dependency (a simulation: nothing is installed on this machine).
  apt-get install --simulate --no-install-recommends "$runtime" "$dev" | tee "$work/run/apt.txt"
  grep -q '^Inst mgedump ' "$work/run/apt.txt" && grep -q '^Inst mgedump-dev ' "$work/run/apt.txt"
}
step deb deb_packages

# ---- 4. the wheel, in a fresh virtual environment --------------------------------------------

wheel() {
  MGEDUMP_CMAKE_BUILD_DIR=$work/build "$python" -m build --no-isolation --wheel --outdir "$work/dist" "$work/src"
  local whl
  whl=$(ls "$work/dist"/mgedump-*-cp3*-linux_x86_64.whl)
  "$python" -m zipfile -l "$whl" | tee "$work/run/wheel.txt"
  for f in mgedump/__init__.py mgedump/__init__.pyi mgedump/py.typed mgedump/_signatures.py; do
    grep -q "^$f " "$work/run/wheel.txt" || fail "the wheel lacks $f"
  done
  grep -qE '^mgedump/_core\.cpython-[0-9]+-x86_64-linux-gnu\.so ' "$work/run/wheel.txt" || fail "the wheel lacks mgedump/_core"
  "$python" -m venv --system-site-packages "$work/venv"
  # Offline: numpy comes from Debian's site-packages, which the environment sees.
  "$work/venv/bin/python" -m pip install --no-index --no-cache-dir "$whl"
}

python_suite() {
  # From a directory that holds no mgedump, without PYTHONPATH: only the installed package.
  (cd "$work/run" && env -u PYTHONPATH MGEDUMP_SOURCE_DIR="$root" MGEDUMP_EXPECT_INSTALLED="$work/venv" \
     PYTHONDONTWRITEBYTECODE=1 "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python")
}

pip_install_source() {
  "$python" -m venv --system-site-packages "$work/venv-src"
  (cd "$work/src" && MGEDUMP_CMAKE_BUILD_DIR=$work/build "$work/venv-src/bin/python" -m pip install --no-index \
     --no-build-isolation --no-cache-dir .)
  (cd "$work/run" && env -u PYTHONPATH "$work/venv-src/bin/python" -c '
import inspect, sys, mgedump
assert mgedump.__file__.startswith(sys.prefix), mgedump.__file__
print(mgedump.__version__, inspect.signature(mgedump.dump_graph))')
}

step wheel wheel
if ((last == 0)); then
  step python-suite-installed python_suite
fi
step pip-install-source pip_install_source

echo "package_test: $failed failed ($((SECONDS - start)) s)"
((failed == 0))
