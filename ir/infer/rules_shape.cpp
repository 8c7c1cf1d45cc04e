// Inference rules: shape family (see ir/infer/rules.h). Facts from
// src/opr/impl/tensor_manip.cpp (and .sereg.h): these operators only move
// elements, so each also propagates a known value (MegEngine registers a value
// inference for every one of them); that is how shape arithmetic on
// GetVarShape results gives static shapes.
#include <algorithm>
#include <array>
#include <cmath>
#include <variant>

#include "ir/infer/indexing_slices.h"
#include "ir/infer/rules.h"
#include "ir/infer/shape_util.h"
#include "ir/infer/values.h"

namespace mgedump::ir {
namespace {

// megdnn::param::OptionalAxisV1::INVALID_AXIS (= MAX_NDIM): "no axis".
constexpr int64_t kInvalidAxis = 7;

// No free axis for read_shape_value.
constexpr uint32_t kNoFreeAxis = ~uint32_t{0};

// The dims a shape tensor holds (cg::copy_tensor_value_to_shape): a 1-dim tensor
// of at most MAX_NDIM integral values, written into `out`; false (and `out`
// untouched) when its value is not known. `free_axis` (Reshape's unspecified
// axis) may hold anything: it is left 0. Written into the caller's Shape: an
// optional returned it through memory and the caller copied it out again.
bool read_shape_value(const InferContext& ctx, size_t i, uint32_t free_axis, Shape& out) {
    const Shape& s = ctx.shape(i);
    if (s.known() && s.ndim != 1) ctx.fail("the shape tensor (input {}) must be 1-dim, has shape {}", i, shape_string(s));
    if (s.known() && s.dim[0] > kMaxNdim)
        ctx.fail("the shape tensor (input {}) has {} elements; MegEngine allows at most {} dims", i, s.dim[0], kMaxNdim);
    // One slot more than a shape can have, to tell a longer value from an unknown one.
    std::array<double, kMaxNdim + 1> elems;
    const int n = ctx.small_value(i, elems);
    if (n < 0) {
        // Reached with a longer known value only when the tensor's length is
        // not known (a constant's always is, so nothing large is decoded here).
        if (ctx.value(i)) ctx.fail("the shape tensor (input {}) has more than {} elements", i, kMaxNdim);
        return false;
    }
    if (n > static_cast<int>(kMaxNdim))
        ctx.fail("the shape tensor (input {}) has {} elements; MegEngine allows at most {} dims", i, n, kMaxNdim);
    out.ndim = static_cast<uint32_t>(n);
    out.dim = {};
    for (uint32_t k = 0; k < out.ndim; ++k) {
        const double x = elems[k];
        int64_t dim;
        if (k == free_axis) continue;
        if (whole_number(x, dim) && dim >= 0 && dim <= 0xFFFFFFFF) [[likely]] {
            out.dim[k] = static_cast<uint32_t>(dim);
            continue;
        }
        if (x != std::floor(x)) ctx.fail("the shape tensor (input {}) holds {} at {}, not an integer", i, x, k);
        if (x < 0) ctx.fail("the shape tensor (input {}) holds a negative dim {} at {}", i, x, k);
        ctx.fail("the shape tensor (input {}) holds {} at {}; mgedump holds dims up to 2^32 - 1", i, x, k);
    }
    return true;
}

// GetVarShape: the (broadcast) shape of its inputs as an Int32 vector, or one
// dim of it with an axis; a known shape gives a known value.
void get_var_shape(InferContext& ctx) {
    ctx.expect_inputs(1, 1 << 30);
    const DType i32 = DType::of(DTypeEnum::Int32);
    const int64_t axis = ctx.int_field("axis");
    // tensor_manip.cpp:75: mgb_assert(abs(axis) <= MAX_NDIM).
    if (axis > kInvalidAxis || axis < -kInvalidAxis)
        ctx.fail("axis {} is out of range (|axis| <= {}; {} means the whole shape)", axis, kInvalidAxis, kInvalidAxis);
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.nr_inputs(); ++i) shapes.push_back(ctx.shape(i));
    // Several inputs: the shape of their Elemwise broadcast (update_cached_shape).
    std::optional<Shape> s = broadcast_shapes(shapes);
    if (!s) ctx.fail("the input shapes do not broadcast together");
    if (!s->known()) {
        ctx.set_output(0, i32, Shape{});
        return;
    }
    if (axis == kInvalidAxis) {
        std::vector<double> dims(s->dims().begin(), s->dims().end());
        ctx.set_output_value(0, i32, Shape::of({s->ndim}), std::move(dims));
        return;
    }
    auto a = normalize_axis(axis, s->ndim);
    if (!a) ctx.fail("axis {} is out of range for a shape of {} dims", axis, s->ndim);
    ctx.set_output_value(0, i32, Shape::of({1}), {static_cast<double>(s->dim[*a])});
}

// The fields the hot rules read, resolved once (context.h FieldRef).
const FieldRef kReshapeAxis = resolve_field("OptionalAxisV1", "axis");
const FieldRef kDimshufflePattern = resolve_field("Dimshuffle", "pattern");
const FieldRef kDimshuffleNdim = resolve_field("Dimshuffle", "ndim");

// The output value of an operator that only reinterprets the shape.
[[gnu::hot]] void same_elements(InferContext& ctx, DType d, const Shape& out) {
    const StaticValue* v = ctx.value(0);
    if (v && out.known() && out.elements() == v->elems.size())
        ctx.set_output_value(0, d, out, v->elems);
    else
        ctx.set_output(0, d, out);
}

// Most Reshapes of a graph: to a constant Int32 target of 1 to MAX_NDIM dims,
// none unspecified, of a known shape whose value can not be known. The target
// is read as stored (no doubles, as read_shape_value needs for computed
// values). Writes what the general rule below would and returns true; anything
// else (a negative dim, another element count, a computed target) returns
// false having written nothing, and the general rule refuses it or computes it.
// (A Reshape was a fifth of inferring a transformer.)
[[gnu::hot]] bool reshape_to_constant(InferContext& ctx, DType d) {
    const Shape& in = ctx.shape(0);
    const Shape& ts = ctx.shape(1);
    if (!in.known() || ctx.may_have_value(0) || ts.ndim != 1 || ts.dim[0] == 0 || ts.dim[0] > kMaxNdim) return false;
    std::array<int32_t, kMaxNdim> dims;
    const int n = small_int32_constant(ctx.graph(), ctx.input(1), dims);
    if (n != static_cast<int>(ts.dim[0])) return false;
    Shape out;
    out.ndim = static_cast<uint32_t>(n);
    for (int k = 0; k < n; ++k) {
        if (dims[k] < 0) return false;
        out.dim[k] = static_cast<uint32_t>(dims[k]);
    }
    if (out.elements() != in.elements()) return false;
    ctx.set_output(0, d, out);
    return true;
}

// Reshape: the target shape is input 1's value (unknown value: unknown shape);
// with an unspecified axis that dim is computed from the element count.
[[gnu::hot]] void reshape(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const DType d = ctx.dtype(0);
    // OptionalAxisV1's one field, from the operator table's copy
    // (OprTable::first_field): a Reshape was a fifth of a transformer's
    // operators, each a load through its param's heap vector.
    const int32_t first = ctx.first_field();
    const int64_t axis = first != kNoFirstField ? first : ctx.int_field(kReshapeAxis);
    if (axis == kInvalidAxis && reshape_to_constant(ctx, d)) return;
    const Shape& in = ctx.shape(0);
    uint32_t unspec = kNoFreeAxis;
    if (axis != kInvalidAxis) {
        const Shape& ts = ctx.shape(1);
        const int64_t tn = ts.known() && ts.ndim == 1 ? ts.dim[0] : (ctx.value(1) ? ctx.value(1)->elems.size() : -1);
        if (tn >= 0) {
            // tensor_manip.cpp:367: a negative axis counts from the target's end.
            const int64_t u = axis < 0 ? axis + tn : axis;
            if (u < 0 || u >= tn) ctx.fail("unspecified axis {} is out of range for a target shape of {} dims", axis, tn);
            unspec = static_cast<uint32_t>(u);
        }
    }
    Shape out;
    const bool target_known = read_shape_value(ctx, 1, unspec, out);
    if (target_known && out.ndim == 0) ctx.fail("the target shape is empty (0 dims)");
    if (!target_known || (axis != kInvalidAxis && !in.known())) {
        ctx.set_output(0, d, Shape{});
        return;
    }
    if (in.known()) {
        const uint64_t total = in.elements();
        if (unspec != kNoFreeAxis) {
            // tensor_manip.cpp:374: the other dims must divide the element count
            // (the free dim is 0 here).
            uint64_t rem = 1;
            for (uint32_t k = 0; k < out.ndim; ++k)
                if (k != unspec) rem *= out.dim[k];
            if (rem == 0 || total % rem != 0)
                ctx.fail("can not reshape {} elements to {} with axis {} unspecified", total, shape_string(out), unspec);
            out.dim[unspec] = static_cast<uint32_t>(total / rem);
        } else if (out.elements() != total) {
            // basic_types.cpp try_reshape: element counts must match. Building the
            // Reshape takes the target as its shape unchecked; the counts are
            // compared when the value is inferred, at once for a constant input,
            // else when the graph is compiled to run (a real MegEngine loaded a
            // Reshape of a recorded [6] to [2,2], and ran it on a [4]).
            if (ctx.value(0))
                ctx.fail("can not reshape {} ({} elements) to {} ({} elements)", shape_string(in), total,
                         shape_string(out), out.elements());
            ctx.fail_when_run("can not reshape {} ({} elements) to {} ({} elements)", shape_string(in), total,
                              shape_string(out), out.elements());
        }
    }
    same_elements(ctx, d, out);
}

// Broadcast: the target shape is input 1's value; the input must broadcast to it
// (TensorLayout::broadcast: right-aligned, each dim equal or 1; a [1] input
// broadcasts to anything).
void broadcast(InferContext& ctx) {
    ctx.expect_inputs(2, 2);
    const DType d = ctx.dtype(0);
    std::optional<Shape> target;
    if (Shape t; read_shape_value(ctx, 1, kNoFreeAxis, t)) target = t;
    if (target && target->ndim == 0) ctx.fail("the target shape is empty (0 dims)");
    if (!target) {
        ctx.set_output(0, d, Shape{});
        return;
    }
    const Shape& in = ctx.shape(0);
    if (!in.known()) {
        ctx.set_output(0, d, *target);
        return;
    }
    const bool scalar = in.ndim == 1 && in.dim[0] == 1;
    if (!scalar && target->ndim < in.ndim)
        ctx.fail("can not broadcast {} to {}: the target has fewer dims", shape_string(in), shape_string(*target));
    // Strides of the input as seen from the target's axes (0 where broadcast).
    const std::vector<int64_t> in_strides = indexing::contiguous_strides(in);
    std::vector<int64_t> strides(target->ndim, 0);
    for (uint32_t k = 0; k < target->ndim && !scalar; ++k) {
        const int64_t ik = static_cast<int64_t>(in.ndim) - static_cast<int64_t>(target->ndim) + k;
        if (ik < 0) continue;
        const uint32_t cur = in.dim[ik];
        if (cur == target->dim[k]) {
            strides[k] = in_strides[ik];
        } else if (cur != 1) {
            ctx.fail("can not broadcast {} to {}: dim {} is {}, neither {} nor 1", shape_string(in),
                     shape_string(*target), ik, cur, target->dim[k]);
        }
    }
    const StaticValue* v = ctx.value(0);
    if (v && target->elements() <= kMaxStaticValueElements)
        ctx.set_output_value(0, d, *target, indexing::gather_view(v->elems, *target, strides, 0));
    else
        ctx.set_output(0, d, *target);
}

// Dimshuffle: output axis k is input axis pattern[k], or a new axis of 1 for -1
// (tensor_manip.cpp:468-531).
[[gnu::hot]] void dimshuffle(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const DType d = ctx.dtype(0);
    const std::vector<int32_t>& pattern = ctx.ints_field(kDimshufflePattern);
    int64_t ndim = ctx.int_field(kDimshuffleNdim);
    if (pattern.empty()) ctx.fail("pattern is empty (the output would have no dims)");
    if (pattern.size() > kMaxNdim) ctx.fail("pattern has {} entries; MegEngine allows at most {}", pattern.size(), kMaxNdim);
    if (ndim == 0) {
        // Dimshuffle::make: ndim 0 means max(pattern) + 1.
        ndim = *std::max_element(pattern.begin(), pattern.end()) + 1;
    }
    for (int32_t p : pattern)
        if (p < -1 || p >= ndim) ctx.fail("pattern entry {} is out of range for ndim {} (-1 adds an axis)", p, ndim);
    const Shape& in = ctx.shape(0);
    if (!in.known()) {
        ctx.set_output(0, d, Shape{});
        return;
    }
    if (in.ndim != ndim) ctx.fail("ndim is {}, the input has {} dims", ndim, in.ndim);
    // On the stack (ndim <= kMaxNdim, checked above): three vectors per
    // Dimshuffle were most of its cost in a transformer.
    std::array<bool, kMaxNdim> used{};
    Shape out;
    out.ndim = static_cast<uint32_t>(pattern.size());
    for (uint32_t k = 0; k < out.ndim; ++k) {
        if (pattern[k] < 0) {
            out.dim[k] = 1;
        } else {
            used[pattern[k]] = true;
            out.dim[k] = in.dim[pattern[k]];
        }
    }
    for (uint32_t i = 0; i < in.ndim; ++i)
        if (!used[i] && in.dim[i] != 1) ctx.fail("pattern drops axis {} of size {} (only axes of 1 may go)", i, in.dim[i]);
    const StaticValue* v = ctx.value(0);
    if (!v || v->elems.size() != in.elements()) {
        ctx.set_output(0, d, out);
        return;
    }
    // The output is the input viewed with its strides permuted (-1: stride 0).
    std::array<int64_t, kMaxNdim> in_strides{}, strides{};
    indexing::contiguous_strides(in, in_strides);
    for (uint32_t k = 0; k < out.ndim; ++k)
        if (pattern[k] >= 0) strides[k] = in_strides[pattern[k]];
    ctx.set_output_value(0, d, out,
                         indexing::gather_view(v->elems, out, {strides.data(), out.ndim}, 0));
}

// AxisAddRemove: the descs in order; REMOVE takes an axis of 1 (the last dim of
// a [1] stays), ADD_1 inserts one (tensor_manip.cpp:553-600).
void axis_add_remove(InferContext& ctx) {
    ctx.expect_inputs(1, 1);
    const DType d = ctx.dtype(0);
    const auto& desc = std::get<std::vector<AxisDesc>>(ctx.field("desc"));
    if (desc.empty()) ctx.fail("desc is empty (MegEngine refuses an AxisAddRemove without descs)");
    if (desc.size() > 2 * kMaxNdim) ctx.fail("desc has {} entries; MegEngine allows at most {}", desc.size(), 2 * kMaxNdim);
    Shape s = ctx.shape(0);
    if (!s.known()) {
        ctx.set_output(0, d, Shape{});
        return;
    }
    for (const AxisDesc& a : desc) {
        if (a.method == AxisDescMethod::REMOVE) {
            auto axis = normalize_axis(a.axis, s.ndim);
            if (!axis) ctx.fail("can not remove axis {} from a shape of {} dims", a.axis, s.ndim);
            if (s.dim[*axis] != 1) ctx.fail("can not remove axis {} of size {} from {}", a.axis, s.dim[*axis], shape_string(s));
            if (s.ndim == 1) continue;
            for (uint32_t k = *axis; k + 1 < s.ndim; ++k) s.dim[k] = s.dim[k + 1];
            --s.ndim;
        } else {
            auto axis = normalize_axis(a.axis, s.ndim + 1);
            if (!axis) ctx.fail("can not add axis {} to a shape of {} dims", a.axis, s.ndim);
            if (s.ndim + 1 > kMaxNdim) ctx.fail("adding axis {} to {} exceeds {} dims", a.axis, shape_string(s), kMaxNdim);
            for (uint32_t k = s.ndim; k > *axis; --k) s.dim[k] = s.dim[k - 1];
            s.dim[*axis] = 1;
            ++s.ndim;
        }
    }
    same_elements(ctx, d, s);
}

// Concat: equal dtypes (OperatorNodeBase::init_output_dtype), equal ranks and
// equal dims off the axis; the axis dims add up (tensor_manip.cpp:1227).
void concat(InferContext& ctx) {
    ctx.expect_inputs(1, 1 << 30);
    DType d = ctx.dtype(0);
    for (size_t i = 1; i < ctx.nr_inputs(); ++i) {
        if (!d.valid || !ctx.dtype(i).valid) {
            d = DType::none();
            break;
        }
        if (ctx.dtype(i) != d)
            ctx.fail("input {} is {}, input 0 is {}: Concat takes one dtype (Concat::make would insert TypeCvt)", i,
                     dtype_string(ctx.dtype(i)), dtype_string(d));
    }
    for (size_t i = 0; i < ctx.nr_inputs(); ++i)
        if (!ctx.shape(i).known()) {
            ctx.set_output(0, d, Shape{});
            return;
        }
    const int64_t axis_raw = ctx.int_field("axis");
    Shape out = ctx.shape(0);
    auto axis_opt = normalize_axis(axis_raw, out.ndim);
    if (!axis_opt) ctx.fail("axis {} is out of range for inputs of {} dims", axis_raw, out.ndim);
    const uint32_t axis = *axis_opt;
    for (size_t i = 1; i < ctx.nr_inputs(); ++i) {
        const Shape& s = ctx.shape(i);
        if (s.ndim != out.ndim) ctx.fail("input {} has {} dims, input 0 has {}", i, s.ndim, out.ndim);
        for (uint32_t k = 0; k < s.ndim; ++k) {
            if (k == axis)
                out.dim[k] += s.dim[k];
            else if (s.dim[k] != out.dim[k])
                ctx.fail("input {} has {} at dim {}, input 0 has {} (concat axis {})", i, s.dim[k], k, out.dim[k], axis);
        }
    }
    // Value: blocks of each input's [axis..] slab, input after input.
    std::vector<double> elems;
    bool have_value = false;
    if (out.elements() <= kMaxStaticValueElements) {
        uint64_t outer = 1;
        for (uint32_t k = 0; k < axis; ++k) outer *= out.dim[k];
        std::vector<const StaticValue*> vals;
        for (size_t i = 0; i < ctx.nr_inputs(); ++i) vals.push_back(ctx.value(i));
        if (std::all_of(vals.begin(), vals.end(), [](auto* v) { return v != nullptr; })) {
            have_value = true;
            elems.reserve(out.elements());
            for (uint64_t o = 0; o < outer; ++o)
                for (size_t i = 0; i < vals.size(); ++i) {
                    const uint64_t block = ctx.shape(i).elements() / (outer ? outer : 1);
                    for (uint64_t k = 0; k < block; ++k) elems.push_back(vals[i]->elems[o * block + k]);
                }
        }
    }
    if (have_value)
        ctx.set_output_value(0, d, out, std::move(elems));
    else
        ctx.set_output(0, d, out);
}

// Split: one output per part-size input (scalars, values needed); the sizes
// must add up to the axis (tensor_manip.cpp:1000-1040).
void split(InferContext& ctx) {
    ctx.expect_inputs(2, 1 << 30);
    const DType d = ctx.dtype(0);
    const size_t parts = ctx.nr_inputs() - 1;
    if (ctx.nr_outputs() != parts) ctx.fail("has {} outputs for {} part sizes", ctx.nr_outputs(), parts);
    auto unknown = [&] {
        for (size_t k = 0; k < parts; ++k) ctx.set_output(k, d, Shape{});
    };
    std::vector<uint32_t> sizes;
    bool all_known = true;
    for (size_t p = 0; p < parts; ++p) {
        const Shape& s = ctx.shape(p + 1);
        if (s.known() && !(s.ndim == 1 && s.dim[0] == 1))
            ctx.fail("part size {} (input {}) must be a scalar, has shape {}", p, p + 1, shape_string(s));
        const StaticValue* v = ctx.value(p + 1);
        if (!v || v->elems.size() != 1) {
            all_known = false;
            continue;
        }
        const double x = v->elems[0];
        if (x != std::floor(x) || x < 0) ctx.fail("part size {} (input {}) is {}, not a size", p, p + 1, x);
        sizes.push_back(static_cast<uint32_t>(x));
    }
    const Shape& in = ctx.shape(0);
    if (!all_known || !in.known()) return unknown();
    const int64_t axis_raw = ctx.int_field("axis");
    auto axis_opt = normalize_axis(axis_raw, in.ndim);
    if (!axis_opt) ctx.fail("axis {} is out of range for an input of {} dims", axis_raw, in.ndim);
    const uint32_t axis = *axis_opt;
    uint64_t sum = 0;
    for (uint32_t s : sizes) sum += s;
    if (sum != in.dim[axis])
        ctx.fail("the part sizes sum to {}, but the input has {} at axis {}", sum, in.dim[axis], axis);
    const StaticValue* v = ctx.value(0);
    const std::vector<int64_t> strides = indexing::contiguous_strides(in);
    int64_t offset = 0;
    for (size_t p = 0; p < parts; ++p) {
        Shape out = in;
        out.dim[axis] = sizes[p];
        if (v && v->elems.size() == in.elements())
            ctx.set_output_value(p, d, out,
                                 indexing::gather_view(v->elems, out, strides, offset * strides[axis]));
        else
            ctx.set_output(p, d, out);
        offset += sizes[p];
    }
}

}  // namespace

std::span<const InferRuleEntry> shape_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Reshape", reshape},     {"Broadcast", broadcast}, {"Dimshuffle", dimshuffle},
        {"AxisAddRemove", axis_add_remove}, {"Concat", concat}, {"Split", split},
        {"GetVarShape", get_var_shape},
    };
    return kRules;
}

}  // namespace mgedump::ir
