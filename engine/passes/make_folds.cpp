// Which operators MegEngine's make functions fold, and into what. Only the folds
// whose result is not an operator of the recorded type are lowered: those are the
// files MegEngine's loader refuses. Folds that give an ImmutableTensor (which the
// loader accepts, serializer_oss_v2.cpp:765) or another Elemwise (LOG(1+x) →
// LOG1P) load as written and compute the same values, so they are left alone.
//
// Besides the makes, the graph rewrites every operator it inserts whose output
// value is CONST to static inference (GraphOptimizer::insert_post,
// src/core/impl/graph/graph_opt.cpp): Broadcast of a Broadcast becomes one
// Broadcast (its type kept), a small contiguous value an ImmutableTensor (which
// the loader accepts), and TypeCvt of a Broadcast becomes Broadcast of a
// TypeCvt, which the loader refuses ("got_type=Broadcast expected_type=TypeCvt"):
// that one is lowered here.
#include "engine/passes/make_folds.h"

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <variant>
#include <vector>

#include "engine/passes/const_infer.h"
#include "engine/passes/fragment_apply.h"
#include "engine/passes/fragment_builder.h"
#include "ir/infer.h"
#include "ir/infer/values.h"
#include "ir/op_registry.h"
#include "ir/order.h"

namespace mgedump::engine {
namespace {

using passes::Ew;
using passes::FragmentBuilder;
using passes::Ref;

// mgb::almost_equal for float (src/core/include/megbrain/utils/arith_helper.h).
bool almost_equal(float x, float y) {
    return std::abs(x - y) < std::numeric_limits<float>::epsilon() * std::abs(x + y) ||
           std::abs(x - y) < std::numeric_limits<float>::min();
}

struct Folder {
    const ir::Graph& g;
    std::span<const ir::OprId> order;
    // Dtypes and shapes: what the dump inferred for a graph nobody had inferred
    // (whose var table records none for computed vars), else the table's (an
    // empty state reads through to it). From the table alone, such a graph's
    // folds went unseen: a Reshape to its input's own CONST shape was written,
    // and MegEngine's loader refuses that.
    const ir::InferState& known;
    const passes::Vocab& v = passes::vocab();
    // Built when first asked: by a Reshape or Broadcast to a constant equal to
    // its input's shape, or to a computed target (most graphs have neither).
    mutable std::optional<passes::ConstInfer> consts;
    // Values of computed targets, inferred for the operators they come from alone
    // (inferring the whole graph for them made a dump of a transformer, whose
    // Reshape targets are computed, pay for inference once per fold round).
    mutable std::optional<ir::InferState> values;
    mutable std::vector<uint8_t> inferred;  // by OprId: in `values` already

    ir::DType dtype(ir::VarId x) const { return known.dtype(g, x); }
    std::span<const uint32_t> dims(ir::VarId x) const { return known.dims(g, x); }
    ir::OpTypeId type_of(ir::VarId x) const { return g.oprs.type[g.vars.owner[x.value].value]; }
    ir::OprId owner(ir::VarId x) const { return g.vars.owner[x.value]; }

    int64_t elemwise_mode(ir::OprId o) const { return std::get<int64_t>(g.params_of(o)[0].fields[0]); }

    // SymbolVar::as_immutable_scalar (symbol_var.cpp:46): through Broadcast and
    // Reshape to a constant with one element. Constants here are ImmutableTensors
    // of shape [1] (MegEngine's own scalars); a var MegEngine also infers as a
    // constant scalar (a computed one) is not recognised, so a fold MegEngine's
    // make would make there is not lowered here.
    std::optional<float> immutable_scalar(ir::VarId x) const {
        while (type_of(x) == v.broadcast || type_of(x) == v.reshape) x = g.inputs_of(owner(x))[0];
        const ir::OprId o = owner(x);
        if (type_of(x) != v.immutable_tensor || g.oprs.tensors[o.value].count != 1) return std::nullopt;
        const ir::TensorId t(g.oprs.tensors[o.value].begin);
        auto shape = g.tensor_shape(t);
        if (shape.size() != 1 || shape[0] != 1) return std::nullopt;
        // Decoded in place: a vector allocated per read was a twentieth of checking a
        // transformer for folds (every Elemwise with a constant operand reads it up to
        // four times).
        double value;
        if (ir::decode_small_constant(g, x, std::span<double>(&value, 1)) != 1) return std::nullopt;
        return static_cast<float>(value);
    }
    bool is_const(ir::VarId x, float want) const {
        auto k = immutable_scalar(x);
        return k && almost_equal(*k, want);
    }

    // check_is_shape_of (tensor_manip.cpp:22), its structural half: `shp` is
    // GetVarShape(a) with no axis.
    bool is_shape_of(ir::VarId shp, ir::VarId a) const {
        const ir::OprId o = owner(shp);
        if (type_of(shp) != v.get_var_shape) return false;
        auto in = g.inputs_of(o);
        return in.size() == 1 && in[0] == a && std::get<int64_t>(g.params_of(o)[0].fields[0]) == 7;
    }

    // check_is_shape_of, its static half: the target's value and the input's shape
    // are both CONST to MegEngine's static inference, and equal.
    bool is_const_shape_of(ir::VarId shp, ir::VarId a) const {
        const std::span<const uint32_t> dims = this->dims(a);
        if (type_of(shp) == v.immutable_tensor) {
            // A constant target is decoded in place (a StaticValue allocated per
            // Reshape was a fifth of checking a transformer for folds), and
            // compared first: a Reshape to another shape, as most are, is decided
            // without the CONST analysis, a walk of the whole graph that was two
            // fifths of checking a transformer for folds.
            std::array<double, ir::kMaxNdim> buffer;
            const int count = ir::decode_small_constant(g, shp, buffer);
            if (count < 0 || !equals(std::span<const double>(buffer.data(), static_cast<size_t>(count)), dims))
                return false;
            return const_analysis().value_const(shp) && const_analysis().shape_const(a);
        }
        if (!const_analysis().value_const(shp) || !const_analysis().shape_const(a)) return false;
        const ir::StaticValue* target = computed_value(shp);
        return target && equals(target->elems, dims);
    }
    static bool equals(std::span<const double> target, std::span<const uint32_t> dims) {
        if (target.size() != dims.size()) return false;
        for (size_t k = 0; k < dims.size(); ++k)
            if (target[k] != static_cast<double>(dims[k])) return false;
        return true;
    }
    const passes::ConstInfer& const_analysis() const {
        if (!consts) consts.emplace(g, order, known);
        return *consts;
    }

    // The value static inference gives a CONST var: the operators it is computed
    // from are inferred, inputs first, down to GetVarShape, whose input's shape is
    // the graph's record.
    const ir::StaticValue* computed_value(ir::VarId x) const {
        if (!values) {
            values.emplace();
            values->resize(g.vars.size());
            inferred.assign(g.oprs.size(), 0);
        }
        std::vector<std::pair<ir::OprId, bool>> stack{{owner(x), false}};  // (operator, inputs pushed)
        while (!stack.empty()) {
            auto [o, expanded] = stack.back();
            if (inferred[o.value]) {
                stack.pop_back();
                continue;
            }
            if (expanded) {
                stack.pop_back();
                ir::infer_operator(g, o, *values);
                inferred[o.value] = 1;
                continue;
            }
            stack.back().second = true;
            const bool reads_shapes_only = g.oprs.type[o.value] == v.get_var_shape;
            for (ir::VarId in : g.inputs_of(o)) {
                if (reads_shapes_only) adopt(in);
                else if (!inferred[owner(in).value]) stack.push_back({owner(in), false});
            }
        }
        return values->value(x);
    }

    // A var GetVarShape reads, as `values` starts it: its dtype and shape.
    void adopt(ir::VarId x) const {
        if (values->dtypes[x.value].valid || values->shapes[x.value].known()) return;
        values->dtypes[x.value] = dtype(x);
        values->shapes[x.value] = known.shape(g, x);
    }

    // What make returns instead of the operator.
    struct Fold {
        enum Kind { None, Input, Filled, CastBeforeBroadcast } kind = None;
        // Input: the var returned; Filled: the var whose shape is filled;
        // CastBeforeBroadcast: the Broadcast's input, cast first.
        ir::VarId var;
        double value = 0;  // Filled: the value
        ir::VarId target;  // CastBeforeBroadcast: the Broadcast's target shape
        ir::DType to;      // CastBeforeBroadcast: the TypeCvt's dtype
    };
    static Fold none() { return {}; }
    // broadcast_tshp(src, {src, scalar}) of inplace.cpp when the scalar is a [1]
    // constant: GetVarShape::make drops it, so this is Broadcast(src,
    // GetVarShape(src)), which Broadcast::make returns as src itself.
    static Fold input(ir::VarId x) { return {Fold::Input, x, 0}; }
    // Broadcast(scalar `value` of x's dtype, GetVarShape(x)): MUL(x, 0), POW(x, 0).
    static Fold filled(ir::VarId x, double value) { return {Fold::Filled, x, value}; }
    // GraphOptimizer::swap_typecvt_and_bcast (graph_opt.cpp:118): TypeCvt(Broadcast(x,
    // shape)) whose value is CONST is inserted as Broadcast(TypeCvt(x), shape).
    static Fold cast_before_broadcast(ir::VarId x, ir::VarId target, ir::DType to) {
        return {Fold::CastBeforeBroadcast, x, 0, target, to};
    }

    Fold fold(ir::OprId o) const {
        const ir::OpTypeId type = g.oprs.type[o.value];
        auto in = g.inputs_of(o);
        // Concat::make (tensor_manip.cpp:1265): one input is returned as it is.
        if (type == v.concat) return in.size() == 1 ? input(in[0]) : none();
        // Reshape::make (:346), Broadcast::make (:412): to the input's own shape,
        // given by GetVarShape of the input or known statically.
        if (type == v.reshape || type == v.broadcast)
            return in.size() == 2 && (is_shape_of(in[1], in[0]) || is_const_shape_of(in[1], in[0])) ? input(in[0])
                                                                                                   : none();
        // TypeCvt::make (basic_arith.cpp:753): to the input's own dtype.
        if (type == v.type_cvt) {
            const auto params = g.params_of(o);
            const ir::DType* to = params.empty() || params[0].fields.empty()
                                      ? nullptr
                                      : std::get_if<ir::DType>(&params[0].fields[0]);
            if (in.size() != 1 || !to) return none();
            if (*to == dtype(in[0])) return input(in[0]);
            if (type_of(in[0]) != v.broadcast || !const_analysis().value_const(g.output_var(o, 0))) return none();
            const auto broadcast = g.inputs_of(owner(in[0]));
            return broadcast.size() == 2 ? cast_before_broadcast(broadcast[0], broadcast[1], *to) : none();
        }
        // PowC::make (basic_arith.cpp:1796): exponent 1 is x itself, exponent 0
        // make_scalar_dt(1).broadcast(x.symshape()).
        if (type == v.pow_c) {
            const auto params = g.params_of(o);
            const double* exp = params.empty() || params[0].fields.empty()
                                    ? nullptr
                                    : std::get_if<double>(&params[0].fields[0]);
            if (in.size() != 1 || !exp) return none();
            if (almost_equal(static_cast<float>(*exp), 1.f)) return input(in[0]);
            if (almost_equal(static_cast<float>(*exp), 0.f)) return filled(in[0], 1);
            return none();
        }
        if (type != v.elemwise) return none();
        // Elemwise::make → gopt::optimize_elemwise_expr_inplace (inplace.cpp), at
        // the loader's default graph_opt_level 2; the first optimizer that matches wins.
        const auto mode = static_cast<Ew>(elemwise_mode(o));
        if (in.size() == 2 && !(dtype(in[0]) == dtype(in[1]))) return none();
        switch (mode) {
            case Ew::ADD:    // identical_op<0>
            case Ew::MUL: {  // identical_op<1>, then absorbing_element<0>
                if (in.size() != 2) return none();
                // lhs is the constant if it is one, else rhs. Each operand is
                // decoded once (asked again per test, as is_const does, the
                // constant was read up to four times).
                size_t k = 0;
                std::optional<float> scalar = immutable_scalar(in[0]);
                if (!scalar) {
                    k = 1;
                    scalar = immutable_scalar(in[1]);
                }
                if (!scalar) return none();
                if (almost_equal(*scalar, mode == Ew::ADD ? 0.f : 1.f)) return input(in[1 - k]);
                if (mode == Ew::MUL && almost_equal(*scalar, 0.f)) return filled(in[1 - k], 0);
                return none();
            }
            case Ew::POW: {
                if (in.size() != 2) return none();
                const std::optional<float> exponent = immutable_scalar(in[1]);  // decoded once
                if (!exponent) return none();
                if (almost_equal(*exponent, 0.f)) return filled(in[0], 1);
                if (almost_equal(*exponent, 1.f)) return input(in[0]);
                return none();
            }
            case Ew::LOG: {
                // log(exp(x)) → x (the second LOG optimizer; the first only turns
                // log(a*b) / log(a/b) with an exp operand into other Elemwise).
                if (in.size() != 1 || type_of(in[0]) != v.elemwise) return none();
                const ir::OprId inner = owner(in[0]);
                if (static_cast<Ew>(elemwise_mode(inner)) != Ew::EXP) return none();
                return input(g.inputs_of(inner)[0]);
            }
            case Ew::FLOOR_DIV: {
                // x // 1 on integers is x (on floats it becomes FLOOR: still an Elemwise).
                if (in.size() != 2) return none();
                const ir::DType d = dtype(in[0]);
                const bool integer = d.valid && (d.type == ir::DTypeEnum::Int32 || d.type == ir::DTypeEnum::Int16 ||
                                                 d.type == ir::DTypeEnum::Int8 || d.type == ir::DTypeEnum::Uint8 ||
                                                 d.type == ir::DTypeEnum::Uint16);
                return integer && is_const(in[1], 1.f) ? input(in[0]) : none();
            }
            default: return none();
        }
    }

    void write(const Fold& f, FragmentBuilder& b) const {
        if (f.kind == Fold::Input) {
            b.set_output(Ref::var(f.var));
            return;
        }
        if (f.kind == Fold::CastBeforeBroadcast) {
            b.set_output(b.broadcast(b.type_cvt(Ref::var(f.var), f.to), Ref::var(f.target)));
            return;
        }
        Ref value = b.scalar_of(b.dtype(Ref::var(f.var)), f.value, f.var);
        b.set_output(b.broadcast(value, b.get_var_shape(Ref::var(f.var))));
    }
};

}  // namespace

bool needs_make_folds(const ir::Graph& g, std::span<const ir::OprId> order, const ir::InferState& known) {
    const Folder folder{g, order, known};
    for (ir::OprId o : order)
        if (folder.fold(o).kind != Folder::Fold::None) return true;
    return false;
}

uint32_t apply_make_folds(ir::Graph& g, std::span<const ir::OprId> first_order, const ir::InferState& known) {
    uint32_t folded = 0;
    std::vector<ir::OprId> order(first_order.begin(), first_order.end());
    const ir::StrId default_comp_node = g.strings.intern("xpux:0");
    // A fold can make another (log(exp(x * 1))): repeat until none is left. Each
    // round takes at least one operator out of the reachable graph, so this ends.
    for (size_t round = 0; round <= first_order.size(); ++round) {
        const passes::VarCompNodes comp_nodes(g, order, default_comp_node);
        std::vector<passes::Fragment> fragments;
        {
            // The vars a round adds are past `known`: the table has what
            // apply_fragments gave them.
            const Folder folder{g, order, known};
            for (ir::OprId o : order) {
                const Folder::Fold f = folder.fold(o);
                if (f.kind == Folder::Fold::None) continue;
                FragmentBuilder b(g, comp_nodes, o, &known);
                folder.write(f, b);
                fragments.push_back(std::move(b).take());
            }
        }
        if (fragments.empty()) break;
        folded += static_cast<uint32_t>(fragments.size());
        std::vector<ir::StrId> names;
        for (ir::VarId out : g.outputs) names.push_back(g.vars.name[out.value]);
        passes::apply_fragments(g, fragments, nullptr, nullptr, &known);
        // A requested output keeps the name it was asked for, as naming the var
        // MegEngine's make returned would; an input, constant or param keeps its own.
        for (size_t i = 0; i < g.outputs.size(); ++i) {
            const ir::VarId out = g.outputs[i];
            if (g.oprs.tensors[g.vars.owner[out.value].value].count == 0) g.vars.name[out.value] = names[i];
        }
        order = ir::dump_order(g);
    }
    return folded;
}

}  // namespace mgedump::engine
