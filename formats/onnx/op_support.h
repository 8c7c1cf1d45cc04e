// Which ONNX operators a model may use, checked before any node converts, and the
// operator versions older than opset 7 (formats/onnx/op_versions.cpp,
// formats/onnx/legacy.cpp). Internal to formats/onnx/*.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "formats/onnx/importer.h"

namespace onnx {
class GraphProto;
}

namespace mgedump::formats::onnx_import {

// For a model importing default-domain opset `opset` < 7: "" when the version of
// `op_type` in force at that opset is one the handlers implement (as they are, or
// with upgrade_legacy_node), else why not ("BatchNormalization-1, the version in
// force at opset 5, is not supported"). Opset 7 and later: always "".
std::string legacy_version_problem(std::string_view op_type, int64_t opset);

// One error for everything a model uses that has no handler: every unsupported
// op type (or domain, or op version older than opset 7) with its node count and its
// first node, pointing to ONNX_IMPORT.md. Does nothing when all are supported.
void refuse_unsupported_ops(const onnx::GraphProto& graph, const std::string& label, int64_t opset,
                            const std::function<bool(std::string_view)>& has_handler);

// Opset < 7: the current node (an op version checked by legacy_version_problem)
// brought to the semantics of its opset-7 version for the handlers: legacy
// broadcasting (broadcast/axis) of Add, Sub, Mul, Div, Pow and the comparisons
// becomes a reshape of B for numpy rules, Gemm's broadcast, Dropout's and
// BatchNormalization's is_test are checked and marked handled.
void upgrade_legacy_node(Importer& c);

}  // namespace mgedump::formats::onnx_import
