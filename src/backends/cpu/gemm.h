// The CPU GEMM paths behind CpuBackend::gemm: a register-tiled kernel for the small products
// of small models, and the BLAS library for large ones. Same contract as Backend::gemm.
#pragma once

#include <cstdint>

namespace torchlet::backend::cpu {

// With `bias` ([n]), C(i, j) += bias[j] afterwards, rounded as a separate add would be.
void gemm_small(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                int64_t ldc, const float* bias = nullptr);

}  // namespace torchlet::backend::cpu
