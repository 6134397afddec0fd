// vec_math's 8-lane functions: SLEEF's AVX2 versions. This file alone is compiled with -mavx2
// -mfma (src/CMakeLists.txt) and is only called on CPUs that have both (vec_math::unary), so it
// includes nothing whose inline functions other files share.
#include <immintrin.h>
#include <sleef.h>

#include "backends/cpu/vec_math.h"

namespace torchlet::backend::cpu::vec_math {

namespace {

using f8 = float __attribute__((vector_size(32)));  // vec_math.h's V of 8 lanes

f8 exp8(f8 x) { return Sleef_expf8_u10avx2(x); }
f8 erf8(f8 x) { return erf<f8, exp8>(x); }
f8 tanh8(f8 x) { return tanh<f8, exp8>(x); }

template <auto F>  // a function of one __m256 (SLEEF's return const __m256)
void block8(const float* in, float* out) {
  _mm256_storeu_ps(out, F(_mm256_loadu_ps(in)));
}

template <auto F>  // a function of two
void block8x2(const float* a, const float* b, float* out) {
  _mm256_storeu_ps(out, F(_mm256_loadu_ps(a), _mm256_loadu_ps(b)));
}

// sigmoid(x) from e = exp(-|x|) as unary_value computes it: 1 / (1 + e) for x >= 0, else
// e / (1 + e); exp never sees a large positive argument.
f8 sigmoid8(f8 x) {
  const __m256 e = Sleef_expf8_u10avx2(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 positive = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ);
  return _mm256_div_ps(_mm256_blendv_ps(e, one, positive), _mm256_add_ps(one, e));
}

// log1p(x), with log(x) where x > 1e30 (SLEEF's log1pf overflows near FLT_MAX; there the 1
// is far below half an ulp of x).
__m256 log1p8(__m256 x) {
  const __m256 y = Sleef_log1pf8_u10avx2(x);
  const __m256 big = _mm256_cmp_ps(x, _mm256_set1_ps(1e30f), _CMP_GT_OQ);
  if (!_mm256_movemask_ps(big)) return y;
  return _mm256_blendv_ps(y, Sleef_logf8_u10avx2(x), big);
}

}  // namespace

void unary_avx2(UnaryOp op, const float* x, float* y, int64_t n) {
  switch (op) {
    case UnaryOp::Exp: return each<8, block8<Sleef_expf8_u10avx2>>(x, y, n);
    case UnaryOp::Log: return each<8, block8<Sleef_logf8_u35avx2>>(x, y, n);
    case UnaryOp::Log1p: return each<8, block8<log1p8>>(x, y, n);
    case UnaryOp::Expm1: return each<8, block8<Sleef_expm1f8_u10avx2>>(x, y, n);
    case UnaryOp::Sigmoid: return each<8, block8<sigmoid8>>(x, y, n);
    case UnaryOp::Tanh: return each<8, block8<tanh8>>(x, y, n);
    case UnaryOp::Erf: return each<8, block8<erf8>>(x, y, n);
    case UnaryOp::Sin: return each<8, block8<Sleef_sinf8_u10avx2>>(x, y, n);
    case UnaryOp::Cos: return each<8, block8<Sleef_cosf8_u10avx2>>(x, y, n);
    case UnaryOp::Gelu: return each<8, block8<gelu<f8, erf8>>>(x, y, n);
    case UnaryOp::GeluTanh: return each<8, block8<gelu_tanh<f8, tanh8>>>(x, y, n);
    case UnaryOp::Silu: return each<8, block8<silu<f8, sigmoid8>>>(x, y, n);
    default: return;
  }
}

void binary_avx2(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  switch (op) {
    case BinaryOp::GeluBackward: return each2<8, block8x2<gelu_grad<f8, erf8, exp8>>>(a, b, out, n);
    case BinaryOp::GeluTanhBackward:
      return each2<8, block8x2<gelu_tanh_grad<f8, tanh8>>>(a, b, out, n);
    case BinaryOp::SiluBackward: return each2<8, block8x2<silu_grad<f8, sigmoid8>>>(a, b, out, n);
    default: return;
  }
}

}  // namespace torchlet::backend::cpu::vec_math
