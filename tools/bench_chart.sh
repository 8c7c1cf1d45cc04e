#!/bin/bash
# Turns mgedump_compare's TSV (--tsv FILE) into a PNG bar chart for the README:
# per model and format, the weight bytes each method moves per second (GB/s, log
# scale): the memcpy limit, mgedump, the naive MegEngine-style dumper, and ONNX
# protobuf serialization. Needs gnuplot (Debian: gnuplot-nox).
#   tools/bench_chart.sh compare.tsv docs/bench/compare.png
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 COMPARE.tsv OUT.png" >&2
  exit 2
fi
tsv=$1
png=$2
command -v gnuplot >/dev/null || { echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
data=$(mktemp)
trap 'rm -f "$data"' EXIT
# label, then GB/s of memcpy, mgedump, naive, onnx ("NaN" where a model has no ONNX row).
awk -F'\t' 'NR > 1 {
  w = $4 / 1e9
  onnx = ($9 == "nan") ? "NaN" : w / $9
  printf "%s/%s\t%.4f\t%.4f\t%.4f\t%s\n", $1, $2, w / $6, w / $7, w / $8, onnx
}' "$tsv" > "$data"
mkdir -p "$(dirname "$png")"
gnuplot <<GNUPLOT
set terminal pngcairo size 1400,600 font "sans,10"
set output "$png"
set title "Dumping to memory: weight bytes per second (higher is better; log scale)"
set ylabel "GB/s of weights"
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set key outside top center horizontal noenhanced
set bmargin 9
set rmargin 14
set grid ytics
set datafile separator "\t"
set datafile missing "NaN"
plot "$data" using 2:xtic(1) title "memcpy of the weights (limit)" lc rgb "#999999", \
     "" using 3 title "mgedump" lc rgb "#1f77b4", \
     "" using 4 title "naive FlatBufferBuilder (MegEngine's way)" lc rgb "#ff7f0e", \
     "" using 5 title "ONNX protobuf SerializeToString" lc rgb "#2ca02c"
GNUPLOT
echo "$png"
