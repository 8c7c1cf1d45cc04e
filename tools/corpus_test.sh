#!/usr/bin/env bash
# The ONNX corpus check: installs PyTorch/torchvision (tools/setup.sh --corpus), builds,
# exports the corpus models (the script's table, --list) into build/onnx-corpus once
# (tools/make_onnx_corpus.py; models already there are reused unless their expectation
# file has another EXPECT_VERSION than the script's; delete the directory to
# regenerate), then converts every model to FBS and FBS_V2 and checks it against its
# expectation file, and executes each conversion with the evaluator on the saved input
# against PyTorch's saved outputs (build/mgedump_corpus_tests; per-model results are
# printed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh --corpus
bash tools/build.sh
corpus=build/onnx-corpus
missing=()
status=
version=$(sed -n 's/^EXPECT_VERSION = \([0-9]*\).*/\1/p' tools/make_onnx_corpus.py)
# Debian's interpreter, where python3-torch lives (not a pyenv python3 on PATH).
py=/usr/bin/python3
# The model list is the script's table (NAME, NAME_opset17, ...); --list needs no torch.
mapfile -t models < <("$py" tools/make_onnx_corpus.py --list)
(( ${#models[@]} )) || { echo "tools/make_onnx_corpus.py --list printed no models" >&2; exit 1; }
for m in "${models[@]}"; do
  [[ -f "$corpus/$m.onnx" && -f "$corpus/$m.expect.json" && -f "$corpus/$m.input.npy" &&
     -f "$corpus/$m.torch.0.npy" ]] &&
    grep -qE "^ *\"expect_version\": $version,?\$" "$corpus/$m.expect.json" || missing+=("$m")
done
if (( ${#missing[@]} )); then
  # A failed export fails the script after the others are written; the check still
  # runs (its presence test names the missing model).
  nice -n 10 "$py" tools/make_onnx_corpus.py "$corpus" --only "${missing[@]}" || status=$?
fi
MGEDUMP_ONNX_CORPUS="$corpus" build/mgedump_corpus_tests || status=$?
exit "${status:-0}"
