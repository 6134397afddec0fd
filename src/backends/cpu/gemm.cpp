// CpuBackend::gemm: small products take the register-tiled kernel (no library call and no
// thread hand-off for a few thousand flops); large ones go to OpenBLAS, threaded over cores.
// The boundary (64^3 multiply-adds) is where the two measured the same on one core.
#include "backends/cpu/gemm.h"

#include <cblas.h>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

void CpuBackend::gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                      float* c, int64_t ldc) {
  profile::record_launch();
  constexpr int64_t kBlasWork = 64 * 64 * 64;
  if (m == 0 || n == 0) return;
  if (m * n * k < kBlasWork) {
    gemm_small(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta,
              c, static_cast<int>(ldc));
}

}  // namespace torchlet::backend::cpu
