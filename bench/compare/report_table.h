// The comparison rows as a Markdown table (for the README) and as TSV (for the chart).
#pragma once

#include <string>
#include <vector>

#include "bench/compare/comparison.h"

namespace mgedump::bench {

// Columns: model, format, operators, weight MB, median ms of each method, mgedump
// GB/s of weights, and the ratios limit/mgedump (1.0 = as fast as memcpy),
// naive/mgedump and onnx/mgedump (speedups).
std::string markdown_table(const std::vector<ComparisonRow>& rows);
std::string tsv_rows(const std::vector<ComparisonRow>& rows);

}  // namespace mgedump::bench
