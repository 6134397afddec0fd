// CUDA kernels for NCHW images: im2col and its adjoint col2im (a convolution as one GEMM), max
// pooling forward and backward, dropout. One thread per output element in grid-stride loops,
// int64 indices throughout (col alone can pass 2^31 entries). Both adjoints (col2im, the pooling
// backward) are gathers, one thread per input pixel visiting the windows that read it in the
// order the CPU reference (backends/cpu/image.cpp) scatters into it: no atomics, and the same
// float sums bit for bit. Dropout draws from backends/counter_rng.h, as the CPU does.
#include <cmath>

#include "backends/counter_rng.h"
#include "backends/cuda/common.cuh"

namespace torchlet::backend::cuda::kernels {

namespace {

// One thread per col entry: row (c, ky, kx), column (b, oy, ox); consecutive threads write
// consecutive entries and read neighbouring pixels of one image row.
__global__ void im2col_kernel(const float* image, float* col, Window2d w) {
  const int64_t window = w.kernel_h * w.kernel_w, rows = w.channels * window;
  const int64_t columns = w.batch * w.out_h * w.out_w;
  TORCHLET_GRID_STRIDE(k, rows * columns) {
    const int64_t j = k / columns, column = k % columns;
    const int64_t c = j / window, ky = j % window / w.kernel_w, kx = j % w.kernel_w;
    const int64_t ox = column % w.out_w, oy = column / w.out_w % w.out_h;
    const int64_t b = column / (w.out_w * w.out_h);
    const int64_t iy = oy * w.stride_h - w.pad_h + ky, ix = ox * w.stride_w - w.pad_w + kx;
    col[k] = iy >= 0 && iy < w.height && ix >= 0 && ix < w.width
                 ? image[((b * w.channels + c) * w.height + iy) * w.width + ix]
                 : 0.0f;
  }
}

// The output position (oy or ox) whose window reads input position i at kernel offset k, or -1
// when none does: i + pad - k must be a non-negative multiple of the stride below `out`.
__device__ inline int64_t window_at(int64_t i, int64_t k, int64_t pad, int64_t stride,
                                    int64_t out) {
  const int64_t t = i + pad - k;
  if (t < 0 || t % stride != 0 || t / stride >= out) return -1;
  return t / stride;
}

// Calls visit(ky, kx, oy, ox) for every window (oy, ox) that reads input pixel (iy, ix), at
// kernel offset (ky, kx): offsets ascending, or with Reverse descending, which visits the
// windows in (oy, ox) order.
template <bool Reverse, typename Visit>
__device__ inline void for_each_window_reading(int64_t iy, int64_t ix, const Window2d& w,
                                               Visit&& visit) {
  for (int64_t i = 0; i < w.kernel_h; ++i) {
    const int64_t ky = Reverse ? w.kernel_h - 1 - i : i;
    const int64_t oy = window_at(iy, ky, w.pad_h, w.stride_h, w.out_h);
    if (oy < 0) continue;
    for (int64_t j = 0; j < w.kernel_w; ++j) {
      const int64_t kx = Reverse ? w.kernel_w - 1 - j : j;
      const int64_t ox = window_at(ix, kx, w.pad_w, w.stride_w, w.out_w);
      if (ox >= 0) visit(ky, kx, oy, ox);
    }
  }
}

// One thread per image pixel. Kernel offsets run upwards, (ky, kx) ascending: the order in which
// the CPU's scatter (one col row after another) adds them.
__global__ void col2im_kernel(const float* col, float* image, Window2d w) {
  const int64_t columns = w.batch * w.out_h * w.out_w;
  TORCHLET_GRID_STRIDE(k, w.batch * w.channels * w.height * w.width) {
    const int64_t ix = k % w.width, iy = k / w.width % w.height;
    const int64_t c = k / (w.width * w.height) % w.channels;
    const int64_t b = k / (w.width * w.height * w.channels);
    float acc = 0.0f;
    for_each_window_reading<false>(iy, ix, w, [&](int64_t ky, int64_t kx, int64_t oy, int64_t ox) {
      acc += col[((c * w.kernel_h + ky) * w.kernel_w + kx) * columns +
                 (b * w.out_h + oy) * w.out_w + ox];
    });
    image[k] = acc;
  }
}

// One thread per output: the window clipped to the image, scanned row by row; the first
// largest value wins, and the first NaN ends the scan (NaN wins, as in PyTorch and on the CPU).
__global__ void max_pool2d_forward_kernel(const float* x, float* y, int64_t* argmax, Window2d w) {
  TORCHLET_GRID_STRIDE(k, w.batch * w.channels * w.out_h * w.out_w) {
    const int64_t ox = k % w.out_w, oy = k / w.out_w % w.out_h;
    const float* plane = x + k / (w.out_w * w.out_h) * w.height * w.width;
    const int64_t top = oy * w.stride_h - w.pad_h, left = ox * w.stride_w - w.pad_w;
    const int64_t y0 = top < 0 ? 0 : top;
    const int64_t y1 = top + w.kernel_h < w.height ? top + w.kernel_h : w.height;
    const int64_t x0 = left < 0 ? 0 : left;
    const int64_t x1 = left + w.kernel_w < w.width ? left + w.kernel_w : w.width;
    float best = -INFINITY;
    int64_t where = y0 * w.width + x0;
    bool found_nan = false;
    for (int64_t iy = y0; iy < y1 && !found_nan; ++iy)
      for (int64_t ix = x0; ix < x1; ++ix) {
        const float v = plane[iy * w.width + ix];
        if (v > best || v != v) {
          best = v;
          where = iy * w.width + ix;
          if (v != v) {
            found_nan = true;
            break;
          }
        }
      }
    y[k] = best;
    argmax[k] = where;
  }
}

// One thread per input pixel: the windows that cover it in (oy, ox) order, the order in which
// the CPU's scatter (one output after another) adds them, adding dy where the window's argmax
// is this pixel.
__global__ void max_pool2d_backward_kernel(const float* dy, const int64_t* argmax, float* dx,
                                           Window2d w) {
  const int64_t outputs = w.out_h * w.out_w;
  TORCHLET_GRID_STRIDE(k, w.batch * w.channels * w.height * w.width) {
    const int64_t ix = k % w.width, iy = k / w.width % w.height;
    const int64_t base = k / (w.width * w.height) * outputs;  // this plane's outputs
    const int64_t self = iy * w.width + ix;
    float acc = 0.0f;
    for_each_window_reading<true>(iy, ix, w, [&](int64_t, int64_t, int64_t oy, int64_t ox) {
      const int64_t o = base + oy * w.out_w + ox;
      if (argmax[o] == self) acc += dy[o];
    });
    dx[k] = acc;
  }
}

__global__ void dropout_forward_kernel(const float* x, float* y, float* mask, int64_t n, float p,
                                       uint64_t seed) {
  TORCHLET_GRID_STRIDE(i, n) {
    const float m = dropout_mask(seed, static_cast<uint64_t>(i), p);
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

}  // namespace

void im2col(const float* image, float* col, const Window2d& w, cudaStream_t stream) {
  const int64_t n = w.batch * w.out_h * w.out_w * w.channels * w.kernel_h * w.kernel_w;
  im2col_kernel<<<blocks_for(n), kThreads, 0, stream>>>(image, col, w);
}

void col2im(const float* col, float* image, const Window2d& w, cudaStream_t stream) {
  const int64_t n = w.batch * w.channels * w.height * w.width;
  col2im_kernel<<<blocks_for(n), kThreads, 0, stream>>>(col, image, w);
}

void max_pool2d_forward(const float* x, float* y, int64_t* argmax, const Window2d& w,
                        cudaStream_t stream) {
  const int64_t n = w.batch * w.channels * w.out_h * w.out_w;
  max_pool2d_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, argmax, w);
}

void max_pool2d_backward(const float* dy, const int64_t* argmax, float* dx, const Window2d& w,
                         cudaStream_t stream) {
  const int64_t n = w.batch * w.channels * w.height * w.width;
  max_pool2d_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dy, argmax, dx, w);
}

void dropout_forward(const float* x, float* y, float* mask, int64_t n, float p, uint64_t seed,
                     cudaStream_t stream) {
  dropout_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, mask, n, p, seed);
}

}  // namespace torchlet::backend::cuda::kernels
