// Checking every CUDA runtime and cuBLAS call: a failure throws torchlet::Error naming the
// call, the op it was serving and the device, e.g.
//   "CUDA error in matmul on cuda:0: cublasSgemm(...) returned CUBLAS_STATUS_EXECUTION_FAILED"
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace torchlet::backend::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t error, const char* call, const char* op, int device,
                                   const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* op,
                                     int device, const char* file, int line);

}  // namespace torchlet::backend::cuda

// `op` is the torchlet operation being run ("matmul", "to", "allocate" ...).
#define TORCHLET_CUDA_CHECK(call, op, device)                                              \
  do {                                                                                     \
    const cudaError_t torchlet_cuda_error_ = (call);                                       \
    if (torchlet_cuda_error_ != cudaSuccess)                                               \
      ::torchlet::backend::cuda::throw_cuda_error(torchlet_cuda_error_, #call, op, device, \
                                                  __FILE__, __LINE__);                     \
  } while (0)

#define TORCHLET_CUBLAS_CHECK(call, op, device)                                                 \
  do {                                                                                          \
    const cublasStatus_t torchlet_cublas_status_ = (call);                                      \
    if (torchlet_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                       \
      ::torchlet::backend::cuda::throw_cublas_error(torchlet_cublas_status_, #call, op, device, \
                                                    __FILE__, __LINE__);                        \
  } while (0)
