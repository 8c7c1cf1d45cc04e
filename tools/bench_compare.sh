#!/bin/bash
# The README's performance table and chart in one command: generates the ONNX
# corpus if it is missing, runs mgedump_compare on it and on the synthetic
# models (interleaved rounds, medians), writes the table, TSV and PNG.
#   tools/bench_compare.sh [BUILD_DIR] [OUT_DIR] [ROUNDS]
# defaults: build, docs/bench, 7. Installs the corpus packages (setup.sh --corpus)
# and builds mgedump_compare in BUILD_DIR first.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-docs/bench}
rounds=${3:-7}
bash tools/setup.sh --corpus
cmake --build "$build" --target mgedump_compare
corpus=$build/onnx-corpus   # shared with tools/corpus_test.sh
models="resnet18 resnet18_unfused_bn resnet50 mobilenet_v2 shufflenet_v2_x0_5 squeezenet1_1 efficientnet_b0 vgg11 transformer_encoder"
for m in $models; do
  [ -f "$corpus/$m.onnx" ] || /usr/bin/python3 tools/make_onnx_corpus.py "$corpus" --only "$m"
done
mkdir -p "$out"
files=()
for m in $models; do files+=("$corpus/$m.onnx"); done
"$build/mgedump_compare" synthetic:weight_heavy synthetic:operator_heavy synthetic:small "${files[@]}" \
  --rounds "$rounds" --tsv "$out/compare.tsv" | tee "$out/compare.md"
tools/bench_chart.sh "$out/compare.tsv" "$out/compare.png"
