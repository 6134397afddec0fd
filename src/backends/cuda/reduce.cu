// CUDA reductions over the middle axis of [outer, r, inner]: sum, argmax, (log_)softmax. Like
// the CPU reference (backends/cpu/reduce.cpp) they accumulate in double, in a fixed order, so
// results are deterministic run to run. Whole rows (inner == 1) of sums, argmax and softmax
// take one block a row (coalesced reads, a tree in shared memory); the rest one thread per output.
#include <type_traits>

#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

// Sums of whole rows (inner == 1): one block per row, threads stride along it, then a tree
// in shared memory.
__global__ void sum_rows_kernel(const float* in, float* out, int64_t outer, int64_t r,
                                float scale) {
  __shared__ double partial[kThreads];
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    double acc = 0.0;
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) acc += in[o * r + j];
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (static_cast<int>(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    // No barrier before the next row: only thread 0 reads partial[0] here and only thread 0
    // writes it next; every other slot is read in the tree before its last barrier.
    if (threadIdx.x == 0) out[o] = static_cast<float>(partial[0] * scale);
  }
}

// Sums down columns (inner > 1): one thread per output, reading along r with stride inner,
// which neighbouring threads read together (coalesced).
__global__ void sum_columns_kernel(const float* in, float* out, int64_t outer, int64_t r,
                                   int64_t inner, float scale) {
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const float* col = in + o * r * inner + i;
    double acc = 0.0;
    for (int64_t j = 0; j < r; ++j) acc += col[j * inner];
    out[k] = static_cast<float>(acc * scale);
  }
}

// int64 (exact, scale 1) and float64: each column added in order along r.
template <typename T>
__global__ void sum_in_order_kernel(const T* in, T* out, int64_t outer, int64_t r, int64_t inner,
                                    T scale) {
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const T* col = in + o * r * inner + i;
    T acc = 0;
    for (int64_t j = 0; j < r; ++j) acc += col[j * inner];
    out[k] = scale == T(1) ? acc : acc * scale;
  }
}

// One thread per output, reading along r with stride inner (coalesced across threads).
template <typename T>
__global__ void reduce_kernel(ReduceOp op, const T* in, T* out, int64_t outer, int64_t r,
                              int64_t inner) {
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const T* col = in + (k / inner) * r * inner + k % inner;
    T acc = reduce_init(op, col[0]);
    for (int64_t j = op == ReduceOp::Prod ? 0 : 1; j < r; ++j)
      acc = reduce_step(op, acc, col[j * inner]);
    out[k] = acc;
  }
}

template <typename T>
__global__ void cumsum_kernel(const T* in, T* out, int64_t outer, int64_t r, int64_t inner) {
  using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;  // as the CPU
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const int64_t base = (k / inner) * r * inner + k % inner;
    Acc acc = 0;
    for (int64_t j = 0; j < r; ++j) {
      acc += in[base + j * inner];
      out[base + j * inner] = static_cast<T>(acc);
    }
  }
}

template <typename T>
__global__ void argmax_kernel(const T* in, int64_t* out, int64_t outer, int64_t r, int64_t inner) {
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const T* col = in + o * r * inner + i;
    int64_t best = 0;
    for (int64_t j = 1; j < r; ++j)
      if (col[j * inner] > col[best * inner]) best = j;
    out[k] = best;
  }
}

// argmax of whole rows (inner == 1): one block a row, coalesced. The CPU's scan keeps the first
// largest value and never picks a NaN (nothing is larger than one, and one is larger than
// nothing), answering 0 for a row that starts with NaN. Here each thread takes the first
// largest non-NaN of its elements and a tree keeps the first largest of those.
template <typename T>
__global__ void argmax_rows_kernel(const T* in, int64_t* out, int64_t outer, int64_t r) {
  __shared__ T value[kThreads];
  __shared__ int64_t index[kThreads];
  const int t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    const T* row = in + o * r;
    T best{};
    int64_t where = -1;  // none yet
    for (int64_t j = t; j < r; j += blockDim.x)
      if (row[j] == row[j] && (where < 0 || row[j] > best)) best = row[j], where = j;
    value[t] = best;
    index[t] = where;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (t < half) {
        const int64_t other = index[t + half];
        const T v = value[t + half];
        if (other >= 0 && (index[t] < 0 || v > value[t] || (v == value[t] && other < index[t]))) {
          value[t] = v;
          index[t] = other;
        }
      }
      __syncthreads();
    }
    // No barrier before the next row: as in sum_rows_kernel, only thread 0 reads slot 0 here.
    if (t == 0) out[o] = row[0] != row[0] || index[0] < 0 ? 0 : index[0];
  }
}

// The sum or the largest of each thread's v over the block, in a fixed tree order (so the
// same every run), returned to every thread. scratch: blockDim.x doubles of shared memory.
template <bool Max>
__device__ inline double block_reduce(double v, double* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      const double other = scratch[threadIdx.x + half];
      scratch[threadIdx.x] = Max ? fmax(scratch[threadIdx.x], other) : scratch[threadIdx.x] + other;
    }
    __syncthreads();
  }
  const double result = scratch[0];
  __syncthreads();  // before the next reduction overwrites scratch[0]
  return result;
}

// (log_)softmax of whole rows (inner == 1): one block per row, threads reading neighbouring
// elements (coalesced), where one thread per row would stride r floats apart.
__global__ void softmax_rows_forward_kernel(const float* x, float* y, int64_t outer, int64_t r,
                                            bool log) {
  __shared__ double scratch[kThreads];
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    const float* xr = x + o * r;
    float* yr = y + o * r;
    float local_max = xr[0];
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) local_max = fmaxf(local_max, xr[j]);
    const float max = static_cast<float>(block_reduce<true>(local_max, scratch));
    double local_sum = 0.0;
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x)
      local_sum += exp(static_cast<double>(xr[j] - max));
    const double sum = block_reduce<false>(local_sum, scratch);
    const double log_sum = ::log(sum);
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) {
      const double shifted = static_cast<double>(xr[j] - max);
      yr[j] = static_cast<float>(log ? shifted - log_sum : exp(shifted) / sum);
    }
  }
}

__global__ void softmax_rows_backward_kernel(const float* y, const float* dy, float* dx,
                                             int64_t outer, int64_t r, bool log) {
  __shared__ double scratch[kThreads];
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    const int64_t base = o * r;
    double local = 0.0;
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) {
      const int64_t e = base + j;
      local += log ? static_cast<double>(dy[e]) : static_cast<double>(dy[e]) * y[e];
    }
    const double dot = block_reduce<false>(local, scratch);
    for (int64_t j = threadIdx.x; j < r; j += blockDim.x) {
      const int64_t e = base + j;
      dx[e] = log ? static_cast<float>(dy[e] - exp(static_cast<double>(y[e])) * dot)
                  : static_cast<float>(y[e] * (dy[e] - dot));
    }
  }
}

__global__ void softmax_forward_kernel(const float* x, float* y, int64_t outer, int64_t r,
                                       int64_t inner, bool log) {
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const int64_t o = k / inner, i = k % inner;
    const float* xc = x + o * r * inner + i;
    float* yc = y + o * r * inner + i;
    float max = xc[0];
    for (int64_t j = 1; j < r; ++j) max = fmaxf(max, xc[j * inner]);
    double sum = 0.0;
    for (int64_t j = 0; j < r; ++j) sum += exp(static_cast<double>(xc[j * inner] - max));
    const double log_sum = ::log(sum);
    for (int64_t j = 0; j < r; ++j) {
      const double shifted = static_cast<double>(xc[j * inner] - max);
      yc[j * inner] = static_cast<float>(log ? shifted - log_sum : exp(shifted) / sum);
    }
  }
}

__global__ void softmax_backward_kernel(const float* y, const float* dy, float* dx, int64_t outer,
                                        int64_t r, int64_t inner, bool log) {
  TORCHLET_GRID_STRIDE(k, outer * inner) {
    const int64_t base = (k / inner) * r * inner + k % inner;
    double dot = 0.0;
    for (int64_t j = 0; j < r; ++j) {
      const int64_t e = base + j * inner;
      dot += log ? static_cast<double>(dy[e]) : static_cast<double>(dy[e]) * y[e];
    }
    for (int64_t j = 0; j < r; ++j) {
      const int64_t e = base + j * inner;
      dx[e] = log ? static_cast<float>(dy[e] - exp(static_cast<double>(y[e])) * dot)
                  : static_cast<float>(y[e] * (dy[e] - dot));
    }
  }
}

// Blocks for one block per row: all of them up to the grid's x limit.
unsigned row_blocks(int64_t outer) {
  return static_cast<unsigned>(outer < 65535 ? (outer < 1 ? 1 : outer) : 65535);
}

}  // namespace

void sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner, float scale,
             cudaStream_t stream) {
  if (inner == 1) {
    sum_rows_kernel<<<row_blocks(outer), kThreads, 0, stream>>>(in, out, outer, r, scale);
  } else {
    sum_columns_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(in, out, outer, r, inner,
                                                                           scale);
  }
}

void sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r, int64_t inner,
                   cudaStream_t stream) {
  sum_in_order_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(in, out, outer, r, inner,
                                                                          int64_t{1});
}

void sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r, int64_t inner,
                     double scale, cudaStream_t stream) {
  sum_in_order_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(in, out, outer, r, inner,
                                                                          scale);
}

void reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                int64_t inner, cudaStream_t stream) {
  if (dtype == DType::Int64)
    reduce_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(
        op, static_cast<const int64_t*>(in), static_cast<int64_t*>(out), outer, r, inner);
  else if (dtype == DType::Float64)
    reduce_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(
        op, static_cast<const double*>(in), static_cast<double*>(out), outer, r, inner);
  else
    reduce_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(
        op, static_cast<const float*>(in), static_cast<float*>(out), outer, r, inner);
}

void cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r, int64_t inner,
                cudaStream_t stream) {
  if (dtype == DType::Int64)
    cumsum_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(
        static_cast<const int64_t*>(in), static_cast<int64_t*>(out), outer, r, inner);
  else if (dtype == DType::Float64)
    cumsum_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(
        static_cast<const double*>(in), static_cast<double*>(out), outer, r, inner);
  else
    cumsum_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(
        static_cast<const float*>(in), static_cast<float*>(out), outer, r, inner);
}

void argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r, int64_t inner,
                cudaStream_t stream) {
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    if (inner == 1) {
      argmax_rows_kernel<<<row_blocks(outer), kThreads, 0, stream>>>(static_cast<const T*>(in), out,
                                                                     outer, r);
      return;
    }
    argmax_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(static_cast<const T*>(in),
                                                                      out, outer, r, inner);
  });
}

void softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner, bool log,
                     cudaStream_t stream) {
  if (inner == 1) {
    softmax_rows_forward_kernel<<<row_blocks(outer), kThreads, 0, stream>>>(x, y, outer, r, log);
    return;
  }
  softmax_forward_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(x, y, outer, r, inner,
                                                                             log);
}

void softmax_backward(const float* y, const float* dy, float* dx, int64_t outer, int64_t r,
                      int64_t inner, bool log, cudaStream_t stream) {
  if (inner == 1) {
    softmax_rows_backward_kernel<<<row_blocks(outer), kThreads, 0, stream>>>(y, dy, dx, outer, r,
                                                                             log);
    return;
  }
  softmax_backward_kernel<<<blocks_for(outer * inner), kThreads, 0, stream>>>(y, dy, dx, outer, r,
                                                                              inner, log);
}

}  // namespace torchlet::backend::cuda::kernels
