#include "formats/onnx/batch_norm.h"

#include <fmt/format.h>

#include <cmath>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

using P = onnx::TensorProto;

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, std::string_view name) {
    for (const auto& a : n.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}

// Empty string when `bn` is an inference BatchNormalization we map; else why not.
std::string mode_problem(const Importer& c, const onnx::NodeProto& bn) {
    for (const auto& a : bn.attribute())
        if (a.name() != "epsilon" && a.name() != "momentum" && a.name() != "spatial" &&
            a.name() != "training_mode" && !(a.name() == "is_test" && c.opset() < 7))
            return fmt::format("attribute '{}' is not supported", a.name());
    // BatchNormalization-6 (opset < 7) normalises with the batch's statistics unless
    // is_test is nonzero; its default is 0.
    if (const auto* a = find_attr(bn, "is_test"); c.opset() < 7 && (!a || a->i() == 0))
        return fmt::format("is_test is 0 (training mode, the default at opset {}); only is_test=1 (inference) "
                           "is supported",
                           c.opset());
    if (const auto* a = find_attr(bn, "training_mode"); a && a->i() != 0)
        return "training_mode is not supported";
    if (const auto* a = find_attr(bn, "spatial"); a && a->i() != 1) return "spatial=0 is not supported";
    for (int k = 1; k < bn.output_size(); ++k)
        if (!bn.output(k).empty() && c.consumers(bn.output(k)) > 0)
            return fmt::format("output #{} (training statistics) is not supported", k);
    if (bn.input_size() != 5) return "expects 5 inputs (X, scale, B, mean, var)";
    return {};
}

// Empty string when `bn` can be applied as a per-channel scale and bias; else why not.
std::string scale_of(const Importer& c, const onnx::NodeProto& bn, BatchNormScale& out) {
    if (std::string why = mode_problem(c, bn); !why.empty()) return why;
    const double eps = find_attr(bn, "epsilon") ? find_attr(bn, "epsilon")->f() : 1e-5;
    std::vector<std::vector<double>> in(4);
    const char* names[] = {"scale", "B", "input_mean", "input_var"};
    for (int k = 0; k < 4; ++k) {
        const Value* v = c.value(bn.input(k + 1));
        // Any float type: BatchNormalization-15 lets the statistics' type differ from X's.
        if (!v || !v->is_const || !is_float_type(v->elem_type))
            return fmt::format("{} (input #{}) must be a float constant", names[k], k + 1);
        in[k] = *decode_floats(*v);
        if (in[k].size() != in[0].size())
            return fmt::format("{} (input #{}) has the wrong length", names[k], k + 1);
    }
    out.scale.resize(in[0].size());
    out.bias.resize(in[0].size());
    for (size_t ch = 0; ch < in[0].size(); ++ch) {
        double s = in[0][ch] / std::sqrt(in[3][ch] + eps);
        out.scale[ch] = static_cast<float>(s);
        out.bias[ch] = static_cast<float>(in[1][ch] - in[2][ch] * s);
    }
    return {};
}

}  // namespace

// ONNX's reference order, (x − mean) / √(var + ε) · scale + B, on the statistics
// seen as (1, C, 1, ..): SUB, ADD, SQRT, TRUE_DIV and FUSE_MUL_ADD3.
void batch_norm_of_runtime_statistics(Importer& c) {
    if (std::string why = mode_problem(c, c.node()); !why.empty()) c.fail(why);
    const Value& x = c.input(0);
    if (x.elem_type != P::FLOAT) c.fail("BatchNormalization with statistics known only at run time: FLOAT only");
    if (x.shape.size() < 2) c.fail("input must have a channel axis");
    Shape s(x.shape.size(), 1);
    s[1] = x.shape[1];
    const char* names[] = {"scale", "B", "input_mean", "input_var"};
    std::vector<ir::VarId> stat;
    for (size_t k = 1; k < 5; ++k) {
        const Value& v = c.input(k);
        if (v.elem_type != P::FLOAT || v.shape != Shape{x.shape[1]})
            c.fail(fmt::format("{} (input #{}) must be FLOAT of shape [{}]", names[k - 1], k, x.shape[1]));
        stat.push_back(c.reshape(c.var(k), s));
    }
    const double eps = c.attr_float("epsilon", 1e-5);
    const ir::VarId centred = c.emit("Elemwise", {c.var(0), stat[2]}, {{"mode", "SUB"}});
    const ir::VarId var_eps = c.emit("Elemwise", {stat[3], c.const_f32(static_cast<float>(eps))}, {{"mode", "ADD"}});
    const ir::VarId norm =
        c.emit("Elemwise", {centred, c.emit("Elemwise", {var_eps}, {{"mode", "SQRT"}})}, {{"mode", "TRUE_DIV"}});
    c.set_output_var(0, c.emit("Elemwise", {norm, stat[0], stat[1]}, {{"mode", "FUSE_MUL_ADD3"}}), x.elem_type,
                     x.shape);
}

// Training mode (opset 14+): the batch's own statistics over every axis but 1, as
// ONNX's reference computes them: mean = E[x], var = E[(x − mean)²] (population,
// numpy's x.var), each a Reduce MEAN per axis; y = (x − mean) / √(var + ε) · scale + B;
// the running statistics input·momentum + batch·(1 − momentum) (MUL, FUSE_MUL_ADD3).
void batch_norm_training(Importer& c) {
    c.check_attrs({"epsilon", "momentum", "training_mode"});
    if (c.opset() < 14)
        c.fail(fmt::format("training_mode at opset {}: only BatchNormalization-14 and later (outputs running_mean, "
                           "running_var) are supported in training mode",
                           c.opset()));
    const Value& x = c.input(0);
    if (x.elem_type != P::FLOAT) c.fail("BatchNormalization in training mode: FLOAT only");
    if (x.shape.size() < 2) c.fail("input must have a channel axis");
    if (c.input_count() != 5) c.fail("expects 5 inputs (X, scale, B, mean, var)");
    const int64_t ch = x.shape[1];
    Shape s(x.shape.size(), 1);
    s[1] = ch;
    const char* names[] = {"scale", "B", "input_mean", "input_var"};
    for (size_t k = 1; k < 5; ++k)
        if (c.input(k).elem_type != P::FLOAT || c.input(k).shape != Shape{ch})
            c.fail(fmt::format("{} (input #{}) must be FLOAT of shape [{}]", names[k - 1], k, ch));
    std::vector<int64_t> axes{0};
    for (size_t k = 2; k < x.shape.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    auto ew = [&](const char* mode, std::vector<ir::VarId> in) { return c.emit("Elemwise", std::move(in), {{"mode", mode}}); };
    const ir::VarId mean = reduce_axes(c, c.var(0), "MEAN", axes);
    const ir::VarId centred = ew("SUB", {c.var(0), mean});
    const ir::VarId var = reduce_axes(c, ew("MUL", {centred, centred}), "MEAN", axes);
    const ir::VarId root = ew("SQRT", {ew("ADD", {var, c.const_f32(static_cast<float>(c.attr_float("epsilon", 1e-5)))})});
    const ir::VarId y = ew("FUSE_MUL_ADD3", {ew("TRUE_DIV", {centred, root}), c.reshape(c.var(1), s), c.reshape(c.var(2), s)});
    c.set_output_var(0, y, x.elem_type, x.shape);
    const float momentum = static_cast<float>(c.attr_float("momentum", 0.9));
    for (size_t k = 1; k < 3 && k < c.output_count(); ++k) {
        if (c.node().output(static_cast<int>(k)).empty()) continue;
        const ir::VarId batch = c.reshape(k == 1 ? mean : var, {ch});
        const ir::VarId part = ew("MUL", {batch, c.const_f32(1 - momentum)});
        c.set_output_var(k, ew("FUSE_MUL_ADD3", {c.var(k + 2), c.const_f32(momentum), part}), P::FLOAT, {ch});
    }
}

BatchNormScale read_batch_norm(const Importer& c) {
    BatchNormScale s;
    if (std::string why = scale_of(c, c.node(), s); !why.empty()) c.fail(why);
    return s;
}

std::optional<FoldedConv> fold_following_batch_norm(const Importer& c) {
    const onnx::NodeProto& conv = c.node();
    const onnx::NodeProto* bn = c.sole_consumer(conv.output(0));
    if (!bn || bn->op_type() != "BatchNormalization" || bn->input(0) != conv.output(0)) return std::nullopt;
    if (!bn->domain().empty() && bn->domain() != "ai.onnx") return std::nullopt;
    BatchNormScale s;
    if (!scale_of(c, *bn, s).empty()) return std::nullopt;
    const Value& w = c.input(1);
    if (!w.is_const || w.elem_type != P::FLOAT || w.shape.empty() ||
        w.shape[0] != static_cast<int64_t>(s.scale.size()))
        return std::nullopt;
    std::vector<double> bias(s.scale.size(), 0.0);
    if (c.has_input(2)) {
        const Value& b = c.input(2);
        if (!b.is_const || b.elem_type != P::FLOAT) return std::nullopt;
        bias = *decode_floats(b);
        if (bias.size() != s.scale.size()) return std::nullopt;
    }
    std::vector<double> weight = *decode_floats(w);
    const size_t per_channel = weight.size() / s.scale.size();
    std::vector<float> folded_w(weight.size()), folded_b(s.scale.size());
    for (size_t ch = 0; ch < s.scale.size(); ++ch) {
        for (size_t k = 0; k < per_channel; ++k)
            folded_w[ch * per_channel + k] = static_cast<float>(weight[ch * per_channel + k] * s.scale[ch]);
        folded_b[ch] = static_cast<float>(bias[ch] * s.scale[ch] + s.bias[ch]);
    }
    FoldedConv f{float_const(folded_w, w.shape),
                 float_const(folded_b, {static_cast<int64_t>(folded_b.size())}), bn->output(0)};
    // Named after what they replace while that has no other reader (param names
    // must be unique for keep_param_name).
    f.weight.param_name = c.consumers(conv.input(1)) == 1 ? w.param_name : conv.output(0) + ".weight";
    f.bias.param_name = c.consumers(bn->input(2)) == 1 ? bn->input(2) : bn->output(0) + ".bias";
    return f;
}

}  // namespace mgedump::formats::onnx_import
