#include "tools/cli/onnx_flags.h"

#include <fmt/format.h>

#include "ir/error.h"

namespace mgedump::cli {

void add_onnx_flags(CLI::App& cmd, OnnxFlags& f, const OnnxFlagOverrides& overrides) {
    cmd.add_flag("--params-as-shared", f.onnx.params_as_shared_device_tensor,
                 "ONNX inputs: initializers become named params (SharedDeviceTensor), so --keep-param-name keeps "
                 "their names" + overrides.params_as_shared);
    cmd.add_option("--input-shape", f.input_shapes,
                   "ONNX inputs: NAME=1x3x224x224 fixes input NAME's shape (symbolic dimensions of a dynamic_axes "
                   "export); repeat for several inputs" + overrides.input_shapes)
        ->type_name("NAME=DIMS")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // one shape per flag, never the next argument
    cmd.add_flag("!--no-fold-batch-norm", f.onnx.fold_batch_norm,
                 "ONNX inputs: keep BatchNormalization as an Elemwise instead of folding it into the Conv before it" +
                     overrides.fold_batch_norm);
}

formats::OnnxImportOptions to_import_options(const OnnxFlags& f) {
    formats::OnnxImportOptions onnx = f.onnx;
    for (const std::string& spec : f.input_shapes)
        if (!onnx.input_shapes.insert(formats::parse_onnx_input_shape(spec)).second)
            throw OptionError(fmt::format("--input-shape {}: that input's shape is already given", spec));
    return onnx;
}

}  // namespace mgedump::cli
