#include "engine/model_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "formats/fbs_build.h"
#include "ir/describe.h"
#include "ir/op_registry.h"
#include "ir/order.h"

namespace mgedump::engine {
namespace {

struct Side {
    const ir::Graph& g;
    std::vector<ir::OprId> order;
    ir::VarNumbering numbering;
    explicit Side(const ir::Graph& graph) : g(graph), order(ir::dump_order(graph)), numbering(ir::number_vars(graph, order)) {}

    std::string var_name(ir::VarId v) const {
        return formats::var_name_for_dump(g, v, numbering.compact_id[v.value]);
    }
    std::vector<uint32_t> inputs(ir::OprId o) const {
        std::vector<uint32_t> ids;
        for (ir::VarId v : g.inputs_of(o)) ids.push_back(numbering.compact_id[v.value]);
        return ids;
    }
    std::vector<ir::VarId> numbered_outputs(ir::OprId o) const {
        std::vector<ir::VarId> out;
        ir::Range r = g.oprs.outputs[o.value];
        for (uint32_t v = r.begin; v < r.end(); ++v)
            if (!(g.vars.flags[v] & ir::kVarVolatile)) out.push_back(ir::VarId(v));
        return out;
    }
};

bool same_bytes(ir::Bytes a, ir::Bytes b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

std::string dtype_text(const ir::DType& d) {
    if (!d.valid) return "none";
    return ir::dtype_is_quantized(d.type) ? fmt::format("{}(scale={}, zp={})", ir::dtype_name(d.type), d.scale, d.zero_point)
                                          : std::string(ir::dtype_name(d.type));
}

struct Comparer {
    const Side& a;
    const Side& b;
    const CompareOptions& opt;
    size_t limit;
    std::vector<std::string> diffs;

    bool full() const { return diffs.size() >= limit; }
    template <class... Args>
    void diff(fmt::format_string<Args...> f, Args&&... args) {
        if (!full()) diffs.push_back(fmt::format(f, std::forward<Args>(args)...));
    }

    void tensor(const std::string& who, uint32_t k, ir::TensorId ta, ir::TensorId tb) {
        const ir::Graph& ga = a.g;
        const ir::Graph& gb = b.g;
        const auto ma = ga.tensors.method[ta.value], mb = gb.tensors.method[tb.value];
        if (ma != mb) diff("{}: tensor #{} is stored differently ({} vs {})", who, k, int(ma), int(mb));
        if (ga.tensors.dtype[ta.value] != gb.tensors.dtype[tb.value])
            diff("{}: tensor #{} dtype {} vs {}", who, k, dtype_text(ga.tensors.dtype[ta.value]),
                 dtype_text(gb.tensors.dtype[tb.value]));
        auto sa = ga.tensor_shape(ta), sb = gb.tensor_shape(tb);
        if (!std::equal(sa.begin(), sa.end(), sb.begin(), sb.end()))
            diff("{}: tensor #{} shape [{}] vs [{}]", who, k, fmt::join(sa, ","), fmt::join(sb, ","));
        if (ga.str(ga.tensors.comp_node[ta.value]) != gb.str(gb.tensors.comp_node[tb.value]))
            diff("{}: tensor #{} comp node '{}' vs '{}'", who, k, ga.str(ga.tensors.comp_node[ta.value]),
                 gb.str(gb.tensors.comp_node[tb.value]));
        const bool named = ma == ir::TensorMethod::MetaInput || ma == ir::TensorMethod::ValueInput ||
                           (ma == ir::TensorMethod::ValueShared && opt.param_names);
        if (named && ga.str(ga.tensors.name[ta.value]) != gb.str(gb.tensors.name[tb.value]))
            diff("{}: tensor #{} name '{}' vs '{}'", who, k, ga.str(ga.tensors.name[ta.value]),
                 gb.str(gb.tensors.name[tb.value]));
        const ir::BlobId ba = ga.tensors.blob[ta.value], bb = gb.tensors.blob[tb.value];
        if (ba.valid() != bb.valid())
            diff("{}: tensor #{} has a value on one side only", who, k);
        else if (ba.valid() && !same_bytes(ga.blobs.bytes(ba), gb.blobs.bytes(bb)))
            diff("{}: tensor #{} values differ ({} vs {} bytes)", who, k, ga.blobs.bytes(ba).size(),
                 gb.blobs.bytes(bb).size());
    }

    void opr(size_t i, ir::OprId oa, ir::OprId ob) {
        const ir::Graph& ga = a.g;
        const ir::Graph& gb = b.g;
        const std::string who = fmt::format("operator #{} {}", i, ir::describe_opr(ga, oa));
        const ir::OpDef& def = ir::op_def(ga.oprs.type[oa.value]);
        if (ga.oprs.type[oa.value] != gb.oprs.type[ob.value]) {
            diff("{}: type {} vs {}", who, def.name, ir::op_def(gb.oprs.type[ob.value]).name);
            return;
        }
        if (a.inputs(oa) != b.inputs(ob))
            diff("{}: inputs [{}] vs [{}]", who, fmt::join(a.inputs(oa), ","), fmt::join(b.inputs(ob), ","));
        const bool skip_params = !opt.check_non_finite_params && def.name == "CheckNonFinite";
        auto pa = ga.params_of(oa), pb = gb.params_of(ob);
        if (!skip_params && !std::equal(pa.begin(), pa.end(), pb.begin(), pb.end()))
            diff("{}: params differ", who);
        auto ca = ga.comp_nodes_of(oa), cb = gb.comp_nodes_of(ob);
        if (ca.size() != cb.size())
            diff("{}: {} vs {} operator comp nodes", who, ca.size(), cb.size());
        else
            for (size_t k = 0; k < ca.size(); ++k)
                if (ga.str(ca[k]) != gb.str(cb[k])) diff("{}: comp node #{} '{}' vs '{}'", who, k, ga.str(ca[k]), gb.str(cb[k]));
        if (ga.oprs.output_dtype[oa.value] != gb.oprs.output_dtype[ob.value])
            diff("{}: output dtype {} vs {}", who, dtype_text(ga.oprs.output_dtype[oa.value]),
                 dtype_text(gb.oprs.output_dtype[ob.value]));
        if (opt.opr_names && ga.str(ga.oprs.name[oa.value]) != gb.str(gb.oprs.name[ob.value]))
            diff("{}: name '{}' vs '{}'", who, ga.str(ga.oprs.name[oa.value]), gb.str(gb.oprs.name[ob.value]));
        if (opt.priorities && ga.oprs.priority[oa.value] != gb.oprs.priority[ob.value])
            diff("{}: priority {} vs {}", who, ga.oprs.priority[oa.value], gb.oprs.priority[ob.value]);
        auto outs_a = a.numbered_outputs(oa), outs_b = b.numbered_outputs(ob);
        if (outs_a.size() != outs_b.size()) diff("{}: {} vs {} numbered outputs", who, outs_a.size(), outs_b.size());
        if (opt.var_names >= 2)
            for (size_t k = 0; k < std::min(outs_a.size(), outs_b.size()); ++k)
                if (a.var_name(outs_a[k]) != b.var_name(outs_b[k]))
                    diff("{}: output #{} name '{}' vs '{}'", who, k, a.var_name(outs_a[k]), b.var_name(outs_b[k]));
        ir::Range ta = ga.oprs.tensors[oa.value], tb = gb.oprs.tensors[ob.value];
        if (ta.count != tb.count) diff("{}: {} vs {} tensors", who, ta.count, tb.count);
        else
            for (uint32_t k = 0; k < ta.count; ++k) tensor(who, k, ir::TensorId(ta.begin + k), ir::TensorId(tb.begin + k));
        auto ba = ga.blobs_of(oa), bb = gb.blobs_of(ob);
        if (ba.size() != bb.size()) diff("{}: {} vs {} blobs", who, ba.size(), bb.size());
        else
            for (size_t k = 0; k < ba.size(); ++k)
                if (!same_bytes(ga.blobs.bytes(ba[k]), gb.blobs.bytes(bb[k]))) diff("{}: blob #{} differs", who, k);
    }

    void run() {
        if (a.order.size() != b.order.size())
            diff("{} vs {} operators reachable from the outputs", a.order.size(), b.order.size());
        for (size_t i = 0; i < std::min(a.order.size(), b.order.size()) && !full(); ++i) opr(i, a.order[i], b.order[i]);
        const ir::Graph& ga = a.g;
        const ir::Graph& gb = b.g;
        if (ga.outputs.size() != gb.outputs.size()) {
            diff("{} vs {} outputs", ga.outputs.size(), gb.outputs.size());
            return;
        }
        for (size_t k = 0; k < ga.outputs.size(); ++k) {
            const ir::VarId va = ga.outputs[k], vb = gb.outputs[k];
            if (a.numbering.compact_id[va.value] != b.numbering.compact_id[vb.value])
                diff("output #{}: var {} vs {}", k, a.numbering.compact_id[va.value], b.numbering.compact_id[vb.value]);
            if (ga.vars.original_id[va.value] != gb.vars.original_id[vb.value])
                diff("output #{}: original id {} vs {}", k, ga.vars.original_id[va.value], gb.vars.original_id[vb.value]);
            if (opt.var_names >= 1 && a.var_name(va) != b.var_name(vb))
                diff("output #{}: name '{}' vs '{}'", k, a.var_name(va), b.var_name(vb));
        }
    }
};

}  // namespace

std::vector<std::string> compare_graphs(const ir::Graph& a, const ir::Graph& b, const CompareOptions& options,
                                        size_t limit) {
    Side sa(a), sb(b);
    Comparer c{sa, sb, options, limit, {}};
    c.run();
    return std::move(c.diffs);
}

}  // namespace mgedump::engine
