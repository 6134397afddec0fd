// CPU (log_)softmax forward and backward along the middle axis of [outer, r, inner]. Rows of
// contiguous classes (inner == 1, what a classifier's logits are) take their exponentials and
// logs from vec_math over blocks of rows, so that a few classes a row still use whole vectors;
// strided columns keep the plain loop in double.
#include <algorithm>
#include <cmath>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/parallel.h"
#include "backends/cpu/vec_math.h"
#include "torchlet/profile.h"

namespace torchlet::backend::cpu {

namespace {

constexpr int64_t kBlockRows = 256;  // a block's maxima and sums stay on the stack

// Rows [first, last) of r floats each: y = exp(x - max) / sum, or x - max - log(sum).
void softmax_rows(const float* x, float* y, int64_t first, int64_t last, int64_t r, bool log) {
  float top[kBlockRows], sum[kBlockRows];
  for (int64_t b = first; b < last; b += kBlockRows) {
    const int64_t rows = std::min(kBlockRows, last - b);
    const float* xb = x + b * r;
    float* yb = y + b * r;
    for (int64_t i = 0; i < rows; ++i) {
      const float* xr = xb + i * r;
      float m = xr[0];
      for (int64_t j = 1; j < r; ++j) m = std::max(m, xr[j]);
      top[i] = m;
      for (int64_t j = 0; j < r; ++j) yb[i * r + j] = xr[j] - m;
    }
    vec_math::unary(UnaryOp::Exp, yb, yb, rows * r);
    for (int64_t i = 0; i < rows; ++i) {
      double s = 0.0;
      for (int64_t j = 0; j < r; ++j) s += yb[i * r + j];
      sum[i] = static_cast<float>(s);
    }
    if (log) {
      vec_math::unary(UnaryOp::Log, sum, sum, rows);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < r; ++j) yb[i * r + j] = xb[i * r + j] - top[i] - sum[i];
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        const float inverse = 1.0f / sum[i];
        for (int64_t j = 0; j < r; ++j) yb[i * r + j] *= inverse;
      }
    }
  }
}

// log_softmax's gradient over rows [first, last): dx = dy - exp(y) * sum(dy).
void log_softmax_backward_rows(const float* y, const float* dy, float* dx, int64_t first,
                               int64_t last, int64_t r) {
  for (int64_t b = first; b < last; b += kBlockRows) {
    const int64_t rows = std::min(kBlockRows, last - b), at = b * r;
    vec_math::unary(UnaryOp::Exp, y + at, dx + at, rows * r);
    for (int64_t i = 0; i < rows; ++i) {
      const float* d = dy + at + i * r;
      double s = 0.0;
      for (int64_t j = 0; j < r; ++j) s += d[j];
      const auto dot = static_cast<float>(s);
      float* out = dx + at + i * r;
      for (int64_t j = 0; j < r; ++j) out[j] = d[j] - out[j] * dot;
    }
  }
}

int64_t row_grain(int64_t r) {
  return std::max<int64_t>(kParallelGrain / std::max<int64_t>(r, 1), 1);
}

}  // namespace

// Softmax along j of one strided column: y_j = exp(x_j - max) / sum, or its log.
void CpuBackend::softmax_forward(const float* x, float* y, int64_t outer, int64_t r, int64_t inner,
                                 bool log) {
  profile::record_launch();
  if (inner == 1 && r > 0) {
    parallel_for(outer, row_grain(r),
                 [&](int64_t first, int64_t last) { softmax_rows(x, y, first, last, r, log); });
    return;
  }
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
  if (log && inner == 1) {
    parallel_for(outer, row_grain(r), [&](int64_t first, int64_t last) {
      log_softmax_backward_rows(y, dy, dx, first, last, r);
    });
    return;
  }
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
