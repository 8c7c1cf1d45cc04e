// Inference rules: indexing family (see ir/infer/rules.h). Facts from
// src/opr/impl/internal/indexing_helper.cpp (FancyIndexingHelper: the index
// items and their inputs), tensor_manip.cpp (Subtensor, Set/IncrSubtensor),
// indexing.cpp (the vector-indexing and one-hot operators), and MegDNN's
// indexing_multi_axis_vec.cpp, mesh_indexing.cpp, indexing_one_hot.cpp.
//
// Values: MegEngine registers value inference for Subtensor and
// Set/IncrSubtensor only; the vector-indexing and one-hot operators (MegDNN
// kernels) have none, so their outputs never have a static value.
#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <variant>

#include "ir/infer/indexing_slices.h"
#include "ir/infer/rules.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir {
namespace {

const DType kInt32 = DType::of(DTypeEnum::Int32);

using indexing::IndexItem;

// The index items of Subtensor and its kin, resolved once (context.h FieldRef).
const FieldRef kIndexItems = resolve_field("IndexDescMaskDump", "items");

// An operator's index items, on the stack: parse_items refuses kMaxNdim or
// more (a Subtensor's item list allocated twice, a tenth of inferring one).
struct Items {
    std::array<IndexItem, kMaxNdim> at;
    size_t count = 0;

    std::span<const IndexItem> all() const { return {at.data(), count}; }
};

// The items and the positions of their inputs (indexing::index_items), checked
// as MegEngine's loader and FancyIndexingHelper check them.
Items parse_items(const InferContext& ctx, size_t first) {
    const auto& masks = std::get<std::vector<IndexDescMaskItem>>(ctx.field(kIndexItems));
    // indexing_helper_sereg.h:43: the loader asserts nr_item < MAX_NDIM.
    if (masks.size() >= kMaxNdim)
        ctx.fail("has {} index items; MegEngine's loader takes at most {}", masks.size(), kMaxNdim - 1);
    Items parsed;
    parsed.count = masks.size();
    const size_t end = indexing::index_items(masks, first, parsed.at);
    for (size_t k = 0; k < masks.size(); ++k) {
        const IndexDescMaskItem& m = masks[k];
        const bool slice = m.begin || m.end || m.step;
        // indexing_helper.cpp:112: either a slice or an index, not both, not neither.
        if (m.idx == slice) ctx.fail("index item {} (axis {}) must give either an index or a slice", k, m.axis);
        for (size_t j = 0; j < k; ++j)
            if (parsed.at[j].axis == m.axis) ctx.fail("index items name axis {} twice", m.axis);
    }
    if (end != ctx.nr_inputs())
        ctx.fail("the index items take {} index inputs, the operator has {}", end - first, ctx.nr_inputs() - first);
    return parsed;
}

// A scalar index input's value (static_cast_dtype_safe: integral); nullopt
// when not known. A known non-scalar shape is refused (do_make_sub_spec).
std::optional<int64_t> scalar_index(const InferContext& ctx, int i) {
    const Shape& s = ctx.shape(i);
    if (s.known() && !(s.ndim == 1 && s.dim[0] == 1))
        ctx.fail("index input {} must be a scalar, has shape {} (array indices need the vector-indexing operators)", i,
                 shape_string(s));
    if (ctx.dtype(i).valid && ctx.dtype(i).type == DTypeEnum::Bool)
        ctx.fail("index input {} is Bool, which MegEngine can not read as an index", i);
    double x = 0;
    if (ctx.small_value(i, std::span<double>(&x, 1)) != 1) return std::nullopt;
    int64_t index;
    if (!whole_number(x, index)) ctx.fail("index input {} holds {}, not an integer of 64 bits", i, x);
    return index;
}

// The input after the slices (and, for the Subtensor family, the scalar
// indices as slices of 1), as a strided view of the input.
// On the stack: a Subtensor of a shape vector allocated its strides, axes and
// item order four times, most of inferring one.
struct View {
    Shape shape;
    std::array<int64_t, kMaxNdim> strides{};
    int64_t base = 0;
    std::array<uint32_t, kMaxNdim> idx_axes{};  // normalized axes of the index items
    uint32_t nr_idx_axes = 0;

    std::span<const int64_t> view_strides() const { return {strides.data(), shape.ndim}; }
};

enum class IdxMode {
    kScalarFake,  // Subtensor's shape inference: an unknown index reads as 0
    kScalarReal,  // the index values are needed
    kVector,      // vector indices: not applied here
};

// false when a value the view needs is not known. `items` are parse_items'
// (fewer than kMaxNdim).
bool apply_items(const InferContext& ctx, std::span<const IndexItem> items, const Shape& in, IdxMode mode, View& out) {
    out.shape = in;
    indexing::contiguous_strides(in, out.strides);
    out.base = 0;
    out.nr_idx_axes = 0;
    std::array<bool, kMaxNdim> seen{};
    std::array<const IndexItem*, kMaxNdim> order{};
    for (size_t k = 0; k < items.size(); ++k) order[k] = &items[k];
    // One item (most Subtensors) is in order already: std::sort is a call into
    // a kilobyte of code even for one element.
    if (items.size() > 1)
        std::sort(order.begin(), order.begin() + items.size(),
                  [](const IndexItem* l, const IndexItem* r) { return indexing::before_in_megengine_order(*l, *r); });
    bool known = true;
    for (size_t k = 0; k < items.size(); ++k) {
        const IndexItem& it = *order[k];
        auto axis = normalize_axis(it.axis, in.ndim);
        if (!axis) ctx.fail("index item axis {} is out of range for an input of {} dims", it.axis, in.ndim);
        if (seen[*axis]) ctx.fail("two index items name axis {} of an input of {} dims", *axis, in.ndim);
        seen[*axis] = true;
        std::optional<int64_t> b, e, s;
        bool scalar = false;
        if (it.idx >= 0) {
            out.idx_axes[out.nr_idx_axes++] = *axis;
            if (mode == IdxMode::kVector) continue;
            scalar = true;
            std::optional<int64_t> v = scalar_index(ctx, it.idx);
            if (!v) {
                if (mode == IdxMode::kScalarReal) known = false;
                v = 0;
            }
            b = *v;
            if (*v != -1) e = *v + 1;
        } else {
            for (auto [pos, slot] : {std::pair{it.begin, &b}, std::pair{it.end, &e}, std::pair{it.step, &s}}) {
                if (pos < 0) continue;
                *slot = scalar_index(ctx, pos);
                if (!*slot) known = false;
            }
        }
        if (!known) continue;
        indexing::AxisSlice sl;
        if (const indexing::SliceFault fault =
                indexing::apply_slice(out.shape.dim[*axis], b, e, s, scalar, sl);
            fault != indexing::SliceFault::None)
            ctx.fail("axis {}: {}", *axis,
                     indexing::slice_error(fault, out.shape.dim[*axis], b, e, s, scalar));
        out.base += out.strides[*axis] * sl.begin;
        out.strides[*axis] *= sl.step;
        out.shape.dim[*axis] = sl.size;
    }
    return known;
}

// The view without the scalar-indexed axes.
void remove_idx_axes(View& v) {
    indexing::remove_axes(v.shape, v.strides, std::span<const uint32_t>(v.idx_axes.data(), v.nr_idx_axes));
}

// A slice bound the common case below can use: a scalar input of known
// integral value, not Bool. Anything else (unknown, or what scalar_index
// refuses) is nullopt, and the general rule decides.
std::optional<int64_t> plain_bound(const InferContext& ctx, size_t i) {
    const Shape& s = ctx.shape(i);
    const DType d = ctx.dtype(i);
    if (!(s.ndim == 1 && s.dim[0] == 1) || !d.valid || d.type == DTypeEnum::Bool) return std::nullopt;
    double x = 0;
    int64_t index;
    if (ctx.small_value(i, std::span<double>(&x, 1)) != 1 || !whole_number(x, index)) return std::nullopt;
    return index;
}

// Most Subtensors of a graph: slices only (x[:, a:b]) with known bounds, of a
// known shape whose value can not be known. Each item sizes its own axis, so
// neither MegEngine's item order nor the strided view the general rule builds
// for values matters. Writes what the general rule would and returns true;
// anything else (an index item, an unknown bound, a rule broken) returns
// false having written nothing, and the general rule refuses it in
// MegEngine's order. (The general rule for this case was the costliest
// operator of a transformer's inference, six times an Elemwise.)
bool infer_plain_slices(InferContext& ctx) {
    const Shape& in = ctx.shape(0);
    if (!in.known() || ctx.may_have_value(0)) return false;
    const auto* masks = std::get_if<std::vector<IndexDescMaskItem>>(&ctx.field(kIndexItems));
    if (!masks || masks->empty() || masks->size() >= kMaxNdim) return false;
    size_t next = 1;
    for (const IndexDescMaskItem& m : *masks) {
        if (m.idx || !(m.begin || m.end || m.step)) return false;
        next += size_t{m.begin} + m.end + m.step;
    }
    if (next != ctx.nr_inputs()) return false;
    Shape out = in;
    uint32_t seen = 0;
    next = 1;
    for (const IndexDescMaskItem& m : *masks) {
        const auto axis = normalize_axis(m.axis, in.ndim);
        if (!axis || (seen >> *axis & 1)) return false;
        seen |= 1u << *axis;
        std::optional<int64_t> bound[3];  // begin, end, step (index_items' order)
        for (int k = 0; k < 3; ++k) {
            if (!(k == 0 ? m.begin : k == 1 ? m.end : m.step)) continue;
            bound[k] = plain_bound(ctx, next++);
            if (!bound[k]) return false;
        }
        indexing::AxisSlice sl;
        if (indexing::apply_slice(in.dim[*axis], bound[0], bound[1], bound[2], false, sl) !=
            indexing::SliceFault::None)
            return false;
        out.dim[*axis] = sl.size;
    }
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

// Subtensor: slices and scalar indices; the shape needs the slice values only.
[[gnu::hot]] void subtensor(InferContext& ctx) {
    ctx.expect_inputs(1, 1 << 30);
    if (infer_plain_slices(ctx)) return;
    const DType d = ctx.dtype(0);
    const Items items = parse_items(ctx, 1);
    const Shape& in = ctx.shape(0);
    if (!in.known()) {
        ctx.set_output(0, d, Shape{});
        return;
    }
    // With every index known, the real view is the one the shape inference
    // would find (it reads an unknown index as 0, and there is none): one walk
    // over the items, not two.
    const StaticValue* v = ctx.value(0);
    View view;
    if (v && v->elems.size() == in.elements() && apply_items(ctx, items.all(), in, IdxMode::kScalarReal, view)) {
        remove_idx_axes(view);
        ctx.set_output_value(0, d, view.shape,
                             indexing::gather_view(v->elems, view.shape, view.view_strides(), view.base));
        return;
    }
    if (!apply_items(ctx, items.all(), in, IdxMode::kScalarFake, view)) {
        ctx.set_output(0, d, Shape{});
        return;
    }
    remove_idx_axes(view);
    ctx.set_output(0, d, view.shape);
}

void need_same_dtype(const InferContext& ctx, size_t data, size_t value) {
    const DType a = ctx.dtype(data), b = ctx.dtype(value);
    if (a.valid && b.valid && a != b)
        ctx.fail("the value (input {}) is {}, the data (input {}) is {}: they must have one dtype", value,
                 dtype_string(b), data, dtype_string(a));
}

// Set/IncrSubtensor: the output is input 0; with every index value known the
// value's shape must equal the indexed part exactly (ModifySubtensorImplHelper).
void modify_subtensor(InferContext& ctx, bool incr) {
    ctx.expect_inputs(2, 1 << 30);
    need_same_dtype(ctx, 0, 1);
    const DType d = ctx.dtype(0);
    const Items items = parse_items(ctx, 2);
    const Shape& in = ctx.shape(0);
    View view;
    if (!in.known() || !apply_items(ctx, items.all(), in, IdxMode::kScalarReal, view)) {
        ctx.set_output(0, d, in);
        return;
    }
    remove_idx_axes(view);
    const Shape& vs = ctx.shape(1);
    if (vs.known() && !(vs == view.shape))
        ctx.fail("the value (input 1) has shape {}, the indexed part of input 0 has {}", shape_string(vs),
                 shape_string(view.shape));
    const StaticValue* x = ctx.value(0);
    const StaticValue* y = ctx.value(1);
    const bool arith_ok = !incr || (d.valid && !dtype_is_quantized(d.type));
    if (x && y && arith_ok && x->elems.size() == in.elements() && y->elems.size() == view.shape.elements()) {
        std::vector<double> out = x->elems;
        const auto offsets = indexing::view_offsets(view.shape, view.view_strides(), view.base);
        for (size_t j = 0; j < offsets.size(); ++j) {
            double& dst = out[static_cast<size_t>(offsets[j])];
            dst = incr ? store_as(d.type, dst + y->elems[j]) : y->elems[j];
        }
        ctx.set_output_value(0, d, in, std::move(out));
        return;
    }
    ctx.set_output(0, d, in);
}

void set_subtensor(InferContext& ctx) { modify_subtensor(ctx, false); }
void incr_subtensor(InferContext& ctx) { modify_subtensor(ctx, true); }

// --- vector indexing ---------------------------------------------------------

enum class VecKind { kMultiAxis, kMesh, kBatchedMesh };

struct VecIndex {
    uint32_t axis;
    int input;
};

// The index items of a vector-indexing operator, as MegDNN receives them (the
// reverse of the sorted order: ascending for axes of one sign).
std::vector<VecIndex> vector_indices(std::span<const IndexItem> items, uint32_t ndim) {
    std::vector<VecIndex> out;
    for (size_t k : indexing::megdnn_order(items)) {
        const IndexItem& it = items[k];
        if (it.idx < 0) continue;
        out.push_back({*normalize_axis(it.axis, ndim), it.idx});
    }
    return out;
}

// indexing_helper.cpp:115: vector indices are Int32.
void need_int32_indices(const InferContext& ctx, std::span<const IndexItem> items) {
    for (const IndexItem& it : items)
        if (it.idx >= 0 && ctx.dtype(it.idx).valid && ctx.dtype(it.idx) != kInt32)
            ctx.fail("the index for axis {} (input {}) is {}; indices must be Int32", it.axis, it.idx,
                     dtype_string(ctx.dtype(it.idx)));
}

// The output shape MegDNN deduces from the sliced data and the index shapes;
// nullopt when an index shape is not known.
std::optional<Shape> vector_indexed_shape(const InferContext& ctx, VecKind kind, const Shape& data,
                                          const std::vector<VecIndex>& idx) {
    for (const VecIndex& i : idx)
        if (!ctx.shape(i.input).known()) return std::nullopt;
    if (idx.empty()) return data;  // slices only: a copy of the sliced data
    if (kind == VecKind::kMultiAxis) {
        // indexing_multi_axis_vec.cpp deduce_layout_fwd: the indexed axes go;
        // the broadcast index shape comes in at the first indexed axis when
        // they are consecutive, else at the front.
        std::vector<Shape> shapes;
        int64_t prev = -1;
        for (const VecIndex& i : idx) {
            if (static_cast<int64_t>(i.axis) <= prev)
                ctx.fail("index axes reach MegDNN as {} after {}; they must ascend (MegEngine orders items by the raw "
                         "axis, negative ones first)",
                         i.axis, prev);
            prev = i.axis;
            shapes.push_back(ctx.shape(i.input));
        }
        std::optional<Shape> ishape = broadcast_shapes(shapes);
        if (!ishape) ctx.fail("the index shapes do not broadcast together");
        bool contiguous = true;
        for (size_t k = 1; k < idx.size(); ++k) contiguous &= idx[k].axis == idx[k - 1].axis + 1;
        const uint32_t at = contiguous ? idx[0].axis : 0;
        std::vector<uint32_t> rest;
        for (uint32_t a = 0; a < data.ndim; ++a)
            if (std::none_of(idx.begin(), idx.end(), [&](const VecIndex& i) { return i.axis == a; }))
                rest.push_back(data.dim[a]);
        if (rest.size() + ishape->ndim > kMaxNdim)
            ctx.fail("the indexed output would have {} dims; MegEngine allows at most {}", rest.size() + ishape->ndim,
                     kMaxNdim);
        std::vector<uint32_t> dims(rest.begin(), rest.begin() + at);
        dims.insert(dims.end(), ishape->dims().begin(), ishape->dims().end());
        dims.insert(dims.end(), rest.begin() + at, rest.end());
        return Shape::of(dims);
    }
    // mesh_indexing.cpp: each indexed axis takes the index length (1-dim
    // indices), or per batch (2-dim [batch, n], never on axis 0).
    Shape out = data;
    const bool batched = kind == VecKind::kBatchedMesh;
    for (const VecIndex& i : idx) {
        const Shape& s = ctx.shape(i.input);
        if (s.ndim != (batched ? 2u : 1u))
            ctx.fail("the index for axis {} has shape {}; it must be {}", i.axis, shape_string(s),
                     batched ? "a 2-dim [batch, n] matrix" : "a 1-dim vector");
        if (batched && i.axis == 0) ctx.fail("batched mesh indexing can not index axis 0 (the batch)");
        if (batched && s.dim[0] != data.dim[0])
            ctx.fail("the index for axis {} has {} batches, the data has {}", i.axis, s.dim[0], data.dim[0]);
        out.dim[i.axis] = s.dim[batched ? 1 : 0];
    }
    return out;
}

void vector_get(InferContext& ctx, VecKind kind) {
    ctx.expect_inputs(2, 1 << 30);
    const DType d = ctx.dtype(0);
    const Items items = parse_items(ctx, 1);
    need_int32_indices(ctx, items.all());
    const Shape& in = ctx.shape(0);
    View view;
    std::optional<Shape> out;
    if (in.known() && apply_items(ctx, items.all(), in, IdxMode::kVector, view))
        out = vector_indexed_shape(ctx, kind, view.shape, vector_indices(items.all(), in.ndim));
    ctx.set_output(0, d, out.value_or(Shape{}));
}

// The modifying forms: the output is input 0; the value must have the shape
// the indexing would give (MegDNN's check_exec at run time).
void vector_modify(InferContext& ctx, VecKind kind) {
    ctx.expect_inputs(3, 1 << 30);
    need_same_dtype(ctx, 0, 1);
    const DType d = ctx.dtype(0);
    const Items items = parse_items(ctx, 2);
    need_int32_indices(ctx, items.all());
    const Shape& in = ctx.shape(0);
    const Shape& vs = ctx.shape(1);
    View view;
    if (in.known() && vs.known() && apply_items(ctx, items.all(), in, IdxMode::kVector, view)) {
        const std::vector<VecIndex> idx = vector_indices(items.all(), in.ndim);
        if (std::optional<Shape> want = vector_indexed_shape(ctx, kind, view.shape, idx)) {
            if (kind == VecKind::kMultiAxis) {
                if (!(vs == *want))
                    ctx.fail("the value (input 1) has shape {}, indexing input 0 gives {}", shape_string(vs),
                             shape_string(*want));
            } else {
                // MeshBase::check_exec: same rank, the indexed dims match (and
                // the batch for the batched forms); other dims are not checked.
                if (vs.ndim != want->ndim)
                    ctx.fail("the value (input 1) has {} dims, input 0 has {}", vs.ndim, want->ndim);
                for (const VecIndex& i : idx)
                    if (vs.dim[i.axis] != want->dim[i.axis])
                        ctx.fail("the value (input 1) has {} at axis {}, the index gives {}", vs.dim[i.axis], i.axis,
                                 want->dim[i.axis]);
                if (kind == VecKind::kBatchedMesh && vs.dim[0] != view.shape.dim[0])
                    ctx.fail("the value (input 1) has batch {}, input 0 has {}", vs.dim[0], view.shape.dim[0]);
            }
        }
    }
    ctx.set_output(0, d, in);
}

void multi_axis_vec(InferContext& ctx) { vector_get(ctx, VecKind::kMultiAxis); }
void mesh(InferContext& ctx) { vector_get(ctx, VecKind::kMesh); }
void batched_mesh(InferContext& ctx) { vector_get(ctx, VecKind::kBatchedMesh); }
void modify_multi_axis_vec(InferContext& ctx) { vector_modify(ctx, VecKind::kMultiAxis); }
void modify_mesh(InferContext& ctx) { vector_modify(ctx, VecKind::kMesh); }
void modify_batched_mesh(InferContext& ctx) { vector_modify(ctx, VecKind::kBatchedMesh); }

// --- one-hot -----------------------------------------------------------------

// indexing_one_hot.cpp: axis in [0, ndim), ndim >= 2; the index has the data's
// shape without the axis; one element per index, the axis kept as 1.
Shape one_hot_checks(const InferContext& ctx, const Shape& src, int64_t axis) {
    if (ctx.dtype(1).valid && ctx.dtype(1) != kInt32)
        ctx.fail("the index (input 1) is {}; it must be Int32 (IndexingOneHot::make would insert a TypeCvt)",
                 dtype_string(ctx.dtype(1)));
    if (!src.known()) return Shape{};
    if (src.ndim < 2) ctx.fail("the data must have at least 2 dims, has {}", src.ndim);
    if (axis < 0 || axis >= src.ndim) ctx.fail("axis {} is out of range [0, {})", axis, src.ndim);
    const Shape& is = ctx.shape(1);
    Shape want;
    for (uint32_t a = 0; a < src.ndim; ++a)
        if (a != axis) want.dim[want.ndim++] = src.dim[a];
    if (is.known() && !(is == want))
        ctx.fail("the index (input 1) has shape {}; for axis {} it must be {}", shape_string(is), axis,
                 shape_string(want));
    Shape out = src;
    out.dim[axis] = 1;
    return out;
}

void one_hot(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    ctx.set_output(0, ctx.dtype(0), one_hot_checks(ctx, ctx.shape(0), ctx.int_field("axis")));
}

void set_one_hot(InferContext& ctx) {
    ctx.expect_inputs(3, 3);
    need_same_dtype(ctx, 0, 2);
    const Shape sub = one_hot_checks(ctx, ctx.shape(0), ctx.int_field("axis"));
    const Shape& vs = ctx.shape(2);
    if (sub.known() && vs.known() && !(vs == sub))
        ctx.fail("the value (input 2) has shape {}; it must be {}", shape_string(vs), shape_string(sub));
    ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
}

}  // namespace

std::span<const InferRuleEntry> indexing_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Subtensor", subtensor},
        {"SetSubtensor", set_subtensor},
        {"IncrSubtensor", incr_subtensor},
        {"IndexingMultiAxisVec", multi_axis_vec},
        {"IndexingSetMultiAxisVec", modify_multi_axis_vec},
        {"IndexingIncrMultiAxisVec", modify_multi_axis_vec},
        {"MeshIndexing", mesh},
        {"BatchedMeshIndexing", batched_mesh},
        {"IncrMeshIndexing", modify_mesh},
        {"SetMeshIndexing", modify_mesh},
        {"BatchedIncrMeshIndexing", modify_batched_mesh},
        {"BatchedSetMeshIndexing", modify_batched_mesh},
        {"IndexingOneHot", one_hot},
        {"IndexingSetOneHot", set_one_hot},
    };
    return kRules;
}

}  // namespace mgedump::ir
