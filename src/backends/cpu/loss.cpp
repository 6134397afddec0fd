// CPU fused softmax + cross-entropy: the forward keeps the probabilities for the backward.
// With few classes (Iris: 3) eight rows share each vector, so one vectorised exp covers eight
// logits of one class; with many, each row runs along its classes. The logs of the rows'
// sums (each in [1, c]) go through a running product, one log per 32 rows (as in mlp.cpp).
#include <algorithm>
#include <cmath>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/simd.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

using simd::v8;

// Up to this many classes the rows go eight to a vector: 32^32 still fits a double product.
constexpr int64_t kLaneClasses = 32;
constexpr int64_t kLogEvery = 32;

// Softmax of the rows eight at a time, class by class (lane l: row i0 + l); returns
// sum_i -log softmax(row i)[t_i].
TORCHLET_SIMD_CLONES double softmax_lanes(const float* logits, const int64_t* target, float* probs,
                                          int64_t n, int64_t c) {
  double total = 0.0, product = 1.0;
  v8 z[kLaneClasses];
  for (int64_t i0 = 0; i0 < n; i0 += 8) {
    const int64_t rows = std::min<int64_t>(8, n - i0);
    for (int64_t k = 0; k < c; ++k) {
      const float* x = logits + i0 * c + k;
      if (rows == 8) {  // built in registers (a store to memory and a reload would stall)
        z[k] = v8{x[0], x[c], x[2 * c], x[3 * c], x[4 * c], x[5 * c], x[6 * c], x[7 * c]};
      } else {
        float column[8] = {};
        for (int64_t l = 0; l < rows; ++l) column[l] = x[l * c];
        z[k] = simd::load(column);
      }
    }
    v8 max = z[0];
    for (int64_t k = 1; k < c; ++k) max = simd::max(max, z[k]);
    v8 sum{};
    for (int64_t k = 0; k < c; ++k) sum += z[k] = simd::exp(z[k] - max);
    float maxes[8], sums[8];
    simd::store(maxes, max);
    simd::store(sums, sum);
    for (int64_t l = 0; l < rows; ++l) {
      const int64_t i = i0 + l;
      total -= logits[i * c + target[i]] - maxes[l];  // -log p[t] = log(sum) - (z_t - max)
      product *= sums[l];
      if (i % kLogEvery == kLogEvery - 1) total += std::log(product), product = 1.0;
    }
    const v8 inverse = 1.0f / sum;
    for (int64_t k = 0; k < c; ++k) {
      float column[8];
      simd::store(column, z[k] * inverse);
      for (int64_t l = 0; l < rows; ++l) probs[(i0 + l) * c + k] = column[l];
    }
  }
  return total + std::log(product);
}

// Softmax of each row along its c classes, eight at a time.
TORCHLET_SIMD_CLONES double softmax_rows(const float* logits, const int64_t* target, float* probs,
                                         int64_t n, int64_t c) {
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const float* row = logits + i * c;
    float* p = probs + i * c;
    const float max = *std::max_element(row, row + c);
    double sum = 0.0;
    for (int64_t j = 0; j < c; j += 8) {
      const int64_t valid = std::min<int64_t>(8, c - j);
      float chunk[8] = {};
      std::copy(row + j, row + j + valid, chunk);
      simd::store(chunk, simd::exp(simd::load(chunk) - max));
      for (int64_t l = 0; l < valid; ++l) sum += p[j + l] = chunk[l];
    }
    const float inverse = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < c; ++j) p[j] *= inverse;
    total += std::log(sum) - (row[target[i]] - max);
  }
  return total;
}

}  // namespace

void CpuBackend::cross_entropy_forward(const float* logits, const int64_t* target, float* loss,
                                       float* probs, int64_t n, int64_t c) {
  profile::record_launch();
  for (int64_t i = 0; i < n; ++i)
    TORCHLET_CHECK(target[i] >= 0 && target[i] < c,
                   "cross_entropy: Expected every target to be a class index in "
                   "[0, ",
                   c, "), but got ", target[i], " at position ", i);
  const double total = c <= kLaneClasses ? softmax_lanes(logits, target, probs, n, c)
                                         : softmax_rows(logits, target, probs, n, c);
  loss[0] = static_cast<float>(total / static_cast<double>(n));
}

void CpuBackend::cross_entropy_backward(const float* probs, const int64_t* target,
                                        const float* dloss, float* dlogits, int64_t n, int64_t c) {
  profile::record_launch();
  const float scale = dloss[0] / static_cast<float>(n);
  for (int64_t k = 0; k < n * c; ++k) dlogits[k] = probs[k] * scale;
  for (int64_t i = 0; i < n; ++i) dlogits[i * c + target[i]] -= scale;
}

}  // namespace torchlet::backend::cpu
