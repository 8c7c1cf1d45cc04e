#!/usr/bin/env bash
# Compiles every translation unit of a build with clang++ -fsyntax-only, with the
# build's own flags (its compile_commands.json, -Werror included): the build and
# CI use GCC, while tools/fuzz.sh and tools/sanitize_sweep.sh build with clang 14,
# which refuses some C++20 that GCC 12 takes (a structured binding captured by a
# lambda, GCC-only attributes). Twice such a break went unseen until the fuzz
# build failed a session later; as a ctest test (cmake/clang_check.cmake) it fails
# the suite instead.
#
#   tools/clang_check.sh [BUILD_DIR]   default: build
#
# Prints each refused file with clang's messages; exits 1 if any, 0 if none.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
DB=$BUILD/compile_commands.json
CLANG=${CLANG:-clang++}
[ -f "$DB" ] || { echo "clang_check: no $DB (configure the build first: bash tools/build.sh)" >&2; exit 2; }
command -v "$CLANG" >/dev/null || { echo "clang_check: no $CLANG (bash tools/setup.sh --clang installs it)" >&2; exit 2; }

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# One line per translation unit: its directory, then the compiler's arguments
# without the compiler, -c and -o FILE (nothing is written), NUL-separated.
/usr/bin/python3 - "$DB" > "$logs/units" <<'EOF'
import json, shlex, sys
for unit in json.load(open(sys.argv[1])):
    args = unit["arguments"] if "arguments" in unit else shlex.split(unit["command"])
    kept, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
        elif a == "-o":
            skip = True
        elif a != "-c":
            kept.append(a)
    sys.stdout.write(shlex.quote(unit["directory"]) + " " + " ".join(shlex.quote(a) for a in kept) + "\0")
EOF
total=$(tr -cd '\0' < "$logs/units" | wc -c)
export CLANG logs
# A refused unit's messages go to a file of their own (so parallel output never
# interleaves), headed by its name; all of them are printed at the end.
xargs -0 -n1 -P"$(nproc)" bash -c 'eval "set -- $1"; dir=$1; shift; f=${*: -1}
  out=$(cd "$dir" && "$CLANG" -fsyntax-only "$@" 2>&1) ||
    printf "== clang refuses %s:\n%s\n" "$f" "$out" > "$logs/refused.$(echo "$f" | md5sum | cut -c1-16)"' unit < "$logs/units"

refused=("$logs"/refused.*)
if [ -e "${refused[0]}" ]; then
  cat "${refused[@]}"
  echo "clang_check: ${#refused[@]} of $total translation units refused by $($CLANG --version | head -1)" >&2
  exit 1
fi
echo "clang_check: all $total translation units compile with $($CLANG --version | head -1)"
