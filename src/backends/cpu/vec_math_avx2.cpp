// vec_math's 8-lane functions: SLEEF's AVX2 versions and an inlined exp. This file alone is
// compiled with -mavx2 -mfma (src/CMakeLists.txt) and is only called on CPUs that have both
// (vec_math::unary), so it includes nothing whose inline functions other files share.
#include <immintrin.h>
#include <sleef.h>

#include "backends/cpu/vec_math.h"

namespace torchlet::backend::cpu::vec_math {

namespace {

using f8 = float __attribute__((vector_size(32)));  // vec_math.h's V of 8 lanes

#define TORCHLET_INLINE [[gnu::always_inline]] inline

// e^x (within 1 ulp of the C library's expf on the accuracy test's values), inlined into the
// functions built on it (a call to SLEEF's expf spills every vector the caller holds, all of
// them caller-saved): Cephes' expf polynomial after reducing x by n ln 2 (n = x log2 e rounded,
// by adding and taking off 1.5 2^23, ln 2 in two parts), then times 2^n. Above: x is clamped
// to at most 89, where e^x is inf in float; Below: to at least -104, where it is 0; with
// either, 2^n is applied as 2^(n/2) 2^(n - n/2), so that a result that overflows gives inf and
// one below FLT_MIN is rounded once to its denormal; a NaN stays NaN. Without them x must be
// within [-87, 88], where e^x is normal and finite, and 2^n is one factor.
template <bool Above, bool Below>
TORCHLET_INLINE f8 exp_of(f8 x) {
  if constexpr (Above) x = x > 89.0f ? f8{} + 89.0f : x;
  if constexpr (Below) x = x < -104.0f ? f8{} - 104.0f : x;
  constexpr float kShift = 0x1.8p23f;  // its last bit is 1: the sum's low bits are n
  const f8 shifted = x * 1.44269504088896341f + kShift, n = shifted - kShift;
  const f8 r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
  f8 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const f8 y = (p * (r * r) + r) + 1.0f;
  using i8 = int32_t __attribute__((vector_size(32)));
  i8 k;  // n as an integer: the low 22 bits of shifted, sign-extended
  std::memcpy(&k, &shifted, sizeof k);
  k = (k << 10) >> 10;
  auto power = [](i8 e) {  // 2^e for e in [-126, 127]
    const i8 bits = (e + 127) << 23;
    f8 f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  if constexpr (Above || Below) return y * power(k >> 1) * power(k - (k >> 1));
  return y * power(k);
}
TORCHLET_INLINE f8 exp8(f8 x) { return exp_of<true, true>(x); }
TORCHLET_INLINE f8 exp8_nonpositive(f8 x) { return exp_of<false, true>(x); }  // x <= 0 or NaN
TORCHLET_INLINE f8 exp8_normal(f8 x) { return exp_of<false, false>(x); }
TORCHLET_INLINE f8 erf8(f8 x) { return erf<f8, exp8_normal>(x); }
TORCHLET_INLINE f8 tanh8(f8 x) { return tanh<f8, exp8_normal>(x); }

template <auto F>  // a function of one __m256 (SLEEF's return const __m256)
TORCHLET_INLINE void block8(const float* in, float* out) {
  _mm256_storeu_ps(out, F(_mm256_loadu_ps(in)));
}

template <auto F>  // a function of two
TORCHLET_INLINE void block8x2(const float* a, const float* b, float* out) {
  _mm256_storeu_ps(out, F(_mm256_loadu_ps(a), _mm256_loadu_ps(b)));
}

// sigmoid(x) from e = exp(-|x|) as unary_value computes it: 1 / (1 + e) for x >= 0, else
// e / (1 + e); exp never sees a large positive argument.
TORCHLET_INLINE f8 sigmoid8(f8 x) {
  const __m256 e = exp8_nonpositive(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)));
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
    case UnaryOp::Exp: return each<8, block8<exp8>>(x, y, n);
    case UnaryOp::Log: return each<8, block8<Sleef_logf8_u35avx2>>(x, y, n);
    case UnaryOp::Log1p: return each<8, block8<log1p8>>(x, y, n);
    case UnaryOp::Expm1: return each<8, block8<Sleef_expm1f8_u10avx2>>(x, y, n);
    case UnaryOp::Sigmoid: return each<8, block8<sigmoid8>>(x, y, n);
    case UnaryOp::Tanh: return each<8, block8<tanh8>>(x, y, n);
    case UnaryOp::Erf: return each<8, block8<erf8>>(x, y, n);
    case UnaryOp::Sin: return each<8, block8<Sleef_sinf8_u10avx2>>(x, y, n);
    case UnaryOp::Cos: return each<8, block8<Sleef_cosf8_u10avx2>>(x, y, n);
    case UnaryOp::Gelu: return each<8, block8<gelu<f8, exp8_nonpositive>>>(x, y, n);
    case UnaryOp::GeluTanh: return each<8, block8<gelu_tanh<f8, sigmoid8>>>(x, y, n);
    case UnaryOp::Silu: return each<8, block8<silu<f8, sigmoid8>>>(x, y, n);
    default: return;
  }
}

void binary_avx2(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  switch (op) {
    case BinaryOp::GeluBackward:
      return each2<8, block8x2<gelu_grad<f8, exp8_nonpositive>>>(a, b, out, n);
    case BinaryOp::GeluTanhBackward:
      return each2<8, block8x2<gelu_tanh_grad<f8, sigmoid8>>>(a, b, out, n);
    case BinaryOp::SiluBackward: return each2<8, block8x2<silu_grad<f8, sigmoid8>>>(a, b, out, n);
    default: return;
  }
}

}  // namespace torchlet::backend::cpu::vec_math
