// Inference rules: misc family (see ir/infer/rules.h): forwarding and marking
// operators (src/opr/impl/utility.cpp, io.cpp), random numbers (rand.cpp),
// index-producing operators (misc.cpp, standalone/nms_opr.cpp) and tensor
// generators (tensor_gen.cpp).
#include <algorithm>
#include <memory>

#include "ir/infer/nn_common.h"
#include "ir/infer/rules.h"

namespace mgedump::ir {
namespace {

const DType kInt32 = DType::of(DTypeEnum::Int32);

DType dtype_param(const InferContext& ctx, FieldName field) {
    const std::string_view name = ctx.enum_field(field);
    auto t = dtype_from_name(name);
    if (!t) ctx.fail("param {} = {} is not a dtype mgedump knows", field, name);
    return DType::of(*t);
}

// ---------------------------------------------------------------- forwarding

// ForwardInputToOutput (src/opr/impl/internal/identical_fwd.cpp:145) and Copy
// (io.cpp:773): input 0's shape, and its value when that is known.
void forward_input(InferContext& ctx) { ctx.set_output_kept(0, ctx.dtype(0), ctx.shape(0), ctx.value(0)); }

// PersistentOutputStorage (SingleCNIOSameShapeOperatorNodeBase): the shape, but
// no value inference.
void same_shape(InferContext& ctx) { ctx.set_output(0, ctx.dtype(0), ctx.shape(0)); }

// MarkDynamicVar (utility.cpp:233) registers no static inference: its output's
// shape is only known at run time.
void mark_dynamic(InferContext& ctx) { ctx.set_output(0, ctx.dtype(0), Shape{}); }

void assert_equal(InferContext& ctx) {
    // Built, AssertEqual keeps OperatorNodeBase::init_output_dtype
    // (operator_node.cpp:297): expect, get and error of one dtype.
    const DType d = ctx.dtype(0);
    for (size_t i = 1; i < ctx.nr_inputs(); ++i)
        if (d.valid && ctx.dtype(i).valid && !(ctx.dtype(i) == d))
            ctx.fail("input {} is {}, input 0 (expect) is {}: every input must have one dtype", i,
                     dtype_string(ctx.dtype(i)), dtype_string(d));
    // utility.cpp:460 scn_do_execute_finish, when the graph runs: the error
    // input is a scalar.
    if (ctx.nr_inputs() == 3 && ctx.shape(2).known() && !(ctx.shape(2) == Shape::of({1})))
        ctx.fail_when_run("the error input (input 2) must be a scalar, got {}", shape_string(ctx.shape(2)));
    forward_input(ctx);
}

// ---------------------------------------------------------------- random numbers

// rand.cpp:47 RNG with shape: the output shape is the shape input's value, the
// dtype the param's; MegDNN check_exec (dnn/src/common/rng.cpp:114) wants a float.
void rng_by_shape(InferContext& ctx) {
    const DType d = dtype_param(ctx, "dtype");
    if (!dtype_is_float(d.type)) ctx.fail("generates float dtypes only, dtype is {}", dtype_string(d));
    ctx.set_output(0, d, nn::shape_from_value(ctx, 0).value_or(Shape{}));
}

void dropout(InferContext& ctx) {
    // rand.cpp:375: the output as the input, the mask Byte with
    // get_mask_size_in_bytes elements (naive kernels: one per input element).
    const DType d = ctx.dtype(0);
    if (d.valid && !dtype_is_float(d.type)) ctx.fail("needs a float input, input 0 is {}", dtype_string(d));
    const Shape& s = ctx.shape(0);
    ctx.set_output(0, d, s);
    ctx.set_output(1, DType::of(DTypeEnum::Byte),
                   s.known() ? Shape::of({static_cast<uint32_t>(s.elements())}) : Shape{});
}

// ---------------------------------------------------------------- index producers

void argmxx(InferContext& ctx) {
    // dnn/src/common/argmxx/opr_impl.cpp: the axis (not normalised) kept as 1, Int32 out.
    const Shape& s = ctx.shape(0);
    const int64_t axis = ctx.int_field("axis");
    Shape os;
    if (s.known()) {
        if (axis < 0 || axis >= static_cast<int64_t>(s.ndim))
            ctx.fail("axis {} must be in [0, {}) for a {}-dim input", axis, s.ndim, s.ndim);
        os = s;
        os[static_cast<size_t>(axis)] = 1;
    }
    ctx.set_output(0, kInt32, os);
}

void argsort(InferContext& ctx) {
    // dnn/src/common/argsort.cpp: 2-dim input; values as input, Int32 indices.
    const Shape& s = ctx.shape(0);
    if (s.known() && s.ndim != 2) ctx.fail("needs a 2-dim input, got {}", shape_string(s));
    ctx.set_output(0, ctx.dtype(0), s);
    ctx.set_output(1, kInt32, s);
}

void top_k(InferContext& ctx) {
    const bool kth_only = ctx.enum_field("mode") == "KTH_ONLY";
    // KTH_ONLY's index output is an empty volatile var a file leaves unnumbered.
    nn::expect_outputs(ctx, kth_only ? 1 : 2, 2, kth_only ? "TopK KTH_ONLY" : "TopK with indices");
    // misc.cpp:481 init_output_dtype: k is Int32.
    const DType kd = ctx.dtype(1);
    if (kd.valid && !(kd == kInt32)) ctx.fail("k (input 1) must be Int32, got {}", dtype_string(kd));
    const Shape& s = ctx.shape(0);
    if (s.known() && s.ndim != 2) ctx.fail("top-k input must be 2-dim, got {}", shape_string(s));
    const Shape& ks = ctx.shape(1);
    if (ks.known() && !(ks == Shape::of({1}))) ctx.fail("k must be a scalar, got {}", shape_string(ks));
    // dnn/src/common/topk.cpp deduce_layout: [N] for KTH_ONLY, else [N, min(|k|, M)].
    Shape os;
    if (const StaticValue* kv = ctx.value(1); kv && kv->elems.size() == 1) {
        const int64_t k = static_cast<int64_t>(kv->elems[0]);
        if (k == 0) ctx.fail("k must not be 0");
        if (s.known())
            os = kth_only ? Shape::of({s[0]})
                          : Shape::of({s[0], static_cast<uint32_t>(std::min<int64_t>(k < 0 ? -k : k, s[1]))});
    }
    ctx.set_output(0, ctx.dtype(0), os);
    if (ctx.nr_outputs() == 2) ctx.set_output(1, kInt32, kth_only ? Shape{} : os);
}

void cond_take(InferContext& ctx) {
    // dnn/src/common/cond_take/opr_impl.cpp: same-shape data and mask, eps > 0;
    // outputs (data's dtype, Int32 indices) whose length is only known at run time.
    const Shape &d = ctx.shape(0), &m = ctx.shape(1);
    if (d.known() && m.known() && !(d == m))
        ctx.fail("data {} and mask {} must have the same shape", shape_string(d), shape_string(m));
    const double eps = ctx.float_field("eps");
    if (!(eps > 0)) ctx.fail("eps must be positive, got {}", eps);
    ctx.set_output(0, ctx.dtype(0), Shape{});
    ctx.set_output(1, kInt32, Shape{});
}

// NMSKeep (src/opr/impl/standalone/nms_opr.cpp): Float32 boxes [batch, n, 4]
// (asserted in the constructor, the shape in get_output_var_shape); the kept
// box positions, Int32 [batch, max_output], and how many were kept, Int32
// [batch]. max_output 0 is refused: the CPU kernel stops only when the count
// reaches max_output, so with 0 it writes past the indices' end.
void nms_keep(InferContext& ctx) {
    if (ctx.dtype(0).valid && ctx.dtype(0).type != DTypeEnum::Float32)
        ctx.fail("boxes must be Float32 (NMSKeep's constructor asserts it), got {}",
                 dtype_name(ctx.dtype(0).type));
    const int64_t max_output = ctx.int_field("max_output");
    if (max_output < 1) ctx.fail("max_output must be at least 1, got {}", max_output);
    const Shape& boxes = ctx.shape(0);
    if (!boxes.known()) {
        ctx.set_output(0, kInt32, Shape{});
        ctx.set_output(1, kInt32, Shape{});
        return;
    }
    if (boxes.ndim != 3 || boxes[2] != 4) ctx.fail("boxes {} must be [batch, boxes, 4]", shape_string(boxes));
    ctx.set_output(0, kInt32, Shape::of({boxes[0], static_cast<uint32_t>(max_output)}));
    ctx.set_output(1, kInt32, Shape::of({boxes[0]}));
}

void cumsum(InferContext& ctx) {
    // misc.cpp:208 normalises a negative axis; dnn/src/common/cumsum.cpp wants it < ndim.
    const Shape& s = ctx.shape(0);
    const int64_t axis = ctx.int_field("axis");
    if (s.known() && !normalize_axis(axis, s.ndim))
        ctx.fail("axis {} is out of range for a {}-dim input", axis, s.ndim);
    ctx.set_output(0, ctx.dtype(0), s);
}

// ---------------------------------------------------------------- generators

void linspace(InferContext& ctx) {
    // tensor_gen.cpp:66: the shape is num's value, the dtype Float32; start and
    // stop must be scalars (scn_do_execute).
    for (size_t i = 0; i < 2; ++i)
        if (ctx.shape(i).known() && !(ctx.shape(i) == Shape::of({1})))
            ctx.fail("{} (input {}) must be a scalar, got {}", i ? "stop" : "start", i, shape_string(ctx.shape(i)));
    ctx.set_output(0, DType::of(DTypeEnum::Float32), nn::shape_from_value(ctx, 2).value_or(Shape{}));
}

void eye(InferContext& ctx) {
    // tensor_gen.cpp:150: a 1- or 2-element shape; one element means square.
    Shape os;
    if (auto s = nn::shape_from_value(ctx, 0)) {
        if (s->ndim == 0 || s->ndim > 2) ctx.fail("the shape of Eye must have 1 or 2 dims, got {}", s->ndim);
        os = s->ndim == 1 ? Shape::of({(*s)[0], (*s)[0]}) : *s;
    }
    ctx.set_output(0, dtype_param(ctx, "dtype"), os);
}

void alloc(InferContext& ctx) {
    // tensor_gen.cpp:28: the shape input's value, the param's dtype.
    ctx.set_output(0, dtype_param(ctx, "dtype"), nn::shape_from_value(ctx, 0).value_or(Shape{}));
}

}  // namespace

std::span<const InferRuleEntry> misc_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Identity", forward_input},
        {"Copy", forward_input},
        {"MarkDynamicVar", mark_dynamic},
        {"MarkNoBroadcastElemwise", forward_input},
        {"VirtualDep", forward_input},
        {"PersistentOutputStorage", same_shape},
        {"AssertEqual", assert_equal},
        {"Dropout", dropout},
        {"UniformRNG", rng_by_shape},
        {"GaussianRNG", rng_by_shape},
        {"Argmax", argmxx},
        {"Argmin", argmxx},
        {"Argsort", argsort},
        {"TopK", top_k},
        {"CondTake", cond_take},
        {"NMSKeep", nms_keep},
        {"Cumsum", cumsum},
        {"Linspace", linspace},
        {"Eye", eye},
        {"Alloc", alloc},
    };
    return kRules;
}

}  // namespace mgedump::ir
