// CPU matrix product, the plain reference: C = alpha * op(A) op(B) + beta * C, row-major.
// The i-k-j order keeps the innermost loop contiguous in B and C so it vectorises.
#include "backends/cpu/cpu_backend.h"

namespace torchlet::backend::cpu {

void CpuBackend::gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                      const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                      float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* crow = c + i * ldc;
    if (beta == 0.0f) {
      for (int64_t j = 0; j < n; ++j) crow[j] = 0.0f;
    } else if (beta != 1.0f) {
      for (int64_t j = 0; j < n; ++j) crow[j] *= beta;
    }
    for (int64_t p = 0; p < k; ++p) {
      const float aip = alpha * (trans_a ? a[p * lda + i] : a[i * lda + p]);
      if (trans_b) {
        for (int64_t j = 0; j < n; ++j) crow[j] += aip * b[j * ldb + p];
      } else {
        const float* brow = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) crow[j] += aip * brow[j];
      }
    }
  }
}

}  // namespace torchlet::backend::cpu
