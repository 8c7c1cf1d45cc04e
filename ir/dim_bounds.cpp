#include "ir/dim_bounds.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "ir/dim_intervals.h"
#include "ir/infer.h"
#include "ir/infer/values.h"
#include "ir/opr_fields.h"

namespace mgedump::ir {
namespace {

using Bounds = std::vector<uint64_t>;

// Operators whose output 0 has input 0's shape: the conversions and copies,
// MegDNN's Softmax, and the indexing writes, which return the data written into.
bool keeps_input_shape(std::string_view type) {
    return type == "TypeCvt" || type == "Identity" || type == "MarkDynamicVar" || type == "Copy" ||
           type == "Softmax" || type == "SetSubtensor" || type == "IncrSubtensor" ||
           type == "IndexingSetMultiAxisVec" || type == "IndexingIncrMultiAxisVec";
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
    using Interval = ValueInterval;
    using Intervals = ValueIntervals;
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

    // A number of elements v cannot exceed when the graph runs: its dims'
    // product, or less where an operator keeps its input's elements in another
    // shape (a Reshape to a target only the run time knows bounds each dim by
    // the whole count, and their product would be far past it: torchvision's
    // decoded boxes, (count, −1, 4)). Nullopt where `of` has no bound either.
    std::optional<uint64_t> elements(VarId v, int depth = 0) {
        if (v.value >= g_.vars.size()) return std::nullopt;
        const std::span<const uint32_t> known = g_.var_shape(v);
        if (!known.empty()) return capped_product(Bounds(known.begin(), known.end()));
        if (depth > 256) return std::nullopt;
        if (auto it = elements_memo_.find(v.value); it != elements_memo_.end()) return it->second;
        std::optional<uint64_t> n;
        if (const auto dims = of(v, depth)) n = capped_product(*dims);
        if (const auto kept = computed_elements(v, depth + 1)) n = n ? std::min(*n, *kept) : *kept;
        elements_memo_.emplace(v.value, n);
        return n;
    }

  private:
    // The operator that made v: its id, type name and inputs; nullopt for a var
    // without a valid owner (a hand-edited file). The walks below start here.
    struct Owner {
        OprId opr;
        std::string_view type;
        std::span<const VarId> inputs;
    };
    std::optional<Owner> owner_of(VarId v) const {
        const OprId o = maker_of(g_, v);
        if (!o.valid()) return std::nullopt;
        return Owner{o, type_name_of(g_, o), g_.inputs_of(o)};
    }

    // A one-element Int32 constant's value (a slice bound); nullopt otherwise.
    std::optional<int64_t> one_int32_constant(VarId v) const {
        const auto c = int32_constant(g_, v);
        if (!c || c->size() != 1) return std::nullopt;
        return (*c)[0];
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
        if (type == "IndexingMultiAxisVec") {
            // One 1-D index along one axis (a Gather of shape entries): the rank stays.
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            if (!items || items->size() != 1 || !(*items)[0].idx || in.size() != 2 ||
                rank_of(in[1], depth + 1) != 1)
                return 0;
            return rank_of(in[0], depth + 1);
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
            // One constant index into a 1-D var: that element; a Subtensor of
            // it from a constant start to a constant end (either may be absent,
            // a negative one counts from the end): those elements.
            const auto x = input(0);
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            if (!x || !items || items->size() != 1 || rank_of(in[0]) != 1) return std::nullopt;
            const IndexDescMaskItem& item = (*items)[0];
            if (type == "Subtensor" && item.axis == 0 && !item.idx && !item.step &&
                in.size() == size_t{1} + item.begin + item.end) {
                const auto begin = item.begin ? one_int32_constant(in[1]) : std::nullopt;
                const auto end = item.end ? one_int32_constant(in[1 + item.begin]) : std::nullopt;
                if ((item.begin && !begin) || (item.end && !end)) return std::nullopt;
                return intervals_between(*x, begin, end);
            }
            if (in.size() != 2) return std::nullopt;
            const auto at = int32_constant(g_, in[1]);
            if (item.axis != 0 || !item.idx || item.begin || item.end || item.step || !at || at->size() != 1)
                return std::nullopt;
            const int64_t k = (*at)[0] < 0 ? (*at)[0] + static_cast<int64_t>(x->size()) : (*at)[0];
            if (k < 0 || static_cast<size_t>(k) >= x->size()) return std::nullopt;
            return Intervals{(*x)[static_cast<size_t>(k)]};
        }
        if (type == "Reduce") {
            // MIN, MAX (the schema's MIN_ and MAX_), SUM or PRODUCT of a 1-D var
            // into one element (a target's element count).
            const auto x = input(0);
            const std::string_view mode = enum_name_of(g_, o, "mode");
            if (!x || x->empty() || in.size() != 1 || !one_dim_output ||
                (mode != "MIN_" && mode != "MAX_" && mode != "SUM" && mode != "PRODUCT"))
                return std::nullopt;
            const std::string_view pairwise = mode == "SUM" ? "ADD" : mode == "PRODUCT" ? "MUL" : mode;
            std::optional<Interval> r = x->front();
            for (size_t i = 1; i < x->size() && r; ++i) r = elemwise_interval(pairwise, *r, (*x)[i]);
            if (!r) return std::nullopt;
            return Intervals{*r};
        }
        if (type == "Elemwise" && in.size() == 2) {
            // Two vars of one length, or one of them a single element, element
            // by element (`elemwise_interval` has the modes).
            const auto a = input(0), b = input(1);
            const std::string_view mode = enum_name_of(g_, o, "mode");
            if (!a || !b || !one_dim_output || (a->size() != b->size() && a->size() != 1 && b->size() != 1))
                return std::nullopt;
            const size_t n = std::max(a->size(), b->size());
            Intervals out(n);
            for (size_t i = 0; i < n; ++i) {
                const auto r =
                    elemwise_interval(mode, (*a)[a->size() == 1 ? 0 : i], (*b)[b->size() == 1 ? 0 : i]);
                if (!r) return std::nullopt;
                out[i] = *r;
            }
            return out;
        }
        return std::nullopt;
    }

    // What the operator that made v says of its element count, beyond its
    // dims' product: the operators that only move elements keep their input's
    // count, a slice or a split part holds at most its input's, a Concat the sum
    // of its parts', and an Elemwise of one var and single elements (a constant
    // to add or clamp by) the var's.
    std::optional<uint64_t> computed_elements(VarId v, int depth) {
        const auto owner = owner_of(v);
        if (!owner || owner->inputs.empty()) return std::nullopt;
        const std::string_view type = owner->type;
        const std::span<const VarId> in = owner->inputs;
        if (keeps_input_shape(type) || type == "Reshape" || type == "AxisAddRemove" || type == "Dimshuffle" ||
            type == "Subtensor" || type == "Split")
            return elements(in[0], depth);
        if (type == "Concat") {
            uint64_t sum = 0;
            for (VarId x : in) {
                const auto n = elements(x, depth);
                if (!n) return std::nullopt;
                sum = std::min(kNoUsefulBound, sum + *n);
            }
            return sum;
        }
        if (type == "Elemwise" || type == "ElemwiseMultiType") {
            std::optional<VarId> many;
            for (VarId x : in) {
                const std::span<const uint32_t> dims = g_.var_shape(x);
                const bool single =
                    !dims.empty() && std::ranges::all_of(dims, [](uint32_t d) { return d == 1; });
                if (single) continue;
                if (many && *many != x) return std::nullopt;
                many = x;
            }
            return many ? elements(*many, depth) : std::nullopt;
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
            const auto n = elements(in[0], depth);
            if (!n) return std::nullopt;
            return Bounds{*n};
        }
        if (keeps_input_shape(type)) return input(0);
        if (type == "GetVarShape") {
            // tensor_manip.cpp: one entry per dim of its input, or one (an axis).
            const auto* axis = field_as<int64_t>(g_, o, "axis");
            if (axis && *axis != static_cast<int64_t>(kMaxNdim)) return Bounds{1};
            size_t rank = rank_of(in[0]);
            if (const auto dims = rank == 0 ? input(0) : std::nullopt) rank = dims->size();
            if (rank == 0) return std::nullopt;
            return Bounds{rank};
        }
        if (type == "Reduce") {
            // basic_arith.cpp Reduce: along an axis in [−7, 7) that axis
            // becomes 1; else to the shape its target holds.
            const auto axis = int_field_of(g_, o, "axis");
            if (!axis) return std::nullopt;
            if (*axis >= -static_cast<int64_t>(kMaxNdim) && *axis < static_cast<int64_t>(kMaxNdim)) {
                auto x = input(0);
                const int64_t a = *axis < 0 && x ? *axis + static_cast<int64_t>(x->size()) : *axis;
                if (!x || a < 0 || static_cast<size_t>(a) >= x->size()) return std::nullopt;
                (*x)[static_cast<size_t>(a)] = 1;
                return x;
            }
            return bounds_of_target(in.size() > 1 ? values(in[1], depth) : std::nullopt);
        }
        if (type == "MatrixMul" || type == "BatchedMatrixMul") {
            // matrix_mul.cpp deduce_layout: A (m, k) or, transposed, (k, m);
            // B (k, n) or (n, k); the batched form has a batch axis in front of both.
            const auto a = input(0), b = input(1);
            const size_t rank = type == "MatrixMul" ? 2 : 3;
            const auto ta = int_field_of(g_, o, "transposeA"), tb = int_field_of(g_, o, "transposeB");
            if (!a || !b || a->size() != rank || b->size() != rank) return std::nullopt;
            Bounds out;
            if (rank == 3) out.push_back(std::min((*a)[0], (*b)[0]));
            out.push_back((*a)[ta && *ta ? rank - 1 : rank - 2]);
            out.push_back((*b)[tb && *tb ? rank - 2 : rank - 1]);
            return out;
        }
        if (type == "ROIAlign") {
            // roi_align.cpp deduce_layout: (rois, src's channels, pooled_height,
            // pooled_width), for both outputs (the pooled values and their argmax).
            const auto src = input(0), rois = input(1);
            const auto ph = int_field_of(g_, o, "pooled_height"), pw = int_field_of(g_, o, "pooled_width");
            if (!src || !rois || src->size() != 4 || rois->size() != 2 || !ph || !pw || *ph < 0 || *pw < 0)
                return std::nullopt;
            return Bounds{(*rois)[0], (*src)[1], static_cast<uint64_t>(*ph), static_cast<uint64_t>(*pw)};
        }
        // tensor_manip.cpp: the shape its target holds when the graph runs.
        if (type == "Broadcast") return bounds_of_target(in.size() > 1 ? values(in[1], depth) : std::nullopt);
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
            // The target's values (a constant, or intervals of a target made of
            // shapes and constants); its unspecified axis (OptionalAxisV1) takes
            // the elements the other dims leave, at least their smallest values
            // (1 where they may be 0: MegEngine then has no elements to share).
            const auto n = elements(in[0], depth);
            const auto target = in.size() > 1 ? values(in[1], depth) : std::nullopt;
            const auto* axis = field_as<int64_t>(g_, o, "axis");
            if (!n || !target || !axis) return std::nullopt;
            Bounds out;
            uint64_t others = 1;
            for (size_t d = 0; d < target->size(); ++d) {
                const Interval t = (*target)[d];
                if (static_cast<int64_t>(d) == *axis) {
                    out.push_back(0);
                    continue;
                }
                if (t.hi < 0) return std::nullopt;
                out.push_back(static_cast<uint64_t>(t.hi));
                others = capped_product({others, static_cast<uint64_t>(std::max<int64_t>(t.lo, 1))});
            }
            if (*axis >= 0 && static_cast<size_t>(*axis) < out.size())
                out[static_cast<size_t>(*axis)] = *n / others;
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
            // Slices keep at most the data's dims; a slice from a start of at
            // least b ≥ 0, by a step of at least 1, keeps at most the dim less b,
            // and to an end of at most e, at most e less b (torchvision's first k
            // of a top-k, k known only at run time; the importer's [1:] of data
            // written with a leading element more); a scalar index removes its
            // axis (every axis removed leaves [1]).
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
                if (item.idx || (!item.begin && !item.end) || next_input > in.size()) continue;
                // One element whose interval starts at `least` or more, or null.
                auto single = [&](size_t at, int64_t least) -> std::optional<Interval> {
                    const auto iv = values(in[at], depth);
                    if (!iv || iv->size() != 1 || iv->front().lo < least) return std::nullopt;
                    return iv->front();
                };
                const auto begin = item.begin ? single(begin_at, 0) : Interval{0, 0};
                const auto end = item.end ? single(end_at, 0) : std::nullopt;
                if (!begin || (item.end && !end) || (item.step && !single(step_at, 1))) continue;
                uint64_t& dim = (*data)[static_cast<size_t>(axis)];
                if (end) dim = std::min(dim, static_cast<uint64_t>(end->hi));
                const auto skipped = static_cast<uint64_t>(begin->lo);
                dim = dim > skipped ? dim - skipped : 0;
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
    std::map<uint32_t, std::optional<uint64_t>> elements_memo_;
};

}  // namespace

std::optional<std::vector<uint64_t>> dim_upper_bounds(const Graph& g, VarId v) { return BoundsWalk(g).of(v); }

}  // namespace mgedump::ir
