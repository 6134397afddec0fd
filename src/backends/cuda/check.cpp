// The messages of CUDA and cuBLAS failures.
#include "backends/cuda/check.h"

#include "backends/cuda/cublas_api.h"
#include "torchlet/error.h"

namespace torchlet::backend::cuda {

void throw_cuda_error(cudaError_t error, const char* call, const char* op, int device,
                      const char* file, int line) {
  cudaGetLastError();  // clear a sticky-free error so the next call does not see it again
  throw Error(detail::str_cat("CUDA error in ", op, " on cuda:", device, ": ", call, " returned ",
                              cudaGetErrorName(error), " (", cudaGetErrorString(error), ")"),
              file, line, op, ErrorKind::Device);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* op, int device,
                        const char* file, int line) {
  throw Error(
      detail::str_cat("cuBLAS error in ", op, " on cuda:", device, ": ", call, " returned ",
                      cublas().status_name(status), " (", cublas().status_string(status), ")"),
      file, line, op, ErrorKind::Device);
}

}  // namespace torchlet::backend::cuda
