// CPU fused softmax + cross-entropy: the forward keeps the probabilities for the backward.
#include <cmath>

#include "backends/cpu/cpu_backend.h"
#include "torchlet/error.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

void CpuBackend::cross_entropy_forward(const float* logits, const int64_t* target, float* loss,
                                       float* probs, int64_t n, int64_t c) {
  profile::record_launch();
  double total = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t t = target[i];
    TORCHLET_CHECK(t >= 0 && t < c,
                   "cross_entropy: Expected every target to be a class index in "
                   "[0, ",
                   c, "), but got ", t, " at position ", i);
    const float* row = logits + i * c;
    float* p = probs + i * c;
    float max = row[0];
    for (int64_t j = 1; j < c; ++j) max = std::max(max, row[j]);
    // One float exp per logit (the eager course loop spent 30% of its time in two double
    // exps per logit here); the sum stays in double.
    double sum = 0.0;
    for (int64_t j = 0; j < c; ++j) sum += p[j] = std::exp(row[j] - max);
    const float inverse = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < c; ++j) p[j] *= inverse;
    total += std::log(sum) - (row[t] - max);  // -log softmax(row)[t]
  }
  loss[0] = static_cast<float>(total / static_cast<double>(n));
}

void CpuBackend::cross_entropy_backward(const float* probs, const int64_t* target,
                                        const float* dloss, float* dlogits, int64_t n, int64_t c) {
  profile::record_launch();
  const float scale = dloss[0] / static_cast<float>(n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < c; ++j) dlogits[i * c + j] = probs[i * c + j] * scale;
    dlogits[i * c + target[i]] -= scale;
  }
}

}  // namespace torchlet::backend::cpu
