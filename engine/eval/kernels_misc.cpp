// Kernels of the misc family: tensor generators (src/opr/impl/tensor_gen.cpp:
// Alloc, Linspace, Eye), random numbers (rand.cpp: UniformRNG, GaussianRNG,
// Dropout — MegDNN's own generator, engine/eval/misc_random.h), CondTake
// (misc.cpp), NMSKeep (engine/eval/misc_nms.cpp) and MultiHeadAttn
// (engine/eval/misc_attention.cpp).
#include <algorithm>
#include <cmath>

#include "engine/eval/elements.h"
#include "engine/eval/indexing_items.h"
#include "engine/eval/kernels.h"
#include "engine/eval/misc_attention.h"
#include "engine/eval/misc_nms.h"
#include "engine/eval/misc_random.h"
#include "engine/eval/shape_views.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

// Alloc's output is uninitialized memory in MegEngine; the evaluator's fresh
// outputs are zeros (what MegEngine's CPU allocator also happened to give in the
// oracle's run). Nothing should depend on the contents.
void alloc(KernelContext& ctx) { output_shape(ctx, 0); }

// Float32 start + i·step, step = (stop − start) / (num − 1, or num without the
// endpoint; at least 1), in double.
void linspace(KernelContext& ctx) {
    const double start = to_doubles(ctx.in(0))[0], stop = to_doubles(ctx.in(1))[0];
    output_shape(ctx, 0);
    std::span<float> out = ctx.out(0).mutable_data<float>();
    const uint64_t n = out.size();
    const bool endpoint = ctx.params().int_field("endpoint") != 0;
    // (num − 1) in size_t, as MegDNN computes it (no elements when num is 0).
    const double parts = static_cast<double>(endpoint ? n - 1 : n);
    const double step = (stop - start) / std::max(parts, 1.0);
    for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<float>(start + static_cast<double>(i) * step);
}

// Ones on diagonal k (above the main one for k > 0), zeros elsewhere.
void eye(KernelContext& ctx) {
    const ir::Shape& s = output_shape(ctx, 0);
    const ir::DType d = ctx.out(0).dtype();
    if (!is_computing_dtype(d.type) && d.type != E::Bool)
        ctx.fail("MegDNN's Eye kernel does not generate {}", ir::dtype_name(d.type));
    const int64_t m = s.dim[0], n = s.dim[1], k = ctx.params().int_field("k");
    std::vector<double> v(static_cast<size_t>(m * n), 0.0);
    for (int64_t i = std::max<int64_t>(-k, 0); i < std::min(n - k, m); ++i)
        v[static_cast<size_t>(i * n + i + k)] = 1;
    ctx.out(0) = from_doubles(d, s, v);
}

uint64_t seed_of(const KernelContext& ctx) { return static_cast<uint64_t>(ctx.params().int_field("seed")); }

void uniform_rng(KernelContext& ctx) {
    output_shape(ctx, 0);
    Xoroshiro128plus rng(seed_of(ctx));
    fill_uniform(rng, ctx.out(0));
}

void gaussian_rng(KernelContext& ctx) {
    output_shape(ctx, 0);
    Xoroshiro128plus rng(seed_of(ctx));
    fill_gaussian(rng, ctx.out(0), static_cast<float>(ctx.params().float_field("mean")),
                  static_cast<float>(ctx.params().float_field("std")));
}

// DropoutForward: with drop_prob 0 every element is kept and scaled by 1, the
// identity; otherwise MegDNN's draws decide. The mask (output 1, Byte, one per
// element in the naive kernel) says which were kept.
void dropout(KernelContext& ctx) {
    const Tensor& in = ctx.in(0);
    if (!is_float_dtype(in.dtype().type))
        ctx.fail("MegDNN's Dropout takes float data, not {}", ir::dtype_name(in.dtype().type));
    std::vector<float> values = to_floats(in);
    std::vector<uint8_t> mask(values.size());
    Xoroshiro128plus rng(seed_of(ctx));
    eval::dropout(rng, static_cast<float>(ctx.params().float_field("drop_prob")), values, mask);
    ctx.out(0) = from_floats(in.dtype(), in.shape(), values);
    if (ctx.nr_outputs() > 1 && !ctx.out(1).empty()) {
        std::span<uint8_t> m = ctx.out(1).mutable_data<uint8_t>();
        std::copy_n(mask.begin(), std::min(m.size(), mask.size()), m.begin());
    }
}

// A float param as a ctype of `t` holds it: floats rounded to the dtype,
// integers truncated toward zero (a C++ conversion; wrapped into the type where
// it overflows), Bool as x != 0.
double in_ctype(E t, float x) {
    if (t == E::Float16) return half_to_float(float_to_half(x));
    if (t == E::BFloat16) return bfloat16_to_float(float_to_bfloat16(x));
    if (t == E::Float32) return x;
    if (t == E::Bool) return x != 0 ? 1 : 0;
    if (std::isnan(x)) return 0;
    const int64_t i = static_cast<int64_t>(std::clamp(std::trunc(static_cast<double>(x)), -0x1p62, 0x1p62));
    return with_storage_type(t, [&](auto tag) { return static_cast<double>(static_cast<decltype(tag)>(i)); });
}

// CondTake: the data elements (and their flat indices, Int32) where the mask
// satisfies `mode` against val; the outputs' length is known only now. MegDNN's
// predicate works in the mask's ctype: val (and eps) are converted to it first
// (integers truncate, Bool is val ≠ 0), and EQ/NEQ on floats are
// |val − x| < eps, on integers and Bool exact equality.
void cond_take(KernelContext& ctx) {
    const Tensor &data = ctx.in(0), &mask = ctx.in(1);
    const E dt = data.dtype().type, mt = mask.dtype().type;
    if (!is_computing_dtype(dt) && dt != E::Bool)
        ctx.fail("MegDNN's CondTake does not take {} data", ir::dtype_name(dt));
    if (!is_computing_dtype(mt) && mt != E::Bool)
        ctx.fail("MegDNN's CondTake does not take a {} mask", ir::dtype_name(mt));
    const std::string_view mode = ctx.params().enum_field("mode");
    const float val_param = static_cast<float>(ctx.params().float_field("val"));
    const float eps_param = static_cast<float>(ctx.params().float_field("eps"));
    const bool is_float = is_float_dtype(mt);
    const double val = in_ctype(mt, val_param), eps = in_ctype(mt, eps_param);
    auto equal = [&](double x) {
        if (!is_float) return x == val;
        // val − x in float, rounded to the ctype, then fabsf.
        return std::fabs(in_ctype(mt, static_cast<float>(val) - static_cast<float>(x))) < eps;
    };
    bool (*cmp)(double, double) = nullptr;
    if (mode == "LT")
        cmp = [](double x, double v) { return x < v; };
    else if (mode == "LEQ")
        cmp = [](double x, double v) { return x <= v; };
    else if (mode == "GT")
        cmp = [](double x, double v) { return x > v; };
    else if (mode == "GEQ")
        cmp = [](double x, double v) { return x >= v; };
    else if (mode != "EQ" && mode != "NEQ")
        ctx.fail("mode {} is not one of MegDNN's CondTake modes", mode);

    const std::vector<double> m = to_doubles(mask);
    std::vector<int64_t> picked;
    for (size_t i = 0; i < m.size(); ++i) {
        const bool take = cmp ? cmp(m[i], val) : (mode == "EQ") == equal(m[i]);
        if (take) picked.push_back(static_cast<int64_t>(i));
    }
    const ir::Shape out_shape = ir::Shape::of({static_cast<uint32_t>(picked.size())});
    ctx.out(0) = Tensor(data.dtype(), out_shape);
    gather_at(data, picked, ctx.out(0), element_bytes(ctx, data.dtype()));
    ctx.out(1) = Tensor(ir::DType::of(E::Int32), out_shape);
    std::span<int32_t> idx = ctx.out(1).mutable_data<int32_t>();
    for (size_t j = 0; j < picked.size(); ++j) idx[j] = static_cast<int32_t>(picked[j]);
}

}  // namespace

std::span<const KernelEntry> misc_kernels() {
    static const KernelEntry kKernels[] = {
        {"Alloc", alloc},
        {"Linspace", linspace},
        {"Eye", eye},
        {"UniformRNG", uniform_rng},
        {"GaussianRNG", gaussian_rng},
        {"Dropout", dropout},
        {"CondTake", cond_take},
        {"NMSKeep", nms_keep},
        {"MultiHeadAttn", multi_head_attn},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
