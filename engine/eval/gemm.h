// Row-major matrix products for the evaluator's kernels, through OpenBLAS
// (cblas_sgemm / cblas_dgemm). OpenBLAS runs single-threaded; a large product is
// split into column (or row) blocks over oneTBB instead, so the task arena the
// evaluator runs in (EvalOptions::threads) decides the parallelism, and a call
// from inside a parallel kernel nests instead of oversubscribing.
#pragma once

#include <cstddef>

namespace mgedump::engine::eval {

// C = alpha · op(A) · op(B) + beta · C, all row-major.
//   op(A) is m×k: A is stored m×k (row stride lda ≥ k), or k×m when trans_a (lda ≥ m);
//   op(B) is k×n: B is stored k×n (ldb ≥ n), or n×k when trans_b (ldb ≥ k);
//   C is m×n with row stride ldc ≥ n. With beta == 0, C is only written.
// k == 0 leaves beta · C. Throws Error when a dimension exceeds OpenBLAS's int.
void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, float alpha, const float* a, size_t lda,
          const float* b, size_t ldb, float beta, float* c, size_t ldc);
// The same in double: integer and quantized kernels sum int8/int16 products in
// double, which is exact far beyond any realistic k (|sum| < 2^53).
void gemm(bool trans_a, bool trans_b, size_t m, size_t n, size_t k, double alpha, const double* a, size_t lda,
          const double* b, size_t ldb, double beta, double* c, size_t ldc);

}  // namespace mgedump::engine::eval
