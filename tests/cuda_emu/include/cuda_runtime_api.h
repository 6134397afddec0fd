// The CUDA emulator's stand-in for the CUDA runtime header: what the project's .cu files use
// (__global__, threadIdx, __syncthreads, atomics, dim3, streams, cudaFuncSetAttribute), for g++.
// Each launch runs its blocks one after another on the calling thread, each block's threads as
// fibers that switch at __syncthreads (emu.cpp). The build step (rewrite_cu.py) turns
// `k<<<grid, block, shared, stream>>>(args)` into torchlet::emu::launch(...) and __shared__
// declarations into per-block storage; kernels.h reaches this file through its own
// #include <cuda_runtime_api.h> (tests/cuda_emu/include comes first on the include path).
#pragma once

#include <math.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct CUstream_st;
using cudaStream_t = CUstream_st*;
struct CUevent_st;
using cudaEvent_t = CUevent_st*;
struct CUgraph_st;
using cudaGraph_t = CUgraph_st*;
struct CUgraphExec_st;
using cudaGraphExec_t = CUgraphExec_st*;

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaMemcpyKind {
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
};
enum cudaStreamCaptureMode { cudaStreamCaptureModeRelaxed = 2 };
enum cudaDeviceAttr { cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
inline constexpr unsigned cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2,
                          cudaHostAllocMapped = 2;

// The stub runtime (stub_runtime.cpp): one device whose memory is host memory. Work queued on a
// stream runs at once, or is recorded while a capture is on and run by cudaGraphLaunch. Calls
// that CUDA refuses during a capture (cudaFree, synchronising the captured stream) fail with
// cudaErrorStreamCaptureUnsupported and invalidate the capture, as they do on a GPU.
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device);
cudaError_t cudaGetLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaMalloc(void** ptr, std::size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes);
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned flags);
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

namespace torchlet::emu {

// The indices of the thread now running (the fiber the scheduler resumed last).
struct ThreadState {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};
const ThreadState& current();

// Blocks at the barrier until every thread of the block has reached it.
void sync_threads();

// Per-block __shared__ storage: the n-th call of a thread in a block returns the block's n-th
// array (allocated, exactly sized on the heap and filled with NaN bytes, by its first caller).
void* shared_static(std::size_t bytes);
template <typename T, std::size_t N>
T (&shared_array())
[N] {
  return *static_cast<T(*)[N]>(shared_static(N * sizeof(T)));
}
// extern __shared__: the launch's dynamic shared memory, exactly the bytes asked for.
void* shared_dynamic();

// Runs a whole grid; call(t) runs thread t's kernel body. Throws LaunchError for a launch that
// CUDA would refuse (sm_90's limits) and for a barrier that not every thread reached.
struct Config {
  dim3 grid, block;
  std::size_t shared_bytes;
};
void run_grid(const char* kernel, const Config& config, void (*body)(void*), void* arg);
// Runs work now, or records it into the graph being captured (the stub runtime's capture).
void submit(std::function<void()> work);

template <typename Kernel>
struct Launch {
  const char* name;
  Kernel kernel;
  Config config;
  // The arguments are copied once, as CUDA copies them into the launch.
  template <typename... Args>
  void operator()(Args... args) const {
    using Bound = std::tuple<Kernel, Args...>;
    auto bound = std::make_shared<Bound>(kernel, std::move(args)...);
    submit([name = name, config = config, bound] {
      run_grid(
          name, config,
          [](void* p) {
            std::apply([](auto& k, auto&... a) { k(a...); }, *static_cast<Bound*>(p));
          },
          bound.get());
    });
  }
};
template <typename Kernel>
Launch<Kernel> launch(const char* name, Kernel kernel, dim3 grid, dim3 block,
                      std::size_t shared_bytes = 0, cudaStream_t = nullptr) {
  return {name, kernel, {grid, block, shared_bytes}};
}

// cudaFuncSetAttribute, by kernel name.
cudaError_t set_attribute(const char* kernel, cudaFuncAttribute attribute, int value);

}  // namespace torchlet::emu

#define threadIdx (::torchlet::emu::current().thread_idx)
#define blockIdx (::torchlet::emu::current().block_idx)
#define blockDim (::torchlet::emu::current().block_dim)
#define gridDim (::torchlet::emu::current().grid_dim)
#define cudaFuncSetAttribute(kernel, attribute, value) \
  ::torchlet::emu::set_attribute(#kernel, attribute, value)

inline void __syncthreads() { torchlet::emu::sync_threads(); }

// Atomics: fibers switch only at barriers, so a plain read-modify-write is atomic here.
inline unsigned long long atomicCAS(unsigned long long* address, unsigned long long compare,
                                    unsigned long long value) {
  const unsigned long long old = *address;
  if (old == compare) *address = value;
  return old;
}
template <typename T>
T atomicAdd(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
