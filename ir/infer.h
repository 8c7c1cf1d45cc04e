// Static inference of every var's dtype, shape and (for small tensors) value, by
// MegEngine's rules: what MegEngine computes when it builds each operator (MegDNN's
// deduce_layout / deduce_dtype / check_exec, the operator's init_output_dtype and
// static-infer descriptors, its input-count and dtype assertions). A graph that
// breaks a rule is refused here, before a byte is written, with the operator, its
// inputs and the rule in words.
//
// Unknown stays unknown: an output whose shape depends on a value MegEngine cannot
// infer statically (CondTake, a Reshape to a computed shape) gets no shape, and so
// does everything computed from it; only a rule that needs the missing fact refuses.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgedump::ir {

// MegEngine's TensorShape::MAX_NDIM.
inline constexpr uint32_t kMaxNdim = 7;

// A shape as MegEngine's static inference holds it: ndim 0 means "not known"
// (a graph var always has at least one dim; a scalar is [1]).
struct Shape {
    uint32_t ndim = 0;
    std::array<uint32_t, kMaxNdim> dim{};

    bool known() const { return ndim > 0; }
    std::span<const uint32_t> dims() const { return {dim.data(), ndim}; }
    uint64_t elements() const {
        uint64_t n = 1;
        for (uint32_t i = 0; i < ndim; ++i) n *= dim[i];
        return n;
    }
    uint32_t operator[](size_t i) const { return dim[i]; }
    uint32_t& operator[](size_t i) { return dim[i]; }
    bool operator==(const Shape& o) const {
        if (ndim != o.ndim) return false;
        for (uint32_t i = 0; i < ndim; ++i)
            if (dim[i] != o.dim[i]) return false;
        return true;
    }
    // Throws GraphError when `dims` has more than kMaxNdim entries.
    static Shape of(std::span<const uint32_t> dims) {
        if (dims.size() > kMaxNdim) fail_too_many_dims(dims);
        Shape s;
        s.ndim = static_cast<uint32_t>(dims.size());
        for (size_t i = 0; i < dims.size(); ++i) s.dim[i] = dims[i];
        return s;
    }
    static Shape of(std::initializer_list<uint32_t> dims) { return of(std::span<const uint32_t>(dims.begin(), dims.size())); }

private:
    [[noreturn]] static void fail_too_many_dims(std::span<const uint32_t> dims);
};
// "[1,3,32,32]", or "unknown".
std::string shape_string(const Shape& s);

// A statically known value, row-major. Doubles hold every Int32, Int16, Uint8,
// Bool and Float32 element exactly; quantized values are their storage integers.
struct StaticValue {
    std::vector<double> elems;
};
// Values are tracked only for tensors this small (shape and index tensors):
// decoding every weight into doubles would cost more than the dump.
inline constexpr uint64_t kMaxStaticValueElements = 4096;

// What inference found, by VarId: dtype (invalid = not inferred), shape (ndim 0 =
// not known) and value (null = not known, or a constant's not read yet: see
// InferContext::value). Rules read their inputs from here,
// falling back to the graph's own record (an input's tensor, a file's
// MiddleTensor shape) where inference knows nothing.
struct InferState {
    std::vector<DType> dtypes;
    std::vector<Shape> shapes;
    // Plain pointers, owned by value_pool: a table of shared_ptrs was zeroed and
    // destroyed 16 bytes per var for the few vars that have a value (a tenth of
    // inferring an operator-heavy graph). A pooled value lives as long as the
    // state (and its copies, which share the pool's values).
    std::vector<const StaticValue*> values;
    std::vector<std::shared_ptr<const StaticValue>> value_pool;

    // Per-operator working space, reused from operator to operator (allocating it
    // per operator was most of the cost of inferring an operator-heavy graph):
    // which outputs past the 64th a rule has set.
    struct Scratch {
        std::vector<uint8_t> outputs_set;
    } scratch;

    // Some graphs MegEngine builds and loads, but refuses when it runs them (a
    // Reduce MAX of an empty input into a non-empty output). A builder and a
    // dump refuse them before writing (true); a reader accepts them, as
    // MegEngine's loader does, and counts them here (false).
    bool refuse_run_time_failures = true;
    uint32_t run_time_failures = 0;

    // Sizes the tables; entries added know nothing (adopt starts them from the graph).
    void resize(size_t vars);
    // Covers every var of `g`: vars not seen yet start with the graph's record
    // (a tensor's dtype and shape, a loaded file's MiddleTensor shape).
    void adopt(const Graph& g);
    // The same for one var, when the state knows nothing of it yet (a pass that
    // infers only the operators it added reads the rest from the graph).
    void adopt_var(const Graph& g, VarId v);
    // The value inference computed for `v`, or null; a constant's value is
    // decoded only once a rule reads it (InferContext::value), so may be null here.
    const StaticValue* value(VarId v) const { return v.value < values.size() ? values[v.value] : nullptr; }
    // Keeps `value` (may be null) for as long as the state lives; returns the
    // pointer for `values`.
    const StaticValue* keep(std::shared_ptr<const StaticValue> value) {
        if (!value) return nullptr;
        value_pool.push_back(std::move(value));
        return value_pool.back().get();
    }
    // "What inference found, else the graph's record", the one lookup every pass
    // that reads a state makes (a state may be empty: it then reads through to the
    // graph). Inline: the passes read one or two per operator.
    //
    // The inferred dtype, else the graph's.
    DType dtype(const Graph& g, VarId v) const {
        if (v.value < dtypes.size() && dtypes[v.value].valid) return dtypes[v.value];
        return g.vars.dtype[v.value];
    }
    // Whether inference knows v's shape (not the graph's record).
    bool knows_shape(VarId v) const { return v.value < shapes.size() && shapes[v.value].known(); }
    // The inferred dims, else the ones the graph records (a loaded file's): a view
    // of the state or of the graph, so empty when neither knows them.
    std::span<const uint32_t> dims(const Graph& g, VarId v) const {
        return knows_shape(v) ? shapes[v.value].dims() : g.var_shape(v);
    }
    // The same as a Shape.
    Shape shape(const Graph& g, VarId v) const { return knows_shape(v) ? shapes[v.value] : Shape::of(g.var_shape(v)); }
};

// Infers `o`'s outputs from its inputs (already inferred) and params into
// `state`. Throws GraphError naming the operator, its inputs and the rule.
void infer_operator(const Graph& g, OprId o, InferState& state);
// Every operator of `order` (a dump order: each operator at most once), first to last.
InferState infer_graph(const Graph& g, std::span<const OprId> order);
// The same in the graph's own operator order (builders and loaders create
// operators after their inputs). `refuse_run_time_failures`: InferState's.
InferState infer_graph(const Graph& g, bool refuse_run_time_failures = true);

// Writes the inferred dtypes and shapes of `o`'s outputs (without `o`: of every
// var the state covers, in one pass over the var table; a var no rule reached
// holds the graph's own record there) into the graph's var table. A shape
// inference does not know leaves the graph's own record alone.
void apply_inferred(Graph& g, const InferState& state, OprId o);
void apply_inferred(Graph& g, const InferState& state);

// Whether the registry operator has a rule (every one should: tested).
bool has_infer_rule(OpTypeId type);

}  // namespace mgedump::ir
