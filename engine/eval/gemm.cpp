#include "engine/eval/gemm.h"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <climits>

#include "engine/eval/blas_library.h"
#include "ir/error.h"

namespace mgedump::engine::eval {
namespace {

blasint blas_int(size_t v, const char* what) {
    if (v > static_cast<size_t>(INT_MAX))
        throw Error(
            fmt::format("evaluator: a matrix product's {} is {}, more than OpenBLAS handles", what, v));
    return static_cast<blasint>(v);
}

inline void blas_call(bool ta, bool tb, blasint m, blasint n, blasint k, float alpha, const float* a,
                      blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
    blas_library().sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a, lda, b, ldb, beta, c, ldc);
}
inline void blas_call(bool ta, bool tb, blasint m, blasint n, blasint k, double alpha, const double* a,
                      blasint lda, const double* b, blasint ldb, double beta, double* c, blasint ldc) {
    blas_library().dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a, lda, b, ldb, beta, c, ldc);
}

// Below this many multiply-adds a product is not worth splitting.
constexpr double kMinParallelWork = 1 << 21;
// A block narrower than this loses more to OpenBLAS's packing than it gains.
constexpr size_t kMinBlock = 32;

template <class T>
void gemm_impl(bool ta, bool tb, size_t m, size_t n, size_t k, T alpha, const T* a, size_t lda, const T* b,
               size_t ldb, T beta, T* c, size_t ldc) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
        return;
    }
    blas_library();  // loaded here, before any product runs on the TBB workers
    const blasint bk = blas_int(k, "k"), blda = blas_int(lda, "row stride"),
                  bldb = blas_int(ldb, "row stride"), bldc = blas_int(ldc, "row stride");
    blas_int(m, "m");
    blas_int(n, "n");
    const size_t threads = static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
    const bool split_n = n >= m;
    const size_t extent = split_n ? n : m;
    size_t blocks = 1;
    if (threads > 1 &&
        static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= kMinParallelWork)
        blocks = std::min(threads, std::max<size_t>(1, extent / kMinBlock));
    if (blocks <= 1) {
        blas_call(ta, tb, static_cast<blasint>(m), static_cast<blasint>(n), bk, alpha, a, blda, b, bldb, beta,
                  c, bldc);
        return;
    }
    // Blocks of whole 16-column (or row) multiples, so each call keeps OpenBLAS's
    // kernel widths; the last takes the remainder.
    const size_t step = ((extent + blocks - 1) / blocks + 15) / 16 * 16;
    const size_t nr_blocks = (extent + step - 1) / step;
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, nr_blocks, 1),
        [&](const tbb::blocked_range<size_t>& r) {
            for (size_t blk = r.begin(); blk != r.end(); ++blk) {
                const size_t lo = blk * step, len = std::min(step, extent - lo);
                if (split_n) {
                    // Columns lo.. of op(B) and C.
                    const T* bb = tb ? b + lo * ldb : b + lo;
                    blas_call(ta, tb, static_cast<blasint>(m), static_cast<blasint>(len), bk, alpha, a, blda,
                              bb, bldb, beta, c + lo, bldc);
                } else {
                    // Rows lo.. of op(A) and C.
                    const T* aa = ta ? a + lo : a + lo * lda;
                    blas_call(ta, tb, static_cast<blasint>(len), static_cast<blasint>(n), bk, alpha, aa, blda,
                              b, bldb, beta, c + lo * ldc, bldc);
                }
            }
        },
        tbb::simple_partitioner());
}

}  // namespace

void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* a, size_t lda,
          const float* b, size_t ldb, float beta, float* c, size_t ldc) {
    gemm_impl(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, double alpha, const double* a, size_t lda,
          const double* b, size_t ldb, double beta, double* c, size_t ldc) {
    gemm_impl(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace mgedump::engine::eval
