#include "engine/passes/op_vocab.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "ir/error.h"
#include "ir/op_registry.h"
#include "ir/param_schema.h"

namespace mgedump::engine::passes {
namespace {

ir::OpTypeId op(std::string_view name) {
    ir::OpTypeId id = ir::find_op(name);
    if (!id.valid()) throw Error(fmt::format("compat rewrite: the op registry has no operator '{}'", name));
    return id;
}

ir::ParamTableId table(std::string_view name) {
    ir::ParamTableId id = ir::find_param_table(name);
    if (!id.valid()) throw Error(fmt::format("compat rewrite: the param registry has no table '{}'", name));
    return id;
}

// The mode numbers above are typed in from the spec; a mismatch with the registry
// would silently write the wrong operator, so it is checked once here.
void check_modes(std::string_view enum_name,
                 std::initializer_list<std::pair<std::string_view, uint32_t>> modes) {
    const ir::EnumDesc* e = ir::find_enum(enum_name);
    if (!e) throw Error(fmt::format("compat rewrite: the param registry has no enum {}", enum_name));
    for (auto [name, value] : modes) {
        const ir::EnumMember* m = ir::find_enum_member(*e, value);
        std::string_view got = m ? m->name : "";
        if (got.ends_with('_')) got.remove_suffix(1);  // MAX_/MIN_ in the schema
        if (got != name)
            throw Error(fmt::format("compat rewrite: {} value {} is '{}' in the registry, expected '{}'",
                                    enum_name, value, got, name));
    }
}

Vocab build() {
    Vocab v;
    v.immutable_tensor = op("ImmutableTensor");
    v.elemwise = op("Elemwise");
    v.elemwise_multi_type = op("ElemwiseMultiType");
    v.type_cvt = op("TypeCvt");
    v.pow_c = op("PowC");
    v.reduce = op("Reduce");
    v.get_var_shape = op("GetVarShape");
    v.subtensor = op("Subtensor");
    v.concat = op("Concat");
    v.reshape = op("Reshape");
    v.broadcast = op("Broadcast");
    v.uniform_rng = op("UniformRNG");
    v.where = op("Where");
    v.softmax = op("Softmax");
    v.layer_norm = op("LayerNorm");
    v.group_norm = op("GroupNorm");
    v.group_norm_backward = op("GroupNormBackward");
    v.instance_norm = op("InstanceNorm");
    v.instance_norm_backward = op("InstanceNormBackward");
    v.dropout = op("Dropout");
    v.check_non_finite = op("CheckNonFinite");

    v.elemwise_param = table("Elemwise");
    v.pow_c_param = table("PowC");
    v.dtype_param = table("DType");
    v.reduce_param = table("Reduce");
    v.optional_axis_v1_param = table("OptionalAxisV1");
    v.index_desc_param = table("IndexDescMaskDump");
    v.axis_param = table("Axis");
    v.uniform_rng_param = table("UniformRNG");
    v.empty_param = table("Empty");

    auto n = [](auto mode) { return static_cast<uint32_t>(mode); };
    // clang-format off
    check_modes("ElemwiseMode",
                {{"RELU", n(Ew::RELU)}, {"ABS", n(Ew::ABS)}, {"COS", n(Ew::COS)}, {"EXP", n(Ew::EXP)},
                 {"EXPM1", n(Ew::EXPM1)}, {"LOG", n(Ew::LOG)}, {"LOG1P", n(Ew::LOG1P)}, {"NEGATE", n(Ew::NEGATE)},
                 {"SIN", n(Ew::SIN)}, {"ADD", n(Ew::ADD)}, {"FLOOR_DIV", n(Ew::FLOOR_DIV)}, {"MAX", n(Ew::MAX)},
                 {"MIN", n(Ew::MIN)}, {"MUL", n(Ew::MUL)}, {"POW", n(Ew::POW)}, {"SUB", n(Ew::SUB)},
                 {"SWITCH_GT0", n(Ew::SWITCH_GT0)}, {"TRUE_DIV", n(Ew::TRUE_DIV)}, {"LT", n(Ew::LT)},
                 {"LEQ", n(Ew::LEQ)}, {"EQ", n(Ew::EQ)}, {"FUSE_MUL_ADD3", n(Ew::FUSE_MUL_ADD3)},
                 {"NOT", n(Ew::NOT)}, {"SINH", n(Ew::SINH)}, {"COSH", n(Ew::COSH)}, {"ASINH", n(Ew::ASINH)},
                 {"ACOSH", n(Ew::ACOSH)}, {"ATANH", n(Ew::ATANH)}, {"TAN", n(Ew::TAN)}, {"PRELU", n(Ew::PRELU)},
                 {"CLIP", n(Ew::CLIP)}, {"SOFTPLUS", n(Ew::SOFTPLUS)}, {"RELU6", n(Ew::RELU6)},
                 {"HSIGMOID", n(Ew::HSIGMOID)}, {"LOGSIGMOID", n(Ew::LOGSIGMOID)}, {"SQRT", n(Ew::SQRT)},
                 {"SQUARE", n(Ew::SQUARE)}, {"SIGN", n(Ew::SIGN)}});
    check_modes("ElemwiseMultiTypeMode",
                {{"EQ", n(EwMulti::EQ)}, {"NEQ", n(EwMulti::NEQ)}, {"LT", n(EwMulti::LT)},
                 {"LEQ", n(EwMulti::LEQ)}, {"ISNAN", n(EwMulti::ISNAN)}, {"ISINF", n(EwMulti::ISINF)}});
    check_modes("ReduceMode",
                {{"SUM", n(ReduceMode::SUM)}, {"SUM_SQR", n(ReduceMode::SUM_SQR)},
                 {"PRODUCT", n(ReduceMode::PRODUCT)}, {"MAX", n(ReduceMode::MAX)}, {"MEAN", n(ReduceMode::MEAN)}});
    // clang-format on
    return v;
}

}  // namespace

const Vocab& vocab() {
    static const Vocab v = build();
    return v;
}

}  // namespace mgedump::engine::passes
