// ONNX test data sets (test_data_set_N/input_K.pb, output_K.pb — the layout of
// ONNX's backend tests and of many exporters) as evaluator feeds and expected
// values, and the comparison ONNX's backend tests make.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/eval/evaluator.h"
#include "formats/onnx/tensor_file.h"

namespace mgedump::engine::eval {

struct OnnxTestSet {
    std::filesystem::path dir;
    std::vector<formats::OnnxTensorFile> inputs;   // input_0.pb, input_1.pb, ... in number order
    std::vector<formats::OnnxTensorFile> outputs;  // output_0.pb, ...
};

// `dir` is one data set (holds input_*.pb) or a folder of them (test_data_set_*,
// in name order). Throws FormatError naming the file that cannot be read, or
// Error when `dir` holds neither.
std::vector<OnnxTestSet> read_onnx_test_sets(const std::filesystem::path& dir);

// The elements of an ONNX tensor as doubles (INT64 beyond 2⁵³ rounds).
std::vector<double> onnx_values(const formats::OnnxTensorBytes& t);

// Feeds for `g` from a data set: input K goes to the graph input of the same
// name when the file names one, else to the K-th of `input_names` (the ONNX
// graph's inputs that are not initializers). Values are converted to the model
// input's dtype (INT64 → Int32 as the importer narrows; out-of-range is an error).
Feeds onnx_feeds(const ir::Graph& g, const OnnxTestSet& set, const std::vector<std::string>& input_names);

// The comparison of ONNX's backend tests (numpy.testing.assert_allclose with
// rtol 1e-3, atol 1e-7 for floats; integers and Bool exactly).
struct OutputCheck {
    std::string name;
    double max_abs = 0;   // largest |got − want|
    double max_rel = 0;   // largest |got − want| / |want| over nonzero want
    uint64_t mismatched = 0;
    std::string problem;  // shape or element-type disagreement, "" if none
    bool ok() const { return problem.empty() && mismatched == 0; }
};
OutputCheck check_against_onnx(const Tensor& got, const formats::OnnxTensorBytes& want, std::string name);

}  // namespace mgedump::engine::eval
