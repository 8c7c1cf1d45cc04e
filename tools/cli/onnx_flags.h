// The ONNX import flags (--params-as-shared, --input-shape, --no-fold-batch-norm),
// shared by the subcommands that read ONNX models (dump, batch), so both spell and
// check them alike.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "formats/onnx/import.h"

namespace mgedump::cli {

struct OnnxFlags {
    formats::OnnxImportOptions onnx;
    std::vector<std::string> input_shapes;  // --input-shape NAME=DIMS, as given
};

// Where a flag's default can be overridden, e.g. a batch manifest's keys.
struct OnnxFlagOverrides {
    std::string params_as_shared;  // appended to each flag's help, e.g. " (manifest key ...)"
    std::string input_shapes;
    std::string fold_batch_norm;
};

void add_onnx_flags(CLI::App& cmd, OnnxFlags& flags, const OnnxFlagOverrides& overrides = {});
// The import options; throws OptionError naming a --input-shape given twice for one input.
formats::OnnxImportOptions to_import_options(const OnnxFlags& flags);

}  // namespace mgedump::cli
