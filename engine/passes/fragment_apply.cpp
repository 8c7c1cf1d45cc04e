#include "engine/passes/fragment_apply.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/passes/op_vocab.h"
#include "ir/builder.h"

namespace mgedump::engine::passes {
namespace {

// Shares equal constants across all fragments of one pass.
class ConstantPool {
  public:
    ir::VarId get(ir::Graph& g, ConstValue&& c, int32_t priority, uint32_t& added) {
        std::string key = key_of(c);
        auto it = vars_.find(key);
        if (it != vars_.end()) return it->second;
        ir::VarId v = append(g, std::move(c), priority);
        ++added;
        vars_.emplace(std::move(key), v);
        return v;
    }

  private:
    static std::string key_of(const ConstValue& c) {
        std::string key;
        auto put = [&key](const void* p, size_t n) { key.append(static_cast<const char*>(p), n); };
        put(&c.dtype.type, sizeof c.dtype.type);
        put(&c.dtype.scale, sizeof c.dtype.scale);
        put(&c.dtype.zero_point, sizeof c.dtype.zero_point);
        put(&c.comp_node.value, sizeof c.comp_node.value);
        const auto rank = static_cast<uint32_t>(c.shape.size());
        put(&rank, sizeof rank);
        put(c.shape.data(), c.shape.size() * sizeof(uint32_t));
        put(c.bytes.data(), c.bytes.size());
        return key;
    }

    // An ImmutableTensor with one VALUE_ANONYMOUS tensor. Its comp node is also set on
    // the operator, as ImmutableTensor::make(graph, scalar, {cn}) does in MegEngine.
    static ir::VarId append(ir::Graph& g, ConstValue&& c, int32_t priority) {
        ir::OpOptions options;
        options.priority = priority;
        options.comp_nodes = {std::string(g.str(c.comp_node))};
        ir::OprId o = ir::append_op(g, vocab().immutable_tensor, {}, {}, options);

        const auto t = static_cast<uint32_t>(g.tensors.size());
        const ir::Range shape = g.add_dims(c.shape);
        g.tensors.name.push_back(ir::StrId());
        g.tensors.dtype.push_back(c.dtype);
        g.tensors.shape.push_back(shape);
        g.tensors.comp_node.push_back(c.comp_node);
        g.tensors.method.push_back(ir::TensorMethod::ValueAnonymous);
        g.tensors.blob.push_back(g.blobs.add_owned(std::move(c.bytes)));
        g.tensors.format_type.push_back(1);
        g.oprs.tensors[o.value] = ir::Range{t, 1};

        ir::VarId v = g.output_var(o, 0);
        g.vars.dtype[v.value] = c.dtype;
        g.vars.shape[v.value] = shape;
        return v;
    }

    std::unordered_map<std::string, ir::VarId> vars_;
};

}  // namespace

uint32_t apply_fragments(ir::Graph& g, std::span<Fragment> fragments,
                         std::vector<std::pair<ir::VarId, ir::VarId>>* replaced_vars,
                         std::vector<ir::OprId>* sources, const ir::InferState* known) {
    const Vocab& v = vocab();
    const size_t old_var_count = g.vars.size();
    const size_t old_opr_count = g.oprs.size();
    std::vector<ir::VarId> redirect(old_var_count);
    ConstantPool constants;
    uint32_t added = 0;
    std::vector<ir::VarId> local;
    std::vector<ir::VarId> inputs;

    for (Fragment& f : fragments) {
        const int32_t priority = g.oprs.priority[f.source.value];
        auto resolve = [&](Ref r) { return r.local ? local[r.index] : ir::VarId(r.index); };

        local.clear();
        for (NewOp& op : f.ops) {
            if (op.constant) {
                local.push_back(constants.get(g, std::move(*op.constant), priority, added));
                continue;
            }
            inputs.clear();
            for (Ref r : op.inputs) inputs.push_back(resolve(r));
            ir::OpOptions options;
            options.priority = priority;
            ir::OprId o = ir::append_op(g, op.type, inputs, std::move(op.params), options);
            ++added;
            // Set on the var, not as OpOptions::output_dtype: that would be written
            // to the file as the operator's explicit output dtype.
            ir::VarId out = g.output_var(o, 0);
            g.vars.dtype[out.value] = op.dtype;
            local.push_back(out);
        }

        if (sources) sources->resize(g.oprs.size() - old_opr_count, f.source);
        const ir::Range source_outputs = g.oprs.outputs[f.source.value];
        const size_t replaced = std::min<size_t>(f.outputs.size(), source_outputs.count);
        for (size_t k = 0; k < replaced; ++k) {
            const ir::VarId old_var = g.output_var(f.source, static_cast<uint32_t>(k));
            const ir::VarId new_var = resolve(f.outputs[k]);
            redirect[old_var.value] = new_var;
            if (replaced_vars) replaced_vars->emplace_back(old_var, new_var);
            // Only a var this fragment created may be renamed: a shared constant or a
            // pre-existing var has a name of its own.
            const bool created_here =
                f.outputs[k].local && f.ops[f.outputs[k].index].type != v.immutable_tensor;
            if (created_here) {
                g.vars.name[new_var.value] = g.vars.name[old_var.value];
                if (g.vars.shape[new_var.value].empty()) {
                    // Not known->dims(): add_dims would append to the table that view may point into.
                    if (known && known->knows_shape(old_var))
                        g.vars.shape[new_var.value] = g.add_dims(known->shapes[old_var.value].dims());
                    else
                        g.vars.shape[new_var.value] = g.vars.shape[old_var.value];
                }
            }
        }
        const uint32_t volatile_count = std::min(f.volatile_outputs, source_outputs.count);
        for (uint32_t k = 0; k < volatile_count; ++k)
            g.vars.flags[source_outputs.begin + k] |= ir::kVarVolatile;
    }

    // A replacement may itself have been replaced (a rule whose result is an existing
    // var); follow such chains so one pass over the tables suffices.
    auto final_var = [&](ir::VarId var) {
        for (size_t hops = 0;
             var.value < old_var_count && redirect[var.value].valid() && hops < old_var_count; ++hops)
            var = redirect[var.value];
        return var;
    };
    for (ir::VarId& in : g.opr_inputs) in = final_var(in);
    for (ir::VarId& out : g.outputs) out = final_var(out);
    return added;
}

}  // namespace mgedump::engine::passes
