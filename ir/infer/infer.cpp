// Rule dispatch: one table indexed by operator type, built once from the family
// lists, and the walks that apply it to an operator or a whole graph.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>
#include <stdexcept>
#include <vector>

#include "ir/error.h"
#include "ir/infer.h"
#include "ir/infer/rules.h"
#include "ir/infer/values.h"

namespace mgedump::ir {
namespace {

// Until an operator has a rule: its outputs take the config dtype or the first
// input's, with no shape (what mgedump knew before inference existed).
void unknown_outputs(InferContext& ctx) {
    DType d = ctx.config_dtype();
    if (!d.valid && ctx.nr_inputs() > 0) d = ctx.dtype(0);
    for (size_t k = 0; k < ctx.nr_outputs(); ++k) ctx.set_output(k, d, Shape{});
}

// An operator type's rule, and whether it gives each output its tensor's dtype
// and shape (InferRuleEntry::outputs_are_tensors). One entry per type, so that
// the walk reads both with one bounds check.
struct RuleSlot {
    InferRule rule = unknown_outputs;
    bool outputs_are_tensors = false;
};

struct RuleTable {
    std::vector<RuleSlot> slots;

    // A type past the registry (a hand-edited file) has no rule. Static, over a
    // span, so that the walk can read the table's size and data once.
    static const RuleSlot& of(std::span<const RuleSlot> slots, OpTypeId type) {
        static constexpr RuleSlot kNoRule{};
        return type.value < slots.size() ? slots[type.value] : kNoRule;
    }
    const RuleSlot& of(OpTypeId type) const { return of(slots, type); }
};

// Runs once, at the first inference: out of line and not hot, so that its
// registry lookups stay out of the hot code pages rule_table() sits on.
[[gnu::noinline, gnu::cold]] RuleTable build_rule_table() {
    RuleTable t{std::vector<RuleSlot>(op_defs().size())};
    for (auto family : {io_infer_rules(), elemwise_infer_rules(), conv_infer_rules(), image_infer_rules(),
                        nn_infer_rules(), misc_infer_rules(), shape_infer_rules(), indexing_infer_rules()})
        for (const InferRuleEntry& e : family) {
            const OpTypeId id = find_op(e.op);
            if (!id.valid()) throw Error(fmt::format("inference rules: no operator '{}' in the registry", e.op));
            RuleSlot& slot = t.slots[id.value];
            if (slot.rule != unknown_outputs) throw Error(fmt::format("inference rules: two rules for '{}'", e.op));
            slot = {e.rule, e.outputs_are_tensors};
        }
    return t;
}

[[gnu::hot]] const RuleTable& rule_table() {
    static const RuleTable table = build_rule_table();
    return table;
}

}  // namespace

bool has_infer_rule(OpTypeId type) {
    return type.valid() && rule_table().of(type).rule != unknown_outputs;
}

void InferState::resize(size_t vars) {
    // Shrinks too (a builder taking a refused operator out). Shapes grow by
    // copies of one unknown shape: resize(n) constructed them one by one, an
    // eighth of inferring an operator-heavy graph.
    dtypes.resize(vars, DType::none());
    shapes.resize(vars, Shape{});
    values.resize(vars);
}

void InferState::adopt(const Graph& g) {
    const size_t from = dtypes.size(), to = g.vars.size();
    if (from >= to) return;
    resize(to);
    for (size_t v = from; v < to; ++v) adopt_var(g, VarId(static_cast<uint32_t>(v)));
}

void InferState::adopt_var(const Graph& g, VarId var) {
    const size_t v = var.value;
    if (v >= dtypes.size()) resize(g.vars.size());
    if (dtypes[v].valid || shapes[v].known()) return;
    dtypes[v] = g.vars.dtype[v];
    shapes[v] = Shape::of(g.var_shape(var));
    // A constant's value is known however the graph was made (a loaded graph that
    // a builder goes on with, e.g. in Python): InferContext::value decodes it when
    // a rule first reads it.
}

namespace {

// Inlined into the walks: as a call it was a sixth of the dispatch.
template <class... Checked>
[[gnu::always_inline]] inline void infer_with(InferRule rule, const Graph& g, OprId o, InferState& state,
                                              const Checked&... checked) {
    InferContext ctx(g, o, state, checked...);
    rule(ctx);
    if (!ctx.outputs_done())
        throw Error(fmt::format("inference rule of {} left an output unset", ctx.def().name));
}

// What the rule of a tensor-holding operator (a constant, a param, an input)
// does, for the common case of one tensor and one output, written straight into
// the state: for these (two fifths of an operator-heavy graph's operators) a
// context and a rule call were a tenth of the walk's instructions. Anything
// else (several tensors, a count that does not match, more dims than a shape
// holds) returns false and takes the rule, which refuses it with its message.
// Inlined into the walk, like the rule call.
[[gnu::always_inline]] inline bool write_tensor_output(const Graph& g, OprId o,
                                                      const InferContext::WalkTables& state) {
    const Range outs = g.oprs.outputs[o.value], tensors = g.oprs.tensors[o.value];
    if (outs.count != 1 || tensors.count != 1 || outs.begin >= state.vars) return false;
    const std::span<const uint32_t> dims = g.tensor_shape(TensorId(tensors.begin));
    if (dims.size() > kMaxNdim) return false;
    const uint32_t v = outs.begin;
    state.dtypes[v] = g.tensors.dtype[tensors.begin];
    InferContext::write_dims(state.shapes[v], dims);
    // As InferContext::set_output_dims: a var set again drops the value it had.
    state.values[v] = nullptr;
    return true;
}

bool inputs_inside_var_table(const Graph& g);

// Every operator in the graph's own order, as a range the walk can take without
// a vector of ids. Written out rather than iota | transform: clang 14 with
// libstdc++ 12's ranges (tools/fuzz.sh builds with it) refuses that pipe.
struct EveryOperator {
    uint32_t count;
    struct Iterator {
        uint32_t o;
        OprId operator*() const { return OprId(o); }
        Iterator& operator++() {
            ++o;
            return *this;
        }
        bool operator!=(const Iterator& other) const { return o != other.o; }
    };
    Iterator begin() const { return {0}; }
    Iterator end() const { return {count}; }
};

// A state of `vars` vars that know nothing, each table built whole: the
// general resize (vector's insert, which also grows in the middle and moves what
// was there) was an eighth of the code lines a cold inference of
// transformer_encoder ran, for filling three empty tables.
//
// Shapes value-initialised: an unknown Shape is all zeros, so GCC fills them with
// one memset, where copies of Shape{} were a loop of two stores per var. Dtypes
// copied from a static copy of DType::none(): an 8-byte load and store per var,
// where GCC built DType::none() in place with a store per member.
InferState unknown_state(size_t vars) {
    static const DType kUnknownDType = DType::none();
    InferState state;
    state.dtypes = std::vector<DType>(vars, kUnknownDType);
    state.shapes = std::vector<Shape>(vars);
    state.values = std::vector<const StaticValue*>(vars, nullptr);
    return state;
}

// Every operator of `order`, first to last: with the per-input checks done once
// for the whole graph when its inputs all lie inside the var table, else with
// the checked context, which names the operator at fault.
template <class Order>
[[gnu::hot]] void walk(const RuleTable& table, const Graph& g, const Order& order, InferState& state) {
    if (!inputs_inside_var_table(g)) {
        for (OprId o : order) infer_with(table.of(g.oprs.type[o.value]).rule, g, o, state);
        return;
    }
    // Read once: the state is sized to the graph (both callers size it first),
    // so no operator's outputs make InferContext grow it, and nothing grows the
    // rule table (read per operator, after every rule call, they were about 10
    // instructions of an operator's dispatch).
    if (state.dtypes.size() != g.vars.size()) [[unlikely]]
        throw std::logic_error("infer_graph: the walk's state is not sized to the graph");
    const std::span<const RuleSlot> slots = table.slots;
    const InferContext::WalkTables tables(state);
    for (OprId o : order) {
        const RuleSlot& slot = RuleTable::of(slots, g.oprs.type[o.value]);
        if (slot.outputs_are_tensors && write_tensor_output(g, o, tables)) continue;
        infer_with(slot.rule, g, o, state, tables);
    }
}

// Whether every input any operator names lies inside the var table: one pass
// over the flat input table, so that the walk can skip the same check per
// input. A graph where this fails takes the checked walk, which names the
// operator at fault. (Outputs are still checked per operator, where the check
// is one compare of the range's end.)
[[gnu::hot]] bool inputs_inside_var_table(const Graph& g) {
    const uint64_t vars = g.vars.size();
    // The largest input id in four independent lanes: one running maximum was a
    // chain of dependent compares as long as the table.
    std::array<uint32_t, 4> input_max{};
    const std::span<const VarId> in = g.opr_inputs;
    size_t i = 0;
    for (; i + 4 <= in.size(); i += 4)
        for (size_t k = 0; k < 4; ++k) input_max[k] = std::max(input_max[k], in[i + k].value);
    for (; i < in.size(); ++i) input_max[0] = std::max(input_max[0], in[i].value);
    const uint32_t largest_input = *std::max_element(input_max.begin(), input_max.end());
    return in.empty() || largest_input < vars;
}

}  // namespace

void infer_operator(const Graph& g, OprId o, InferState& state) {
    if (state.dtypes.size() < g.vars.size()) state.adopt(g);
    infer_with(rule_table().of(g.oprs.type[o.value]).rule, g, o, state);
}

[[gnu::hot]] InferState infer_graph(const Graph& g, std::span<const OprId> order) {
    // Only vars no operator of `order` produces start from the graph's record: a
    // rule sets its outputs whole, so adopting every var first (a tenth of the
    // walk) was overwritten for all the others.
    InferState state = unknown_state(g.vars.size());
    // An order of every operator produces every var (each var has an owner).
    if (order.size() != g.oprs.size()) {
        std::vector<uint8_t> produced(g.vars.size(), 0);
        for (OprId o : order) {
            const Range outs = g.oprs.outputs[o.value];
            // A range past the table is refused when the walk reaches its operator.
            if (uint64_t{outs.begin} + outs.count <= produced.size())
                std::fill_n(produced.begin() + outs.begin, outs.count, uint8_t{1});
        }
        for (uint32_t v = 0; v < g.vars.size(); ++v)
            if (!produced[v]) state.adopt_var(g, VarId(v));
    }
    walk(rule_table(), g, order, state);
    return state;
}

InferState infer_graph(const Graph& g, bool refuse_run_time_failures) {
    InferState state;
    state.refuse_run_time_failures = refuse_run_time_failures;
    state.adopt(g);
    walk(rule_table(), g, EveryOperator{static_cast<uint32_t>(g.oprs.size())}, state);
    return state;
}

namespace {

// Whether the record holds `s`'s dims. A loop over the few dims: a Shape built
// from the record (zeroed, then copied) was most of a dump's cost of applying an
// inferred transformer, and std::equal's memcmp call half of what was left.
bool records(std::span<const uint32_t> recorded, const Shape& s) {
    if (recorded.size() != s.ndim) return false;
    for (uint32_t d = 0; d < s.ndim; ++d)
        if (recorded[d] != s.dim[d]) return false;
    return true;
}

// Var v's record takes what the state inferred for it. Inlined into the loops:
// as a call per var it was about a third of applying a state.
[[gnu::always_inline]] inline void apply_inferred_var(Graph& g, const InferState& state, uint32_t v) {
    if (state.dtypes[v].valid) g.vars.dtype[v] = state.dtypes[v];
    const Shape& s = state.shapes[v];
    if (s.known() && !records(g.var_shape(VarId(v)), s)) g.vars.shape[v] = g.add_dims(s.dims());
}

}  // namespace

void apply_inferred(Graph& g, const InferState& state, OprId o) {
    const Range outs = g.oprs.outputs[o.value];
    for (uint32_t v = outs.begin; v < outs.end() && v < state.dtypes.size(); ++v) apply_inferred_var(g, state, v);
}

void apply_inferred(Graph& g, const InferState& state) {
    // Every operator's outputs are every var (each var has one owner): one pass
    // over the var table instead of one per operator.
    const size_t vars = std::min(g.vars.size(), state.dtypes.size());
    for (uint32_t v = 0; v < vars; ++v) apply_inferred_var(g, state, v);
}

}  // namespace mgedump::ir
