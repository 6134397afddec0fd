// Matrix products on CUDA through cuBLAS. cuBLAS is column-major; a row-major matrix read as
// column-major is its transpose, so C = op(A) op(B) (row-major) is computed as
// C^T = op(B)^T op(A)^T (column-major): the same call with A and B swapped. TF32 is not
// enabled, so results match the CPU's float32 to rounding.
#include <climits>
#include <type_traits>

#include "backends/cuda/check.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cuda_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cuda {

// Both precisions: T float (cublasSgemm) or double (cublasDgemm).
template <typename T>
void CudaBackend::gemm_typed(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha,
                             const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                             int64_t ldc) {
  if (m == 0 || n == 0) return;
  activate();
  if (k == 0) {  // nothing to multiply: C = beta * C (cuBLAS rejects the leading dimensions)
    for (int64_t row = 0; row < m; ++row) {
      if (beta == T(0))
        kernels::fill(c + row * ldc, dtype_of<T>(), n, 0.0, stream_);
      else
        kernels::binary_scalar(BinaryOp::Mul, dtype_of<T>(), c + row * ldc, beta, false,
                               c + row * ldc, n, stream_);
      check_launch("matmul");
    }
    return;
  }
  for (int64_t v : {m, n, k, lda, ldb, ldc})
    TORCHLET_CHECK(v <= INT_MAX, "matmul: Expected matrix sizes below 2^31 on CUDA, but got ", v);
  const auto call = [&] {
    if constexpr (std::is_same_v<T, double>)
      return cublas().dgemm;
    else
      return cublas().sgemm;
  }();
  TORCHLET_CUBLAS_CHECK(
      call(cublas_, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
           static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha, b,
           static_cast<int>(ldb), a, static_cast<int>(lda), &beta, c, static_cast<int>(ldc)),
      "matmul", index_);
  profile::record_launch();
}

void CudaBackend::gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                       const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                       float* c, int64_t ldc) {
  gemm_typed(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void CudaBackend::gemm_float64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                               double alpha, const double* a, int64_t lda, const double* b,
                               int64_t ldb, double beta, double* c, int64_t ldc) {
  gemm_typed(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace torchlet::backend::cuda
