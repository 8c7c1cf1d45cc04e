#!/usr/bin/env bash
# The ONNX corpus check: installs PyTorch/torchvision (tools/setup.sh --corpus), builds,
# exports the corpus models into build/onnx-corpus once (tools/make_onnx_corpus.py; models
# already there are reused unless their expectation file has another EXPECT_VERSION than
# the script's; delete the directory to regenerate), then converts every model
# to FBS and FBS_V2 and checks it against its expectation file, and executes each
# conversion with the evaluator on the saved input against PyTorch's saved outputs
# (build/mgedump_corpus_tests; per-model results are printed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh --corpus
bash tools/build.sh
corpus=build/onnx-corpus
missing=()
version=$(sed -n 's/^EXPECT_VERSION = \([0-9]*\).*/\1/p' tools/make_onnx_corpus.py)
for m in resnet18 resnet18_unfused_bn resnet50 mobilenet_v2 shufflenet_v2_x0_5 squeezenet1_1 efficientnet_b0 vgg11 transformer_encoder; do
  [[ -f "$corpus/$m.onnx" && -f "$corpus/$m.expect.json" && -f "$corpus/$m.input.npy" &&
     -f "$corpus/$m.torch.0.npy" ]] &&
    grep -qE "^ *\"expect_version\": $version,?\$" "$corpus/$m.expect.json" || missing+=("$m")
done
if (( ${#missing[@]} )); then
  # Debian's interpreter, where python3-torch lives (not a pyenv python3 on PATH).
  /usr/bin/python3 tools/make_onnx_corpus.py "$corpus" --only "${missing[@]}"
fi
MGEDUMP_ONNX_CORPUS="$corpus" build/mgedump_corpus_tests
