// Operator versions older than opset 7 brought to the semantics the handlers
// implement (see formats/onnx/op_versions.cpp for which versions are accepted).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_support.h"
#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

// Legacy broadcasting (Add-6 and the others of opset < 7): with broadcast=0 the
// shapes are equal; with broadcast=1 B's shape matches a contiguous run of A's
// axes starting at `axis` (default: A's last axes), each of B's dims equal to
// A's or 1. Numpy broadcasting gives the same result once B has trailing unit
// axes up to A's last axis, so B is seen in that shape.
void legacy_broadcast(Importer& c) {
    c.mark_attr_handled("broadcast");
    c.mark_attr_handled("axis");
    const Value &a = c.input(0), &b = c.input(1);
    const int64_t ra = static_cast<int64_t>(a.shape.size()), rb = static_cast<int64_t>(b.shape.size());
    if (c.attr_int("broadcast", 0) == 0) {
        if (c.has_attr("axis")) c.fail("axis is given but broadcast is 0");
        if (a.shape != b.shape)
            c.fail(fmt::format("broadcast is 0 (opset {}) but the shapes differ: [{}] and [{}]", c.opset(),
                               fmt::join(a.shape, ","), fmt::join(b.shape, ",")));
        return;
    }
    const int64_t axis = c.attr_int("axis", ra - rb);
    if (axis < 0 || axis + rb > ra)
        c.fail(fmt::format("legacy broadcast of B [{}] at axis {} does not fit A [{}]", fmt::join(b.shape, ","),
                           axis, fmt::join(a.shape, ",")));
    for (int64_t k = 0; k < rb; ++k)
        if (b.shape[k] != 1 && b.shape[k] != a.shape[axis + k])
            c.fail(fmt::format("legacy broadcast: B [{}] at axis {} does not match A [{}]", fmt::join(b.shape, ","),
                               axis, fmt::join(a.shape, ",")));
    const int64_t trailing = ra - axis - rb;
    if (trailing == 0) return;
    Shape shape = b.shape;
    shape.insert(shape.end(), static_cast<size_t>(trailing), 1);
    Value v = b;
    v.shape = shape;
    if (!b.is_const) v.var = c.reshape(c.var(1), shape);
    else v.var = {};
    c.override_input(1, std::move(v));
}

// Gemm-1/6: broadcast=0 (the default) asks for C of shape (M, N) exactly; the
// handler's unidirectional broadcasting agrees whenever C is valid.
void legacy_gemm(Importer& c) {
    c.mark_attr_handled("broadcast");
    if (c.attr_int("broadcast", 0) != 0 || !c.has_input(2)) return;
    const Shape &a = c.input(0).shape, &b = c.input(1).shape, &cs = c.input(2).shape;
    if (a.size() != 2 || b.size() != 2) return;  // the handler names the problem
    const int64_t m = c.attr_int("transA", 0) ? a[1] : a[0], n = c.attr_int("transB", 0) ? b[0] : b[1];
    if (cs != Shape{m, n})
        c.fail(fmt::format("broadcast is 0 (opset {}) but C has shape [{}], not [{},{}]", c.opset(),
                           fmt::join(cs, ","), m, n));
}

// Dropout-6 and BatchNormalization-6 run in training mode unless is_test is
// nonzero (the default is 0): only the inference mode is a fixed computation.
void require_is_test(Importer& c) {
    c.mark_attr_handled("is_test");
    if (c.attr_int("is_test", 0) == 0)
        c.fail(fmt::format("is_test is 0 (training mode, the default at opset {}); only is_test=1 (inference) "
                           "is supported",
                           c.opset()));
}

// PRelu-6: "if slope is of size 1, the value is shared across different channels";
// otherwise it holds one value per channel (X's axis 1), as PyTorch exported it and
// Caffe2 ran it, or one per element of X. A per-channel slope is seen as (C, 1, ..)
// so that PRelu-7's unidirectional broadcasting gives the same result; any other
// shape has no meaning at opset 6.
void legacy_prelu(Importer& c) {
    const Value &x = c.input(0), &slope = c.input(1);
    const int64_t count = element_count(slope.shape);
    if (count == 1 || slope.shape == x.shape) return;
    if (slope.shape.size() != 1 || x.shape.size() < 2 || slope.shape[0] != x.shape[1])
        c.fail(fmt::format("PRelu-6 slope of shape [{}] for X [{}]: it must have one element (shared), one per "
                           "channel (X's axis 1) or X's shape",
                           fmt::join(slope.shape, ","), fmt::join(x.shape, ",")));
    Shape shape(x.shape.size() - 1, 1);
    shape[0] = slope.shape[0];
    Value v = slope;
    v.shape = shape;
    if (!slope.is_const) v.var = c.reshape(c.var(1), shape);
    else v.var = {};
    c.override_input(1, std::move(v));
}

}  // namespace

void upgrade_legacy_node(Importer& c) {
    const std::string& op = c.node().op_type();
    if (std::string why = legacy_version_problem(op, c.opset()); !why.empty()) c.fail(why);
    static constexpr std::array<std::string_view, 11> kLegacyBroadcast = {
        "Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less", "And", "Or", "Xor"};
    for (std::string_view b : kLegacyBroadcast)
        if (op == b) return legacy_broadcast(c);
    if (op == "Gemm") return legacy_gemm(c);
    if (op == "Dropout" || op == "BatchNormalization") return require_is_test(c);
    if (op == "PRelu") return legacy_prelu(c);
}

}  // namespace mgedump::formats::onnx_import
