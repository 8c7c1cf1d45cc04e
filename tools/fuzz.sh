#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.cpp, bodies in tests/fuzz/targets/)
# with clang, ASan and UBSan (installing what is missing: tools/setup.sh --fuzz), seeds
# each from real files, then runs each for SECONDS (default 180), one after the other.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]   TARGET: fuzz_onnx or onnx; none: every target
#
# Exits 1 when a target stopped on a finding (the others still run), 0 otherwise.
#
#   fuzz_read_v1     FBS v1 (MGBC/MGBS)       seeds: ../shared/realdata/megengine/*.mge, Appendix C, re-dumps
#   fuzz_read_v2     FBS_V2                   seeds: the same files' FBS_V2 forms
#   fuzz_onnx        ONNX ModelProto bytes    seeds: small /usr/share/libonnx-testdata node models
#   fuzz_graph_json  graph JSON               seeds: examples/*.json, megengine-dumps' source.json
#   fuzz_npy         .npy files               seeds: ../shared/realdata/megengine-dumps/**/*.npy, examples/weights
#   fuzz_manifest    batch manifests          seeds: examples/manifests, a few JSON forms written here
#   fuzz_strip_info  --append-json's input    seeds: strip-info files the CLI writes for the examples
#   fuzz_testcase    mgbtest0 test-case files seeds: test-case files the CLI writes for the examples
#
# Build dir build-fuzz/ (JOBS build jobs, default 1: the machine is shared; PARALLEL
# targets fuzzed at once, default 1); corpora grow in
# build-fuzz/corpus/<target>/ from run to run; crashes, leaks, timeouts and OOMs go
# to build-fuzz/crashes/<target>/, the full log to build-fuzz/logs/<target>.log.
# Reproduce one with build-fuzz/<target> FILE; minimise it with
#   build-fuzz/<target> -minimize_crash=1 -runs=10000 -exact_artifact_path=OUT FILE
# and, once fixed, keep OUT as tests/fuzz/regressions/<target>/<what-it-was> (replayed by
# tests/fuzz_regression_test.cpp in the normal test binary).
set -euo pipefail
SECONDS_PER_TARGET=180
if [[ ${1:-} =~ ^[0-9]+$ ]]; then SECONDS_PER_TARGET=$1; shift; fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build-fuzz
JOBS=${JOBS:-1}
ALL_TARGETS=(fuzz_read_v1 fuzz_read_v2 fuzz_onnx fuzz_graph_json fuzz_npy fuzz_manifest fuzz_strip_info fuzz_testcase)
TARGETS=()
for t in "$@"; do
  t=fuzz_${t#fuzz_}
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "unknown target $t (one of: ${ALL_TARGETS[*]})" >&2; exit 2; }
  TARGETS+=("$t")
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")

# NO_BUILD=1 fuzzes the targets as last built (the tree may be mid-edit).
if [ "${NO_BUILD:-0}" != 1 ]; then
  JOBS=$JOBS bash "$ROOT/tools/sanitized_build.sh" "${TARGETS[@]}" mgedump
fi

export ASAN_OPTIONS=detect_leaks=0  # the CLI's exit paths are not what is being fuzzed
MGEDUMP=$BUILD/mgedump
SHARED=$ROOT/../shared
SEEDS=$BUILD/seeds
rm -rf "$SEEDS" && mkdir -p "$SEEDS"

# Copies files into a corpus under their content hash, so a file met twice is one seed.
add_seeds() {  # add_seeds CORPUS FILE...
  local corpus=$1 f; shift
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(sha1sum "$f" | cut -c1-16)"; done
  return 0
}

# The .mge seeds of the FBS readers: real files, Appendix C, and re-dumps of each in
# both formats and several options.
mge_seeds() {
  [ -d "$SEEDS/mge" ] && return 0
  mkdir -p "$SEEDS/mge"
  cp "$SHARED"/realdata/megengine/*.mge "$SEEDS/mge/"
  python3 - "$ROOT" "$SEEDS/mge" <<'PY'
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("corpus", os.path.join(sys.argv[1], "tools", "make_malformed_corpus.py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
open(os.path.join(sys.argv[2], "appendix_c1.mge"), "wb").write(m.spec_hex("### C.1 FBS v1"))
open(os.path.join(sys.argv[2], "appendix_c2.mge"), "wb").write(m.spec_hex("### C.2 FBS_V2"))
PY
  for f in "$SEEDS"/mge/*.mge; do
    b=$SEEDS/mge/$(basename "$f" .mge)
    "$MGEDUMP" convert "$f" -o "$b.v2.mge" --dump-format FBS_V2 --keep-var-name 2 --keep-opr-name >/dev/null || true
    "$MGEDUMP" convert "$f" -o "$b.v2mv1.mge" --dump-format FBS_V2 --model-version 1 >/dev/null || true
    "$MGEDUMP" convert "$f" -o "$b.v1.mge" --dump-format FBS --keep-var-name 2 --keep-opr-priority >/dev/null || true
    "$MGEDUMP" convert "$f" -o "$b.v1s.mge" --dump-format FBS --compat-older-version 8.14 >/dev/null || true
  done
}

# Dictionaries: the JSON targets' keys and the words their values take, so the
# fuzzer writes documents that get past the key checks.
json_dict() {  # json_dict WORD...
  printf '"{"\n"}"\n"["\n"]"\n":"\n","\n"\\""\n"true"\n"false"\n"null"\n"-1"\n"1e309"\n"4294967295"\n'
  local w; for w in "$@"; do printf '"\\"%s\\""\n' "$w"; done
}
GRAPH_WORDS=(format mgedump-graph version inputs constants operators outputs op name inputs dtype shape fill values
  base64 npy params mode param comp_node Float32 Float16 Int32 Int8 Uint8 QuantizedS8 Quantized8Asymm
  scale zero_point Elemwise MatrixMul ConvolutionV2 ConvBias Reshape Concat Reduce ADD RELU MAX)
MANIFEST_WORDS=(defaults jobs input output variants suffix keep_var_name keep_opr_name keep_param_name
  keep_opr_priority no_change_graph metadata is_valid graph_modified optimize_options user_info dump_format FBS FBS_V2
  model_version compat_older_version 8.14 mgb_version dedup_params input_data "#rand(0,1)" "x:#rand(0,1,2,4)" repeat
  maxerr no_assert silent testcase_seed "x:weights/w_4x4_f32.npy")
STRIP_WORDS=(opr_types dtypes elemwise_modes hash Elemwise Float32 ADD)

seed_target() {  # seed_target TARGET CORPUS
  local target=$1 corpus=$2 f
  case $target in
    fuzz_read_v1)
      mge_seeds
      for f in "$SEEDS"/mge/*.mge; do
        # Input: 1 byte choosing MGBC (even) / MGBS (odd), then the file after its magic.
        case "$(head -c 4 "$f" | tr -d '\0')" in
          MGBC) { printf '\x00'; tail -c +5 "$f"; } > "$corpus/seed-$(basename "$f")" ;;
          MGBS) { printf '\x01'; tail -c +5 "$f"; } > "$corpus/seed-$(basename "$f")" ;;
        esac
      done ;;
    fuzz_read_v2)
      mge_seeds
      for f in "$SEEDS"/mge/*.mge; do
        [ "$(dd if="$f" bs=1 skip=8 count=4 2>/dev/null | tr -d '\0')" = mgv2 ] && cp "$f" "$corpus/seed-$(basename "$f")"
      done ;;
    fuzz_onnx)
      # Small node models: one operator each, so every importer rule has a seed.
      add_seeds "$corpus" $(find /usr/share/libonnx-testdata/data/node -name model.onnx -size -1025c | sort) ;;
    fuzz_graph_json)
      add_seeds "$corpus" $(grep -rl '"mgedump-graph"' --include=*.json "$ROOT/examples" "$SHARED/realdata/megengine-dumps" | sort) ;;
    fuzz_npy)
      add_seeds "$corpus" "$ROOT"/examples/weights/*.npy $(find "$SHARED/realdata/megengine-dumps" -name '*.npy' -size -65537c | sort)
      # An int64 file (none of the above is), for read_npy_narrowing_int64: 1 and
      # 2^40, the second too large for Int32. Its 57-byte dict, 60 spaces and the
      # newline (118 bytes) make 128 with the 10-byte prefix, as numpy pads.
      { printf '\x93NUMPY\x01\x00\x76\x00%s%60s\n' "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }" ''
        printf '\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00'; } > "$corpus/seed-int64" ;;
    fuzz_manifest)
      add_seeds "$corpus" "$ROOT"/examples/manifests/*
      printf '%s' '{"defaults": {"dump_format": "FBS", "keep_var_name": 2}, "jobs": [{"input": "a.json", "output": "a.mge", "metadata": {"is_valid": true, "user_info": "u", "optimize_options": 3}}, {"input": "b.mge", "variants": [{"suffix": ".v2.mge", "dump_format": "FBS_V2", "model_version": 1}, {"suffix": ".fbs.mge", "compat_older_version": "8.14"}]}]}' > "$corpus/seed-object"
      printf '%s' '[{"input": "a.json"}, {"input": "n/b.onnx", "output": "b.mge", "input_data": ["#rand(0,1)", "x:#rand(-1,1,1,4)"], "repeat": 2, "maxerr": 0.001, "testcase_seed": 7}]' > "$corpus/seed-list"
      printf '%s\n' '{"defaults": {"input_data": "#rand(0,1)", "no_assert": true}}' '{"input": "a.json", "output": "a.mge", "silent": true}' '{"defaults": {}}' '{"input": "c.json", "dedup_params": true, "mgb_version": 101304}' > "$corpus/seed-lines"
      # Test-case data from a file (the target resolves it in examples/), repeated.
      printf '%s' '{"input": "a.json", "input_data": "x:weights/w_4x4_f32.npy", "repeat": 4}' > "$corpus/seed-npy-data" ;;
    fuzz_strip_info)
      for f in "$ROOT"/examples/*.json; do
        "$MGEDUMP" dump "$f" -o "$SEEDS/strip.mge" --strip-info-file "$SEEDS/strip-$(basename "$f")" >/dev/null 2>&1 || true
      done
      add_seeds "$corpus" "$SEEDS"/strip-*.json
      printf '%s' '{"opr_types": ["Elemwise"], "dtypes": [], "elemwise_modes": ["ADD", "MUL"], "hash": 1, "extra": [1, {"a": null}]}' > "$corpus/seed-extra" ;;
    fuzz_testcase)
      # Input: the file after its 8-byte magic (the target puts it back).
      for f in "$ROOT"/examples/*.json; do
        local out=$SEEDS/tc-$(basename "$f" .json).mge
        "$MGEDUMP" dump "$f" -o "$out" --input-data '#rand(0,1)' >/dev/null 2>&1 || continue
        tail -c +9 "$out" > "$corpus/seed-$(basename "$out")"
        "$MGEDUMP" dump "$f" -o "$out" --input-data '#rand(0,1)' --input-data '#rand(-1,1)' --dump-format FBS >/dev/null 2>&1 || continue
        tail -c +9 "$out" > "$corpus/seed-2cases-fbs-$(basename "$out")"
      done ;;
  esac
}

DICT_DIR=$BUILD/dicts
mkdir -p "$DICT_DIR" "$BUILD/logs"
json_dict "${GRAPH_WORDS[@]}" > "$DICT_DIR/fuzz_graph_json.dict"
json_dict "${MANIFEST_WORDS[@]}" > "$DICT_DIR/fuzz_manifest.dict"
json_dict "${STRIP_WORDS[@]}" > "$DICT_DIR/fuzz_strip_info.dict"
printf '"\\x93NUMPY"\n"descr"\n"fortran_order"\n"shape"\n"True"\n"False"\n"<f4"\n"|u1"\n"<i4"\n">f4"\n"<f8"\n"|b1"\n"<c8"\n' > "$DICT_DIR/fuzz_npy.dict"

# Seeds every corpus first (seeding writes the shared $SEEDS), then runs up to
# PARALLEL targets at once (default 1), each for SECONDS_PER_TARGET.
run_target() {  # run_target TARGET
  local target=$1 corpus=$BUILD/corpus/$1 crashes=$BUILD/crashes/$1 log=$BUILD/logs/$1.log dict=()
  [ -f "$DICT_DIR/$target.dict" ] && dict=(-dict="$DICT_DIR/$target.dict")
  # A run that finds a crash stops there (exit status non-zero): report it and go on.
  "$BUILD/$target" "$corpus" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
    -rss_limit_mb=4096 -malloc_limit_mb=2048 -timeout=10 -artifact_prefix="$crashes/" -print_final_stats=1 \
    >"$log" 2>&1 || { echo "   $target stopped early: see $log and $crashes/"; echo "$target" >>"$STOPPED"; }
  echo "== $target done:"
  grep -E '^(#[0-9]+[[:space:]]+DONE|stat::|==[0-9]+==ERROR|SUMMARY)' "$log" | tail -n 12 || true
}

for target in "${TARGETS[@]}"; do
  mkdir -p "$BUILD/corpus/$target" "$BUILD/crashes/$target"
  seed_target "$target" "$BUILD/corpus/$target"
  echo "== $target: $(ls "$BUILD/corpus/$target" | wc -l) corpus files, ${SECONDS_PER_TARGET}s (log: $BUILD/logs/$target.log)"
done
PARALLEL=${PARALLEL:-1}
# Targets whose run stopped on a finding, appended to by the background runs.
STOPPED=$BUILD/logs/stopped-early
: >"$STOPPED"
running=0
for target in "${TARGETS[@]}"; do
  if [ "$running" -ge "$PARALLEL" ]; then wait -n || true; running=$((running - 1)); fi
  run_target "$target" &
  running=$((running + 1))
done
wait
# A finding fails the run, so a script or CI job running this sees it.
if [ -s "$STOPPED" ]; then
  echo "fuzz.sh: stopped early on a finding: $(tr '\n' ' ' <"$STOPPED")" >&2
  exit 1
fi
