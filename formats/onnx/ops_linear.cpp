// Gemm and MatMul → MatrixMul / BatchedMatrixMul. MegEngine's matrix products take
// 2-D or matching 3-D operands, so N-D MatMul is reshaped around them the way
// MegEngine's own functional matmul does: (..., M, K) x (K, N) folds the leading
// axes into M; (B..., M, K) x (B..., K, N) folds the batch axes into one, after
// broadcasting batch axes that differ (numpy's rules). Det of
// matrices up to 3×3 is its cofactor expansion in Elemwise.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "formats/onnx/onnx_proto.h"
#include "formats/onnx/op_build.h"
#include "formats/onnx/runtime_values.h"
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

// A matrix product whose A only the run time sizes (the rows a mask selected,
// through a Linear layer): A a matrix with K known, B a constant-shaped matrix;
// MatrixMul takes it as it is, the rows known when it runs. `bias` (Gemm's C,
// times beta) must broadcast along the unknown rows: at most [1, N].
void matrix_product_of_runtime_rows(Importer& c, bool ta, bool tb, float alpha,
                                    std::optional<ir::VarId> bias) {
    const Value& a = c.runtime_input(0);
    if (a.shape.size() != 2)
        c.fail(
            fmt::format("A has rank {} and dims known only at run time: only a matrix (rank 2) is supported",
                        a.shape.size()));
    const Value& b = c.input(1);
    if (b.shape.size() != 2)
        c.fail(fmt::format("B has rank {}; with A's rows known only at run time, B must be a matrix",
                           b.shape.size()));
    const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
    const int64_t n = tb ? b.shape[0] : b.shape[1];
    if (k < 0) c.fail("A's inner dimension (K) is known only at run time");
    if ((tb ? b.shape[1] : b.shape[0]) != k) c.fail("A and B do not have matching inner dimensions");
    ir::VarId y = c.emit("MatrixMul", {c.var(0), c.var(1)}, {{"transposeA", ta}, {"transposeB", tb}});
    if (alpha != 1.0f) y = elemwise(c, "MUL", {y, scalar_as(c, alpha, a.elem_type)});
    if (bias) y = elemwise(c, "ADD", {y, *bias});
    set_runtime_output(c, 0, y, a.elem_type, Shape{m, n});
}

void gemm(Importer& c) {
    c.check_attrs({"alpha", "beta", "transA", "transB"});
    if (c.runtime_input(0).runtime_shape) {
        const float alpha = static_cast<float>(c.attr_float("alpha", 1.0)),
                    beta = static_cast<float>(c.attr_float("beta", 1.0));
        std::optional<ir::VarId> bias;
        if (c.has_input(2) && beta != 0.0f) {
            const Shape& cs = c.input(2).shape;
            const Shape& bs = c.input(1).shape;
            const int64_t n = bs.size() == 2 ? (c.attr_int("transB", 0) != 0 ? bs[0] : bs[1]) : -1;
            if (cs.size() > 2 || (cs.size() == 2 && cs[0] != 1) ||
                (!cs.empty() && cs.back() != 1 && cs.back() != n))
                c.fail(fmt::format(
                    "C [{}] must broadcast along A's rows, known only at run time: at most [1, N]",
                    fmt::join(cs, ",")));
            bias = c.var(2);
            if (beta != 1.0f) bias = elemwise(c, "MUL", {*bias, scalar_as(c, beta, c.input(2).elem_type)});
        }
        return matrix_product_of_runtime_rows(c, c.attr_int("transA", 0) != 0, c.attr_int("transB", 0) != 0,
                                              alpha, bias);
    }
    const Value &a = c.input(0), &b = c.input(1);
    if (a.shape.size() != 2 || b.shape.size() != 2) c.fail("A and B must be matrices (rank 2)");
    const bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
    const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
    const int64_t n = tb ? b.shape[0] : b.shape[1];
    if ((tb ? b.shape[1] : b.shape[0]) != k) c.fail("A and B do not have matching inner dimensions");
    const float alpha = static_cast<float>(c.attr_float("alpha", 1.0)),
                beta = static_cast<float>(c.attr_float("beta", 1.0));
    ir::VarId y = c.emit("MatrixMul", {c.var(0), c.var(1)}, {{"transposeA", ta}, {"transposeB", tb}});
    // alpha and beta in the operands' dtype (a Float32 constant made a Float16
    // product Float32: MegEngine's make promotes).
    if (alpha != 1.0f) y = c.emit("Elemwise", {y, scalar_as(c, alpha, a.elem_type)}, {{"mode", "MUL"}});
    if (c.has_input(2) && beta != 0.0f) {
        if (!broadcast_shapes(c.input(2).shape, {m, n})) c.fail("C does not broadcast to (M, N)");
        ir::VarId bias = c.var(2);
        if (beta != 1.0f)
            bias = c.emit("Elemwise", {bias, scalar_as(c, beta, c.input(2).elem_type)}, {{"mode", "MUL"}});
        y = c.emit("Elemwise", {y, bias}, {{"mode", "ADD"}});
    }
    c.set_output_var(0, y, a.elem_type, {m, n});
}

void matmul(Importer& c) {
    c.check_attrs({});
    if (c.runtime_input(0).runtime_shape)
        return matrix_product_of_runtime_rows(c, false, false, 1.0f, std::nullopt);
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
        // Batch axes that differ are broadcast against each other first: each
        // operand is Broadcast to batch + its own matrix axes, then folded.
        // MegEngine's functional matmul does this for the lower-rank operand
        // (imperative/src/impl/ops/matmul.cpp: Broadcast to the other's leading
        // axes, Reshape, BatchedMatrixMul); ONNX (numpy) also broadcasts axes of
        // 1 at equal rank, which the same three operators express.
        const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
        const std::optional<Shape> batch_shape = broadcast_shapes(batch_a, batch_b);
        if (!batch_shape)
            c.fail(fmt::format("batch axes of [{}] and [{}] do not broadcast together", fmt::join(a.shape, ","),
                               fmt::join(b.shape, ",")));
        auto with_matrix = [&](int64_t rows, int64_t cols) {
            Shape s = *batch_shape;
            s.push_back(rows);
            s.push_back(cols);
            return s;
        };
        const Shape full_a = with_matrix(m, k), full_b = with_matrix(k, n);
        // B has its batch axes here (rank > 2); a 1-D A, [K], aligns as [1, K].
        const ir::VarId va = broadcast_to(c, c.var(0), a.shape, full_a);
        const ir::VarId vb = broadcast_to(c, c.var(1), b.shape, full_b);
        const int64_t batch = product(full_a, 0, full_a.size() - 2);
        out.assign(batch_shape->begin(), batch_shape->end());
        out.push_back(m);
        out.push_back(n);
        y = c.emit("BatchedMatrixMul",
                   {as_shape(c, va, full_a, {batch, m, k}), as_shape(c, vb, full_b, {batch, k, n})});
    }
    Shape onnx_out = out;
    if (a.shape.size() == 1) onnx_out.erase(onnx_out.end() - 2);
    if (b.shape.size() == 1) onnx_out.pop_back();
    Shape produced =
        sb.size() == 2 ? Shape{product(sa, 0, sa.size() - 1), n} : Shape{product(out, 0, out.size() - 2), m, n};
    y = as_shape(c, y, produced, onnx_out.empty() ? Shape{1} : onnx_out);
    c.set_output_var(0, y, a.elem_type, onnx_out);
}

// Det (11+) of [..., n, n] with n ≤ 3: the cofactor expansion, each entry x[..., i, j]
// a Subtensor that drops both matrix axes, the products and sums Elemwise in the
// input's type. ONNX's reference factors LU in double (numpy.linalg.det); the
// expansion is the same polynomial, rounded in Float32. A larger n would need
// LU's pivoting, whose row choice depends on the values: refused.
void det(Importer& c) {
    c.check_attrs({});
    require_float(c, 0);
    const Value& x = c.input(0);
    const size_t r = x.shape.size();
    if (r < 2 || x.shape[r - 1] != x.shape[r - 2])
        c.fail(fmt::format("the input must be square matrices [..., n, n], has shape [{}]", fmt::join(x.shape, ",")));
    const int64_t n = x.shape[r - 1];
    if (n < 1 || n > 3)
        c.fail(fmt::format("matrices of {}x{}: only n of 1 to 3 are supported (the cofactor expansion; a larger n "
                           "needs LU with pivoting, which depends on the values)",
                           n, n));
    const ir::VarId xv = c.var(0);
    const auto row = static_cast<int8_t>(r - 2), col = static_cast<int8_t>(r - 1);
    const std::vector<ir::IndexDescMaskItem> pick_both{{row, false, false, false, true},
                                                        {col, false, false, false, true}};
    auto at = [&](int64_t i, int64_t j) {
        return c.emit("Subtensor", {xv, c.const_i32({i}), c.const_i32({j})}, {{"items", pick_both}});
    };
    // rest · x[i, j], with the operand made first as the first input: the graph's
    // operators then come in the order a dump writes them (inputs first, in order).
    auto product = [&](int64_t i, int64_t j, ir::VarId rest) {
        const ir::VarId e = at(i, j);
        return elemwise(c, "MUL", {rest, e});
    };
    // The 2×2 minor of rows (i0, i0 + 1) and columns (j, k).
    auto minor = [&](int64_t i0, int64_t j, int64_t k) {
        const ir::VarId p = product(i0, j, at(i0 + 1, k));
        const ir::VarId q = product(i0, k, at(i0 + 1, j));
        return elemwise(c, "SUB", {p, q});
    };
    ir::VarId d;
    if (n == 1) {
        d = at(0, 0);
    } else if (n == 2) {
        d = minor(0, 0, 1);
    } else {
        const ir::VarId a = product(0, 0, minor(1, 1, 2));
        const ir::VarId b = product(0, 1, minor(1, 0, 2));
        const ir::VarId ab = elemwise(c, "SUB", {a, b});
        d = elemwise(c, "ADD", {ab, product(0, 2, minor(1, 0, 1))});
    }
    c.set_output_var(0, d, x.elem_type, Shape(x.shape.begin(), x.shape.end() - 2));
}

constexpr OpHandler kHandlers[] = {
    {"Det", det},
    {"Gemm", gemm},
    {"MatMul", matmul},
};

}  // namespace

std::span<const OpHandler> linear_handlers() { return kHandlers; }

}  // namespace mgedump::formats::onnx_import
