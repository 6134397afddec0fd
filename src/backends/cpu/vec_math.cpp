// vec_math's dispatch and its 4-lane functions: SLEEF's SSE2 versions (SSE2 is in every x86-64
// CPU). The 8-lane ones are in vec_math_avx2.cpp.
#include "backends/cpu/vec_math.h"

#include <immintrin.h>
#include <sleef.h>

#include "torchlet/error.h"

namespace torchlet::backend::cpu::vec_math {

namespace {

using f4 = float __attribute__((vector_size(16)));  // vec_math.h's V of 4 lanes

f4 exp4(f4 x) { return Sleef_expf4_u10sse2(x); }
f4 erf4(f4 x) { return erf<f4, exp4>(x); }
f4 tanh4(f4 x) { return tanh<f4, exp4>(x); }

template <auto F>  // a function of one __m128 (SLEEF's return const __m128)
void block4(const float* in, float* out) {
  _mm_storeu_ps(out, F(_mm_loadu_ps(in)));
}

template <auto F>  // a function of two
void block4x2(const float* a, const float* b, float* out) {
  _mm_storeu_ps(out, F(_mm_loadu_ps(a), _mm_loadu_ps(b)));
}

// As vec_math_avx2.cpp's sigmoid8.
f4 sigmoid4(f4 x) {
  const __m128 e = Sleef_expf4_u10sse2(_mm_or_ps(x, _mm_set1_ps(-0.0f)));
  const __m128 one = _mm_set1_ps(1.0f);
  const __m128 positive = _mm_cmpge_ps(x, _mm_setzero_ps());
  const __m128 num = _mm_or_ps(_mm_and_ps(positive, one), _mm_andnot_ps(positive, e));
  return _mm_div_ps(num, _mm_add_ps(one, e));
}

// As vec_math_avx2.cpp's log1p8.
__m128 log1p4(__m128 x) {
  const __m128 y = Sleef_log1pf4_u10sse2(x);
  const __m128 big = _mm_cmpgt_ps(x, _mm_set1_ps(1e30f));
  if (!_mm_movemask_ps(big)) return y;
  return _mm_or_ps(_mm_and_ps(big, Sleef_logf4_u10sse2(x)), _mm_andnot_ps(big, y));
}

}  // namespace

bool vectorised(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp:
    case UnaryOp::Log:
    case UnaryOp::Log1p:
    case UnaryOp::Expm1:
    case UnaryOp::Sigmoid:
    case UnaryOp::Tanh:
    case UnaryOp::Erf:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh:
    case UnaryOp::Silu: return true;
    default: return false;
  }
}

bool vectorised(BinaryOp op) {
  return op == BinaryOp::GeluBackward || op == BinaryOp::GeluTanhBackward ||
         op == BinaryOp::SiluBackward;
}

bool has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

void unary_sse2(UnaryOp op, const float* x, float* y, int64_t n) {
  switch (op) {
    case UnaryOp::Exp: return each<4, block4<Sleef_expf4_u10sse2>>(x, y, n);
    case UnaryOp::Log: return each<4, block4<Sleef_logf4_u35sse2>>(x, y, n);
    case UnaryOp::Log1p: return each<4, block4<log1p4>>(x, y, n);
    case UnaryOp::Expm1: return each<4, block4<Sleef_expm1f4_u10sse2>>(x, y, n);
    case UnaryOp::Sigmoid: return each<4, block4<sigmoid4>>(x, y, n);
    case UnaryOp::Tanh: return each<4, block4<tanh4>>(x, y, n);
    case UnaryOp::Erf: return each<4, block4<erf4>>(x, y, n);
    case UnaryOp::Sin: return each<4, block4<Sleef_sinf4_u10sse2>>(x, y, n);
    case UnaryOp::Cos: return each<4, block4<Sleef_cosf4_u10sse2>>(x, y, n);
    case UnaryOp::Gelu: return each<4, block4<gelu<f4, exp4>>>(x, y, n);
    case UnaryOp::GeluTanh: return each<4, block4<gelu_tanh<f4, sigmoid4>>>(x, y, n);
    case UnaryOp::Silu: return each<4, block4<silu<f4, sigmoid4>>>(x, y, n);
    default: return;
  }
}

void binary_sse2(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  switch (op) {
    case BinaryOp::GeluBackward: return each2<4, block4x2<gelu_grad<f4, exp4>>>(a, b, out, n);
    case BinaryOp::GeluTanhBackward:
      return each2<4, block4x2<gelu_tanh_grad<f4, sigmoid4>>>(a, b, out, n);
    case BinaryOp::SiluBackward: return each2<4, block4x2<silu_grad<f4, sigmoid4>>>(a, b, out, n);
    default: return;
  }
}

void unary(UnaryOp op, const float* x, float* y, int64_t n) {
  TORCHLET_ASSERT(vectorised(op), "vec_math::unary: op ", static_cast<int>(op), " is scalar");
  if (has_avx2_fma())
    unary_avx2(op, x, y, n);
  else
    unary_sse2(op, x, y, n);
}

void binary(BinaryOp op, const float* a, const float* b, float* out, int64_t n) {
  TORCHLET_ASSERT(vectorised(op), "vec_math::binary: op ", static_cast<int>(op), " is scalar");
  if (has_avx2_fma())
    binary_avx2(op, a, b, out, n);
  else
    binary_sse2(op, a, b, out, n);
}

}  // namespace torchlet::backend::cpu::vec_math
