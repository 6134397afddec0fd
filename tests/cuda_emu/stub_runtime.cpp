// The stub CUDA runtime: the CUDA runtime, cuBLAS and cuBLASLt calls of src/backends/cuda's host
// code, for one device whose memory is the host's. Queued work (kernels from the emulator,
// copies, GEMMs) runs at once in stream order, or, while a stream capture is on, is recorded
// and run by each cudaGraphLaunch. Calls CUDA refuses during a capture fail the same way here.
#include "cuda_emu/stub_runtime.h"

#include <cublasLt.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>

#include "backends/cuda/cublas_api.h"
#include "cuda_emu/emu.h"

struct CUstream_st {};
struct CUevent_st {};
struct CUgraph_st {
  std::vector<std::function<void()>> nodes;
};
struct CUgraphExec_st {
  std::vector<std::function<void()>> nodes;
};
struct cublasContext {};
struct cublasLtMatmulDescOpaque_t {
  cublasOperation_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N;
  int epilogue = 1;  // default: none
  const float* bias = nullptr;
};
struct cublasLtMatrixLayoutOpaque_t {
  uint64_t rows, cols;
  int64_t ld;
};

namespace {

using torchlet::emu::stub::stats;

// The runtime is thread-safe, as CUDA's is: device memory and the capture state change under
// this mutex (tests/cuda_emu/test_cuda_emu_threads.cpp allocates and frees from two threads).
std::recursive_mutex& runtime_mutex() {
  static auto* mutex = new std::recursive_mutex;
  return *mutex;
}

// Never destroyed: the backends (function-local statics made after these) free their memory
// at exit.
std::set<void*>& device_blocks() {
  static auto* blocks = new std::set<void*>;
  return *blocks;
}
std::unique_ptr<CUgraph_st>& capture() {
  static auto* graph = new std::unique_ptr<CUgraph_st>;
  return *graph;
}
cublasStatus_t& lt_status() {
  static cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  return status;
}

// A call CUDA refuses while a stream is captured: it fails and invalidates the capture.
bool refused_in_capture() {
  std::lock_guard lock(runtime_mutex());
  if (!capture()) return false;
  ++stats().refused_in_capture;
  stats().capture_invalidated = true;
  return true;
}

// Column-major element (r, c) of op(m): m itself, or its transpose when trans.
template <typename T>
T at(const T* m, int64_t ld, bool trans, int64_t r, int64_t c) {
  return trans ? m[c + r * ld] : m[r + c * ld];
}

}  // namespace

namespace torchlet::emu::stub {
Stats& stats() {
  static auto* s = new Stats;
  return *s;
}
void set_lt_status(cublasStatus_t status) { lt_status() = status; }
}  // namespace torchlet::emu::stub

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidValue; }
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr, int) {
  *value = static_cast<int>(torchlet::emu::kSharedOptIn);
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }  // launch errors throw LaunchError here
const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    default: return "cudaErrorInvalidValue";
  }
}
const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorStreamCaptureUnsupported:
      return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
      return "operation failed due to a previous error during capture";
    default: return "error (stub runtime)";
  }
}

cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  std::lock_guard lock(runtime_mutex());
  *ptr = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!*ptr) return cudaErrorMemoryAllocation;
  device_blocks().insert(*ptr);
  ++stats().mallocs;
  return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  std::lock_guard lock(runtime_mutex());
  if (refused_in_capture()) return cudaErrorStreamCaptureUnsupported;
  if (!device_blocks().erase(ptr)) return cudaErrorInvalidValue;
  ++stats().frees;
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) {
  *ptr = std::malloc(bytes);
  return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned) {
  return cudaMallocHost(ptr, bytes);
}
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned) {
  *device = host;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  *free_bytes = std::size_t{1} << 30;
  *total_bytes = std::size_t{2} << 30;
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  if (kind == cudaMemcpyHostToDevice) stats().host_to_device_sources.push_back(src);
  torchlet::emu::submit([=] { std::memcpy(dst, src, bytes); });
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
  *stream = new CUstream_st;
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  return refused_in_capture() ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }  // work ran at once

cudaError_t cudaStreamBeginCapture(cudaStream_t, cudaStreamCaptureMode) {
  std::lock_guard lock(runtime_mutex());
  if (capture()) return cudaErrorInvalidValue;
  capture() = std::make_unique<CUgraph_st>();
  stats().capture_invalidated = false;
  torchlet::emu::capture_sink() = [](std::function<void()> work) {
    capture()->nodes.push_back(std::move(work));
  };
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t* graph) {
  std::lock_guard lock(runtime_mutex());
  torchlet::emu::capture_sink() = nullptr;
  if (!capture()) return cudaErrorInvalidValue;
  std::unique_ptr<CUgraph_st> g = std::move(capture());
  if (stats().capture_invalidated) {
    *graph = nullptr;
    return cudaErrorStreamCaptureInvalidated;
  }
  *graph = g.release();
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  if (!graph) return cudaErrorInvalidValue;
  *exec = new CUgraphExec_st{graph->nodes};
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t) {
  for (const auto& node : exec->nodes) torchlet::emu::submit(node);
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}

// --- cuBLAS ---------------------------------------------------------------------------------

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t, void*, std::size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
// Column-major C = alpha op(A) op(B) + beta C in T, queued as cuBLAS queues it.
template <typename T>
cublasStatus_t gemm_on_cpu(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta,
                           T* c, int ldc) {
  const T al = *alpha, be = *beta;  // host pointers, read at the call
  torchlet::emu::submit([=] {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        T s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += at(a, lda, transa == CUBLAS_OP_T, i, p) * at(b, ldb, transb == CUBLAS_OP_T, p, j);
        T& out = c[i + j * ldc];
        out = al * s + (be == 0 ? T(0) : be * out);
      }
  });
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb,
                              int m, int n, int k, const float* alpha, const float* a, int lda,
                              const float* b, int ldb, const float* beta, float* c, int ldc) {
  return gemm_on_cpu(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t transa, cublasOperation_t transb,
                              int m, int n, int k, const double* alpha, const double* a, int lda,
                              const double* b, int ldb, const double* beta, double* c, int ldc) {
  return gemm_on_cpu(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t cublasSgemv_v2(cublasHandle_t, cublasOperation_t trans, int m, int n,
                              const float* alpha, const float* a, int lda, const float* x, int incx,
                              const float* beta, float* y, int incy) {
  const float al = *alpha, be = *beta;
  const bool t = trans == CUBLAS_OP_T;
  torchlet::emu::submit([=] {
    const int64_t rows = t ? n : m, cols = t ? m : n;
    for (int64_t i = 0; i < rows; ++i) {
      float s = 0.0f;
      for (int64_t j = 0; j < cols; ++j) s += at(a, lda, t, i, j) * x[j * incx];
      float& out = y[i * incy];
      out = al * s + (be == 0.0f ? 0.0f : be * out);
    }
  });
  return CUBLAS_STATUS_SUCCESS;
}
const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_EXECUTION_FAILED";
  }
}
const char* cublasGetStatusString(cublasStatus_t) { return "(stub runtime)"; }

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t,
                                        cudaDataType_t) {
  *desc = new cublasLtMatmulDescOpaque_t;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  delete desc;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attribute,
                                              const void* value, std::size_t bytes) {
  switch (attribute) {
    case CUBLASLT_MATMUL_DESC_TRANSA: std::memcpy(&desc->transa, value, bytes); break;
    case CUBLASLT_MATMUL_DESC_TRANSB: std::memcpy(&desc->transb, value, bytes); break;
    case CUBLASLT_MATMUL_DESC_EPILOGUE: std::memcpy(&desc->epilogue, value, bytes); break;
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: std::memcpy(&desc->bias, value, bytes); break;
  }
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType_t,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
  *layout = new cublasLtMatrixLayoutOpaque_t{rows, cols, ld};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  delete layout;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc, const void* alpha,
                              const void* a, cublasLtMatrixLayout_t a_layout, const void* b,
                              cublasLtMatrixLayout_t b_layout, const void* beta, const void*,
                              cublasLtMatrixLayout_t, void* d, cublasLtMatrixLayout_t d_layout,
                              const cublasLtMatmulAlgo_t*, void*, std::size_t, cudaStream_t) {
  if (lt_status() != CUBLAS_STATUS_SUCCESS) return lt_status();
  const float al = *static_cast<const float*>(alpha), be = *static_cast<const float*>(beta);
  const auto* A = static_cast<const float*>(a);
  const auto* B = static_cast<const float*>(b);
  auto* D = static_cast<float*>(d);
  const bool ta = desc->transa == CUBLAS_OP_T, tb = desc->transb == CUBLAS_OP_T;
  const int64_t m = static_cast<int64_t>(d_layout->rows), n = static_cast<int64_t>(d_layout->cols);
  const int64_t k = static_cast<int64_t>(ta ? a_layout->rows : a_layout->cols);
  const int64_t lda = a_layout->ld, ldb = b_layout->ld, ldd = d_layout->ld;
  const float* bias = desc->bias;
  const bool relu = desc->epilogue == CUBLASLT_EPILOGUE_RELU_BIAS;
  torchlet::emu::submit([=] {
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        float s = 0.0f;
        for (int64_t p = 0; p < k; ++p) s += at(A, lda, ta, i, p) * at(B, ldb, tb, p, j);
        float v = al * s + (be == 0.0f ? 0.0f : be * D[i + j * ldd]) + (bias ? bias[i] : 0.0f);
        D[i + j * ldd] = relu && v < 0.0f ? 0.0f : v;
      }
  });
  return CUBLAS_STATUS_SUCCESS;
}

namespace torchlet::backend::cuda {

const CublasApi& cublas() {
  static const CublasApi api{&cublasCreate_v2,
                             &cublasDestroy_v2,
                             &cublasSetStream_v2,
                             &cublasSetWorkspace_v2,
                             &cublasSgemm_v2,
                             &cublasDgemm_v2,
                             &cublasSgemv_v2,
                             &cublasGetStatusName,
                             &cublasGetStatusString,
                             &cublasLtMatmulDescCreate,
                             &cublasLtMatmulDescDestroy,
                             &cublasLtMatmulDescSetAttribute,
                             &cublasLtMatrixLayoutCreate,
                             &cublasLtMatrixLayoutDestroy,
                             &cublasLtMatmul};
  return api;
}

}  // namespace torchlet::backend::cuda
