// The CUDA emulator's own test kernels (harness_kernels.h). Written as CUDA, and rewritten and
// compiled exactly as the project's .cu files are.
#include "cuda_emu/harness_kernels.h"

namespace torchlet::emu::harness {

namespace {

__global__ void neighbour_kernel(float* out, bool sync, bool wrap) {
  __shared__ float value[1024];
  const int t = threadIdx.x, n = blockDim.x;
  value[t] = static_cast<float>(t);
  if (sync) __syncthreads();
  if (t + 1 < n)
    out[t] = value[t + 1];
  else
    out[t] = wrap ? value[0] : 0.0f;
}

__global__ void read_unwritten_kernel(float* out) {
  __shared__ float value[4];
  out[threadIdx.x] = value[threadIdx.x % 4];
}

__global__ void count_kernel(int* count) { atomicAdd(count, 1); }

__global__ void big_static_kernel(float* out) {
  __shared__ float big[12289];
  big[threadIdx.x] = 1.0f;
  out[threadIdx.x] = big[threadIdx.x];
}

__global__ void early_return_kernel(float* out) {
  __shared__ float value[64];
  if (threadIdx.x == 0) return;
  value[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = value[threadIdx.x];
}

__global__ void write_shared_kernel(int index) {
  extern __shared__ float dynamic[];
  dynamic[index] = 1.0f;
}

}  // namespace

void neighbour(float* out, int threads, bool sync, bool wrap) {
  neighbour_kernel<<<1, threads>>>(out, sync, wrap);
}

void read_unwritten(float* out, int threads) { read_unwritten_kernel<<<1, threads>>>(out); }

void count_threads(int* count, dim3 grid, dim3 block, std::size_t shared_bytes) {
  count_kernel<<<grid, block, shared_bytes>>>(count);
}

cudaError_t allow_shared(int bytes) {
  return cudaFuncSetAttribute(count_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

void big_static(float* out) { big_static_kernel<<<1, 32>>>(out); }

void early_return(float* out, int threads) { early_return_kernel<<<1, threads>>>(out); }

void write_shared(int index, std::size_t shared_bytes) {
  write_shared_kernel<<<1, 1, shared_bytes>>>(index);
}

}  // namespace torchlet::emu::harness
