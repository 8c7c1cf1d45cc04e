#!/usr/bin/env bash
# Runs the command line built with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-fuzz/mgedump, tools/sanitized_build.sh) over real inputs instead of
# mutated ones: the fuzzers explore malformed bytes, this covers every well-formed
# file we have, where a memory error can hide behind a right answer (session 28
# found a use-after-free this way that every byte-for-byte test passed).
#
#   tools/sanitize_sweep.sh [PART...]   PART: mge, eval or onnx; none: all three
#
#   mge    every .mge of ../shared/realdata (1,486): inspect --json, convert to
#          FBS_V2 and to FBS, verify                                  (~15 min)
#   eval   every model of ../shared/realdata/megengine-dumps (v2.mge): run with
#          random inputs on the reference evaluator                   (~1 min)
#   onnx   every /usr/share/libonnx-testdata model (1,072): dump, run (~15 min)
#
# A finding is a sanitizer report; a refusal with our own error (a non-zero exit
# with a message, e.g. an AssertEqual that random inputs fail) is not. Each finding
# goes to build-fuzz/logs/sweep-PART.log with its report; exits 1 when there is one.
# NO_BUILD=1 uses build-fuzz/mgedump as last built.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-fuzz
SHARED=$ROOT/../shared
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(mge eval onnx)
for part in "${PARTS[@]}"; do
  [[ $part =~ ^(mge|eval|onnx)$ ]] || { echo "unknown part $part (one of: mge eval onnx)" >&2; exit 2; }
done
[ "${NO_BUILD:-0}" = 1 ] || bash "$ROOT/tools/sanitized_build.sh" mgedump
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
MGEDUMP=$BUILD/mgedump
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mgedump-sweep.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$BUILD/logs"
findings=0

# Runs one command line; a sanitizer report in its output is a finding, logged.
check() {  # check LOG ARG...
  local log=$1 out
  shift
  out=$(timeout 300 "$MGEDUMP" "$@" 2>&1 >/dev/null) || true
  if grep -qE 'runtime error|ERROR: AddressSanitizer|UndefinedBehaviorSanitizer' <<<"$out"; then
    findings=$((findings + 1))
    { echo "== mgedump $*"; echo "$out"; } >>"$log"
    echo "   finding: mgedump $*"
  fi
}

sweep() {  # sweep PART: runs it, says how many inputs and findings
  local part=$1 log=$BUILD/logs/sweep-$1.log n=0 before=$findings f
  : >"$log"
  case $part in
    mge)
      while read -r f; do
        n=$((n + 1))
        check "$log" inspect --json "$f"
        check "$log" convert "$f" -o "$WORK/v2.mge" -q
        check "$log" convert "$f" -o "$WORK/v1.mge" -q --dump-format FBS
        check "$log" verify "$f"
      done < <(find "$SHARED/realdata" -name '*.mge' | sort) ;;
    eval)
      while read -r f; do
        n=$((n + 1))
        rm -rf "$WORK/out"
        check "$log" run "$f" -o "$WORK/out" --random-inputs 1 --threads 1 -q
      done < <(find "$SHARED/realdata/megengine-dumps" -name v2.mge | sort) ;;
    onnx)
      while read -r f; do
        n=$((n + 1))
        rm -rf "$WORK/out"
        check "$log" dump "$f" -o "$WORK/onnx.mge" -q
        check "$log" run "$f" -o "$WORK/out" --random-inputs 1 --threads 1 -q
      done < <(find /usr/share/libonnx-testdata -name '*.onnx' | sort) ;;
  esac
  echo "== $part: $n inputs, $((findings - before)) finding(s) (log: $log)"
}

for part in "${PARTS[@]}"; do sweep "$part"; done
[ "$findings" -eq 0 ] || { echo "sanitize_sweep.sh: $findings finding(s)" >&2; exit 1; }
