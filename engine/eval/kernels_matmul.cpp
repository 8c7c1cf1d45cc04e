// Kernels of the matrix products (MegDNN's dnn/src/naive/{matrix_mul,
// batched_matrix_mul,dot}): MatrixMul and BatchedMatrixMul through OpenBLAS
// (gemm.h), Dot as the plain sum. Format DEFAULT only; the packed formats (MK4,
// MK8, ...) are refused, naming the format.
//
// Float16 / BFloat16 are computed in float and rounded once (MegDNN's naive
// kernel accumulates in half for compute_mode DEFAULT). Integer and quantized
// products sum exactly (double GEMM of the stored integers, zero points
// subtracted) and wrap to the output's storage integer, as MegDNN's int
// accumulators do.
#include <tbb/parallel_for.h>

#include <cstdint>
#include <vector>

#include "engine/eval/elements.h"
#include "engine/eval/gemm.h"
#include "engine/eval/kernels.h"
#include "ir/infer/shape_util.h"

namespace mgedump::engine::eval {
namespace {

using E = ir::DTypeEnum;

// One product's dims: a batch of op(A) [m,k] · op(B) [k,n].
struct MatmulDims {
    size_t batch, m, n, k;
    bool ta, tb;
    size_t a_cols() const { return ta ? m : k; }
    size_t b_cols() const { return tb ? k : n; }
};

MatmulDims read_dims(const KernelContext& ctx, bool batched) {
    const ir::InferContext& p = ctx.params();
    if (p.enum_field("format") != "DEFAULT")
        ctx.fail("format {} is not implemented; DEFAULT only", p.enum_field("format"));
    const ir::Shape &a = ctx.in(0).shape(), &b = ctx.in(1).shape();
    const uint32_t nd = batched ? 3 : 2, o = batched ? 1 : 0;
    if (a.ndim != nd || b.ndim != nd)
        ctx.fail("needs {}-dim inputs, got {} and {}", nd, ir::shape_string(a), ir::shape_string(b));
    MatmulDims d{};
    d.ta = p.int_field("transposeA") != 0;
    d.tb = p.int_field("transposeB") != 0;
    d.batch = batched ? a[0] : 1;
    d.m = d.ta ? a[o + 1] : a[o];
    d.k = d.ta ? a[o] : a[o + 1];
    d.n = d.tb ? b[o] : b[o + 1];
    if ((d.tb ? b[o + 1] : b[o]) != d.k || (batched && b[0] != a[0]))
        ctx.fail("inputs {} and {} do not multiply", ir::shape_string(a), ir::shape_string(b));
    return d;
}

// C[b] = op(A[b]) · op(B[b]) for every batch entry, in T.
template <class T>
void batched_gemm(const MatmulDims& d, const T* a, const T* b, T* c) {
    const size_t sa = d.m * d.k, sb = d.k * d.n, sc = d.m * d.n;
    tbb::parallel_for(size_t{0}, d.batch, [&](size_t i) {
        gemm(d.ta, d.tb, d.m, d.n, d.k, T(1), a + i * sa, d.a_cols(), b + i * sb, d.b_cols(), T(0),
             c + i * sc, d.n);
    });
}

// MegDNN's naive dispatch (matrix_mul_helper.h dispatch_ta_tb): A's dtype and C's.
bool integer_product(E a, E c) {
    return (a == E::Int8 && (c == E::Int16 || c == E::Int32)) || (a == E::Int16 && c == E::Int32) ||
           ((a == E::QuantizedS8 || a == E::Quantized8Asymm) && c == E::QuantizedS32);
}

void matmul(KernelContext& ctx, bool batched) {
    const MatmulDims d = read_dims(ctx, batched);
    const Tensor &a = ctx.in(0), &b = ctx.in(1);
    Tensor& c = ctx.out(0);
    if (c.empty()) ctx.fail("the output shape is not known");
    const E at = a.dtype().type, ct = c.dtype().type;
    if (at != b.dtype().type)
        ctx.fail("inputs {} and {} must have one dtype", ir::dtype_string(a.dtype()),
                 ir::dtype_string(b.dtype()));
    if (at == E::Float32 && ct == E::Float32) {
        batched_gemm(d, a.data<float>().data(), b.data<float>().data(), c.mutable_data<float>().data());
        return;
    }
    if (is_float_dtype(at) && ct == at) {
        const std::vector<float> fa = to_floats(a), fb = to_floats(b);
        std::vector<float> fc(c.elements());
        batched_gemm(d, fa.data(), fb.data(), fc.data());
        c = from_floats(c.dtype(), c.shape(), fc);
        return;
    }
    if (!integer_product(at, ct))
        ctx.fail("{} x {} -> {}: MegDNN has no kernel for it", ir::dtype_string(a.dtype()),
                 ir::dtype_string(b.dtype()), ir::dtype_string(c.dtype()));
    const std::vector<double> ia = integers_of(a), ib = integers_of(b);
    std::vector<double> ic(c.elements());
    batched_gemm(d, ia.data(), ib.data(), ic.data());
    with_storage_type(ct, [&](auto tag) {
        using T = decltype(tag);
        auto out = c.mutable_data<T>();
        // A C++ narrowing conversion wraps, as MegDNN's int16 accumulator does.
        for (size_t i = 0; i < ic.size(); ++i) out[i] = static_cast<T>(static_cast<int64_t>(ic[i]));
    });
}

void matrix_mul(KernelContext& ctx) { matmul(ctx, false); }
void batched_matrix_mul(KernelContext& ctx) { matmul(ctx, true); }

// naive/dot: res += a[i]·b[i] in the dtype itself, in order. Integers wrap.
void dot(KernelContext& ctx) {
    const Tensor &a = ctx.in(0), &b = ctx.in(1);
    const ir::DType dt = a.dtype();
    if (!(dt == b.dtype()))
        ctx.fail("inputs {} and {} must have one dtype", ir::dtype_string(dt), ir::dtype_string(b.dtype()));
    // Dot::scn_do_execute (blas.cpp:416): two 1-dim inputs of one length, or
    // one of length 1, read with stride 0 along the other.
    if (a.shape().ndim != 1 || b.shape().ndim != 1)
        ctx.fail("inputs must be 1-dim, they are {} and {}", ir::shape_string(a.shape()),
                 ir::shape_string(b.shape()));
    const size_t na = a.elements(), nb = b.elements();
    if (na != nb && na != 1 && nb != 1) ctx.fail("inputs have {} and {} elements, and neither has 1", na, nb);
    const size_t n = na == nb || nb == 1 ? na : nb;
    const size_t sa = na == n ? 1 : 0, sb = nb == n ? 1 : 0;
    if (is_float_dtype(dt.type)) {
        float sum = 0;
        if (dt.type == E::Float32) {
            auto x = a.data<float>(), y = b.data<float>();
            for (size_t i = 0; i < n; ++i) sum += x[i * sa] * y[i * sb];
        } else {
            const std::vector<float> x = to_floats(a), y = to_floats(b);
            for (size_t i = 0; i < n; ++i) sum += x[i * sa] * y[i * sb];
        }
        ctx.out(0) = from_floats(dt, ir::Shape::of({1}), std::vector<float>{sum});
        return;
    }
    if (!(dt.type == E::Int32 || dt.type == E::Int16 || dt.type == E::Int8 || dt.type == E::Uint8))
        ctx.fail("{} inputs: MegDNN's Dot computes float and Int32/Int16/Int8/Uint8 only",
                 ir::dtype_string(dt));
    Tensor out(dt, ir::Shape::of({1}));
    with_storage_type(dt.type, [&](auto tag) {
        using T = decltype(tag);
        auto x = a.data<T>(), y = b.data<T>();
        uint64_t sum = 0;  // modular, like the wrapping accumulator
        for (size_t i = 0; i < n; ++i)
            sum += static_cast<uint64_t>(static_cast<int64_t>(x[i * sa]) * static_cast<int64_t>(y[i * sb]));
        out.mutable_data<T>()[0] = static_cast<T>(sum);
    });
    ctx.out(0) = std::move(out);
}

}  // namespace

std::span<const KernelEntry> matmul_kernels() {
    static const KernelEntry kKernels[] = {
        {"MatrixMul", matrix_mul},
        {"BatchedMatrixMul", batched_matrix_mul},
        {"Dot", dot},
    };
    return kKernels;
}

}  // namespace mgedump::engine::eval
