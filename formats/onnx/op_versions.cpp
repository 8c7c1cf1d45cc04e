// The operator versions older than opset 7 the importer accepts, and the one
// error listing every operator a model uses that it cannot convert.
//
// The handlers implement the versions of opset 7 and later. For an older model,
// each operator's version in force (the newest since_version <= the model's
// opset, from ONNX's schema history: onnx.defs.get_all_schemas_with_history)
// is accepted only when it means what the handler implements, or when
// upgrade_legacy_node (formats/onnx/legacy.cpp) brings it there.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <vector>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_support.h"
#include "ir/error.h"

namespace mgedump::formats::onnx_import {
namespace {

struct LegacyOp {
    std::string_view op;
    // Every since_version below 7 (0 ends the list; none: the op is newer than opset 6).
    uint8_t versions[3];
    // The oldest of them the handler implements (0: none).
    uint8_t oldest_handled;
};

// Versions 1 of many operators carry `consumed_inputs` (an in-place hint) or
// legacy broadcasting; version 6 dropped the former, 7 the latter.
constexpr LegacyOp kLegacyOps[] = {
    // Element-wise. Add..Div-6, Pow-1 and the comparisons/logic-1 broadcast the
    // legacy way (broadcast/axis): upgraded.
    {"Abs", {1, 6}, 6},
    {"Add", {1, 6}, 6},
    {"Sub", {1, 6}, 6},
    {"Mul", {1, 6}, 6},
    {"Div", {1, 6}, 6},
    {"Pow", {1}, 1},
    {"Equal", {1}, 1},
    {"Greater", {1}, 1},
    {"Less", {1}, 1},
    {"And", {1}, 1},
    {"Or", {1}, 1},
    {"Xor", {1}, 1},
    {"Not", {1}, 1},
    {"Relu", {1, 6}, 6},
    {"Sigmoid", {1, 6}, 6},
    {"Tanh", {1, 6}, 6},
    {"Exp", {1, 6}, 6},
    {"Log", {1, 6}, 6},
    {"Sqrt", {1, 6}, 6},
    {"Neg", {1, 6}, 6},
    {"Floor", {1, 6}, 6},
    {"Ceil", {1, 6}, 6},
    {"Reciprocal", {1, 6}, 6},
    {"Clip", {1, 6}, 6},  // 6: min/max attributes, which the handler reads
    {"HardSigmoid", {1, 6}, 6},
    {"LeakyRelu", {1, 6}, 6},
    {"Elu", {1, 6}, 6},
    {"Selu", {1, 6}, 6},
    {"Softplus", {1}, 1},
    // PRelu-6's slope has one element (shared) or one per channel (axis 1), which
    // the upgrade views as (C, 1, ..) for PRelu-7's unidirectional broadcasting;
    // PRelu-1 has consumed_inputs.
    {"PRelu", {1, 6}, 6},
    {"Softsign", {1}, 1},
    // Max/Min/Sum/Mean-6 take inputs of one shape, which numpy broadcasting agrees with.
    {"Max", {1, 6}, 6},
    {"Min", {1, 6}, 6},
    {"Sum", {1, 6}, 6},
    {"Mean", {1, 6}, 6},
    {"Identity", {1}, 1},
    {"Dropout", {1, 6}, 6},  // 6: is_test, checked by the upgrade
    {"Cast", {1, 6}, 6},     // 1: `to` is a string
    // Convolution, pooling, normalisation.
    {"Conv", {1}, 1},
    {"ConvTranspose", {1}, 1},
    {"BatchNormalization", {1, 6}, 6},  // 6: is_test, spatial
    {"InstanceNormalization", {1, 6}, 6},
    {"LRN", {1}, 1},
    {"MaxPool", {1}, 1},
    {"AveragePool", {1}, 1},  // excludes the padding, count_include_pad's default
    {"GlobalAveragePool", {1}, 1},
    {"GlobalMaxPool", {1}, 1},
    {"Gemm", {1, 6}, 1},  // broadcast, checked by the upgrade
    {"MatMul", {1}, 1},
    // Softmax-1 / LogSoftmax-1 / Hardmax-1 flatten from `axis` as version 11 does.
    {"Softmax", {1}, 1},
    {"LogSoftmax", {1}, 1},
    {"Hardmax", {1}, 1},
    {"ReduceMean", {1}, 1},
    {"ReduceSum", {1}, 1},
    {"ReduceMax", {1}, 1},
    {"ReduceMin", {1}, 1},
    {"ReduceProd", {1}, 1},
    {"ReduceL1", {1}, 1},
    {"ReduceL2", {1}, 1},
    {"ReduceLogSum", {1}, 1},
    {"ReduceLogSumExp", {1}, 1},
    {"ReduceSumSquare", {1}, 1},
    {"ArgMax", {1}, 1},
    {"ArgMin", {1}, 1},
    // Shapes and indexing.
    {"Flatten", {1}, 1},
    {"Reshape", {1, 5}, 5},  // 1: the shape is an attribute
    {"Transpose", {1}, 1},
    {"Squeeze", {1}, 1},
    {"Unsqueeze", {1}, 1},
    {"Concat", {1, 4}, 1},  // 1: axis defaults to 1 (handled)
    {"Split", {1, 2}, 1},
    {"Slice", {1}, 1},  // attributes, as the handler reads them before opset 10
    {"Gather", {1}, 1},
    {"Shape", {1}, 1},
    {"Size", {1}, 1},
    {"Constant", {1}, 1},
    {"Pad", {1, 2}, 2},   // 1: `paddings`
    {"Tile", {1, 6}, 6},  // 1: tiles and axis inputs
    {"TopK", {1}, 1},     // 1: k is an attribute (handled)
    {"DepthToSpace", {1}, 1},
    {"SpaceToDepth", {1}, 1},
    // Newer than opset 6: a model of an older opset cannot use them.
    {"Erf", {}, 0},
    {"HardSwish", {}, 0},
    {"Resize", {}, 0},
    {"Expand", {}, 0},
    {"ConstantOfShape", {}, 0},
    {"Range", {}, 0},
    {"Trilu", {}, 0},
    {"GatherElements", {}, 0},
    {"GatherND", {}, 0},
    {"ScatterND", {}, 0},
    {"ScatterElements", {}, 0},
    {"Scatter", {}, 0},
    {"EyeLike", {}, 0},
    {"ReverseSequence", {}, 0},
    {"MaxUnpool", {}, 0},
    {"OneHot", {}, 0},
    {"NonZero", {}, 0},
    {"Compress", {}, 0},
    {"Einsum", {}, 0},
    {"Where", {}, 0},
};

const LegacyOp* find_legacy(std::string_view op) {
    for (const LegacyOp& l : kLegacyOps)
        if (l.op == op) return &l;
    return nullptr;
}

}  // namespace

std::string legacy_version_problem(std::string_view op_type, int64_t opset) {
    if (opset >= 7) return "";
    const LegacyOp* l = find_legacy(op_type);
    if (!l)
        return fmt::format("{} at opset {}: its versions older than opset 7 are not checked against the handler",
                           op_type, opset);
    int64_t in_force = 0;
    for (uint8_t v : l->versions)
        if (v != 0 && v <= opset) in_force = std::max<int64_t>(in_force, v);
    if (in_force == 0) return fmt::format("{} does not exist at opset {}", op_type, opset);
    if (l->oldest_handled == 0 || in_force < l->oldest_handled)
        return fmt::format("{}-{}, the version in force at opset {}, is not supported", op_type, in_force, opset);
    return "";
}

void refuse_unsupported_ops(const onnx::GraphProto& graph, const std::string& label, int64_t opset,
                            const std::function<bool(std::string_view)>& has_handler) {
    struct Missing {
        size_t count = 0;
        std::string first_node, why;
    };
    std::map<std::string, Missing> missing;
    std::vector<std::string> order;  // first appearance
    // The model's nodes and those of their subgraphs (If's branches), each graph's
    // before the next's.
    std::vector<const onnx::GraphProto*> graphs{&graph};
    for (size_t gi = 0; gi < graphs.size(); ++gi)
        for (const onnx::NodeProto& n : graphs[gi]->node())
            for (const onnx::AttributeProto& a : n.attribute()) {
                if (a.has_g()) graphs.push_back(&a.g());
                for (const onnx::GraphProto& sub : a.graphs()) graphs.push_back(&sub);
            }
    for (const onnx::GraphProto* g : graphs)
    for (int i = 0; i < g->node_size(); ++i) {
        const onnx::NodeProto& n = g->node(i);
        std::string key, why;
        const bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
        if (!default_domain) {
            key = fmt::format("{}:{}", n.domain(), n.op_type());
            if (has_handler(key)) continue;  // the training domain's optimizers (ops_training.cpp)
            why = fmt::format("domain '{}'", n.domain());
        } else if (!has_handler(n.op_type())) {
            key = n.op_type();
        } else if (std::string v = legacy_version_problem(n.op_type(), opset); !v.empty()) {
            key = n.op_type();
            why = v;
        } else {
            continue;
        }
        Missing& m = missing[key];
        if (m.count++ == 0) {
            order.push_back(key);
            // Worded as Importer::node_ref words a node: its name, else the
            // unnamed node making its first output, else its position.
            std::string made;
            for (int k = 0; made.empty() && k < n.output_size(); ++k) made = n.output(k);
            m.first_node = !n.name().empty() ? "'" + n.name() + "'"
                           : !made.empty()   ? "unnamed node making '" + made + "'"
                                             : fmt::format("unnamed node #{}", i);
            m.why = why;
        }
    }
    if (missing.empty()) return;
    std::vector<std::string> items;
    for (const std::string& key : order) {
        const Missing& m = missing[key];
        items.push_back(fmt::format("{} ({} node{}, first {}{}{})", key, m.count, m.count == 1 ? "" : "s",
                                    m.first_node, m.why.empty() ? "" : ": ", m.why));
    }
    throw GraphError(fmt::format(
        "{}: {} operator type{} cannot be converted (formats/onnx/ONNX_IMPORT.md lists the supported ones): {}",
        label, items.size(), items.size() == 1 ? "" : "s", fmt::join(items, "; ")));
}

}  // namespace mgedump::formats::onnx_import
