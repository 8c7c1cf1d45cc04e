#!/usr/bin/env bash
# Builds the reader fuzz targets with clang, libFuzzer, ASan and UBSan, seeds them
# with the real MegEngine files, the spec's Appendix C files and dumps of those in
# both formats, then runs each target for SECONDS (default 180).
#
#   tools/fuzz.sh [SECONDS]        build dir: build-fuzz/, corpora: build-fuzz/corpus/<target>/
#
# Crashes are written to build-fuzz/crashes/<target>/ (libFuzzer's crash-* files);
# reproduce one with: build-fuzz/fuzz_read_v1 build-fuzz/crashes/fuzz_read_v1/crash-...
set -euo pipefail
SECONDS_PER_TARGET=${1:-180}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-fuzz
JOBS=${JOBS:-2}

cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DMGEDUMP_FUZZ=ON -DMGEDUMP_SANITIZE=ON -DMGEDUMP_WERROR=ON -DMGEDUMP_BUILD_TESTS=OFF -DMGEDUMP_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target fuzz_read_v1 fuzz_read_v2 mgedump

# Seeds: real files, Appendix C, and re-dumps of each in both formats and several options.
SEEDS=$BUILD/seeds
rm -rf "$SEEDS" && mkdir -p "$SEEDS"
cp "$ROOT"/../shared/realdata/megengine/*.mge "$SEEDS"/
python3 - "$ROOT" "$SEEDS" <<'PY'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("corpus", os.path.join(sys.argv[1], "tools", "make_malformed_corpus.py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
open(os.path.join(sys.argv[2], "appendix_c1.mge"), "wb").write(m.spec_hex("### C.1 FBS v1"))
open(os.path.join(sys.argv[2], "appendix_c2.mge"), "wb").write(m.spec_hex("### C.2 FBS_V2"))
PY
export ASAN_OPTIONS=detect_leaks=0  # the CLI's exit paths are not what is being fuzzed
for f in "$SEEDS"/*.mge; do
  b=$SEEDS/$(basename "$f" .mge)
  "$BUILD/mgedump" convert "$f" -o "$b.v2.mge" --dump-format FBS_V2 --keep-var-name 2 --keep-opr-name >/dev/null || true
  "$BUILD/mgedump" convert "$f" -o "$b.v2mv1.mge" --dump-format FBS_V2 --model-version 1 >/dev/null || true
  "$BUILD/mgedump" convert "$f" -o "$b.v1.mge" --dump-format FBS --keep-var-name 2 --keep-opr-priority >/dev/null || true
  "$BUILD/mgedump" convert "$f" -o "$b.v1s.mge" --dump-format FBS --compat-older-version 8.14 >/dev/null || true
done

for target in fuzz_read_v1 fuzz_read_v2; do
  corpus=$BUILD/corpus/$target
  crashes=$BUILD/crashes/$target
  mkdir -p "$corpus" "$crashes"
  for f in "$SEEDS"/*.mge; do
    magic=$(head -c 4 "$f" | tr -d '\0')
    if [ "$target" = fuzz_read_v1 ]; then
      # fuzz_read_v1 input: 1 byte choosing MGBC (even) / MGBS (odd), then the file after its magic.
      case "$magic" in
        MGBC) { printf '\x00'; tail -c +5 "$f"; } > "$corpus/seed-$(basename "$f")" ;;
        MGBS) { printf '\x01'; tail -c +5 "$f"; } > "$corpus/seed-$(basename "$f")" ;;
      esac
    else
      [ "$(dd if="$f" bs=1 skip=8 count=4 2>/dev/null | tr -d '\0')" = mgv2 ] && cp "$f" "$corpus/seed-$(basename "$f")"
    fi
  done
  echo "== $target: $(ls "$corpus" | wc -l) corpus files, ${SECONDS_PER_TARGET}s"
  "$BUILD/$target" "$corpus" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix="$crashes/" -print_final_stats=1 2>&1 | tail -n 25
done
