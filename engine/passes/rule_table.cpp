// Which registry entries carry a converter, per format (spec §9.1; MegEngine's
// MGB_SEREG_OPR_*_WITH_CONVERTER / MGB_SEREG_OPR_V2 registrations).
#include <variant>

#include "engine/passes/rules.h"

namespace mgedump::engine::passes {
namespace {

// The first param's "mode" field (Elemwise, ElemwiseMultiType: field 0).
uint32_t mode_of(const ir::Graph& g, ir::OprId o) {
    auto params = g.params_of(o);
    if (params.empty() || params[0].fields.empty()) return UINT32_MAX;
    const auto* mode = std::get_if<int64_t>(&params[0].fields[0]);
    return mode ? static_cast<uint32_t>(*mode) : UINT32_MAX;
}

}  // namespace

Rule find_rule(const ir::Graph& g, ir::OprId o, DumpFormat format) {
    const Vocab& v = vocab();
    const ir::OpTypeId type = g.oprs.type[o.value];
    const bool v1 = format == DumpFormat::FBS;

    // Both formats.
    if (type == v.elemwise) return elemwise_rule(mode_of(g, o));
    if (type == v.elemwise_multi_type) return multi_type_rule(mode_of(g, o));
    if (type == v.where) return rewrite_where;
    if (type == v.group_norm) return rewrite_group_norm;
    if (type == v.instance_norm) return rewrite_instance_norm;
    if (type == v.group_norm_backward) return rewrite_group_norm_backward;
    if (type == v.instance_norm_backward) return rewrite_instance_norm_backward;

    // FBS v1 only: the FBS_V2 entries of these have no converter.
    if (v1 && type == v.softmax) return rewrite_softmax;
    if (v1 && type == v.layer_norm) return rewrite_layer_norm;
    if (v1 && type == v.dropout) return rewrite_dropout;
    if (v1 && type == v.check_non_finite) return rewrite_check_non_finite;
    return nullptr;
}

}  // namespace mgedump::engine::passes
