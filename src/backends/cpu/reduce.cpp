// CPU reductions over the middle axis of [outer, r, inner]: sum (and mean through scale),
// argmax, and (log_)softmax forward and backward. Sums accumulate in double.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/simd.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

using v4d = double __attribute__((vector_size(32)));
using v4f = float __attribute__((vector_size(16)));

// Columns i .. i + 4V + tail of out[i] = scale * sum_j in[j][i] (in: [r][inner]), each summed
// down j in a double as a plain loop would: 4V columns in vectors, `tail` (< 4) in scalars,
// all in registers in one pass over the rows.
template <int V>
TORCHLET_SIMD_INLINE void column_group(const float* in, float* out, int64_t r, int64_t inner,
                                       int64_t i, int64_t tail, float scale) {
  v4d acc[V + 1] = {};
  double t0 = 0.0, t1 = 0.0, t2 = 0.0;
  for (int64_t j = 0; j < r; ++j) {
    const float* row = in + j * inner + i;
    for (int u = 0; u < V; ++u) {
      v4f x;
      std::memcpy(&x, row + 4 * u, sizeof x);
      acc[u] += __builtin_convertvector(x, v4d);
    }
    if (tail > 0) t0 += row[4 * V];
    if (tail > 1) t1 += row[4 * V + 1];
    if (tail > 2) t2 += row[4 * V + 2];
  }
  for (int u = 0; u < V; ++u)
    for (int l = 0; l < 4; ++l) out[i + 4 * u + l] = static_cast<float>(acc[u][l] * scale);
  const double tails[3] = {t0, t1, t2};
  for (int64_t u = 0; u < tail; ++u) out[i + 4 * V + u] = static_cast<float>(tails[u] * scale);
}

TORCHLET_SIMD_CLONES void column_sums(const float* in, float* out, int64_t r, int64_t inner,
                                      float scale) {
  int64_t i = 0;
  for (; i + 16 <= inner; i += 16) column_group<4>(in, out, r, inner, i, 0, scale);
  const int64_t left = inner - i, tail = left % 4;
  switch (left / 4) {
    case 3: column_group<3>(in, out, r, inner, i, tail, scale); break;
    case 2: column_group<2>(in, out, r, inner, i, tail, scale); break;
    case 1: column_group<1>(in, out, r, inner, i, tail, scale); break;
    default: column_group<0>(in, out, r, inner, i, tail, scale); break;
  }
}

}  // namespace

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
                 for (int64_t o = first; o < last; ++o)
                   column_sums(in + o * r * inner, out + o * inner, r, inner, scale);
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
