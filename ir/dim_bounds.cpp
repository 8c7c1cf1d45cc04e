#include "ir/dim_bounds.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "ir/infer.h"
#include "ir/infer/values.h"
#include "ir/op_registry.h"
#include "ir/param_schema.h"

namespace mgedump::ir {
namespace {

using Bounds = std::vector<uint64_t>;

// Past this a bound says nothing useful (and products stay clear of overflow).
constexpr uint64_t kNoUsefulBound = uint64_t{1} << 48;

uint64_t capped_product(const Bounds& b) {
    uint64_t p = 1;
    for (uint64_t d : b)
        p = d == 0 ? 0 : std::min(kNoUsefulBound, p > kNoUsefulBound / d ? kNoUsefulBound : p * d);
    return p;
}

const FieldValue* field_of(const Graph& g, OprId o, std::string_view name) {
    for (const ParamValue& p : g.params_of(o)) {
        const int k = find_field(param_table(p.table), name);
        if (k >= 0 && static_cast<size_t>(k) < p.fields.size()) return &p.fields[k];
    }
    return nullptr;
}

template <class T>
const T* field_as(const Graph& g, OprId o, std::string_view name) {
    const FieldValue* f = field_of(g, o, name);
    return f ? std::get_if<T>(f) : nullptr;
}

// The name of enum field `name`'s member (Elemwise's and Reduce's mode), or "".
std::string_view enum_name_of(const Graph& g, OprId o, std::string_view name) {
    for (const ParamValue& p : g.params_of(o)) {
        const ParamTableDesc& table = param_table(p.table);
        const int k = find_field(table, name);
        if (k < 0 || static_cast<size_t>(k) >= p.fields.size() || !table.fields[k].enum_type) continue;
        const int64_t* value = std::get_if<int64_t>(&p.fields[k]);
        const EnumMember* m =
            value ? find_enum_member(*table.fields[k].enum_type, static_cast<uint32_t>(*value)) : nullptr;
        return m ? m->name : std::string_view();
    }
    return {};
}

// A small Int32 constant's elements (a Reshape's target, TopK's k), or nullopt.
std::optional<std::vector<int32_t>> int32_constant(const Graph& g, VarId v) {
    std::vector<int32_t> out(kMaxNdim + 1);
    const int n = small_int32_constant(g, v, out);
    if (n < 0) return std::nullopt;
    out.resize(static_cast<size_t>(n));
    return out;
}

class BoundsWalk {
  public:
    explicit BoundsWalk(const Graph& g) : g_(g) {}

    // Where an Int32 var of a few elements may lie when the graph runs: an
    // interval per element, row-major. A count that only the run time knows is
    // built from shapes (GetVarShape) and constants by a few operators
    // (torchvision's top-k count is ReduceMin(Concat(k, Shape(x)[0]))).
    struct Interval {
        int64_t lo, hi;
    };
    using Intervals = std::vector<Interval>;
    std::optional<Intervals> values(VarId v, int depth = 0) {
        if (v.value >= g_.vars.size() || depth > 256) return std::nullopt;
        if (auto it = value_memo_.find(v.value); it != value_memo_.end()) return it->second;
        std::optional<Intervals> iv = computed_values(v, depth + 1);
        if (iv && iv->size() > kMaxNdim + 1) iv.reset();
        value_memo_.emplace(v.value, iv);
        return iv;
    }

    std::optional<Bounds> of(VarId v, int depth = 0) {
        if (v.value >= g_.vars.size()) return std::nullopt;
        const std::span<const uint32_t> known = g_.var_shape(v);
        if (!known.empty()) return Bounds(known.begin(), known.end());
        // Deep chains are cut off: a bound that needs them is not found.
        if (depth > 256) return std::nullopt;
        if (auto it = memo_.find(v.value); it != memo_.end()) return it->second;
        std::optional<Bounds> b = computed(v, depth + 1);
        if (b && capped_product(*b) >= kNoUsefulBound) b.reset();
        memo_.emplace(v.value, b);
        return b;
    }

  private:
    // The operator that made v: its id, type name and inputs; nullopt for a var
    // without a valid owner (a hand-edited file). The three walks below start here.
    struct Owner {
        OprId opr;
        std::string_view type;
        std::span<const VarId> inputs;
    };
    std::optional<Owner> owner_of(VarId v) const {
        const OprId o = g_.vars.owner[v.value];
        if (!o.valid() || o.value >= g_.oprs.size()) return std::nullopt;
        return Owner{o, op_def(g_.oprs.type[o.value]).name, g_.inputs_of(o)};
    }

    // v's rank where it is known without the run time (0: not known): its
    // recorded shape, a constant's tensor, GetVarShape's one axis, or what the
    // operators that keep, add or remove axes make of their input's (static
    // inference leaves the shape of a count computed from an unknown shape
    // unknown, rank included).
    size_t rank_of(VarId v, int depth = 0) const {
        if (const size_t r = g_.var_shape(v).size()) return r;
        const auto owner = depth > 256 ? std::nullopt : owner_of(v);
        if (!owner) return 0;
        const OprId o = owner->opr;
        const std::string_view type = owner->type;
        const std::span<const VarId> in = owner->inputs;
        if (in.empty()) {
            const Range tensors = g_.oprs.tensors[o.value];
            return tensors.count == 1 ? g_.tensor_shape(TensorId(tensors.begin)).size() : 0;
        }
        if (type == "GetVarShape") return 1;
        if (type == "TypeCvt" || type == "Identity" || type == "Reduce" || type == "Concat")
            return rank_of(in[0], depth + 1);
        if (type == "Elemwise") {
            size_t r = 0;
            for (VarId x : in) {
                const size_t rx = rank_of(x, depth + 1);
                if (rx == 0) return 0;
                r = std::max(r, rx);
            }
            return r;
        }
        if (type == "Reshape") {
            const auto target = in.size() > 1 ? int32_constant(g_, in[1]) : std::nullopt;
            return target ? target->size() : 0;
        }
        if (type == "Subtensor") {
            // A scalar index removes its axis; every axis removed leaves [1].
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            const size_t r = rank_of(in[0], depth + 1);
            if (!items || r == 0) return 0;
            size_t removed = 0;
            for (const IndexDescMaskItem& item : *items) removed += item.idx;
            return removed >= r ? 1 : r - removed;
        }
        if (type == "AxisAddRemove") {
            const auto* desc = field_as<std::vector<AxisDesc>>(g_, o, "desc");
            int64_t r = static_cast<int64_t>(rank_of(in[0], depth + 1));
            if (!desc || r == 0) return 0;
            for (const AxisDesc& d : *desc) r += d.method == AxisDescMethod::ADD_1 ? 1 : -1;
            return static_cast<size_t>(std::max<int64_t>(r, 1));
        }
        return 0;
    }

    std::optional<Intervals> computed_values(VarId v, int depth) {
        if (const auto c = int32_constant(g_, v)) {
            Intervals out;
            for (int32_t x : *c) out.push_back({x, x});
            return out;
        }
        const auto owner = owner_of(v);
        if (!owner || owner->inputs.empty()) return std::nullopt;
        const OprId o = owner->opr;
        const std::string_view type = owner->type;
        const std::span<const VarId> in = owner->inputs;
        auto input = [&](size_t i) { return i < in.size() ? values(in[i], depth) : std::nullopt; };
        // Elements taken one by one only of 1-D vars, where row-major order is
        // the order along the axis. A Concat, Elemwise or Reduce whose output
        // is 1-D has 1-D inputs (MegEngine's rules keep the rank, and a var has
        // at least one axis); a Subtensor's input is checked itself.
        const bool one_dim_output = rank_of(v) == 1;

        if (type == "GetVarShape") {
            // tensor_manip.cpp: the shape, or one dim of it (axis 7: the whole).
            if (in.size() != 1) return std::nullopt;
            const auto dims = of(in[0], depth);
            // No param: the default, the whole shape.
            const auto* axis_field = field_as<int64_t>(g_, o, "axis");
            const int64_t axis = axis_field ? *axis_field : static_cast<int64_t>(kMaxNdim);
            if (!dims) return std::nullopt;
            Intervals out;
            for (uint64_t d : *dims) out.push_back({0, static_cast<int64_t>(d)});
            if (axis == static_cast<int64_t>(kMaxNdim)) return out;
            if (axis < 0 || static_cast<size_t>(axis) >= out.size()) return std::nullopt;
            return Intervals{out[static_cast<size_t>(axis)]};
        }
        if (type == "TypeCvt" || type == "Identity" || type == "Reshape" || type == "AxisAddRemove")
            return input(0);
        if (type == "Concat") {
            // Of 1-D parts (a count's parts), one after the other.
            Intervals out;
            for (size_t i = 0; i < in.size(); ++i) {
                const auto part = input(i);
                if (!part || !one_dim_output) return std::nullopt;
                out.insert(out.end(), part->begin(), part->end());
            }
            return out;
        }
        if (type == "Subtensor" || type == "IndexingMultiAxisVec") {
            // One constant index into a 1-D var: that element.
            const auto x = input(0);
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            if (!x || !items || items->size() != 1 || in.size() != 2 || rank_of(in[0]) != 1)
                return std::nullopt;
            const IndexDescMaskItem& item = (*items)[0];
            const auto at = int32_constant(g_, in[1]);
            if (item.axis != 0 || !item.idx || item.begin || item.end || item.step || !at || at->size() != 1)
                return std::nullopt;
            const int64_t k = (*at)[0] < 0 ? (*at)[0] + static_cast<int64_t>(x->size()) : (*at)[0];
            if (k < 0 || static_cast<size_t>(k) >= x->size()) return std::nullopt;
            return Intervals{(*x)[static_cast<size_t>(k)]};
        }
        if (type == "Reduce") {
            // MIN or MAX (the schema's MIN_ and MAX_) of a 1-D var into one element.
            const auto x = input(0);
            const std::string_view mode = enum_name_of(g_, o, "mode");
            if (!x || x->empty() || in.size() != 1 || !one_dim_output || (mode != "MIN_" && mode != "MAX_"))
                return std::nullopt;
            Interval r = x->front();
            for (const Interval& e : *x)
                r = mode == "MIN_" ? Interval{std::min(r.lo, e.lo), std::min(r.hi, e.hi)}
                                   : Interval{std::max(r.lo, e.lo), std::max(r.hi, e.hi)};
            return Intervals{r};
        }
        if (type == "Elemwise" && in.size() == 2) {
            // MIN, MAX (MIN_ and MAX_) and ADD of two vars of one length, or one of
            // them a single element.
            const auto a = input(0), b = input(1);
            const std::string_view mode = enum_name_of(g_, o, "mode");
            if (!a || !b || !one_dim_output || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
                return std::nullopt;
            const size_t n = std::max(a->size(), b->size());
            Intervals out(n);
            for (size_t i = 0; i < n; ++i) {
                const Interval x = (*a)[a->size() == 1 ? 0 : i], y = (*b)[b->size() == 1 ? 0 : i];
                if (mode == "MIN_")
                    out[i] = {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
                else if (mode == "MAX_")
                    out[i] = {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
                else if (mode == "ADD")
                    out[i] = {x.lo + y.lo, x.hi + y.hi};
                else
                    return std::nullopt;
            }
            return out;
        }
        return std::nullopt;
    }

    std::optional<Bounds> computed(VarId v, int depth) {
        const auto owner = owner_of(v);
        if (!owner || owner->inputs.empty()) return std::nullopt;
        const OprId o = owner->opr;
        const std::string_view type = owner->type;
        const std::span<const VarId> in = owner->inputs;
        auto input = [&](size_t i) { return i < in.size() ? of(in[i], depth) : std::nullopt; };

        if (type == "CondTake") {
            // misc.cpp: the selection holds at most the data's elements.
            const auto data = input(0);
            if (!data) return std::nullopt;
            return Bounds{capped_product(*data)};
        }
        if (type == "TypeCvt" || type == "Identity" || type == "MarkDynamicVar" || type == "Copy")
            return input(0);
        // tensor_manip.cpp Split: each part is a piece of the input along one
        // axis, so it holds at most the input's dims (the sizes may be known only
        // at run time: torchvision's per-level split of the selected positions).
        if (type == "Split") return input(0);
        if (type == "Elemwise" || type == "ElemwiseMultiType") {
            // Broadcast right-aligned: each dim is one of the inputs' dims there.
            Bounds out;
            for (size_t i = 0; i < in.size(); ++i) {
                const auto b = input(i);
                if (!b) return std::nullopt;
                if (b->size() > out.size()) out.insert(out.begin(), b->size() - out.size(), 1);
                for (size_t d = 0; d < b->size(); ++d) {
                    uint64_t& o_d = out[out.size() - b->size() + d];
                    o_d = std::max(o_d, (*b)[d]);
                }
            }
            return out;
        }
        if (type == "Dimshuffle") {
            const auto x = input(0);
            const auto* pattern = field_as<std::vector<int32_t>>(g_, o, "pattern");
            if (!x || !pattern) return std::nullopt;
            Bounds out;
            for (int32_t a : *pattern) {
                if (a >= 0 && static_cast<size_t>(a) >= x->size()) return std::nullopt;
                out.push_back(a < 0 ? 1 : (*x)[static_cast<size_t>(a)]);
            }
            return out;
        }
        if (type == "AxisAddRemove") {
            auto x = input(0);
            const auto* desc = field_as<std::vector<AxisDesc>>(g_, o, "desc");
            if (!x || !desc) return std::nullopt;
            for (const AxisDesc& d : *desc) {
                if (d.axis < 0) return std::nullopt;
                const size_t a = static_cast<size_t>(d.axis);
                if (d.method == AxisDescMethod::ADD_1) {
                    if (a > x->size()) return std::nullopt;
                    x->insert(x->begin() + static_cast<std::ptrdiff_t>(a), 1);
                } else {
                    if (a >= x->size()) return std::nullopt;
                    x->erase(x->begin() + static_cast<std::ptrdiff_t>(a));
                }
            }
            if (x->empty()) x->push_back(1);
            return x;
        }
        if (type == "Reshape") {
            // A constant target; its unspecified axis (OptionalAxisV1) takes the
            // elements the other dims leave.
            const auto x = input(0);
            const auto target = in.size() > 1 ? int32_constant(g_, in[1]) : std::nullopt;
            const auto* axis = field_as<int64_t>(g_, o, "axis");
            if (!x || !target || !axis) return std::nullopt;
            Bounds out(target->begin(), target->end());
            if (*axis >= 0 && static_cast<size_t>(*axis) < out.size()) {
                uint64_t others = 1;
                for (size_t d = 0; d < out.size(); ++d)
                    if (d != static_cast<size_t>(*axis)) others *= std::max<uint64_t>(out[d], 1);
                out[static_cast<size_t>(*axis)] = capped_product(*x) / others;
            }
            return out;
        }
        if (type == "Concat") {
            const auto* axis = field_as<int64_t>(g_, o, "axis");
            if (!axis) return std::nullopt;
            std::optional<Bounds> out;
            for (size_t i = 0; i < in.size(); ++i) {
                const auto b = input(i);
                if (!b || *axis < 0 || static_cast<size_t>(*axis) >= b->size()) return std::nullopt;
                if (!out) {
                    out = b;
                    continue;
                }
                if (out->size() != b->size()) return std::nullopt;
                for (size_t d = 0; d < b->size(); ++d)
                    (*out)[d] =
                        d == static_cast<size_t>(*axis) ? (*out)[d] + (*b)[d] : std::max((*out)[d], (*b)[d]);
            }
            return out;
        }
        if (type == "IndexingMultiAxisVec") {
            // One index var along one axis: that axis takes the index's length;
            // ranges along other axes keep at most the data's dims.
            auto data = input(0);
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            if (!data || !items) return std::nullopt;
            size_t next_input = 1;
            std::optional<size_t> indexed_axis;
            std::optional<Bounds> index;
            for (const IndexDescMaskItem& item : *items) {
                if (item.idx) {
                    if (indexed_axis) return std::nullopt;
                    indexed_axis = static_cast<size_t>(item.axis);
                    index = input(next_input);
                }
                next_input += item.begin + item.end + item.step + item.idx;
            }
            if (!indexed_axis || !index || index->size() != 1 || *indexed_axis >= data->size())
                return std::nullopt;
            (*data)[*indexed_axis] = (*index)[0];
            return data;
        }
        if (type == "Subtensor") {
            // Slices keep at most the data's dims, and a slice from a start of
            // at least 0 to an end of at most e, by a step of at least 1, keeps
            // at most e (torchvision's first k of a top-k, k known only at run
            // time); a scalar index removes its axis (every axis removed leaves [1]).
            auto data = input(0);
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            if (!data || !items) return std::nullopt;
            std::vector<bool> removed(data->size(), false);
            size_t next_input = 1;
            for (const IndexDescMaskItem& item : *items) {
                const int64_t axis =
                    item.axis < 0 ? item.axis + static_cast<int64_t>(data->size()) : item.axis;
                if (axis < 0 || static_cast<size_t>(axis) >= data->size()) return std::nullopt;
                if (item.idx) removed[static_cast<size_t>(axis)] = true;
                // The item's inputs, in the order begin, end, step, idx.
                const size_t begin_at = next_input, end_at = begin_at + item.begin,
                             step_at = end_at + item.end;
                next_input = step_at + item.step + item.idx;
                if (item.idx || !item.end || next_input > in.size()) continue;
                // One element whose interval starts at `least` or more, or null.
                auto single = [&](size_t at, int64_t least) -> std::optional<Interval> {
                    const auto iv = values(in[at], depth);
                    if (!iv || iv->size() != 1 || iv->front().lo < least) return std::nullopt;
                    return iv->front();
                };
                const auto end = single(end_at, 0);
                if (!end || (item.begin && !single(begin_at, 0)) || (item.step && !single(step_at, 1)))
                    continue;
                uint64_t& dim = (*data)[static_cast<size_t>(axis)];
                dim = std::min(dim, static_cast<uint64_t>(end->hi));
            }
            Bounds out;
            for (size_t d = 0; d < data->size(); ++d)
                if (!removed[d]) out.push_back((*data)[d]);
            if (out.empty()) out.push_back(1);
            return out;
        }
        if (type == "TopK") {
            // Rows of k (the smallest k for k > 0, the largest for k < 0): at
            // most |k|, where k's values are bounded, and at most the row's length.
            auto x = input(0);
            if (!x || x->size() != 2) return std::nullopt;
            if (const auto k = values(in[1], depth); k && k->size() == 1) {
                const auto [lo, hi] = k->front();
                const int64_t most = std::max(std::abs(lo), std::abs(hi));
                (*x)[1] = std::min<uint64_t>((*x)[1], static_cast<uint64_t>(most));
            }
            return x;
        }
        return std::nullopt;
    }

    const Graph& g_;
    std::map<uint32_t, std::optional<Bounds>> memo_;
    std::map<uint32_t, std::optional<Intervals>> value_memo_;
};

}  // namespace

std::optional<std::vector<uint64_t>> dim_upper_bounds(const Graph& g, VarId v) { return BoundsWalk(g).of(v); }

}  // namespace mgedump::ir
