// Inference rules: nn family (see ir/infer/rules.h): Reduce, Softmax, the matrix
// products here; the norms and MultiHeadAttn in nn_norm.cpp and nn_mha.cpp.
#include <algorithm>
#include <limits>

#include "ir/infer/nn_common.h"
#include "ir/infer/nn_norm.h"
#include "ir/infer/rules.h"
#include "ir/infer/values.h"

namespace mgedump::ir {
namespace {

using nn::all_shapes_known;
using nn::is_float;

// The fields the hot rules read, resolved once (context.h FieldRef).
const FieldRef kReduceMode = resolve_field("Reduce", "mode");
const FieldRef kReduceAxis = resolve_field("Reduce", "axis");
const FieldRef kReduceDataType = resolve_field("Reduce", "data_type");
const FieldRef kSoftmaxAxis = resolve_field("Softmax", "axis");
const FieldRef kComputeMode = resolve_field("MatrixMul", "compute_mode");
const FieldRef kFormat = resolve_field("MatrixMul", "format");
const FieldRef kTransposeA = resolve_field("MatrixMul", "transposeA");
const FieldRef kTransposeB = resolve_field("MatrixMul", "transposeB");
// The DEFAULT members the rules tell by number (namespace constants: as
// function-local statics each read paid a guard check).
const int64_t kReduceDefaultDataType = enum_member_value("ReduceDataType", "DEFAULT");
const int64_t kDefaultComputeMode = enum_member_value("MatrixMulV1ComputeMode", "DEFAULT");
const int64_t kDefaultFormat = enum_member_value("MatrixMulFormat", "DEFAULT");

// ---------------------------------------------------------------- Reduce

// The output dtype by data_type (basic_arith.cpp:1430 Reduce::Reduce; MegDNN
// dnn/src/common/reduce.cpp get_out_dtype and check_exec).
// DEFAULT (nearly every Reduce) is told by number; any other value is read by
// name, which also refuses one that is not a member.
DType reduce_dtype(const InferContext& ctx) {
    const DType in = ctx.dtype(0);
    if (ctx.int_field(kReduceDataType) == kReduceDefaultDataType) {
        if (in.valid && !dtype_is_float(in.type) && !dtype_is_integer(in.type) && !dtype_is_quantized(in.type))
            ctx.fail("data_type DEFAULT reduces float, integer or quantized inputs, not {}", dtype_string(in));
        return in;
    }
    const std::string_view data_type = ctx.enum_field(kReduceDataType);
    // Reduce::make rewrites the deprecated FLOAT_IO16xC32 to FLOAT_O16xC32.
    if (data_type == "FLOAT_O16xC32" || data_type == "FLOAT_IO16xC32") {
        if (in.valid && !dtype_is_float(in.type))
            ctx.fail("data_type {} needs a float input, not {}", data_type, dtype_string(in));
        return DType::of(DTypeEnum::Float16);
    }
    if (data_type == "FLOAT_O32xC32") return DType::of(DTypeEnum::Float32);
    const DTypeEnum need = data_type == "QUINT_I8xO32" ? DTypeEnum::Quantized8Asymm : DTypeEnum::QuantizedS8;
    if (!in.valid) return DType::none();
    if (in.type != need) ctx.fail("data_type {} needs a {} input, not {}", data_type, dtype_name(need), dtype_string(in));
    return DType::quantized(DTypeEnum::QuantizedS32, in.scale);
}

// Reduces `in` (shape `is`) to `os` (same ndim, reduced dims 1) as MegDNN's
// reduce kernels do, in double, rounded to the output dtype.
std::vector<double> reduce_values(const std::vector<double>& in, const Shape& is, const Shape& os,
                                  std::string_view mode, DTypeEnum out) {
    const size_t n = os.elements();
    std::vector<double> acc(n, 0.0);
    std::vector<bool> seen(n, false);
    std::vector<uint64_t> count(n, 0);
    std::array<uint32_t, kMaxNdim> idx{};
    for (double x : in) {
        uint64_t o = 0;
        for (uint32_t d = 0; d < is.ndim; ++d) o = o * os[d] + (os[d] == 1 ? 0 : idx[d]);
        double& a = acc[o];
        if (mode == "SUM" || mode == "MEAN") a += x;
        else if (mode == "SUM_SQR") a += x * x;
        else if (mode == "PRODUCT") a = seen[o] ? a * x : x;
        else if (mode == "MIN_") a = seen[o] ? std::min(a, x) : x;
        else a = seen[o] ? std::max(a, x) : x;
        seen[o] = true;
        ++count[o];
        for (uint32_t d = is.ndim; d-- > 0;) {
            if (++idx[d] < is[d]) break;
            idx[d] = 0;
        }
    }
    for (size_t o = 0; o < n; ++o) {
        if (mode == "MEAN" && count[o]) {
            // Integer outputs divide in their integer work type (reduce_helper.h MeanOp).
            acc[o] = dtype_is_integer(out) ? std::trunc(acc[o] / static_cast<double>(count[o]))
                                           : acc[o] / static_cast<double>(count[o]);
        } else if (mode == "PRODUCT" && !seen[o]) {
            acc[o] = 1;
        }
        acc[o] = store_as(out, acc[o]);
    }
    return acc;
}

[[gnu::hot]] void reduce(InferContext& ctx) {
    const int64_t axis = ctx.int_field(kReduceAxis);
    const std::string_view mode = ctx.enum_field(kReduceMode);
    // basic_arith.sereg.h OprMaker<Reduce>: one input needs an axis in [-7, 7);
    // Reduce::Reduce: an axis in range excludes a target shape and vice versa.
    const bool has_axis = axis >= -static_cast<int64_t>(kMaxNdim) && axis < static_cast<int64_t>(kMaxNdim);
    if (ctx.nr_inputs() == 1 && !has_axis)
        ctx.fail("needs an axis in [-{}, {}) or a target shape input; axis is {}", kMaxNdim, kMaxNdim, axis);
    if (ctx.nr_inputs() == 2 && has_axis)
        ctx.fail("could not specify both axis ({}) and a target shape input", axis);
    ctx.expect_inputs(1, 2);

    const DType in = ctx.dtype(0);
    if (in.valid && in.type == DTypeEnum::Quantized8Asymm &&
        (mode == "PRODUCT" || mode == "SUM_SQR" || mode == "SUM"))
        ctx.fail("mode {} is not supported on Quantized8Asymm input", mode);
    const DType out = reduce_dtype(ctx);

    const Shape& is = ctx.shape(0);
    Shape os;
    if (has_axis) {
        if (is.known()) {
            auto a = normalize_axis(axis, is.ndim);
            if (!a) ctx.fail("invalid axis {} for reduction of {}", axis, shape_string(is));
            os = is;
            os[*a] = 1;
        }
    } else if (auto t = nn::shape_from_value(ctx, 1)) {
        os = *t;
        if (os.ndim == 0) ctx.fail("target shape is empty");
        if (is.known()) {
            // Reduce::OutTensorShapeExtender and KernScheduler::init_shapes: the
            // target, padded with leading 1s (or a scalar), keeps or ones each dim.
            if (os.ndim > is.ndim)
                ctx.fail("target shape {} has more dims than the input {}", shape_string(os), shape_string(is));
            const bool scalar = os.ndim == 1 && os[0] == 1;
            for (uint32_t i = 0; i < is.ndim && !scalar; ++i) {
                const uint32_t off = is.ndim - os.ndim;
                const uint32_t o = i < off ? 1 : os[i - off];
                if (o != is[i] && o != 1)
                    ctx.fail("can not reduce {} to {}: dim {} is {}, must be {} or 1", shape_string(is),
                             shape_string(os), i, o, is[i]);
            }
        }
    }

    // Reduce::KernScheduler::execute (basic_arith.cpp): an empty input fills a
    // non-empty output for SUM, SUM_SQR, PRODUCT and MEAN, but MIN and MAX throw
    // "empty input is not allowed" when the graph runs. Known here only when both
    // shapes are; at run time the evaluator refuses it the same way. Where the
    // state accepts it (a file read), the output has its shape and no value.
    if (is.known() && os.known() && is.elements() == 0 && os.elements() != 0 &&
        (mode == "MIN_" || mode == "MAX_")) [[unlikely]] {
        ctx.fail_when_run(
            "{} of an empty input {} into a non-empty output {} (only SUM, SUM_SQR, PRODUCT and "
            "MEAN fill an empty input's output)",
            mode.substr(0, 3), shape_string(is), shape_string(os));
        return ctx.set_output(0, out, os);
    }

    // Reduce::init_output_static_infer_desc registers value inference.
    const StaticValue* v = ctx.value(0);
    // The output's size is checked too: an empty input reduces to a target of any size.
    if (v && is.known() && os.known() && out.valid && value_tracked(out) && v->elems.size() == is.elements() &&
        os.elements() <= kMaxStaticValueElements) {
        Shape full = os;  // the target in the input's ndim
        if (os.ndim == 1 && os[0] == 1) {
            full = is;
            for (uint32_t i = 0; i < is.ndim; ++i) full[i] = 1;
        } else if (os.ndim < is.ndim) {
            full.ndim = is.ndim;
            const uint32_t off = is.ndim - os.ndim;
            for (uint32_t i = is.ndim; i-- > 0;) full[i] = i < off ? 1 : os[i - off];
        }
        ctx.set_output_value(0, out, os, reduce_values(v->elems, is, full, mode, out.type));
        return;
    }
    ctx.set_output(0, out, os);
}

// ---------------------------------------------------------------- Softmax

[[gnu::hot]] void softmax(InferContext& ctx) {
    // dnn/src/common/softmax.cpp deduce_layout_fwd: axis in [-ndim, ndim); output
    // as input. The naive kernel computes exp, so the input must be float.
    const DType d = ctx.dtype(0);
    if (d.valid && !dtype_is_float(d.type)) ctx.fail("needs a float input, input 0 is {}", dtype_string(d));
    const Shape& s = ctx.shape(0);
    const int64_t axis = ctx.int_field(kSoftmaxAxis);
    if (s.known() && !normalize_axis(axis, s.ndim))
        ctx.fail("axis {} is out of range for a {}-dim input", axis, s.ndim);
    ctx.set_output(0, d, s);
}

// ---------------------------------------------------------------- matrix products

// MatrixMulForward / BatchedMatrixMulForward::deduce_dtype
// (dnn/src/common/matrix_mul.cpp:4, batched_matrix_mul.cpp:4): the output dtype
// from A's, checked against the config dtype when one is set.
[[gnu::hot]] DType matmul_dtype(const InferContext& ctx, bool batched) {
    const DType a = ctx.dtype(0), b = ctx.dtype(1);
    const DType cfg = ctx.config_dtype();
    if (!a.valid || !b.valid) return cfg;
    if (a.type != b.type)
        ctx.fail("inputs must have the same dtype, got {} and {}", dtype_string(a), dtype_string(b));
    DType cand = DType::none(), cand2 = DType::none();
    const float scale = a.scale * b.scale;
    switch (a.type) {
        case DTypeEnum::Float32:
        case DTypeEnum::Float16:
        case DTypeEnum::BFloat16: cand = a; break;
        case DTypeEnum::Int8:
            cand = DType::of(DTypeEnum::Int32);
            cand2 = DType::of(DTypeEnum::Int16);
            break;
        case DTypeEnum::Int16:
            if (!batched) cand = DType::of(DTypeEnum::Int32);
            break;
        case DTypeEnum::QuantizedS8:
        case DTypeEnum::Quantized8Asymm:
        case DTypeEnum::Quantized4Asymm: cand = DType::quantized(DTypeEnum::QuantizedS32, scale); break;
        case DTypeEnum::QuantizedS4:
            if (!batched) cand = DType::quantized(DTypeEnum::QuantizedS16, scale);
            break;
        default: break;
    }
    if (!cand.valid)
        ctx.fail("does not support {} inputs (float, Int8{}, QuantizedS8, Quantized8Asymm, Quantized4Asymm{})",
                 dtype_string(a), batched ? "" : ", Int16", batched ? "" : ", QuantizedS4");
    if (cfg.valid && !(cfg == cand) && !(cand2.valid && cfg == cand2))
        ctx.fail("does not support {} x {} -> {} (the output dtype is {}{})", dtype_string(a), dtype_string(b),
                 dtype_string(cfg), dtype_string(cand), cand2.valid ? " or " + dtype_string(cand2) : "");
    // check_exec: ComputeMode FLOAT32 is for Float16/BFloat16 data only. DEFAULT
    // (nearly every product) is told by number; any other value is read by
    // name, which also refuses one that is not a member.
    if (ctx.int_field(kComputeMode) != kDefaultComputeMode && ctx.enum_field(kComputeMode) == "FLOAT32" &&
        a.type != DTypeEnum::Float16 && a.type != DTypeEnum::BFloat16)
        ctx.fail("compute_mode FLOAT32 is only available for Float16/BFloat16 inputs, not {}", dtype_string(a));
    return cfg.valid ? cfg : cand;
}

[[gnu::hot]] void matrix_mul(InferContext& ctx) {
    const DType out = matmul_dtype(ctx, false);
    // As compute_mode: DEFAULT by number, the packed formats by name.
    const bool default_format = ctx.int_field(kFormat) == kDefaultFormat;
    const std::string_view format = default_format ? "DEFAULT" : ctx.enum_field(kFormat);
    const bool ta = ctx.int_field(kTransposeA) != 0, tb = ctx.int_field(kTransposeB) != 0;
    Shape os;
    if (all_shapes_known(ctx)) {
        const Shape &a = ctx.shape(0), &b = ctx.shape(1);
        if (default_format) {
            // matrix_mul.cpp deduce_layout: [M,K] x [K,N] -> [M,N] after the transposes.
            if (a.ndim != 2 || b.ndim != 2)
                ctx.fail("needs 2-dim inputs, got {} and {}", shape_string(a), shape_string(b));
            const uint32_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
            const uint32_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
            if (ka != kb)
                ctx.fail("(transposed) A is ({},{}) with K={}, (transposed) B is ({},{}) with K={}: K must match", m,
                         ka, ka, kb, n, kb);
            os = Shape::of({m, n});
        } else if (format == "N32K4_DOT") {
            if (ta || tb) ctx.fail("format N32K4_DOT does not support transposes");
            if (a.ndim != 2 || a[0] != 1 || a[1] % 4 != 0)
                ctx.fail("format N32K4_DOT needs A of shape [1, K] with K a multiple of 4, got {}", shape_string(a));
            if (b.ndim != 4) ctx.fail("format N32K4_DOT needs a 4-dim B, got {}", shape_string(b));
            os = Shape::of({1, b[0] * 32});
        } else {
            // MK4 / MK4_DOT / MK8: A [M/p, K/p, p, p], B [K/p, N, p] -> [M/p, N, p].
            const uint32_t pack = format == "MK8" ? 8 : 4;
            if (a.ndim != 4 || b.ndim != 3)
                ctx.fail("format {} needs a 4-dim A and a 3-dim B, got {} and {}", format, shape_string(a),
                         shape_string(b));
            const uint32_t a0 = ta ? a[1] : a[0], a1 = ta ? a[0] : a[1];
            const uint32_t b0 = tb ? b[1] : b[0], b1 = tb ? b[0] : b[1];
            if (a1 != b0)
                ctx.fail("(transposed) A is ({},{},{},{}), (transposed) B is ({},{},{}): K blocks must match", a0,
                         a1, pack, pack, b0, b1, pack);
            os = Shape::of({a0, b1, pack});
        }
    }
    ctx.set_output(0, out, os);
}

[[gnu::hot]] void batched_matrix_mul(InferContext& ctx) {
    const DType out = matmul_dtype(ctx, true);
    const bool ta = ctx.int_field(kTransposeA) != 0, tb = ctx.int_field(kTransposeB) != 0;
    Shape os;
    if (all_shapes_known(ctx)) {
        // batched_matrix_mul.cpp deduce_layout: [B,M,K] x [B,K,N] -> [B,M,N].
        const Shape &a = ctx.shape(0), &b = ctx.shape(1);
        if (a.ndim != 3 || b.ndim != 3)
            ctx.fail("needs 3-dim inputs, got {} and {}", shape_string(a), shape_string(b));
        const uint32_t m = ta ? a[2] : a[1], ka = ta ? a[1] : a[2];
        const uint32_t kb = tb ? b[2] : b[1], n = tb ? b[1] : b[2];
        if (a[0] != b[0]) ctx.fail("batch sizes differ: A has {}, B has {}", a[0], b[0]);
        if (ka != kb)
            ctx.fail("(transposed) A is ({},{}) with K={}, (transposed) B is ({},{}) with K={}: K must match", m, ka,
                     ka, kb, n, kb);
        os = Shape::of({a[0], m, n});
    }
    ctx.set_output(0, out, os);
}

void dot(InferContext& ctx) {
    // blas.cpp Dot, built: no quantized inputs (the constructor), one dtype
    // (OperatorNodeBase::init_output_dtype), and the output shape is the
    // constant [1] whatever the inputs' shapes.
    const DType a = ctx.dtype(0), b = ctx.dtype(1);
    if (nn::is_quantized(a) || nn::is_quantized(b)) ctx.fail("Dot does not support quantized inputs");
    if (a.valid && b.valid && !(a == b))
        ctx.fail("inputs must have the same dtype, got {} and {}", dtype_string(a), dtype_string(b));
    // Dot::scn_do_execute checks the shapes when the graph runs: 1-dim inputs of
    // one length, or one of length 1, broadcast to the other's.
    const Shape &sa = ctx.shape(0), &sb = ctx.shape(1);
    for (const Shape* s : {&sa, &sb})
        if (s->known() && s->ndim != 1)
            ctx.fail_when_run("Dot inputs must be 1-dim; got {}", shape_string(*s));
    if (sa.known() && sb.known() && sa.ndim == 1 && sb.ndim == 1 && sa[0] != sb[0] && sa[0] != 1 &&
        sb[0] != 1)
        ctx.fail_when_run("inputs have different lengths, {} and {}, and neither is 1", sa[0], sb[0]);
    ctx.set_output(0, a, Shape::of({1}));
}

}  // namespace

std::span<const InferRuleEntry> nn_infer_rules() {
    static const InferRuleEntry kRules[] = {
        {"Reduce", reduce},
        {"Softmax", softmax},
        {"BatchNorm", nn::batch_norm},
        {"LayerNorm", nn::layer_norm},
        {"GroupNorm", nn::group_norm},
        {"GroupNormBackward", nn::group_norm_backward},
        {"InstanceNorm", nn::instance_norm},
        {"InstanceNormBackward", nn::group_norm_backward},
        {"GeneralNorm", nn::general_norm},
        {"MatrixMul", matrix_mul},
        {"BatchedMatrixMul", batched_matrix_mul},
        {"Dot", dot},
        {"MultiHeadAttn", nn::multi_head_attn},
    };
    return kRules;
}

}  // namespace mgedump::ir
