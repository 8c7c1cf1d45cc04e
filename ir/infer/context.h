// What an inference rule sees of one operator: its inputs' dtypes, shapes and
// values, its params by field name, and where its outputs go. Rules are plain
// functions (one file per operator family, ir/infer/rules_*.cpp) registered by
// operator name in ir/infer/rules.h.
#pragma once

#include <fmt/format.h>

#include <array>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/infer.h"
#include "ir/infer/known_op_types.h"
#include "ir/op_registry.h"
#include "ir/param_schema.h"

namespace mgedump::ir {

// A param field's name as a rule spells it: a string literal (the constructor is
// consteval), so its address identifies the name for the lookup cache of
// InferContext::field (looking fields up by comparing names was a tenth of
// inferring a transformer), and a hash of its text, computed by the compiler,
// picks the cache slot (the address was hashed at run time, in every read).
// Sixteen bytes, so that it is passed in registers (a string_view and the hash
// went through the stack, stored for every read).
struct FieldName {
    const char* text;
    uint32_t size;
    uint32_t hash;
    template <size_t N>
    consteval FieldName(const char (&literal)[N])
        : text(literal), size(static_cast<uint32_t>(N - 1)), hash(text_hash(literal)) {}
    std::string_view name() const { return {text, size}; }

private:
    // FNV-1a of the text.
    template <size_t N>
    static consteval uint32_t text_hash(const char (&literal)[N]) {
        uint32_t h = 2166136261u;
        for (size_t i = 0; i + 1 < N; ++i) h = (h ^ static_cast<uint8_t>(literal[i])) * 16777619u;
        return h;
    }
};

// The cache behind InferContext::field: a field's index by (param table, the
// name literal's address). Per thread, so that models inferred in parallel share
// nothing; zero (no name) is a miss, and a slot taken by another key is simply
// overwritten. Probed inline (the three calls around an out-of-line probe were
// most of a field read); a miss looks the name up (context.cpp).
struct FieldCacheSlot {
    const char* name;
    uint32_t table;
    int32_t index;
    // The field's enum, or null (not an enum field, or no such field): kept
    // here, enum_field's lookup of the table's description for it was a third
    // of reading an enum.
    const EnumDesc* enum_type;
};
// Defined here and constant-initialised, so that a read reaches it directly:
// declared extern, every read first called the thread's TLS init function.
inline thread_local constinit std::array<FieldCacheSlot, 256> infer_field_cache{};
const FieldCacheSlot& fill_field_cache(ParamTableId table, FieldName field);
inline FieldCacheSlot& field_cache_slot(ParamTableId table, FieldName field) {
    return infer_field_cache[((field.hash ^ table.value) * 0x9E3779B1u) >> 24];
}
inline const FieldCacheSlot& cached_field(ParamTableId table, FieldName field) {
    const FieldCacheSlot& slot = field_cache_slot(table, field);
    if (slot.name == field.text && slot.table == table.value) [[likely]]
        return slot;
    return fill_field_cache(table, field);
}

// A param field resolved once, when the program starts, by its table's name:
// the table and the field's position. Rules keep their hot fields as
// namespace-scope constants (const FieldRef kTransposeA = resolve_field(
// "MatrixMul", "transposeA");), so that a read compares the param's table with
// `table` and indexes, instead of probing the field cache, whose slots,
// scattered over 6 KiB, were a twentieth of the cache lines a cold inference
// of transformer_encoder read. A param of another table, or a name its table
// does not have (index -1), is read by name, which refuses what is missing.
struct FieldRef {
    FieldName name;
    uint32_t table = UINT32_MAX;
    int32_t index = -1;
    const EnumDesc* enum_type = nullptr;  // the field's enum, or null
};
// Never throws (it runs before main): an unknown table or field gives a FieldRef
// that is always read by name.
FieldRef resolve_field(std::string_view table, FieldName name) noexcept;

class InferContext {
public:
    // Inline with the rule dispatch: a rule is a few dozen instructions, and the
    // call and the checks around it were as many again.
    InferContext(const Graph& g, OprId o, InferState& state)
        : g_(g), o_(o), state_(state), inputs_(g.inputs_of(o)), outputs_(g.oprs.outputs[o.value]) {
        const size_t vars = state.dtypes.size();
        for (size_t i = 0; i < inputs_.size(); ++i)
            if (inputs_[i].value >= vars) [[unlikely]]
                fail_missing_input(i);
        if (uint64_t{outputs_.begin} + outputs_.count > vars || outputs_.count > 64) [[unlikely]]
            prepare_outputs();
        hold_tables();
    }
    // For a walk that has checked every operator's inputs against the state's
    // tables once, beforehand (infer_graph: the same check per input was a
    // tenth of the dispatch), over a state sized to the graph, whose tables
    // nothing grows while it runs: they are read once per walk (WalkTables),
    // not once per operator.
    struct WalkTables {
        size_t vars;
        DType* dtypes;
        Shape* shapes;
        const StaticValue** values;
        explicit WalkTables(InferState& s)
            : vars(s.dtypes.size()), dtypes(s.dtypes.data()), shapes(s.shapes.data()), values(s.values.data()) {}
    };
    InferContext(const Graph& g, OprId o, InferState& state, const WalkTables& tables)
        : g_(g),
          o_(o),
          state_(state),
          inputs_(g.inputs_of(o)),
          outputs_(g.oprs.outputs[o.value]),
          dtypes_(tables.dtypes),
          shapes_(tables.shapes),
          values_(tables.values) {
        if (uint64_t{outputs_.begin} + outputs_.count > tables.vars || outputs_.count > 64) [[unlikely]] {
            prepare_outputs();  // refuses outputs past the graph's vars; grows nothing here
            hold_tables();
        }
    }

    const Graph& graph() const { return g_; }
    OprId opr() const { return o_; }
    // Looked up when asked (messages), not for every operator.
    const OpDef& def() const { return op_def(g_.oprs.type[o_.value]); }

    // --- inputs ---
    size_t nr_inputs() const { return inputs_.size(); }
    VarId input(size_t i) const { return inputs_[i]; }
    // Read from the state, which holds every var's (inferred, or the graph's record).
    DType dtype(size_t i) const { return dtypes_[inputs_[i].value]; }  // invalid = not known
    const Shape& shape(size_t i) const { return shapes_[inputs_[i].value]; }  // ndim 0 = not known
    // Known value of input i, or null; a constant's is decoded here on first use (constant_value).
    const StaticValue* value(size_t i) const {
        const uint32_t v = inputs_[i].value;
        if (const StaticValue* known = values_[v]) return known;
        // Only an ImmutableTensor's value is decoded late.
        return g_.oprs.type[g_.vars.owner[v].value] == kImmutableTensorType ? constant_input_value(i) : nullptr;
    }
    // Input i's value when it has at most out.size() elements, copied into `out`
    // (returns the count), or -1 when not known or larger. Allocates nothing: a
    // constant's bytes are decoded straight into `out` (shape tensors, indices).
    int small_value(size_t i, std::span<double> out) const;
    // Whether value(i) can be non-null, without decoding a constant: rules check
    // this for every input before paying for any value.
    bool may_have_value(size_t i) const {
        const uint32_t v = inputs_[i].value;
        return values_[v] || g_.oprs.type[g_.vars.owner[v].value] == kImmutableTensorType;
    }
    // "input 1 'w' Float32 [16,4,3,3]"
    std::string describe_input(size_t i) const;

    // --- params (table 0 is `param`, the rest `additional_params`) ---
    const ParamValue& param(size_t table = 0) const {
        const Range r = g_.oprs.params[o_.value];
        if (table >= r.count) fail_missing_param_table(table);
        return g_.params[r.begin + table];
    }
    // ints, bools, enums, dtype enums
    int64_t int_field(FieldName name, size_t table = 0) const {
        const FieldValue& v = field(name, table);
        if (const int64_t* i = std::get_if<int64_t>(&v)) [[likely]]
            return *i;
        return int_of(v, name);
    }
    double float_field(FieldName field, size_t table = 0) const;
    const std::vector<int32_t>& ints_field(FieldName field, size_t table = 0) const;
    // The member's name ("NCHW"). Inline for the common case, an enum whose
    // members are numbered in order (a call and the general lookup were most of
    // a read, and MatrixMul or Reduce read two or three each).
    std::string_view enum_field(FieldName name, size_t table = 0) const {
        const ParamValue& p = param(table);
        const FieldCacheSlot& slot = cached_field(p.table, name);
        if (static_cast<size_t>(slot.index) < p.fields.size()) [[likely]]
            if (const EnumMember* m = member_in_order(slot.enum_type, p.fields[slot.index])) [[likely]]
                return m->name;
        return enum_field_general(name, table);
    }
    // The same by a resolved field: by position when the param is of its table,
    // else by name (out of line). Always inlined: as calls, GCC kept the reads
    // out of line, 22 instructions each with the call.
    [[gnu::always_inline]] const FieldValue& field(const FieldRef& f, size_t table = 0) const {
        if (const FieldValue* v = resolved(f, table)) [[likely]]
            return *v;
        return field(f.name, table);
    }
    [[gnu::always_inline]] int64_t int_field(const FieldRef& f, size_t table = 0) const {
        if (const FieldValue* v = resolved(f, table)) [[likely]]
            if (const int64_t* i = std::get_if<int64_t>(v)) [[likely]]
                return *i;
        return int_field(f.name, table);
    }
    [[gnu::always_inline]] std::string_view enum_field(const FieldRef& f, size_t table = 0) const {
        if (const FieldValue* v = resolved(f, table)) [[likely]]
            if (const EnumMember* m = member_in_order(f.enum_type, *v)) [[likely]]
                return m->name;
        return enum_field_general(f.name, table);
    }
    [[gnu::always_inline]] const std::vector<int32_t>& ints_field(const FieldRef& f, size_t table = 0) const {
        if (const FieldValue* v = resolved(f, table)) [[likely]]
            if (const auto* i = std::get_if<std::vector<int32_t>>(v)) [[likely]]
                return *i;
        return ints_field(f.name, table);
    }
    const FieldValue& field(FieldName name, size_t table = 0) const {
        const ParamValue& p = param(table);
        const int idx = cached_field(p.table, name).index;
        if (idx < 0 || static_cast<size_t>(idx) >= p.fields.size()) [[unlikely]]
            fail_no_field(p, name);
        return p.fields[idx];
    }
    // Field 0 of param 0 as the operator table keeps it (OprTable::first_field):
    // Elemwise's mode without a load through the param's heap vector;
    // kNoFirstField when it is not an integer of 32 bits.
    int32_t first_field() const { return g_.oprs.first_field[o_.value]; }
    // The operator's config output_dtype (OperatorNodeConfig), invalid when not set.
    DType config_dtype() const { return g_.oprs.output_dtype[o_.value]; }

    // --- the operator's own tensors (inputs, constants, params) ---
    uint32_t nr_tensors() const { return g_.oprs.tensors[o_.value].count; }
    TensorId tensor(uint32_t k) const { return TensorId(g_.oprs.tensors[o_.value].begin + k); }

    // --- outputs: a rule sets every numbered output ---
    size_t nr_outputs() const { return outputs_.count; }
    void set_output(size_t k, DType dtype, const Shape& shape) {
        const uint32_t v = claim_output(k, dtype);
        shapes_[v] = shape;
        forget_value(v);
    }
    void set_output(size_t k, DType dtype, const Shape& shape, std::shared_ptr<const StaticValue> value) {
        set_output_kept(k, dtype, shape, state_.keep(std::move(value)));
    }
    // Output `k` with a value the state already keeps: an input's (value(i)),
    // passed on without a copy.
    void set_output_kept(size_t k, DType dtype, const Shape& shape, const StaticValue* kept) {
        const uint32_t v = claim_output(k, dtype);
        shapes_[v] = shape;
        values_[v] = kept;
    }
    // Output `k` with the dims of a tensor (a graph's dims table), written in
    // place (write_dims).
    void set_output_dims(size_t k, DType dtype, std::span<const uint32_t> dims) {
        if (dims.size() > kMaxNdim) [[unlikely]]
            (void)Shape::of(dims);  // throws: too many dims
        const uint32_t v = claim_output(k, dtype);
        write_dims(shapes_[v], dims);
        forget_value(v);
    }
    // `dims` (at most kMaxNdim) into `s` in place: a Shape built on the stack and
    // copied was a store-forwarding stall. A loop, not std::copy: a memmove call
    // for a few dims cost more than the rest. Shared with the walk's tensor outputs.
    static void write_dims(Shape& s, std::span<const uint32_t> dims) {
        s.ndim = static_cast<uint32_t>(dims.size());
        s.dim = {};
        for (size_t d = 0; d < dims.size(); ++d) s.dim[d] = dims[d];
    }
    // Output `k` with a value computed at inference time (shape and dtype given).
    void set_output_value(size_t k, DType dtype, const Shape& shape, std::vector<double> elems);

    // Refuses the graph: "operator #3 'conv1' (Convolution): <rule> (inputs: ...)".
    template <class... Args>
    [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
        fail_message(fmt::format(f, std::forward<Args>(args)...));
    }
    [[noreturn]] void fail_message(const std::string& rule) const;
    // A rule MegEngine checks only when the graph runs: refused as fail() does,
    // unless the state accepts such graphs (InferState::refuse_run_time_failures),
    // where it is counted and the rule goes on.
    template <class... Args>
    void fail_when_run(fmt::format_string<Args...> f, Args&&... args) const {
        if (state_.refuse_run_time_failures)
            fail_message(fmt::format(f, std::forward<Args>(args)...) +
                         "; MegEngine builds and loads it, and refuses "
                         "it when the graph runs");
        ++state_.run_time_failures;
    }

    // Checks the input count against [lo, hi] with MegEngine's reason.
    void expect_inputs(size_t lo, size_t hi) const {
        if (inputs_.size() < lo || inputs_.size() > hi) [[unlikely]]
            fail_input_count(lo, hi);
    }

    bool outputs_done() const {
        const uint64_t all = outputs_.count >= 64 ? ~uint64_t{0} : (uint64_t{1} << outputs_.count) - 1;
        return set_low_ == all && (outputs_.count <= 64 || more_outputs_done());
    }

private:
    // The member of enum `type` (null: the field is not an enum) that `v` holds,
    // when the members are numbered in order (nearly every enum); else null, and
    // the read takes enum_field_general, which also refuses a value that is no
    // member. The inline part of both enum_field reads.
    [[gnu::always_inline]] static const EnumMember* member_in_order(const EnumDesc* type, const FieldValue& v) {
        const int64_t* i = std::get_if<int64_t>(&v);
        if (!type || !i) return nullptr;
        const std::span<const EnumMember> members = type->members;
        if (static_cast<uint64_t>(*i) >= members.size() || members[*i].value != *i) return nullptr;
        return &members[*i];
    }
    // Field `f` of param `table` when that param is of f's table, else null.
    [[gnu::always_inline]] const FieldValue* resolved(const FieldRef& f, size_t table) const {
        const Range r = g_.oprs.params[o_.value];
        if (table >= r.count) [[unlikely]]
            return nullptr;
        const ParamValue& p = g_.params[r.begin + table];
        if (p.table.value != f.table || static_cast<size_t>(f.index) >= p.fields.size()) [[unlikely]]
            return nullptr;
        return &p.fields[f.index];
    }
    // After prepare_outputs, which may grow the tables; nothing grows them while
    // a rule runs.
    void hold_tables() {
        dtypes_ = state_.dtypes.data();
        shapes_ = state_.shapes.data();
        values_ = state_.values.data();
    }
    // Writes output k's dtype and marks it set; returns its var, whose shape and
    // value the caller writes.
    uint32_t claim_output(size_t k, DType dtype) {
        if (k >= outputs_.count) [[unlikely]]
            fail_output_index(k);
        const uint32_t v = outputs_.begin + static_cast<uint32_t>(k);
        dtypes_[v] = dtype;
        mark_set(k);
        return v;
    }
    // A var set again (a builder re-inferring) drops the value it had.
    void forget_value(uint32_t v) { values_[v] = nullptr; }
    [[noreturn]] void fail_missing_input(size_t i) const;
    [[noreturn]] void fail_input_count(size_t lo, size_t hi) const;
    // enum_field for the rest: members numbered otherwise, or its refusals.
    std::string_view enum_field_general(FieldName name, size_t table) const;
    [[noreturn]] void fail_no_field(const ParamValue& p, FieldName name) const;
    // int_field of a field held as another alternative (unsigned, a double), or its refusal.
    int64_t int_of(const FieldValue& v, FieldName name) const;
    void prepare_outputs();
    bool more_outputs_done() const;
    const StaticValue* constant_input_value(size_t i) const;
    [[noreturn]] void fail_missing_param_table(size_t table) const;
    [[noreturn]] void fail_output_index(size_t k) const;
    void mark_set(size_t k) {
        if (k < 64)
            set_low_ |= uint64_t{1} << k;
        else
            state_.scratch.outputs_set[k - 64] = 1;
    }

    const Graph& g_;
    OprId o_;
    InferState& state_;
    std::span<const VarId> inputs_;
    Range outputs_;
    // Which outputs a rule has set: the first 64 here, the rest (an operator with
    // more outputs is rare) in state_.scratch.outputs_set.
    uint64_t set_low_ = 0;
    // The state's tables, held directly: read through state_ each time, every
    // access was one load more, repeated after each store a rule made.
    DType* dtypes_ = nullptr;
    Shape* shapes_ = nullptr;
    const StaticValue** values_ = nullptr;
};

using InferRule = void (*)(InferContext&);

// A member's value in one of the schema's enums (param_schema.h), for a rule
// that tests an enum field by number (reading the member's name and comparing
// it with a literal costs a string compare per read). Looked up once, as a
// namespace constant beside the rule's FieldRefs (a function-local static pays a
// guard check per read):
//   const int64_t kDefaultFormat = enum_member_value("MatrixMulFormat", "DEFAULT");
// Throws when the schema has no such member (a rule's mistake, not a graph's).
int64_t enum_member_value(std::string_view enum_name, std::string_view member);

}  // namespace mgedump::ir

template <>
struct fmt::formatter<mgedump::ir::FieldName> : fmt::formatter<std::string_view> {
    auto format(const mgedump::ir::FieldName& f, format_context& ctx) const {
        return fmt::formatter<std::string_view>::format(f.name(), ctx);
    }
};
