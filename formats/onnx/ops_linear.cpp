// Gemm and MatMul → MatrixMul / BatchedMatrixMul. MegEngine's matrix products take
// 2-D or matching 3-D operands, so N-D MatMul is reshaped around them the way
// MegEngine's own functional matmul does: (..., M, K) x (K, N) folds the leading
// axes into M; (B..., M, K) x (B..., K, N) folds the batch axes into one.
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "formats/onnx/values.h"

namespace mgedump::formats::onnx_import {
namespace {

int64_t product(const Shape& s, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t k = begin; k < end; ++k) n *= s[k];
    return n;
}

ir::VarId as_shape(Importer& c, ir::VarId x, const Shape& from, const Shape& to) {
    return from == to ? x : c.reshape(x, to);
}

void gemm(Importer& c) {
    c.check_attrs({"alpha", "beta", "transA", "transB"});
    const Value &a = c.input(0), &b = c.input(1);
    if (a.shape.size() != 2 || b.shape.size() != 2) c.fail("A and B must be matrices (rank 2)");
    const bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
    const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
    const int64_t n = tb ? b.shape[0] : b.shape[1];
    if ((tb ? b.shape[1] : b.shape[0]) != k) c.fail("A and B do not have matching inner dimensions");
    const float alpha = static_cast<float>(c.attr_float("alpha", 1.0)),
                beta = static_cast<float>(c.attr_float("beta", 1.0));
    ir::VarId y = c.emit("MatrixMul", {c.var(0), c.var(1)}, {{"transposeA", ta}, {"transposeB", tb}});
    if (alpha != 1.0f) y = c.emit("Elemwise", {y, c.const_f32(alpha)}, {{"mode", "MUL"}});
    if (c.has_input(2) && beta != 0.0f) {
        if (!broadcast_shapes(c.input(2).shape, {m, n})) c.fail("C does not broadcast to (M, N)");
        ir::VarId bias = c.var(2);
        if (beta != 1.0f) bias = c.emit("Elemwise", {bias, c.const_f32(beta)}, {{"mode", "MUL"}});
        y = c.emit("Elemwise", {y, bias}, {{"mode", "ADD"}});
    }
    c.set_output_var(0, y, a.elem_type, {m, n});
}

void matmul(Importer& c) {
    c.check_attrs({});
    const Value &a = c.input(0), &b = c.input(1);
    if (a.shape.empty() || b.shape.empty()) c.fail("operands must have rank >= 1");
    // 1-D operands are promoted to matrices and the added axis dropped at the end.
    Shape sa = a.shape.size() == 1 ? Shape{1, a.shape[0]} : a.shape;
    Shape sb = b.shape.size() == 1 ? Shape{b.shape[0], 1} : b.shape;
    const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
    if (sb[sb.size() - 2] != k)
        c.fail(fmt::format("inner dimensions differ: [{}] x [{}]", fmt::join(a.shape, ","),
                           fmt::join(b.shape, ",")));
    Shape out;
    ir::VarId y;
    if (sb.size() == 2) {
        out.assign(sa.begin(), sa.end() - 1);
        out.push_back(n);
        ir::VarId a2 = as_shape(c, c.var(0), a.shape, {product(sa, 0, sa.size() - 1), k});
        y = c.emit("MatrixMul", {a2, as_shape(c, c.var(1), b.shape, sb)});
    } else {
        if (sa.size() != sb.size() || !std::equal(sa.begin(), sa.end() - 2, sb.begin()))
            c.fail(fmt::format(
                "batch axes of [{}] and [{}] differ; broadcasting batched products is not supported",
                fmt::join(a.shape, ","), fmt::join(b.shape, ",")));
        const int64_t batch = product(sa, 0, sa.size() - 2);
        out.assign(sa.begin(), sa.end() - 2);
        out.push_back(m);
        out.push_back(n);
        y = c.emit("BatchedMatrixMul", {as_shape(c, c.var(0), a.shape, {batch, m, k}),
                                        as_shape(c, c.var(1), b.shape, {batch, k, n})});
    }
    Shape onnx_out = out;
    if (a.shape.size() == 1) onnx_out.erase(onnx_out.end() - 2);
    if (b.shape.size() == 1) onnx_out.pop_back();
    Shape produced =
        sb.size() == 2 ? Shape{product(sa, 0, sa.size() - 1), n} : Shape{product(sa, 0, sa.size() - 2), m, n};
    y = as_shape(c, y, produced, onnx_out.empty() ? Shape{1} : onnx_out);
    c.set_output_var(0, y, a.elem_type, onnx_out);
}

constexpr OpHandler kHandlers[] = {
    {"Gemm", gemm},
    {"MatMul", matmul},
};

}  // namespace

std::span<const OpHandler> linear_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
