// CPU reductions over the middle axis of [outer, r, inner]: sum (and mean through scale),
// argmax, and (log_)softmax forward and backward. Sums accumulate in double.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

void CpuBackend::sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
                         float scale) {
  profile::record_launch();
  if (inner == 1) {  // sums of contiguous runs (a conv's bias gradient): no buffer
    parallel_for(outer, std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1),
                 [&](int64_t first, int64_t last) {
                   for (int64_t o = first; o < last; ++o) {
                     const float* run = in + o * r;
                     double acc = 0.0;
                     for (int64_t j = 0; j < r; ++j) acc += run[j];
                     out[o] = static_cast<float>(acc * scale);
                   }
                 });
    return;
  }
  const int64_t block_size = std::max<int64_t>(r * inner, 1);
  parallel_for(outer, std::max<int64_t>(kParallelGrain / block_size, 1),
               [&](int64_t first, int64_t last) {
                 std::vector<double> acc(static_cast<std::size_t>(inner));
                 for (int64_t o = first; o < last; ++o) {
                   const float* block = in + o * r * inner;
                   std::fill(acc.begin(), acc.end(), 0.0);
                   for (int64_t j = 0; j < r; ++j)
                     for (int64_t i = 0; i < inner; ++i) acc[i] += block[j * inner + i];
                   for (int64_t i = 0; i < inner; ++i)
                     out[o * inner + i] = static_cast<float>(acc[i] * scale);
                 }
               });
}

void CpuBackend::sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r,
                               int64_t inner) {
  profile::record_launch();
  const int64_t block_size = std::max<int64_t>(r * inner, 1);
  parallel_for(outer, std::max<int64_t>(kParallelGrain / block_size, 1),
               [&](int64_t first, int64_t last) {
                 for (int64_t o = first; o < last; ++o) {
                   int64_t* sums = out + o * inner;
                   std::fill(sums, sums + inner, int64_t{0});
                   for (int64_t j = 0; j < r; ++j)
                     for (int64_t i = 0; i < inner; ++i) sums[i] += in[(o * r + j) * inner + i];
                 }
               });
}

void CpuBackend::reduce_dim(ReduceOp op, DType dtype, const void* in, void* out, int64_t outer,
                            int64_t r, int64_t inner) {
  profile::record_launch();
  auto go = [&]<typename T>() {
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    parallel_for(outer * inner, std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1),
                 [&](int64_t first, int64_t last) {
                   for (int64_t k = first; k < last; ++k) {
                     const T* col = x + (k / inner) * r * inner + k % inner;
                     T acc = reduce_init(op, col[0]);
                     for (int64_t j = op == ReduceOp::Prod ? 0 : 1; j < r; ++j)
                       acc = reduce_step(op, acc, col[j * inner]);
                     y[k] = acc;
                   }
                 });
  };
  if (dtype == DType::Int64) return go.template operator()<int64_t>();
  go.template operator()<float>();
}

void CpuBackend::cumsum_dim(DType dtype, const void* in, void* out, int64_t outer, int64_t r,
                            int64_t inner) {
  profile::record_launch();
  auto go = [&]<typename T, typename Acc>() {
    const T* x = static_cast<const T*>(in);
    T* y = static_cast<T*>(out);
    parallel_for(outer * inner, std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1),
                 [&](int64_t first, int64_t last) {
                   for (int64_t k = first; k < last; ++k) {
                     const int64_t base = (k / inner) * r * inner + k % inner;
                     Acc acc = 0;
                     for (int64_t j = 0; j < r; ++j) {
                       acc += x[base + j * inner];
                       y[base + j * inner] = static_cast<T>(acc);
                     }
                   }
                 });
  };
  if (dtype == DType::Int64) return go.template operator()<int64_t, int64_t>();
  go.template operator()<float, double>();
}

void CpuBackend::argmax_dim(const void* in, DType dtype, int64_t* out, int64_t outer, int64_t r,
                            int64_t inner) {
  profile::record_launch();
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* x = static_cast<const T*>(in);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* col = x + o * r * inner + i;
        int64_t best = 0;
        for (int64_t j = 1; j < r; ++j)
          if (col[j * inner] > col[best * inner]) best = j;
        out[o * inner + i] = best;
      }
    }
  });
}

// Softmax along j of one strided column: y_j = exp(x_j - max) / sum, or its log.
void CpuBackend::softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                                 bool log) {
  profile::record_launch();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const float* xc = x + o * r * inner + i;
      float* yc = y + o * r * inner + i;
      float max = xc[0];
      for (int64_t j = 1; j < r; ++j) max = std::max(max, xc[j * inner]);
      double sum = 0.0;
      for (int64_t j = 0; j < r; ++j) sum += std::exp(static_cast<double>(xc[j * inner] - max));
      if (log) {
        const double log_sum = std::log(sum);
        for (int64_t j = 0; j < r; ++j)
          yc[j * inner] = static_cast<float>(xc[j * inner] - max - log_sum);
      } else {
        for (int64_t j = 0; j < r; ++j)
          yc[j * inner] =
              static_cast<float>(std::exp(static_cast<double>(xc[j * inner] - max)) / sum);
      }
    }
  }
}

// softmax: dx = y * (dy - sum(dy * y)); log_softmax: dx = dy - exp(y) * sum(dy).
void CpuBackend::softmax_backward(const float* y, const float* dy, float* dx, int64_t outer,
                                  int64_t r, int64_t inner, bool log) {
  profile::record_launch();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * r * inner + i;
      double dot = 0.0;
      for (int64_t j = 0; j < r; ++j) {
        const int64_t k = base + j * inner;
        dot += log ? dy[k] : static_cast<double>(dy[k]) * y[k];
      }
      for (int64_t j = 0; j < r; ++j) {
        const int64_t k = base + j * inner;
        dx[k] = log ? static_cast<float>(dy[k] - std::exp(static_cast<double>(y[k])) * dot)
                    : static_cast<float>(y[k] * (dy[k] - dot));
      }
    }
  }
}

}  // namespace torchlet::backend::cpu
