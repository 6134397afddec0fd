// Vectorised float32 maths for the CPU's unary kernels: SLEEF (Debian's libsleef-dev), 1.0 ulp
// functions, in 8 lanes on CPUs with AVX2 and FMA (vec_math_avx2.cpp, the one file compiled for
// them) and in 4 SSE2 lanes on the others (vec_math.cpp), chosen once at run time. A run's last
// few elements go through the same vector function (padded), so each element's result is the
// same wherever a thread's range starts.
#pragma once

#include <cstdint>
#include <cstring>

#include "backends/elementwise.h"

namespace torchlet::backend::cpu::vec_math {

// True for the ops vectorised here: Exp, Log, Log1p, Expm1, Sigmoid, Tanh, Erf, Sin, Cos.
bool vectorised(UnaryOp op);

// y[i] = op(x[i]) for i in [0, n) with the best vector width of this CPU; op must be vectorised.
void unary(UnaryOp op, const float* x, float* y, int64_t n);

// The two widths themselves, for the accuracy tests; unary_avx2 needs AVX2 and FMA
// (has_avx2_fma). Both do nothing for an op that is not vectorised.
bool has_avx2_fma();
void unary_avx2(UnaryOp op, const float* x, float* y, int64_t n);
void unary_sse2(UnaryOp op, const float* x, float* y, int64_t n);

// y = Block(x) over n floats, W at a time (Block maps one vector of W floats); the tail is
// padded with zeros into one more vector.
template <int W, void (*Block)(const float*, float*)>
void each(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + W <= n; i += W) Block(x + i, y + i);
  if (i == n) return;
  float in[W] = {}, out[W];
  const auto tail = static_cast<std::size_t>(n - i) * sizeof(float);
  std::memcpy(in, x + i, tail);
  Block(in, out);
  std::memcpy(y + i, out, tail);
}

}  // namespace torchlet::backend::cpu::vec_math
