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
    std::optional<Bounds> computed(VarId v, int depth) {
        const OprId o = g_.vars.owner[v.value];
        if (!o.valid() || o.value >= g_.oprs.size()) return std::nullopt;
        const std::string_view type = op_def(g_.oprs.type[o.value]).name;
        const std::span<const VarId> in = g_.inputs_of(o);
        if (in.empty()) return std::nullopt;
        auto input = [&](size_t i) { return i < in.size() ? of(in[i], depth) : std::nullopt; };

        if (type == "CondTake") {
            // misc.cpp: the selection holds at most the data's elements.
            const auto data = input(0);
            if (!data) return std::nullopt;
            return Bounds{capped_product(*data)};
        }
        if (type == "TypeCvt" || type == "Identity" || type == "MarkDynamicVar" || type == "Copy")
            return input(0);
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
            // Slices keep at most the data's dims; a scalar index removes its
            // axis (every axis removed leaves [1]).
            const auto data = input(0);
            const auto* items = field_as<std::vector<IndexDescMaskItem>>(g_, o, "items");
            if (!data || !items) return std::nullopt;
            std::vector<bool> removed(data->size(), false);
            for (const IndexDescMaskItem& item : *items) {
                const int64_t axis =
                    item.axis < 0 ? item.axis + static_cast<int64_t>(data->size()) : item.axis;
                if (axis < 0 || static_cast<size_t>(axis) >= data->size()) return std::nullopt;
                if (item.idx) removed[static_cast<size_t>(axis)] = true;
            }
            Bounds out;
            for (size_t d = 0; d < data->size(); ++d)
                if (!removed[d]) out.push_back((*data)[d]);
            if (out.empty()) out.push_back(1);
            return out;
        }
        if (type == "TopK") {
            // Rows of k (the smallest k for k > 0, the largest for k < 0): at
            // most |k| when it is a constant, else the row's length.
            auto x = input(0);
            if (!x || x->size() != 2) return std::nullopt;
            if (const auto kv = int32_constant(g_, in[1]); kv && kv->size() == 1)
                (*x)[1] = std::min<uint64_t>((*x)[1], static_cast<uint64_t>(std::abs(int64_t{(*kv)[0]})));
            return x;
        }
        return std::nullopt;
    }

    const Graph& g_;
    std::map<uint32_t, std::optional<Bounds>> memo_;
};

}  // namespace

std::optional<std::vector<uint64_t>> dim_upper_bounds(const Graph& g, VarId v) { return BoundsWalk(g).of(v); }

}  // namespace mgedump::ir
