// CPU reductions over the middle axis of [outer, r, inner]: sum (and mean through scale),
// argmax, and (log_)softmax forward and backward. Sums accumulate in double.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

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

// Columns [begin, end) of out[i] = scale * sum_j in[j][i], rows `inner` floats apart.
TORCHLET_SIMD_CLONES void column_sums(const float* in, float* out, int64_t r, int64_t inner,
                                      int64_t begin, int64_t end, float scale) {
  int64_t i = begin;
  for (; i + 16 <= end; i += 16) column_group<4>(in, out, r, inner, i, 0, scale);
  const int64_t left = end - i, tail = left % 4;
  switch (left / 4) {
    case 3: column_group<3>(in, out, r, inner, i, tail, scale); break;
    case 2: column_group<2>(in, out, r, inner, i, tail, scale); break;
    case 1: column_group<1>(in, out, r, inner, i, tail, scale); break;
    default: column_group<0>(in, out, r, inner, i, tail, scale); break;
  }
}

// A long contiguous run is cut into parts of this many elements, reduced in parallel and then
// combined in order: the same parts, so the same result, whatever the thread count.
constexpr int64_t kRunPart = int64_t{1} << 16;
// Column sums of one [r, inner] block are split into stripes of this many columns (a multiple
// of 16, so each stripe but the last runs whole vectors): each column is summed as before.
constexpr int64_t kColumnBlock = 256;

// The sum of a contiguous run in double, in 16 lanes (four vectors) so that the additions
// overlap instead of waiting on one another; the lanes are added in a fixed order.
TORCHLET_SIMD_CLONES double run_sum(const float* x, int64_t n) {
  v4d acc[4] = {};
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    for (int u = 0; u < 4; ++u) {
      v4f v;
      std::memcpy(&v, x + j + 4 * u, sizeof v);
      acc[u] += __builtin_convertvector(v, v4d);
    }
  const v4d total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  double sum = (total[0] + total[1]) + (total[2] + total[3]);
  for (; j < n; ++j) sum += x[j];
  return sum;
}

// The largest (or smallest) of a contiguous run of n >= 1 floats, in 16 lanes; NaN if any is
// NaN (as reduce_step: NaN propagates).
TORCHLET_SIMD_CLONES float run_extreme(const float* x, int64_t n, bool max) {
  using v4i = int __attribute__((vector_size(16)));
  const float first = x[0];
  v4f acc[4];
  for (v4f& a : acc) a = v4f{first, first, first, first};
  v4i nan = {};
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    for (int u = 0; u < 4; ++u) {
      v4f v;
      std::memcpy(&v, x + j + 4 * u, sizeof v);
      nan |= v != v;
      acc[u] = max ? (v > acc[u] ? v : acc[u]) : (v < acc[u] ? v : acc[u]);
    }
  float out = first;
  for (int u = 0; u < 4; ++u)
    for (int l = 0; l < 4; ++l) out = max ? std::max(out, acc[u][l]) : std::min(out, acc[u][l]);
  bool any_nan = nan[0] | nan[1] | nan[2] | nan[3];
  for (; j < n; ++j) {
    any_nan |= x[j] != x[j];
    out = max ? std::max(out, x[j]) : std::min(out, x[j]);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : out;
}

// reduce(x[0..n)) for one long run: parts of kRunPart in parallel, combined in order.
template <typename Part, typename Combine>
auto reduce_long_run(int64_t n, Part part, Combine combine) {
  const int64_t parts = (n + kRunPart - 1) / kRunPart;
  std::vector<decltype(part(0, 1))> partial(static_cast<std::size_t>(parts));
  parallel_for(parts, 1, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p)
      partial[static_cast<std::size_t>(p)] = part(p * kRunPart, std::min(n, (p + 1) * kRunPart));
  });
  auto result = partial[0];
  for (std::size_t p = 1; p < partial.size(); ++p) result = combine(result, partial[p]);
  return result;
}

}  // namespace

void CpuBackend::sum_dim(const float* in, float* out, int64_t outer, int64_t r, int64_t inner,
                         float scale) {
  profile::record_launch();
  if (inner == 1) {  // sums of contiguous runs (a conv's bias gradient, a whole tensor)
    if (outer == 1 && r > 2 * kRunPart) {
      const double sum = reduce_long_run(
          r, [&](int64_t b, int64_t e) { return run_sum(in + b, e - b); },
          [](double a, double b) { return a + b; });
      out[0] = static_cast<float>(sum * scale);
      return;
    }
    parallel_for(outer, std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1),
                 [&](int64_t first, int64_t last) {
                   for (int64_t o = first; o < last; ++o)
                     out[o] = static_cast<float>(run_sum(in + o * r, r) * scale);
                 });
    return;
  }
  if (outer == 1 && inner >= 2 * kColumnBlock) {  // one [r, inner] block: split its columns
    const int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
    parallel_for(blocks,
                 std::max<int64_t>(kParallelGrain / std::max<int64_t>(kColumnBlock * r, 1), 1),
                 [&](int64_t first, int64_t last) {
                   column_sums(in, out, r, inner, first * kColumnBlock,
                               std::min(inner, last * kColumnBlock), scale);
                 });
    return;
  }
  const int64_t block_size = std::max<int64_t>(r * inner, 1);
  parallel_for(outer, std::max<int64_t>(kParallelGrain / block_size, 1),
               [&](int64_t first, int64_t last) {
                 for (int64_t o = first; o < last; ++o)
                   column_sums(in + o * r * inner, out + o * inner, r, inner, 0, inner, scale);
               });
}

namespace {

// The sums of [outer, r, inner] along r, each column added in order (int64: exact; float64).
template <typename T>
void sums_in_order(const T* in, T* out, int64_t outer, int64_t r, int64_t inner) {
  const int64_t block_size = std::max<int64_t>(r * inner, 1);
  parallel_for(outer, std::max<int64_t>(kParallelGrain / block_size, 1),
               [&](int64_t first, int64_t last) {
                 for (int64_t o = first; o < last; ++o) {
                   T* sums = out + o * inner;
                   std::fill(sums, sums + inner, T{0});
                   for (int64_t j = 0; j < r; ++j)
                     for (int64_t i = 0; i < inner; ++i) sums[i] += in[(o * r + j) * inner + i];
                 }
               });
}

}  // namespace

void CpuBackend::sum_dim_int64(const int64_t* in, int64_t* out, int64_t outer, int64_t r,
                               int64_t inner) {
  profile::record_launch();
  sums_in_order(in, out, outer, r, inner);
}

void CpuBackend::sum_dim_float64(const double* in, double* out, int64_t outer, int64_t r,
                                 int64_t inner, double scale) {
  profile::record_launch();
  sums_in_order(in, out, outer, r, inner);
  if (scale != 1.0)
    for (int64_t k = 0; k < outer * inner; ++k) out[k] *= scale;
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
  if (dtype == DType::Float64) return go.template operator()<double>();
  if (op != ReduceOp::Prod && inner == 1 && r > 0) {  // max or min of contiguous runs
    const bool max = op == ReduceOp::Max;
    const float* x = static_cast<const float*>(in);
    float* y = static_cast<float*>(out);
    if (outer == 1 && r > 2 * kRunPart) {
      y[0] = reduce_long_run(
          r, [&](int64_t b, int64_t e) { return run_extreme(x + b, e - b, max); },
          [&](float a, float b) { return reduce_step(op, a, b); });
      return;
    }
    parallel_for(outer, std::max<int64_t>(kParallelGrain / r, 1), [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) y[o] = run_extreme(x + o * r, r, max);
    });
    return;
  }
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
  if (dtype == DType::Float64) return go.template operator()<double, double>();
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
