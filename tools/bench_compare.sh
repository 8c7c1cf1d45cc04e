#!/bin/bash
# The README's performance table and chart in one command: generates the ONNX
# corpus if it is missing, runs mgedump_compare on it and on the synthetic
# models (interleaved rounds, medians), writes the table, TSV and PNG.
#   tools/bench_compare.sh [BUILD_DIR] [OUT_DIR] [ROUNDS]
# defaults: build, docs/bench, 7. Needs a built mgedump_compare (cmake --build
# BUILD_DIR --target mgedump_compare) and, for the corpus, setup.sh --corpus.
set -euo pipefail
build=${1:-build}
out=${2:-docs/bench}
rounds=${3:-7}
corpus=$build/onnx_corpus
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
