#include "engine/passes/const_infer.h"

#include <string_view>
#include <vector>

#include "ir/op_registry.h"

namespace mgedump::engine::passes {
namespace {

// The kinds of operator, by what their outputs' shape and value infer from.
enum class Kind {
    Constant,       // ImmutableTensor: shape and value CONST
    FixedShape,     // the SharedDeviceTensor family: shape CONST, value not inferred
    Source,         // Host2DeviceCopy, VolatileSharedDeviceTensor: shape set at run time
    ShapeOfValue,   // Reshape, Broadcast: shape from input 1's value
    ShapeToValue,   // GetVarShape: value from the inputs' shapes
    ValueIndexed,   // shape from input 0's shape and the later inputs' values (Subtensor, ...)
    Propagating,    // value inferred from the inputs' values (shape and index operators, Elemwise, ...)
    Other,          // shape from the inputs' shapes, value not inferred
};

Kind kind_of(std::string_view op) {
    if (op == "ImmutableTensor") return Kind::Constant;
    if (op == "SharedDeviceTensor" || op == "SharedDeviceTensorWithFormat" || op == "MultipleDeviceTensorHolder" ||
        op == "MultipleDeviceTensorWithFormatHolder")
        return Kind::FixedShape;
    if (op == "Host2DeviceCopy" || op == "VolatileSharedDeviceTensor") return Kind::Source;
    if (op == "Reshape" || op == "Broadcast") return Kind::ShapeOfValue;
    if (op == "GetVarShape") return Kind::ShapeToValue;
    if (op == "Subtensor" || op == "Linspace" || op == "Eye" || op == "Fill" || op == "Alloc" || op == "TopK" ||
        op == "Split" || op == "Resize" || op == "WarpPerspective" || op == "WarpAffine" || op == "Remap")
        return Kind::ValueIndexed;
    if (op == "Elemwise" || op == "ElemwiseMultiType" || op == "TypeCvt" || op == "Dimshuffle" ||
        op == "AxisAddRemove" || op == "Concat" || op == "Reduce" || op == "IndexingMultiAxisVec")
        return Kind::Propagating;
    return Kind::Other;
}

// Kinds by operator type, made once: a dump asks for every operator of a graph
// with a Reshape in it, and comparing names per operator was most of the walk.
const std::vector<Kind>& kinds() {
    static const std::vector<Kind> table = [] {
        std::vector<Kind> t;
        for (const ir::OpDef& d : ir::op_defs()) t.push_back(kind_of(d.name));
        return t;
    }();
    return table;
}

// param::OptionalAxisV1::INVALID_AXIS: no axis.
constexpr int64_t kNoAxis = 7;

// The axis of an OptionalAxisV1 param (Reshape's unspecified axis).
int64_t optional_axis(const ir::Graph& g, ir::OprId o) {
    const auto params = g.params_of(o);
    if (params.empty() || params[0].fields.empty()) return kNoAxis;
    const int64_t* axis = std::get_if<int64_t>(&params[0].fields[0]);
    return axis ? *axis : kNoAxis;
}

}  // namespace

ConstInfer::ConstInfer(const ir::Graph& g, std::span<const ir::OprId> order, const ir::InferState& known)
    : shape(g.vars.size(), 0), value(g.vars.size(), 0) {
    static const ir::OpTypeId reshape = ir::find_op("Reshape");
    const std::vector<Kind>& kind_table = kinds();
    for (ir::OprId o : order) {
        const auto in = g.inputs_of(o);
        auto all = [&](size_t from, const std::vector<uint8_t>& what) {
            for (size_t i = from; i < in.size(); ++i)
                if (!what[in[i].value]) return false;
            return true;
        };
        bool s = false, v = false;
        const ir::OpTypeId type = g.oprs.type[o.value];
        switch (type.value < kind_table.size() ? kind_table[type.value] : Kind::Other) {
            case Kind::Constant: s = v = true; break;
            case Kind::FixedShape: s = true; break;
            case Kind::Source: break;
            case Kind::ShapeOfValue: {
                // A Reshape with an unspecified axis also reads the input's shape.
                const bool reads_input_shape = type == reshape && optional_axis(g, o) != kNoAxis;
                s = in.size() == 2 && value[in[1].value] && (!reads_input_shape || shape[in[0].value]);
                v = s && all(0, value);
                break;
            }
            case Kind::ShapeToValue: s = all(0, shape); v = s; break;
            case Kind::ValueIndexed: s = all(0, shape) && all(1, value); v = s && all(0, value); break;
            case Kind::Propagating: s = all(0, shape); v = all(0, value); break;
            case Kind::Other: s = all(0, shape); break;
        }
        const ir::Range outs = g.oprs.outputs[o.value];
        for (uint32_t k = 0; k < outs.count; ++k) {
            // A shape inference does not know is not static at all.
            const uint32_t out = outs.begin + k;
            const bool shape_known = !known.dims(g, ir::VarId(out)).empty();
            shape[out] = s && shape_known;
            value[out] = v && shape_known;
        }
    }
}

}  // namespace mgedump::engine::passes
