#include "ir/make_promotion.h"

#include <fmt/format.h>

#include <cmath>

#include "ir/builder.h"
#include "ir/error.h"
#include "ir/infer/elemwise_util.h"
#include "ir/infer/shape_util.h"
#include "ir/op_registry.h"
#include "ir/validate.h"

namespace mgedump::ir {
namespace {

using elemwise::Cat;
using elemwise::category;

bool is_signed(DTypeEnum t) { return t != DTypeEnum::Uint8 && t != DTypeEnum::Uint16; }

// Appends TypeCvt(x → to) and infers it.
VarId type_cvt(Graph& g, InferState& state, VarId x, DType to) {
    static const OpTypeId cvt = find_op("TypeCvt");
    std::vector<ParamValue> params = make_params(op_def(cvt), {{"dtype", to}}, "TypeCvt");
    const VarId in[] = {x};
    const OprId o = append_op(g, cvt, in, std::move(params), OpOptions{});
    validate_operator(g, o);
    infer_operator(g, o, state);
    apply_inferred(g, state, o);
    return g.output_var(o, 0);
}

}  // namespace

DType promote_dtypes(DType t0, DType t1, const std::string& who) {
    if (t0 == t1) return t0;
    const Cat c0 = category(t0.type), c1 = category(t1.type);
    if (c0 == Cat::Quantized && c1 == Cat::Quantized) {
        if (t0.type != t1.type)
            throw GraphError(fmt::format("{}: MegEngine does not promote {} and {} to one dtype", who,
                                         dtype_string(t0), dtype_string(t1)));
        if (std::fabs(t0.scale - t1.scale) >= 1e-6f || t0.zero_point != t1.zero_point)
            throw GraphError(fmt::format("{}: inputs {} and {} differ in scale or zero point; MegEngine refuses to "
                                         "promote them",
                                         who, dtype_string(t0), dtype_string(t1)));
        return t0;
    }
    if (c0 == Cat::Quantized) return t0;
    if (c1 == Cat::Quantized) return t1;
    if (t0.type == DTypeEnum::Float16) t0 = DType::of(DTypeEnum::Float32);
    if (t1.type == DTypeEnum::Float16) t1 = DType::of(DTypeEnum::Float32);
    if (category(t0.type) != category(t1.type)) return DType::of(DTypeEnum::Float32);
    if (t0 == t1) return t0;
    if (is_signed(t0.type) != is_signed(t1.type))
        throw GraphError(fmt::format("{}: MegEngine has no dtype promotion between {} and {} (different signedness)",
                                     who, dtype_string(t0), dtype_string(t1)));
    return dtype_bits(t0.type) > dtype_bits(t1.type) ? t0 : t1;
}

std::vector<VarId> promoted_inputs(Graph& g, InferState& state, OpTypeId type, std::span<const VarId> inputs,
                                   std::span<const ParamValue> params, const std::string& who) {
    static const OpTypeId elemwise = find_op("Elemwise"), concat = find_op("Concat"),
                          one_hot = find_op("IndexingOneHot"), set_one_hot = find_op("IndexingSetOneHot");
    std::vector<VarId> out(inputs.begin(), inputs.end());
    auto dtype_of = [&](VarId v) { return v.value < g.vars.size() ? g.vars.dtype[v.value] : DType::none(); };
    for (VarId v : inputs)
        if (!dtype_of(v).valid) return out;  // unknown dtypes: nothing to promote from

    if (type == one_hot || type == set_one_hot) {
        if (out.size() >= 2 && dtype_of(out[1]).type != DTypeEnum::Int32)
            out[1] = type_cvt(g, state, out[1], DType::of(DTypeEnum::Int32));
        return out;
    }
    if ((type != elemwise && type != concat) || out.empty()) return out;
    // A Byte input is refused by dtype_promotion itself; the rules say why.
    for (VarId v : out)
        if (dtype_of(v).type == DTypeEnum::Byte) return out;

    DType final_dtype = dtype_of(out[0]);
    for (size_t i = 1; i < out.size(); ++i) final_dtype = promote_dtypes(final_dtype, dtype_of(out[i]), who);
    if (type == elemwise && category(final_dtype.type) == Cat::Int && !params.empty() && !params[0].fields.empty()) {
        const int mode = static_cast<int>(std::get<int64_t>(params[0].fields[0]));
        // A mode with neither int nor float kernels (AND, OR, ...) is refused by
        // the rule with the input's own dtype rather than after a conversion.
        if (!elemwise::elemwise_mode_allows_int(mode) && elemwise::elemwise_mode_allows_float(mode))
            final_dtype = DType::of(DTypeEnum::Float32);
    }
    for (VarId& v : out)
        if (!(dtype_of(v) == final_dtype)) v = type_cvt(g, state, v, final_dtype);
    return out;
}

}  // namespace mgedump::ir
