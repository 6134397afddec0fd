// CPU reductions over the middle axis of [outer, r, inner]: sum (and mean through scale),
// argmax (softmax is softmax.cpp). Sums accumulate in double.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/simd.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

using v8d = double __attribute__((vector_size(64)));
using v8f = float __attribute__((vector_size(32)));

// Columns [begin, end) of out[i] = scale * sum_j in[j][i], rows `inner` floats apart, each
// summed down j in a double as a plain loop would. kColumnChunk columns at a time, their sums
// in a buffer that stays in L1, so each row's part is read contiguously (a stream the
// prefetcher follows, not one cache line a row); four rows a pass, each column's sum loaded and
// stored once for the four (added in row order: the same bits), so the loop is bound by the
// rows it reads, not by its own buffer. Also compiled for AVX-512 (8 doubles a register).
constexpr int64_t kColumnChunk = 2048;
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] void column_sums(
    const float* in, float* out, int64_t r, int64_t inner, int64_t begin, int64_t end,
    float scale) {
  double acc[kColumnChunk];
  for (int64_t c = begin; c < end; c += kColumnChunk) {
    const int64_t w = std::min(kColumnChunk, end - c);
    std::fill(acc, acc + w, 0.0);
    int64_t j = 0;
    for (; j + 4 <= r; j += 4) {
      const float* r0 = in + j * inner + c;
      const float *r1 = r0 + inner, *r2 = r1 + inner, *r3 = r2 + inner;
      for (int64_t i = 0; i < w; ++i)
        acc[i] = (((acc[i] + double{r0[i]}) + double{r1[i]}) + double{r2[i]}) + double{r3[i]};
    }
    for (; j < r; ++j) {
      const float* row = in + j * inner + c;
      for (int64_t i = 0; i < w; ++i) acc[i] += row[i];
    }
    for (int64_t i = 0; i < w; ++i) out[c + i] = static_cast<float>(acc[i] * scale);
  }
}

// A long contiguous run is cut into parts of this many elements, reduced in parallel and then
// combined in order: the same parts, so the same result, whatever the thread count.
constexpr int64_t kRunPart = int64_t{1} << 16;
// Column sums of one [r, inner] block are split between the threads in stripes of this many
// columns: each column is summed as before, so the result does not depend on the split.
constexpr int64_t kColumnBlock = 256;

// Runs are read ahead of the loads by this many floats (software prefetch, one a cache line):
// with the hardware's prefetches alone, one core keeps too few lines in flight to stream at
// the memory's rate.
constexpr int64_t kReadAhead = 2048;

// The sum of a contiguous run in double, in 32 lanes (four vectors of 8) so that the additions
// overlap instead of waiting on one another; the lanes are added in a fixed order. Also compiled
// for AVX-512 (x86-64-v4), where 8 doubles are one register and 8 floats one conversion: on one
// thread the AVX2 loop is bound by its conversions, near the memory's rate (one measurement, in
// L2: 9.1 against 6.7 TSC cycles for 32 floats), and one thread is what a long run gets while
// another process holds the other core up. Every clone adds the same lanes in the same order: the
// same result on every CPU.
[[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]] double run_sum(const float* x,
                                                                                     int64_t n) {
  v8d acc[4] = {};
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    __builtin_prefetch(x + j + kReadAhead);
    __builtin_prefetch(x + j + kReadAhead + 16);
    for (int u = 0; u < 4; ++u) {
      v8f v;
      std::memcpy(&v, x + j + 8 * u, sizeof v);
      acc[u] += __builtin_convertvector(v, v8d);
    }
  }
  const v8d total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  double sum = ((total[0] + total[1]) + (total[2] + total[3])) +
               ((total[4] + total[5]) + (total[6] + total[7]));
  for (; j < n; ++j) sum += x[j];
  return sum;
}

// The largest (or smallest) of a contiguous run of n >= 1 floats, in 32 lanes (four vectors);
// NaN if any is NaN (as reduce_step: NaN propagates).
TORCHLET_SIMD_CLONES float run_extreme(const float* x, int64_t n, bool max) {
  const simd::v8 first = simd::splat(x[0]);
  simd::v8 acc[4] = {first, first, first, first};
  simd::v8i nan = {};
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    __builtin_prefetch(x + j + kReadAhead);
    __builtin_prefetch(x + j + kReadAhead + 16);
    for (int u = 0; u < 4; ++u) {
      const simd::v8 v = simd::load(x + j + 8 * u);
      nan |= v != v;
      acc[u] = max ? (v > acc[u] ? v : acc[u]) : (v < acc[u] ? v : acc[u]);
    }
  }
  float out = x[0];
  for (int u = 0; u < 4; ++u)
    for (int l = 0; l < 8; ++l) out = max ? std::max(out, acc[u][l]) : std::min(out, acc[u][l]);
  bool any_nan = false;
  for (int l = 0; l < 8; ++l) any_nan |= nan[l] != 0;
  for (; j < n; ++j) {
    any_nan |= x[j] != x[j];
    out = max ? std::max(out, x[j]) : std::min(out, x[j]);
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : out;
}

// The largest of a contiguous run of n < 2^31 floats and its first position, NaN never chosen:
// 8 lanes, each keeping the first position of its own largest, combined by value and then
// position. {-inf, -1} when no element is above -inf.
struct Best {
  float value;
  int64_t at;
};
TORCHLET_SIMD_CLONES Best run_argmax(const float* x, int64_t n, int64_t offset) {
  constexpr float kLow = -std::numeric_limits<float>::infinity();
  simd::v8 top = simd::splat(kLow);
  simd::v8i at = simd::v8i{} - 1, position = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8, position += 8) {
    const simd::v8 v = simd::load(x + j);
    const simd::v8i above = v > top;
    top = above ? v : top;
    at = above ? position : at;
  }
  Best best{kLow, -1};
  for (int l = 0; l < 8; ++l)
    if (at[l] >= 0 && (top[l] > best.value || (top[l] == best.value && at[l] < best.at)))
      best = {top[l], at[l]};
  for (; j < n; ++j)
    if (x[j] > best.value) best = {x[j], j};
  if (best.at >= 0) best.at += offset;
  return best;
}

// The first position of the largest of x[0..n) as a plain loop from x[0] finds it (x[0]'s when
// nothing is above it, so also when x[0] is NaN), from parts' Bests in order.
int64_t first_largest(const float* x, const Best* parts, int64_t count) {
  Best best{x[0], 0};
  for (int64_t p = 0; p < count; ++p)
    if (parts[p].at >= 0 && parts[p].value > best.value) best = parts[p];
  return best.at;
}

// f(p) for each p in [0, count) on every thread, each thread taking the next p not yet taken (an
// atomic counter) rather than a fixed share, so a thread that another process holds up leaves its
// parts to the others. Each p is computed whole by one thread: the results do not depend on which.
template <typename F>
void for_each_part(int64_t count, F f) {
  std::atomic<int64_t> next{0};
  parallel_for(count, 1, [&](int64_t, int64_t) {
    for (int64_t p; (p = next.fetch_add(1, std::memory_order_relaxed)) < count;) f(p);
  });
}

// reduce(x[0..n)) for one long run: parts of kRunPart in parallel, combined in order.
template <typename Part, typename Combine>
auto reduce_long_run(int64_t n, Part part, Combine combine) {
  const int64_t parts = (n + kRunPart - 1) / kRunPart;
  std::vector<decltype(part(0, 1))> partial(static_cast<std::size_t>(parts));
  for_each_part(parts, [&](int64_t p) {
    partial[static_cast<std::size_t>(p)] = part(p * kRunPart, std::min(n, (p + 1) * kRunPart));
  });
  auto result = partial[0];
  for (std::size_t p = 1; p < partial.size(); ++p) result = combine(result, partial[p]);
  return result;
}

// row(o) for each of `outer` runs of r elements, as for_each_part shares them: blocks of at least
// kParallelGrain elements (the last block takes the rest), so that runs too few to fill two
// blocks stay on the calling thread, as parallel_for keeps them.
template <typename Row>
void each_run(int64_t outer, int64_t r, Row row) {
  const int64_t per_block = std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1);
  const int64_t blocks = std::max<int64_t>(outer / per_block, 1);
  for_each_part(blocks, [&](int64_t b) {
    const int64_t last = b + 1 == blocks ? outer : (b + 1) * per_block;
    for (int64_t o = b * per_block; o < last; ++o) row(o);
  });
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
    each_run(outer, r,
             [&](int64_t o) { out[o] = static_cast<float>(run_sum(in + o * r, r) * scale); });
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
    each_run(outer, r, [&](int64_t o) { y[o] = run_extreme(x + o * r, r, max); });
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
  if (dtype == DType::Float32 && inner == 1 && r > 0 && r < (int64_t{1} << 31)) {  // float rows
    const float* x = static_cast<const float*>(in);
    if (outer == 1 && r > 2 * kRunPart) {
      const int64_t parts = (r + kRunPart - 1) / kRunPart;
      std::vector<Best> best(static_cast<std::size_t>(parts));
      parallel_for(parts, 1, [&](int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p)
          best[p] = run_argmax(x + p * kRunPart, std::min(r, (p + 1) * kRunPart) - p * kRunPart,
                               p * kRunPart);
      });
      out[0] = first_largest(x, best.data(), parts);
      return;
    }
    parallel_for(outer, std::max<int64_t>(kParallelGrain / r, 1), [&](int64_t first, int64_t last) {
      for (int64_t o = first; o < last; ++o) {
        const Best best = run_argmax(x + o * r, r, 0);
        out[o] = first_largest(x + o * r, &best, 1);
      }
    });
    return;
  }
  dispatch_dtype(dtype, [&]<typename T>() {
    const T* x = static_cast<const T*>(in);
    // Each output on its own, so the split between threads changes nothing.
    parallel_for(outer * inner, std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1),
                 [&](int64_t first, int64_t last) {
                   for (int64_t k = first; k < last; ++k) {
                     const T* col = x + (k / inner) * r * inner + k % inner;
                     int64_t best = 0;
                     T top = col[0];
                     for (int64_t j = 1; j < r; ++j)
                       if (col[j * inner] > top) best = j, top = col[j * inner];
                     out[k] = best;
                   }
                 });
  });
}

}  // namespace torchlet::backend::cpu
