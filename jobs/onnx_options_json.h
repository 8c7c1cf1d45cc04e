// ONNX import options as manifest keys: "params_as_shared" (bool), "fold_batch_norm"
// (bool) and "input_shapes" ({"NAME": [dims]}), the names of Python's
// mgedump.import_onnx. They act once per job, when its .onnx input is imported
// (one import serves every variant), so manifests take them in "defaults" and on
// jobs, never on variants; --incremental stamps record them for ONNX inputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "formats/onnx/import.h"
#include "jobs/options_json.h"

namespace mgedump::jobs {

// Whether `key` names an ONNX import option.
bool is_onnx_option_key(std::string_view key);

// `base` with every ONNX option key of `obj` applied (other keys are ignored); each
// ill-typed value appends "<ctx>: "<key>": <what is wrong>" to `errors` and leaves
// that option as it was. A given "input_shapes" replaces the whole map of `base`
// (input names belong to one model), and {} clears it.
formats::OnnxImportOptions apply_onnx_options(const Json& obj, formats::OnnxImportOptions base,
                                              std::string_view ctx, std::vector<std::string>& errors);

// Every option in one key order, for stamps.
Json onnx_options_to_json(const formats::OnnxImportOptions& o);

}  // namespace mgedump::jobs
