// What the .cu files share: grid sizes, index helpers, the dtype switch.
#pragma once

#include <cstdint>

#include "backends/cuda/kernels.h"

namespace torchlet::backend::cuda::kernels {

// Blocks for n elements with grid-stride loops: enough to fill any GPU, never more than n needs.
inline unsigned blocks_for(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

#define TORCHLET_GRID_STRIDE(i, n)                                                       \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

// Offsets of a and b for the contiguous output position i.
__device__ inline void offsets(const Loop& g, int64_t i, int64_t& oa, int64_t& ob) {
  oa = 0;
  ob = 0;
  for (int d = g.shape.size() - 1; d >= 0; --d) {
    const int64_t k = i % g.shape[d];
    i /= g.shape[d];
    oa += k * g.stride_a[d];
    ob += k * g.stride_b[d];
  }
}

// Calls f(T{}) with T the C++ type of `dtype`.
template <typename F>
void with_type(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Float32: f(float{}); return;
    case DType::Int64: f(int64_t{}); return;
    case DType::Bool: f(bool{}); return;
    case DType::Float64: f(double{}); return;
  }
}

// Records the first bad value seen on the device (0 is a valid index, so kNoError marks none).
__device__ inline void report(ErrorFlag error, int64_t value) {
  atomicCAS(reinterpret_cast<unsigned long long*>(error.flag),
            static_cast<unsigned long long>(kNoError), static_cast<unsigned long long>(value));
}

}  // namespace torchlet::backend::cuda::kernels
