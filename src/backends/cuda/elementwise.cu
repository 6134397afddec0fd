// Elementwise CUDA kernels: one thread per element in grid-stride loops. They mirror
// backends/cpu/elementwise.cpp and memory.cpp, which the tests compare them against.
#include <type_traits>

#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

template <typename T>
__global__ void fill_kernel(T* out, int64_t n, T value) {
  TORCHLET_GRID_STRIDE(i, n) out[i] = value;
}

template <typename In, typename Out>
__global__ void cast_kernel(const In* in, Out* out, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) out[i] = static_cast<Out>(in[i]);
}

template <typename T>
__global__ void strided_copy_kernel(const T* a, T* out, Loop g, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) {
    int64_t oa, ob;
    offsets(g, i, oa, ob);
    out[ob] = a[oa];
  }
}

// out = a op b (backends/elementwise.h's formulas, as on the CPU); Out is bool for predicates.
template <typename T, typename Out>
__device__ inline Out apply(BinaryOp op, T x, T y) {
  if constexpr (std::is_same_v<Out, bool>)
    return binary_predicate(op, x, y);
  else
    return binary_value(op, x, y);
}

template <typename T, typename Out>
__global__ void binary_kernel(BinaryOp op, const T* a, const T* b, Out* out, Loop g, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) {
    int64_t oa, ob;
    offsets(g, i, oa, ob);
    out[i] = apply<T, Out>(op, a[oa], b[ob]);
  }
}

template <typename T, typename Out>
__global__ void binary_scalar_kernel(BinaryOp op, const T* a, T s, bool scalar_first, Out* out,
                                     int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) {
    out[i] = scalar_first ? apply<T, Out>(op, s, a[i]) : apply<T, Out>(op, a[i], s);
  }
}

template <typename T>
__global__ void unary_kernel(UnaryOp op, const T* x, T* y, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) y[i] = unary_value(op, x[i]);
}

template <typename T>
__global__ void where_kernel(const bool* cond, const T* a, const T* b, T* out, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) out[i] = cond[i] ? a[i] : b[i];
}

// One thread per word W of output (8, 4 or 1 bytes: the widest that divides the row and both
// pointers' alignment); rows are small in torchlet's uses (a few features).
template <typename W>
__global__ void gather_rows_kernel(const W* in, int64_t rows, const int64_t* index, W* out,
                                   int64_t n, int64_t row_words, ErrorFlag error) {
  TORCHLET_GRID_STRIDE(i, n * row_words) {
    const int64_t r = i / row_words;
    const int64_t src = index[r];
    if (src < 0 || src >= rows) {
      if (i % row_words == 0) report(error, src);
      out[i] = 0;
    } else {
      out[i] = in[src * row_words + i % row_words];
    }
  }
}

__global__ void relu_forward_kernel(const float* x, float* y, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void relu_backward_kernel(const float* x, const float* dy, float* dx, int64_t n) {
  TORCHLET_GRID_STRIDE(i, n) dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

}  // namespace

void fill(void* out, DType dtype, int64_t n, double value, cudaStream_t stream) {
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<T*>(out), n,
                                                        static_cast<T>(value));
  });
}

void cast(const void* in, DType in_dtype, void* out, DType out_dtype, int64_t n,
          cudaStream_t stream) {
  with_type(in_dtype, [&](auto in_zero) {
    with_type(out_dtype, [&](auto out_zero) {
      using In = decltype(in_zero);
      using Out = decltype(out_zero);
      cast_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const In*>(in),
                                                          static_cast<Out*>(out), n);
    });
  });
}

void strided_copy(const void* a, void* out, DType dtype, const Loop& loop, cudaStream_t stream) {
  const int64_t n = loop.shape.numel();
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    strided_copy_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const T*>(a),
                                                                static_cast<T*>(out), loop, n);
  });
}

void binary(BinaryOp op, DType dtype, const void* a, const void* b, void* out, const Loop& loop,
            cudaStream_t stream) {
  const int64_t n = loop.shape.numel();
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* ta = static_cast<const T*>(a);
    const T* tb = static_cast<const T*>(b);
    if (is_predicate(op))
      binary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, ta, tb, static_cast<bool*>(out),
                                                            loop, n);
    else
      binary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, ta, tb, static_cast<T*>(out), loop,
                                                            n);
  });
}

void binary_scalar(BinaryOp op, DType dtype, const void* a, double s, bool scalar_first, void* out,
                   int64_t n, cudaStream_t stream) {
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* ta = static_cast<const T*>(a);
    const T ts = static_cast<T>(s);
    if (is_predicate(op))
      binary_scalar_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, ta, ts, scalar_first,
                                                                   static_cast<bool*>(out), n);
    else
      binary_scalar_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, ta, ts, scalar_first,
                                                                   static_cast<T*>(out), n);
  });
}

void unary(UnaryOp op, DType dtype, const void* in, void* out, int64_t n, cudaStream_t stream) {
  if (dtype == DType::Int64)
    unary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const int64_t*>(in),
                                                         static_cast<int64_t*>(out), n);
  else if (dtype == DType::Float64)
    unary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const double*>(in),
                                                         static_cast<double*>(out), n);
  else
    unary_kernel<<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const float*>(in),
                                                         static_cast<float*>(out), n);
}

void where(const bool* cond, DType dtype, const void* a, const void* b, void* out, int64_t n,
           cudaStream_t stream) {
  with_type(dtype, [&](auto zero) {
    using T = decltype(zero);
    where_kernel<<<blocks_for(n), kThreads, 0, stream>>>(
        cond, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
  });
}

void gather_rows(const void* in, int64_t rows, const int64_t* index, void* out, int64_t n,
                 std::size_t row_bytes, ErrorFlag error, cudaStream_t stream) {
  const auto fits = [&](std::size_t word) {
    return row_bytes % word == 0 && reinterpret_cast<uintptr_t>(in) % word == 0 &&
           reinterpret_cast<uintptr_t>(out) % word == 0;
  };
  const auto launch = [&](auto zero) {
    using W = decltype(zero);
    const int64_t words = static_cast<int64_t>(row_bytes / sizeof(W));
    gather_rows_kernel<<<blocks_for(n * words), kThreads, 0, stream>>>(
        static_cast<const W*>(in), rows, index, static_cast<W*>(out), n, words, error);
  };
  if (fits(8))
    launch(uint64_t{});
  else if (fits(4))
    launch(uint32_t{});
  else
    launch(static_cast<unsigned char>(0));
}

void relu_forward(const float* x, float* y, int64_t n, cudaStream_t stream) {
  relu_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n);
}

void relu_backward(const float* x, const float* dy, float* dx, int64_t n, cudaStream_t stream) {
  relu_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, dy, dx, n);
}

}  // namespace torchlet::backend::cuda::kernels
