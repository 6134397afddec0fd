// CpuBackend::gemm: small products take the register-tiled kernel (no library call and no
// thread hand-off for a few thousand flops); large ones go to OpenBLAS. OpenBLAS runs on one
// thread (see core/threads.cpp): C's larger dimension is cut into one block per thread of the
// backend's pool, in whole 16-row or 16-column units, and each block is one OpenBLAS call. The
// boundary (64^3 multiply-adds) is where the two measured the same on one core.
// CpuBackend::linear_forward fuses the bias add into the small kernel.
#include "backends/cpu/gemm.h"

#include <cblas.h>

#include <algorithm>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

constexpr int64_t kBlasWork = int64_t{64} * 64 * 64;
// Multiply-adds per thread below which a block is not worth a thread: some 20 us of work.
constexpr int64_t kThreadWork = int64_t{1} << 20;
constexpr int64_t kUnit = 16;

void blas(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta,
              c, static_cast<int>(ldc));
}

}  // namespace

void CpuBackend::gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                      float* c, int64_t ldc) {
  profile::record_launch();
  if (m == 0 || n == 0) return;
  if (m * n * k < kBlasWork) {
    gemm_small(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  const bool by_columns = n >= m;
  const int64_t size = by_columns ? n : m, units = (size + kUnit - 1) / kUnit;
  const int64_t unit_work = kUnit * (by_columns ? m : n) * std::max<int64_t>(k, 1);
  parallel_for(units, std::max<int64_t>(kThreadWork / unit_work, 1), [&](int64_t u0, int64_t u1) {
    const int64_t first = u0 * kUnit, count = std::min(u1 * kUnit, size) - first;
    if (by_columns)  // columns [first, first + count) of op(B) and C
      blas(trans_a, trans_b, m, count, k, alpha, a, lda, trans_b ? b + first * ldb : b + first, ldb,
           beta, c + first, ldc);
    else  // rows of op(A) and C
      blas(trans_a, trans_b, count, n, k, alpha, trans_a ? a + first : a + first * lda, lda, b, ldb,
           beta, c + first * ldc, ldc);
  });
}

// float64: one OpenBLAS call (speed is not float64's aim); with k == 0, C = beta * C.
void CpuBackend::gemm_float64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                              double alpha, const double* a, int64_t lda, const double* b,
                              int64_t ldb, double beta, double* c, int64_t ldc) {
  profile::record_launch();
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0 ? 0.0 : beta * c[i * ldc + j];
    return;
  }
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta,
              c, static_cast<int>(ldc));
}

// A small product takes its bias in the GEMM's store (one pass over y instead of two); a large
// one is the GEMM and the broadcast add.
void CpuBackend::linear_forward(const float* x, const float* w, const float* bias, float* y,
                                int64_t rows, int64_t in, int64_t out) {
  if (!bias || rows * out * in >= kBlasWork || rows * out == 0)
    return Backend::linear_forward(x, w, bias, y, rows, in, out);
  profile::record_launch();
  gemm_small(false, true, rows, out, in, 1.0f, x, in, w, in, 0.0f, y, out, bias);
}

}  // namespace torchlet::backend::cpu
