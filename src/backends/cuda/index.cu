// The indexing kernels (backend.h's gather_dim and scatter_dim): gather, index_select, scatter,
// scatter_add, index_add and index_put_ all come down to these two. They mirror
// backends/cpu/index.cpp, which the emulator tests compare them against.
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

// The offsets of position i (row-major over g.shape) in index, src and dst, and its coordinate
// along g.dim.
struct IndexOffsets {
  int64_t index, src, dst, along;
};

__device__ inline IndexOffsets index_offsets(const IndexLoop& g, int64_t i) {
  IndexOffsets o{0, 0, 0, 0};
  for (int d = g.shape.size() - 1; d >= 0; --d) {
    const int64_t k = i % g.shape[d];
    i /= g.shape[d];
    o.index += k * g.stride_index[d];
    o.src += k * g.stride_src[d];
    o.dst += k * g.stride_dst[d];
    if (d == g.dim) o.along = k;
  }
  return o;
}

template <typename T>
__global__ void gather_dim_kernel(const T* src, const int64_t* index, T* dst, const IndexLoop g,
                                  int64_t n, ErrorFlag error) {
  TORCHLET_GRID_STRIDE(i, n) {
    const IndexOffsets o = index_offsets(g, i);
    const int64_t k = index[o.index];
    if (k < 0 || k >= g.dim_size) {
      report(error, k);
      dst[o.dst] = T(0);
    } else {
      dst[o.dst] = src[o.src + (k - o.along) * g.stride_src[g.dim]];
    }
  }
}

// One thread per line along g.dim (line l is the l-th position of g.shape with that dimension's
// size taken as 1), walking it in order: writes to one element come from one thread, in the
// CPU's order.
template <typename T>
__global__ void scatter_dim_kernel(bool accumulate, const T* src, const int64_t* index, T* dst,
                                   const IndexLoop g, int64_t lines, ErrorFlag error) {
  const int64_t len = g.shape[g.dim];
  TORCHLET_GRID_STRIDE(l, lines) {
    int64_t rest = l, oi = 0, os = 0, od = 0;
    for (int d = g.shape.size() - 1; d >= 0; --d) {
      if (d == g.dim) continue;
      const int64_t k = rest % g.shape[d];
      rest /= g.shape[d];
      oi += k * g.stride_index[d];
      os += k * g.stride_src[d];
      od += k * g.stride_dst[d];
    }
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = index[oi + j * g.stride_index[g.dim]];
      if (k < 0 || k >= g.dim_size) {
        report(error, k);
        continue;
      }
      const T v = src[os + j * g.stride_src[g.dim]];
      T& out = dst[od + k * g.stride_dst[g.dim]];
      out = accumulate ? static_cast<T>(out + v) : v;
    }
  }
}

}  // namespace

void gather_dim(DType dtype, const void* src, const int64_t* index, void* dst,
                const IndexLoop& loop, ErrorFlag error, cudaStream_t stream) {
  const int64_t n = loop.shape.numel();
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    gather_dim_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(src), index,
                                                              static_cast<T*>(dst), loop, n, error);
  });
}

void scatter_dim(bool accumulate, DType dtype, const void* src, const int64_t* index, void* dst,
                 const IndexLoop& loop, ErrorFlag error, cudaStream_t stream) {
  const int64_t len = loop.shape[loop.dim];
  const int64_t lines = len == 0 ? 0 : loop.shape.numel() / len;
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    scatter_dim_kernel<<<blocks_for(lines), kThreads, 0, stream>>>(
        accumulate, static_cast<const T*>(src), index, static_cast<T*>(dst), loop, lines, error);
  });
}

}  // namespace torchlet::backend::cuda::kernels
