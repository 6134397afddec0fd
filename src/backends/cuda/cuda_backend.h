// The CUDA backend: one object per GPU, each with its own stream (every kernel and copy is
// queued on it, so ops run in order without the host waiting), cuBLAS handle, caching
// allocator, pinned staging buffers for host copies, and a host-mapped error word through
// which kernels report bad indices without a synchronisation.
//
// Kernels live in the .cu files next to this one (declared in kernels.h); this class, compiled
// by the host compiler, picks the launch and checks it.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/caching_allocator.h"
#include "backends/cuda/kernels.h"

namespace torchlet::backend::cuda {

// Memory a CUDA graph's capture allocated: kept for the graph (its replays write there), never
// handed to tensors outside it. Freed with the graph (CudaBackend::release_pool). Read and
// changed under the backend's pool_mutex_.
struct GraphPool {
  std::unordered_map<std::size_t, std::vector<void*>> free_blocks;  // by rounded size
  // Blocks from the general cache that were freed during the capture: the captured kernels may
  // still use them, so they go back to the cache only when the graph goes.
  std::vector<std::pair<void*, std::size_t>> kept;
  bool graph_alive = true;
};

class CudaBackend final : public Backend, public FusedMlpKernels {
 public:
  explicit CudaBackend(int index);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  Device device() const override { return Device(DeviceType::CUDA, index_); }
  int index() const { return index_; }
  cudaStream_t stream() const { return stream_; }

  void* allocate(std::size_t nbytes) override;
  void deallocate(void* ptr, std::size_t nbytes) noexcept override;
  void copy_from_host(void* dst, const void* src, std::size_t nbytes) override;
  void copy_to_host(void* dst, const void* src, std::size_t nbytes) override;
  // Both refuse to run during a capture (they would invalidate it).
  void synchronize() override;
  AllocatorStats allocator_stats() const { return allocator_.stats(); }
  void empty_cache();

  // The kernels of backends/entries.def (ops.cpp, gemm.cpp, image.cpp; their launchers are in
  // kernels.h).
#define TORCHLET_KERNEL(name, recording, params, args) void name params override;
#include "backends/entries.def"
#undef TORCHLET_KERNEL

  // The bias add folded into cuBLASLt's GEMM epilogue (when bias is set).
  void linear_forward(const float* x, const float* w, const float* bias, float* y, int64_t rows,
                      int64_t in, int64_t out) override;

  FusedMlpKernels* fused_mlp() override { return this; }
  void mlp_step(const MlpStep& step) override;
  void mlp_sgd_steps(const MlpStep& step, const MlpSgd& sgd, int64_t steps, float* losses) override;

  // CUDA graphs (cuda::Graph): while capturing, this device's allocations come from `pool`.
  void begin_capture(std::shared_ptr<GraphPool> pool);
  cudaGraph_t end_capture();
  bool capturing() const override { return capture_pool_ != nullptr; }
  // The graph of `pool` is gone: its free blocks go back to the driver (after the capture
  // running now, if any) and its kept blocks to the cache.
  void release_pool(GraphPool& pool) noexcept;

  // Checks the kernel just queued for `op` (a launch error, not the kernel's result).
  void check_launch(const char* op);
  // Makes this backend's GPU the calling thread's current device.
  void activate();

 private:
  // gemm and gemm_float64 (gemm.cpp).
  template <typename T>
  void gemm_typed(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                  int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc);
  // The fused one-block path when the model and batch fit in shared memory, else the same
  // step composed of cuBLAS GEMMs and kernels (mlp_composed.cpp).
  void mlp_run(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses);
  void mlp_composed(const MlpStep& s, const MlpSgd* sgd, int64_t steps, float* losses);
  // y = x w^T + bias, then ReLU when `relu`: one cuBLASLt matmul with the BIAS or RELU_BIAS
  // epilogue where cuBLASLt takes the shape, else a GEMM and kernels (mlp_composed.cpp).
  void linear_fused(const float* x, const float* w, const float* bias, float* y, int64_t n,
                    int64_t in, int64_t out, bool relu);
  // The cuBLASLt matmul alone; false when cuBLASLt refused the shape.
  bool linear_lt(const float* x, const float* w, const float* bias, float* y, int64_t n, int64_t in,
                 int64_t out, bool relu);
  // cudaFree now, or after the capture running now (cudaFree would invalidate it). Called with
  // pool_mutex_ held.
  void free_or_defer(void* ptr) noexcept;
  // Throws if a kernel reported a bad index since the last check (call after a host wait).
  void raise_device_errors();
  kernels::ErrorFlag index_error() const { return {error_words_device_}; }
  kernels::ErrorFlag target_error() const { return {error_words_device_ + 1}; }

  int index_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  void* cublas_workspace_ = nullptr;
  CachingAllocator allocator_;
  // Two pinned buffers: one is filled by the host while the other's copy runs.
  static constexpr std::size_t kStagingBytes = std::size_t{4} << 20;
  // cuBLAS(Lt)'s workspace: 32 MiB, as NVIDIA advises for Hopper (4 MiB before it).
  static constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
  void* staging_[2] = {nullptr, nullptr};
  cudaEvent_t staging_free_[2] = {nullptr, nullptr};
  std::mutex staging_mutex_;
  int next_staging_ = 0;  // the buffer the next host-to-device chunk fills (they alternate)
  int64_t* error_words_ = nullptr;         // host view: [0] bad index, [1] bad target
  int64_t* error_words_device_ = nullptr;  // the same words seen from the device
  std::size_t shared_limit_ = 48 * 1024;   // opt-in shared memory per block
  float* ones_ = nullptr;                  // ones_count_ ones: sums over rows as a GEMV
  int64_t ones_count_ = 0;
  bool ones_captured_ = false;  // a graph may read ones_: when it grows, the old one is kept
  std::vector<std::pair<float*, int64_t>> retired_ones_;
  std::size_t mlp_shared_opted_in_ = 48 * 1024;  // the fused MLP kernel's shared memory limit
  std::shared_ptr<GraphPool> capture_pool_;
  std::unordered_map<void*, std::shared_ptr<GraphPool>> pool_blocks_;
  std::vector<void*> deferred_frees_;  // blocks to cudaFree when the capture ends
  std::mutex pool_mutex_;
};

// The backend of GPU `index` (created on first use). Throws torchlet::Error naming the number
// of devices when index is out of range.
CudaBackend& instance(int index);
// The number of usable GPUs (0 without a driver or device); never throws.
int device_count();
// Why CUDA is unavailable, for error messages ("no CUDA driver", "no GPU" ...).
const char* unavailable_reason();

}  // namespace torchlet::backend::cuda
