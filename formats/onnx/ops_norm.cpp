// Normalisations: LayerNormalization → LayerNorm, InstanceNormalization →
// InstanceNorm, LRN → LRN, MeanVarianceNormalization as its function body. MegEngine's norms are 4-D (InstanceNorm, LRN) or
// normalise trailing axes of rank < the input's (LayerNorm); other ranks are
// reshaped around them. Only FLOAT (and DOUBLE, held as Float32) data: MegDNN's
// norms round the mean to the data's type, which ONNX (stash_type FLOAT) does not.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

void require_float32(Importer& c, size_t i, std::string_view what) {
    const int32_t t = c.input(i).elem_type;
    if (t != P::FLOAT && t != P::DOUBLE)
        c.fail(fmt::format("{} (input #{}) is {}; only FLOAT is supported (MegEngine's kernel rounds its "
                           "statistics to the data type)",
                           what, i, onnx_elem_name(t)));
}

// Whether input 0 is FLOAT16 / BFLOAT16, the other present `inputs` then of its
// type (ONNX gives them one); else every one must be FLOAT (or DOUBLE). MegDNN's
// norms round their statistics to the data type, so the callers normalize half
// precision in Float32 and apply the affine part in the input's type.
bool half_precision(Importer& c, std::initializer_list<std::pair<size_t, std::string_view>> inputs) {
    const int32_t type = c.input(0).elem_type;
    const bool half = type == P::FLOAT16 || type == P::BFLOAT16;
    for (const auto& [i, what] : inputs) {
        if (!c.has_input(i)) continue;
        if (!half) {
            require_float32(c, i, what);
        } else if (c.input(i).elem_type != type) {
            c.fail(fmt::format("{} (input #{}) is {}, {} is {}: ONNX gives them one type", what, i,
                               onnx_elem_name(c.input(i).elem_type), inputs.begin()->second, onnx_elem_name(type)));
        }
    }
    return half;
}

// ONNX's stash_type: the precision of the statistics; MegDNN's norms (and the
// half-precision lowering around them) compute them in Float32 only.
void require_float_stash(Importer& c) {
    const int64_t stash = c.attr_int("stash_type", 1);
    if (stash != P::FLOAT) c.fail(fmt::format("stash_type {} is not supported (FLOAT only)", stash));
}

// The half-precision lowering's two casts: the data to Float32 before the norm,
// the normalized result back to the input's ONNX type after it.
ir::VarId as_float32(Importer& c, ir::VarId v) { return type_cvt(c, v, ir::DTypeEnum::Float32); }
ir::VarId as_onnx_type(Importer& c, ir::VarId v, int32_t type) { return type_cvt(c, v, onnx_var_dtype(type, c)); }

// The half-precision tail of InstanceNorm and GroupNorm: y (Float32, NCHW-like
// of rank `rank`) cast back to `type`, then y · scale + bias per channel in that
// type, scale and bias ([ch]) reshaped to broadcast over axis 1.
ir::VarId per_channel_affine_in(Importer& c, ir::VarId y, int32_t type, size_t rank, int64_t ch, ir::VarId scale,
                                ir::VarId bias) {
    Shape per_channel(rank, 1);
    per_channel[1] = ch;
    return elemwise(c, "FUSE_MUL_ADD3",
                    {as_onnx_type(c, y, type), c.reshape(scale, per_channel), c.reshape(bias, per_channel)});
}

bool output_used(Importer& c, size_t k) {
    return c.output_count() > k && !c.node().output(static_cast<int>(k)).empty();
}

// Y = (X − mean) / √(var + epsilon) · Scale + B over the axes [axis, rank). LayerNorm
// normalises the last normalized_dim axes, fewer than the input has: axis 0 is
// taken on the input seen as [1, …]. Mean and InvStdDev are LayerNorm's mean and
// rstd (Float32, the kept axes) reshaped to ONNX's [d0, …, d(axis−1), 1, …, 1].
//
// FLOAT16 / BFLOAT16 X, as ONNX's function body computes it with stash_type
// FLOAT: the normalization in Float32 (TypeCvt, LayerNorm without affine), cast
// back to X's type, then Scale and B applied in that type (MUL, ADD).
void layer_normalization(Importer& c) {
    c.check_attrs({"axis", "epsilon", "stash_type"});
    const int32_t type = c.input(0).elem_type;
    const bool half = half_precision(c, {{0, "X"}, {1, "Scale"}, {2, "B"}});
    require_float_stash(c);
    const Value& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank == 0) c.fail("X must have rank ≥ 1");
    const int64_t axis = normalize_axis(c.attr_int("axis", -1), rank, c, "axis");
    const Shape normalized(x.shape.begin() + axis, x.shape.end());
    for (size_t i = 1; i < 3; ++i) {
        if (!c.has_input(i)) continue;
        auto s = broadcast_shapes(c.input(i).shape, normalized);
        if (!s || *s != normalized)
            c.fail(fmt::format("input #{} of shape [{}] does not broadcast to the normalized shape [{}]", i,
                               fmt::join(c.input(i).shape, ","), fmt::join(normalized, ",")));
    }
    ir::VarId data = c.var(0);
    if (half) data = as_float32(c, data);
    if (axis == 0) {
        Shape lifted{1};
        lifted.insert(lifted.end(), x.shape.begin(), x.shape.end());
        data = c.reshape(data, lifted);
    }
    const bool affine = c.has_input(2) && !half;
    std::vector<ir::VarId> inputs{data};
    if (affine)
        for (size_t i = 1; i < 3; ++i)
            inputs.push_back(broadcast_to(c, c.var(i), c.input(i).shape, normalized));
    const ir::ParamArgs params{{"affine", affine},
                               {"eps", static_cast<float>(c.attr_float("epsilon", 1e-5))},
                               {"normalized_dim", ir::ParamArg(static_cast<uint64_t>(rank - axis))},
                               {"normalized_size", ir::ParamArg(static_cast<uint64_t>(element_count(normalized)))}};
    ir::OprId o = c.emit_opr("LayerNorm", inputs, params, 3);
    ir::VarId y = c.graph().output_var(o, 0);
    if (axis == 0) y = c.reshape(y, x.shape);
    if (half) y = as_onnx_type(c, y, type);
    // Without B (or in half precision): Y = normalized · Scale (+ B), which
    // broadcast as ONNX says.
    if (!affine) y = elemwise(c, "MUL", {y, c.var(1)});
    if (!affine && c.has_input(2)) y = elemwise(c, "ADD", {y, c.var(2)});
    c.set_output_var(0, y, x.elem_type, x.shape);
    Shape stat(x.shape.begin(), x.shape.begin() + axis);
    stat.resize(static_cast<size_t>(rank), 1);
    for (size_t k = 1; k < 3; ++k)
        if (output_used(c, k)) c.set_output_var(k, c.reshape(c.graph().output_var(o, k), stat), P::FLOAT, stat);
}

// (N, C, D1, …) seen as the 4-D (N, C, H, W) MegEngine's norms take.
Shape as_nchw(const Shape& s) {
    if (s.size() == 4) return s;
    int64_t rest = 1;
    for (size_t d = 2; d < s.size(); ++d) rest *= s[d];
    return {s[0], s[1], rest, 1};
}

// y = scale · (x − mean) / √(var + epsilon) + B per (instance, channel).
//
// FLOAT16 / BFLOAT16: normalized in Float32 (TypeCvt, InstanceNorm without
// affine), converted back, then scale and B applied in the input's type, as for
// LayerNormalization (ONNX's reference takes numpy's mean and variance, which
// accumulate half precision in float32; MegDNN's would round them to Float16).
void instance_normalization(Importer& c) {
    c.check_attrs({"epsilon"});
    const int32_t type = c.input(0).elem_type;
    const bool half = half_precision(c, {{0, "input"}, {1, "scale"}, {2, "B"}});
    const Value& x = c.input(0);
    if (x.shape.size() < 3) c.fail(fmt::format("input must be (N, C, D1, …), has rank {}", x.shape.size()));
    const int64_t ch = x.shape[1];
    for (size_t i = 1; i < 3; ++i)
        if (c.input(i).shape != Shape{ch})
            c.fail(fmt::format("input #{} has shape [{}], expected [{}] (one value per channel)", i,
                               fmt::join(c.input(i).shape, ","), ch));
    const Shape nchw = as_nchw(x.shape);
    ir::VarId data = nchw == x.shape ? c.var(0) : c.reshape(c.var(0), nchw);
    if (half) data = as_float32(c, data);
    const ir::ParamArgs params{{"affine", !half}, {"eps", static_cast<float>(c.attr_float("epsilon", 1e-5))}};
    ir::OprId o = half ? c.emit_opr("InstanceNorm", {data}, params, 3)
                       : c.emit_opr("InstanceNorm", {data, c.var(1), c.var(2)}, params, 3);
    ir::VarId y = c.graph().output_var(o, 0);
    if (half) {
        // The bias's var first (GCC's order of the call's arguments, which C++ leaves open).
        const ir::VarId bias = c.var(2);
        y = per_channel_affine_in(c, y, type, nchw.size(), ch, c.var(1), bias);
    }
    if (nchw != x.shape) y = c.reshape(y, x.shape);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// GroupNormalization (18, 21): MegEngine's GroupNorm (affine, per-channel weight
// and bias, population variance over each group of C/G channels and the spatial
// axes) on the input seen as NCHW. Opset 21 gives scale and B per channel; opset
// 18 per group (its function body scales the (N, G, ·) view), so constants are
// repeated over each group's channels at import, and per-group ones known only at
// run time are refused.
void group_normalization(Importer& c) {
    c.check_attrs({"epsilon", "num_groups", "stash_type"});
    const int32_t type = c.input(0).elem_type;
    const bool half = half_precision(c, {{0, "X"}, {1, "scale"}, {2, "bias"}});
    require_float_stash(c);
    const Value& x = c.input(0);
    if (x.shape.size() < 3) c.fail(fmt::format("X must be (N, C, D1, …), has rank {}", x.shape.size()));
    if (!c.has_attr("num_groups")) c.fail("attribute 'num_groups' is required");
    const int64_t groups = c.attr_int("num_groups", 0), ch = x.shape[1];
    if (groups < 1 || ch % groups != 0)
        c.fail(fmt::format("num_groups {} does not divide the {} channels", groups, ch));
    const int64_t per_input = c.opset() >= 21 ? ch : groups;
    ir::VarId affine[2];
    for (size_t i = 1; i < 3; ++i) {
        const std::string_view what = i == 1 ? "scale" : "bias";
        if (c.input(i).shape != Shape{per_input})
            c.fail(fmt::format("{} (input #{}) has shape [{}], expected [{}] (one value per {} at opset {})", what, i,
                               fmt::join(c.input(i).shape, ","), per_input, c.opset() >= 21 ? "channel" : "group",
                               c.opset()));
        if (per_input == ch) {
            affine[i - 1] = c.var(i);
            continue;
        }
        if (!c.is_const(i))
            c.fail(fmt::format("{} (input #{}) is per group (opset {}) and known only at run time: MegEngine's "
                               "GroupNorm takes one value per channel",
                               what, i, c.opset()));
        const std::vector<double> per_group = c.const_floats(i, what);
        std::vector<float> per_channel;
        for (int64_t k = 0; k < ch; ++k) per_channel.push_back(static_cast<float>(per_group[k / (ch / groups)]));
        Value repeated = float_const_as(type, per_channel, {ch});
        affine[i - 1] = c.materialize(repeated, c.node().output(0) + (i == 1 ? ".scale" : ".bias"));
    }
    const Shape nchw = as_nchw(x.shape);
    ir::VarId data = nchw == x.shape ? c.var(0) : c.reshape(c.var(0), nchw);
    // Half precision as InstanceNormalization's: normalized in Float32 (opset
    // 21's stash_type), the affine part in X's type.
    if (half) data = as_float32(c, data);
    const ir::ParamArgs params{{"affine", !half},
                               {"eps", static_cast<float>(c.attr_float("epsilon", 1e-5))},
                               ir::NamedParamArg("group", ir::ParamArg(static_cast<uint64_t>(groups)))};
    ir::OprId o = half ? c.emit_opr("GroupNorm", {data}, params, 3)
                       : c.emit_opr("GroupNorm", {data, affine[0], affine[1]}, params, 3);
    ir::VarId y = c.graph().output_var(o, 0);
    if (half) y = per_channel_affine_in(c, y, type, nchw.size(), ch, affine[0], affine[1]);
    if (nchw != x.shape) y = c.reshape(y, x.shape);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// LpNormalization: x / ‖x‖_p along `axis` (ONNX's reference: numpy's norm, no
// epsilon, so a zero vector gives NaN there too): Σ|x| (p = 1) or √Σx² (p = 2) by
// one Reduce SUM kept as size 1, then TRUE_DIV, which broadcasts it back.
void lp_normalization(Importer& c) {
    c.check_attrs({"axis", "p"});
    require_float(c, 0);
    if (any_runtime_shape(c, 1)) c.fail("an input whose shape is known only at run time is not supported");
    const Value& x = c.input(0);
    const int64_t p = c.attr_int("p", 2);
    if (p != 1 && p != 2) c.fail(fmt::format("p = {} is not 1 or 2 (ONNX allows only these)", p));
    const int64_t axis = normalize_axis(c.attr_int("axis", -1), static_cast<int64_t>(x.shape.size()), c, "axis");
    const ir::VarId v = c.var(0);
    ir::VarId norm = c.emit("Reduce", {p == 1 ? elemwise(c, "ABS", {v}) : elemwise(c, "MUL", {v, v})},
                            {{"mode", "SUM"}, int_param("axis", axis)});
    if (p == 2) norm = elemwise(c, "SQRT", {norm});
    c.set_output_var(0, elemwise(c, "TRUE_DIV", {v, norm}), x.elem_type, x.shape);
}

// ONNX: y = x / (bias + alpha/size · Σ x²)^beta over channels
// [c − ⌊(size−1)/2⌋, c + ⌈(size−1)/2⌉]; MegEngine's LRN: x · (k + alpha' · Σ x²)^−beta over
// [c − n/2, c + n/2] with an odd n. So n = size (odd), k = bias, alpha' = alpha/size.
void lrn(Importer& c) {
    c.check_attrs({"alpha", "beta", "bias", "size"});
    require_float(c, 0);
    const Value& x = c.input(0);
    if (x.shape.size() < 3) c.fail(fmt::format("input must be (N, C, D1, …), has rank {}", x.shape.size()));
    if (!c.has_attr("size")) c.fail("attribute 'size' is required");
    const int64_t size = c.attr_int("size", 0);
    if (size < 1 || size % 2 == 0)
        c.fail(fmt::format("size {} is not supported: MegEngine's LRN window is odd and centred", size));
    const double alpha = c.attr_float("alpha", 1e-4);
    const Shape nchw = as_nchw(x.shape);
    ir::VarId data = nchw == x.shape ? c.var(0) : c.reshape(c.var(0), nchw);
    const ir::ParamArgs params{ir::NamedParamArg("n", ir::ParamArg(static_cast<uint64_t>(size))),
                               {"k", static_cast<float>(c.attr_float("bias", 1.0))},
                               {"alpha", static_cast<float>(alpha / static_cast<double>(size))},
                               {"beta", static_cast<float>(c.attr_float("beta", 0.75))}};
    ir::VarId y = c.emit("LRN", {data}, params);
    if (nchw != x.shape) y = c.reshape(y, x.shape);
    c.set_output_var(0, y, x.elem_type, x.shape);
}

// ONNX's function body: (X − E[X]) / (√(E[X²] − E[X]²) + 1e-9), the expectations
// over `axes` (default [0, 2, 3]): `Reduce MEAN` per axis, Elemwise for the rest.
void mean_variance_normalization(Importer& c) {
    c.check_attrs({"axes"});
    require_float(c, 0);
    const Value& x = c.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    std::vector<int64_t> axes = c.attr_ints("axes", {0, 2, 3});
    for (int64_t& a : axes) a = normalize_axis(a, rank, c, "axis");
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    ir::VarId v = c.var(0);
    ir::VarId mean = reduce_axes(c, v, "MEAN", axes);
    ir::VarId mean_sq = reduce_axes(c, elemwise(c, "MUL", {v, v}), "MEAN", axes);
    ir::VarId var = elemwise(c, "SUB", {mean_sq, elemwise(c, "MUL", {mean, mean})});
    ir::VarId den = elemwise(c, "ADD", {elemwise(c, "SQRT", {var}), scalar_as(c, 1e-9, x.elem_type)});
    ir::VarId y = elemwise(c, "TRUE_DIV", {elemwise(c, "SUB", {v, mean}), den});
    c.set_output_var(0, y, x.elem_type, x.shape);
}

constexpr OpHandler kHandlers[] = {
    {"LayerNormalization", layer_normalization},
    {"InstanceNormalization", instance_normalization},
    {"GroupNormalization", group_normalization},
    {"LpNormalization", lp_normalization},
    {"LRN", lrn},
    {"MeanVarianceNormalization", mean_variance_normalization},
};

}  // namespace

std::span<const OpHandler> norm_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
